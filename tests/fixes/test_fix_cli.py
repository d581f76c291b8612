"""`finlint fix` on the command line: safe by default, --unsafe-fixes, --diff writes nothing,
--exit-non-zero-on-fix, and a symlink out of the scan root is never followed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main

SDK = """from sagemaker.pytorch import PyTorch

est = PyTorch(entry_point="t.py", instance_type="ml.g5.12xlarge", instance_count=1)  # keep
"""
SBATCH = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\nsrun train.py\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "launch.py").write_text(SDK, encoding="utf-8")
    (tmp_path / "job.sbatch").write_text(SBATCH, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_diff_changes_nothing_and_exits_1(tree: Path) -> None:
    result = CliRunner().invoke(main, ["fix", "--diff", "--unsafe-fixes", "."])
    assert result.exit_code == 1, result.output
    assert "+#SBATCH --time=1-00:00:00" in result.stdout
    assert ", max_run=86400)  # keep" in result.stdout
    assert (tree / "launch.py").read_text("utf-8") == SDK
    assert (tree / "job.sbatch").read_text("utf-8") == SBATCH


def test_safe_by_default_then_unsafe(tree: Path) -> None:
    result = CliRunner().invoke(main, ["fix", "."])
    assert result.exit_code == 0, result.output
    assert "(1 more with --unsafe-fixes)" in result.stderr
    assert (tree / "launch.py").read_text("utf-8") == SDK.replace("count=1)", "count=1, max_run=86400)")
    assert (tree / "job.sbatch").read_text("utf-8") == SBATCH
    result = CliRunner().invoke(main, ["fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "."])
    assert result.exit_code == 1
    assert "#SBATCH --time=1-00:00:00\nsrun" in (tree / "job.sbatch").read_text("utf-8")
    again = CliRunner().invoke(main, ["fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "."])
    assert again.exit_code == 0 and "Fixed 0 finding(s)" in again.stderr


def test_expected_runtime_from_the_usage_file_sets_the_value(tree: Path) -> None:
    (tree / "usage.yml").write_text("defaults:\n  expected_runtime_hours: 10\n", encoding="utf-8")
    result = CliRunner().invoke(
        main, ["fix", "--diff", "--unsafe-fixes", "--usage-file", "usage.yml", "job.sbatch"]
    )
    assert "+#SBATCH --time=0-15:00:00" in result.stdout, result.output


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symlinks")
def test_a_symlink_out_of_the_root_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text(SDK, encoding="utf-8")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "launch.py").symlink_to(outside)
    monkeypatch.chdir(root)
    CliRunner().invoke(main, ["fix", "."])
    assert outside.read_text("utf-8") == SDK
