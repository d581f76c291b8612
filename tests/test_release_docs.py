"""Install and release: the distribution name, the pins every snippet shows, the build metadata.

No release is tagged yet (CONTRIBUTING.md "Releasing"), so each finlint snippet pins one commit
SHA of this repository, and no doc may tell users to install PyPI's unrelated `finlint`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
DISTRIBUTION = "finlint-aws"
DOCS = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "action.yml", REPO / ".pre-commit-hooks.yaml"]
DOCS += sorted((REPO / "docs").glob("*.md"))
SNIPPETS = [REPO / "README.md", REPO / "docs" / "github-actions.md", REPO / ".pre-commit-hooks.yaml"]
PIN = re.compile(r"(?:finlint/finlint@|^\W*rev:\s*)([0-9A-Za-z._-]+)", re.M)


def test_distribution_name_is_ours() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    assert project["name"] == DISTRIBUTION
    assert project["scripts"] == {"finlint": "finlint.cli:main"}  # the command stays finlint


def test_no_doc_installs_the_other_finlint() -> None:
    """`pip install finlint` (any flags, extras included) installs a stranger's package."""
    bad = re.compile(r"pip\s+install\b[^\n`&;|#]*?(?<![\w./-])['\"]?finlint(?![\w-])")
    for path in DOCS:
        for n, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            assert not bad.search(line), f"{path.name}:{n}: {line.strip()}"
    assert re.search(r"pip install .*finlint-aws", (REPO / "docs" / "gitlab.md").read_text("utf-8"))


def test_the_no_doc_check_can_fail() -> None:
    bad = re.compile(r"pip\s+install\b[^\n`&;|#]*?(?<![\w./-])['\"]?finlint(?![\w-])")
    assert bad.search("pip install --quiet finlint") and bad.search("pip install 'finlint[helm]'")
    assert not bad.search("pip install finlint-aws") and not bad.search("pip install -e '.[test]'")


def _pins() -> list[tuple[str, str]]:
    return [(p.name, pin) for p in SNIPPETS for pin in PIN.findall(p.read_text("utf-8"))]


def test_snippets_pin_one_commit_sha_of_this_repository() -> None:
    pins = _pins()
    assert len(pins) >= 4, pins  # README: rev + Action; docs: Action; hooks file: rev
    for name, pin in pins:
        assert re.fullmatch(r"[0-9a-f]{40}", pin), f"{name}: {pin} is not a commit SHA (no tag exists yet)"
    assert len({pin for _, pin in pins}) == 1, pins
    git = shutil.which("git")
    if git is None or not (REPO / ".git").exists():
        pytest.skip("no git checkout: the SHA's existence is not checked")
    (sha,) = {pin for _, pin in pins}
    proc = subprocess.run(
        [git, "cat-file", "-e", f"{sha}^{{commit}}"], cwd=REPO, capture_output=True, timeout=30
    )
    if (
        proc.returncode != 0
        and subprocess.run(
            [git, "rev-parse", "--is-shallow-repository"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
        == "true"
    ):
        pytest.skip("shallow clone: the pinned commit may be outside it")
    assert proc.returncode == 0, f"{sha} is not a commit of this repository"


def test_repository_location_is_said_once() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    assert readme.count("finlint lives at <https://github.com/finlint/finlint>") == 1


THIRD_PARTY = re.compile(r"uses:\s*((?!finlint/|\./)[\w.-]+/[\w./-]+)@(\S+)(.*)")


def test_third_party_actions_are_pinned_by_sha_with_their_tag() -> None:
    seen = set()
    for path in [REPO / "action.yml", REPO / "README.md", REPO / "docs" / "github-actions.md"]:
        for name, ref, rest in THIRD_PARTY.findall(path.read_text("utf-8")):
            assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{path.name}: {name}@{ref} is not a SHA"
            assert re.match(r"\s*# v\d+\.\d+\.\d+\b", rest), f"{path.name}: {name} has no version comment"
            seen.add(name)
    assert {"actions/checkout", "actions/setup-python", "github/codeql-action/upload-sarif"} <= seen
    for old in ("actions/checkout@v4", "actions/setup-python@v5", "codeql-action/upload-sarif@v3"):
        assert all(old not in p.read_text("utf-8") for p in DOCS), old


def test_license_is_an_spdx_string_and_the_build_backend_is_bounded() -> None:
    data = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))
    assert data["project"]["license"] == "Apache-2.0"
    assert all((REPO / f).is_file() for f in data["project"]["license-files"])
    (setuptools,) = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    assert re.fullmatch(r"setuptools>=7[7-9][\d.]*,<\d+", setuptools), setuptools


def test_ci_runs_the_actions_default_python() -> None:
    default = yaml_default_python()
    loop = re.search(r"^for version in ([\d. ]+);", (REPO / ".ci" / "run").read_text("utf-8"), re.M)
    assert loop and default in loop.group(1).split()


def yaml_default_python() -> str:
    import yaml

    action = yaml.safe_load((REPO / "action.yml").read_text("utf-8"))
    return str(action["inputs"]["python-version"]["default"])


def test_release_procedure_describes_both_tags_and_the_switch() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text("utf-8")
    assert "## Releasing" in text
    assert "git tag -a v0.1.0" in text and "git tag -f v0" in text
    assert "finlint-aws" in text and "action-constraints.txt" in text and "SHA pins" in text
