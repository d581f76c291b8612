"""finlint.confine: the roots of a scan, and what resolves inside them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from finlint.confine import OutsideRoot, Roots, inside


def test_a_target_in_a_checkout_has_the_work_tree_as_its_root(tmp_path: Path) -> None:
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    env = tmp_path / "repo" / "envs" / "prod"
    env.mkdir(parents=True)
    roots = Roots.of([env / "main.tf"])
    assert roots.paths == ((tmp_path / "repo").resolve(),)
    assert roots.contains(tmp_path / "repo" / "modules" / "x" / "main.tf")  # ../../modules
    assert not roots.contains(tmp_path / "secret")


def test_without_a_checkout_the_target_folder_is_the_root(tmp_path: Path) -> None:
    (tmp_path / "tree").mkdir()
    roots = Roots.of([tmp_path / "tree"])
    assert roots.contains(tmp_path / "tree" / "a" / "b.yaml")
    assert not roots.contains(tmp_path / "other.yaml")
    assert not roots.contains("/proc/self/environ")
    assert not roots.contains(tmp_path / "tree" / ".." / "other.yaml")


def test_a_symlink_out_of_the_root_is_refused(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "secret").write_text("token")
    os.symlink(tmp_path / "secret", tree / "link.tf")
    roots = Roots.of([tree])
    assert not roots.contains(tree / "link.tf")
    with pytest.raises(OutsideRoot, match="refused to read"):
        roots.check(tree / "link.tf")
    assert roots.check(tree / "a.tf") == (tree / "a.tf").resolve()


def test_nul_bytes_and_loops_never_raise(tmp_path: Path) -> None:
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    roots = Roots.of([tmp_path])
    assert not roots.contains(tmp_path / "x\x00y")
    roots.contains(tmp_path / "a")  # a loop: an answer, no exception
    assert inside(tmp_path / "c", tmp_path)


# --- discovery: a symlinked file found in the tree stays in the tree (issue 24, hole 4) ---------


def _scan_json(tree: Path) -> str:
    from finlint.reporters import ReportContext
    from finlint.reporters.json_report import render
    from finlint.scan import ScanOptions, lint

    return render(lint(ScanOptions(paths=[tree])), ReportContext())


@pytest.mark.parametrize("name", ["launcher.yaml", "request.json", "train.py", "nb.ipynb"])
def test_a_symlinked_file_leading_out_of_the_tree_is_not_read(tmp_path: Path, name: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret"
    secret.write_text("AWSTemplateFormatVersion: [TOKEN-8c1f not closed\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / name).symlink_to(secret)
    report = _scan_json(tree)
    assert "TOKEN-8c1f" not in report
    assert "outside the scanned tree" in report


def test_a_symlink_inside_the_tree_is_read(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "real").mkdir(parents=True)
    (tree / "real" / "t.yaml").write_text("AWSTemplateFormatVersion: [TOKEN-inside not closed\n")
    (tree / "link.yaml").symlink_to(tree / "real" / "t.yaml")
    assert "TOKEN-inside" in _scan_json(tree) or '"errors": [' in _scan_json(tree)
    assert "outside the scanned tree" not in _scan_json(tree)


def test_a_symlinked_file_named_on_the_command_line_is_the_users(tmp_path: Path) -> None:
    from finlint.scan import ScanOptions, lint

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "t.yaml").write_text("AWSTemplateFormatVersion: [x\n")
    (tmp_path / "link.yaml").symlink_to(outside / "t.yaml")
    result = lint(ScanOptions(paths=[tmp_path / "link.yaml"]))
    assert result.errors and not result.notices  # read (and its parse error reported)
