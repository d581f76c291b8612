"""The fixture trees the golden test covers, and how each is scanned (shared with the update script)."""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from finlint.engine import EngineConfig
from finlint.result import ScanResult
from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "fixtures"
GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def units() -> list[Path]:
    """Each top-level fixture tree (fixtures/<format>/), scanned recursively as a user would."""
    return sorted(p for p in FIXTURES.iterdir() if p.is_dir())


def golden_file(unit: Path) -> Path:
    return GOLDEN_DIR / f"{unit.name}.expected.json"


@contextmanager
def _cwd(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def scan_unit(unit: Path) -> ScanResult:
    """Scan from the repository root so paths in the snapshot are repo-relative."""
    with _cwd(REPO):
        # Helm charts through the tolerant reader: the same snapshot whether or not a renderer
        # (a helm binary, the finlint[helm] extra) is installed; rendering is tested in test_helm.py.
        options = {"helm_renderer": "tolerant"}
        return lint(
            ScanOptions(paths=[unit.relative_to(REPO)], engine=EngineConfig(), loader_options=options)
        )
