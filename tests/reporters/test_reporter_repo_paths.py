"""Paths CI understands: SARIF, GitHub annotations, the job summary and GitLab Code Quality name
files relative to the repository root (``GITHUB_WORKSPACE`` / ``CI_PROJECT_DIR``, else the git
root found by walking up for ``.git``), never relative to a ``working-directory:``.

Run through the real command line with the working directory in a subfolder, as a CI step with
``working-directory: infra`` runs it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.reporters.test_reporter_sarif import validate
from tests.samples import P5_NOTEBOOK

from finlint.cli import main
from finlint.reporters.paths import GITHUB, GITLAB, RepoPaths, git_root

IGNORE = ("--ignore", "FIN302")  # counted once with FIN301 on the same notebook
CI_VARS = ("GITHUB_WORKSPACE", "CI_PROJECT_DIR", "GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITLAB_CI")


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in CI_VARS:
        monkeypatch.delenv(name, raising=False)


def make_repo(root: Path, git: str | None = "dir") -> Path:
    """``root/infra/notebook.yaml`` (one FIN301 finding); ``.git`` a directory, a file, or none."""
    (root / "infra").mkdir(parents=True)
    (root / "infra" / "notebook.yaml").write_text(P5_NOTEBOOK, encoding="utf-8")
    if git == "dir":
        (root / ".git").mkdir()
    elif git == "file":  # a worktree or submodule checkout
        (root / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n", encoding="utf-8")
    return root


def scan_in(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[dict[str, Any], list[str]]:
    """``finlint scan . --format sarif -o out.sarif --format github`` run from ``cwd``."""
    monkeypatch.chdir(cwd)
    out = cwd.parent / "out.sarif"  # beside the subfolder, as a CI job writes into the workspace
    result = CliRunner().invoke(
        main, ["scan", ".", "--format", "sarif", "--output", str(out), "--format", "github", *IGNORE, *args]
    )
    assert result.exit_code == 1, result.output
    return json.loads(out.read_text("utf-8")), result.output.splitlines()


def sarif_location(doc: dict[str, Any]) -> tuple[dict[str, Any], str]:
    (run,) = doc["runs"]
    (res,) = [r for r in run["results"] if r["ruleId"] == "FIN301"]
    return res["locations"][0]["physicalLocation"], run["originalUriBaseIds"]["%SRCROOT%"]["uri"]


def annotated_files(lines: list[str]) -> list[str]:
    return [m.group(1) for line in lines if (m := re.match(r"^::\w+ file=([^,]+),", line))]


def test_git_root_when_no_ci_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    doc, lines = scan_in(repo / "infra", monkeypatch)
    loc, srcroot = sarif_location(doc)
    assert loc["artifactLocation"] == {"uri": "infra/notebook.yaml", "uriBaseId": "%SRCROOT%"}
    assert srcroot == repo.resolve().as_uri() + "/"
    assert (repo / loc["artifactLocation"]["uri"]).is_file()  # a file that exists from the root
    assert annotated_files(lines) == ["infra/notebook.yaml"]
    assert "`infra/notebook.yaml:" in summary.read_text("utf-8")  # the job summary agrees


def test_github_workspace_wins_and_a_git_file_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``GITHUB_WORKSPACE`` is the root when set (here above the ``.git`` of a checked-out subrepo)."""
    workspace = tmp_path / "ws"
    make_repo(workspace / "sub", git="file")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(workspace))
    doc, lines = scan_in(workspace / "sub" / "infra", monkeypatch)
    loc, srcroot = sarif_location(doc)
    assert loc["artifactLocation"]["uri"] == "sub/infra/notebook.yaml"
    assert srcroot == workspace.resolve().as_uri() + "/"
    assert annotated_files(lines) == ["sub/infra/notebook.yaml"]
    # without the variable, the `.git` file makes `sub` the root
    monkeypatch.delenv("GITHUB_WORKSPACE")
    doc, lines = scan_in(workspace / "sub" / "infra", monkeypatch)
    assert sarif_location(doc)[0]["artifactLocation"]["uri"] == "infra/notebook.yaml"
    assert annotated_files(lines) == ["infra/notebook.yaml"]


def test_a_file_outside_the_workspace_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path / "another"))
    doc, lines = scan_in(repo / "infra", monkeypatch)
    loc, srcroot = sarif_location(doc)
    # not under the workspace: relative to the git root, given as an absolute URI since
    # %SRCROOT% is the workspace
    assert loc["artifactLocation"] == {"uri": (repo / "infra" / "notebook.yaml").as_uri()}
    assert srcroot == (tmp_path / "another").as_uri() + "/"
    assert annotated_files(lines) == ["infra/notebook.yaml"]
    assert validate(repo / "out.sarif") == []  # absolute and relative URIs, startColumn: valid 2.1.0


def test_no_root_keeps_todays_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo", git=None)
    if git_root(repo) is not None:
        pytest.skip("the temporary directory lies inside a git checkout")
    doc, lines = scan_in(repo / "infra", monkeypatch)
    loc, srcroot = sarif_location(doc)
    assert loc["artifactLocation"] == {"uri": "notebook.yaml", "uriBaseId": "%SRCROOT%"}
    assert srcroot == (repo / "infra").resolve().as_uri() + "/"
    assert annotated_files(lines) == ["notebook.yaml"]


def test_gitlab_uses_the_same_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    monkeypatch.chdir(repo / "infra")

    def path() -> str:
        out = CliRunner().invoke(main, ["scan", ".", "--format", "gitlab", *IGNORE]).output
        (entry,) = json.loads(out)
        return str(entry["location"]["path"])

    assert path() == "infra/notebook.yaml"  # the git root
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    assert path() == "repo/infra/notebook.yaml"  # the project directory when set


def test_symlinked_directories_compare_by_real_path(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "real")
    link = tmp_path / "link"
    link.symlink_to(repo, target_is_directory=True)
    paths = RepoPaths.for_ci(GITHUB, cwd=link / "infra", environ={GITHUB: str(repo)})
    assert paths("notebook.yaml") == "infra/notebook.yaml"
    assert paths("./notebook.yaml") == "infra/notebook.yaml"
    outside = str(tmp_path / "elsewhere.yaml")
    assert paths.locate(outside) == (outside, None)
    assert RepoPaths.for_ci(GITLAB, cwd=repo, environ={})("infra/notebook.yaml") == "infra/notebook.yaml"


def test_the_installed_command_in_a_subfolder(tmp_path: Path) -> None:
    """The console script itself, in a subprocess with a CI environment, as a workflow step runs it."""
    repo = make_repo(tmp_path / "repo")
    env = {k: v for k, v in os.environ.items() if k not in CI_VARS}
    env["GITHUB_WORKSPACE"] = str(repo)
    proc = subprocess.run(
        [sys.executable, "-m", "finlint", "scan", "--format", "github", *IGNORE, "--", "."],
        cwd=repo / "infra",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert annotated_files(proc.stdout.splitlines()) == ["infra/notebook.yaml"]
