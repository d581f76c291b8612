"""Paths in findings do not depend on the current directory when a display root is given
(so `finlint diff` scans the base worktree without chdir)."""

from __future__ import annotations

import os
from pathlib import Path

from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[1]


def test_display_root_makes_paths_cwd_independent(tmp_path: Path) -> None:
    demo = (REPO / "fixtures" / "demo").resolve()
    old = os.getcwd()
    try:
        files = []
        for cwd in (REPO, tmp_path):
            os.chdir(cwd)
            result = lint(ScanOptions(paths=[demo], display_root=REPO))
            files.append(sorted({f.file for f in result.findings}))
    finally:
        os.chdir(old)
    assert files[0] == files[1]
    assert all(f.startswith("fixtures/demo/") for f in files[0])
