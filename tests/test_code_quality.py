"""The house rules CI enforces: ruff (lint and format) and mypy (settings in pyproject.toml) stay clean."""

from __future__ import annotations

import subprocess
import sys

import pytest
from tests.conftest import REPO


@pytest.mark.parametrize(
    "cmd",
    [
        [sys.executable, "-m", "ruff", "check", "src", "tests"],
        [sys.executable, "-m", "ruff", "format", "--check", "src", "tests", "bench", "scripts"],
        [sys.executable, "-m", "mypy"],
    ],
    ids=["ruff", "ruff-format", "mypy"],
)
def test_linters_are_clean(cmd: list[str]) -> None:
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_no_module_grows_past_600_lines() -> None:
    """Small modules that explain themselves: a module past ~600 lines splits along its seams."""
    big = {
        str(p.relative_to(REPO)): n
        for p in (REPO / "src" / "finlint").rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 620
    }
    assert not big, f"split these modules: {big}"
