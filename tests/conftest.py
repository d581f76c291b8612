"""Shared helpers: run a scan the way the CLI does, on files written to a temp dir."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from finlint.engine import EngineConfig
from finlint.ir import LoadResult
from finlint.rules import load_policies
from finlint.scan import ScanOptions, ScanResult, lint

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The context cache of CLI runs goes to a temp dir, never the user's ~/.cache."""
    import os

    os.environ["FINLINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("finlint-cache"))


@pytest.fixture(scope="session")
def policies() -> list[Any]:
    return load_policies()


def scan_paths(paths: list[Path], select: tuple[str, ...] = (), **engine: Any) -> ScanResult:
    return lint(ScanOptions(paths=paths, engine=EngineConfig(select=select, **engine)))


def scan_files(tmp_path: Path, files: dict[str, str], select: tuple[str, ...] = ()) -> ScanResult:
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return scan_paths([tmp_path], select)


def tf_load(tmp_path: Path, files: dict[str, str]) -> LoadResult:
    """Write ``files`` (dedented) under ``tmp_path`` and load its top-level .tf files as one
    Terraform configuration, paths shown relative to ``tmp_path``."""
    from finlint.loaders.terraform import loader as tf  # only the tests that load Terraform

    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    tf_files = sorted(tmp_path.glob("*.tf"))
    return tf.load_directory(tmp_path, tf_files, lambda p: p.relative_to(tmp_path).as_posix(), {})
