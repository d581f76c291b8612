"""The loader registry is the one list of input formats; everything that depends on it agrees."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint import loaders
from finlint.cli import main
from finlint.loaders import REGISTRY, LoaderSpec, LoaderUnavailable
from finlint.loaders.common import comments
from finlint.rules import load_policies

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]


def test_every_loader_satisfies_its_protocol() -> None:
    required = {
        "document": ("FORMAT", "claims", "load", "finalize"),
        "file": ("FORMAT", "load_file", "finalize"),
        "directory": ("FORMAT", "load_directory", "module_directories", "finalize"),
    }
    for spec in REGISTRY:
        module = spec.load()
        names = required[spec.unit] + (("module_calls", "modules_called") if spec.independent_units else ())
        missing = [name for name in names if not hasattr(module, name)]
        assert not missing, f"{spec.module} lacks {missing}"
        assert spec.format == module.FORMAT


def test_precommit_files_pattern_matches_the_registry() -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    patterns = re.findall(r"^\s*files:\s*(\S+)\s*$", text, flags=re.M)
    assert patterns, "no files: pattern in .pre-commit-hooks.yaml"
    suffixes = loaders.all_suffixes()
    for pattern in patterns:
        rx = re.compile(pattern)
        for suffix in suffixes:
            assert rx.search(f"infra/x{suffix}"), f"{pattern} misses {suffix}"
        assert not rx.search("README.md") and not rx.search("x.txt")


def test_suppression_comment_styles_come_from_the_registry() -> None:
    for spec in REGISTRY:
        for suffix in spec.suffixes:
            if suffix in (".json", ".ipynb"):
                continue  # no comments in JSON; notebooks carry them in their cells (.py rules)
            assert suffix in comments.COMMENT_SUFFIXES, suffix
        for marker in spec.comments:
            assert marker in comments.COMMENT_MARKERS, marker


def test_policy_example_formats_are_registered() -> None:
    known = loaders.example_files()
    for policy in load_policies():
        for example in policy.examples:
            assert example.format in known, f"{policy.id} example {example.name}: {example.format}"


def test_every_package_is_in_the_wheel() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    src = REPO / "src"
    found = {".".join(p.parent.relative_to(src).parts) for p in src.rglob("__init__.py")}
    assert found <= listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"


def test_a_broken_loader_fails_loudly(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Regression (issue 9, bug 3): a loader that cannot be imported used to switch its format
    off silently ("0 findings, exit 0"); now it is exit 2 with the reason."""
    broken = LoaderSpec(
        "kubernetes",
        "finlint.loaders.no_such_module",
        "document",
        (".yaml",),
        ("#",),
        {"kubernetes": "m.yaml"},
    )
    registry = tuple(broken if s.format == "kubernetes" else s for s in REGISTRY)
    monkeypatch.setattr(loaders, "REGISTRY", registry)
    (tmp_path / "pool.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\n", encoding="utf-8")
    with pytest.raises(LoaderUnavailable):
        broken.load()
    result = CliRunner().invoke(main, ["scan", str(tmp_path)])
    assert result.exit_code == 2
    assert "cannot be imported" in result.output and "no_such_module" in result.output
