"""``finlint diff --fetch`` in a real shallow clone: a bare "origin" under tmp_path, a
``--depth=1 --single-branch`` clone of its feature branch (as CI checks out a merge request),
and a base (``origin/main``, a commit id) the clone lacks.

Without ``--fetch`` nothing is fetched and the error names the fetch; with it finlint runs
``git fetch --no-tags --depth=N origin -- REF`` and compares. Only repositories these tests
create are touched.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.diff import DiffError, fetch_target

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def notebook(name: str) -> str:
    return (
        f"  {name}:\n    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n"
        "      InstanceType: ml.p5.48xlarge\n      RoleArn: arn:aws:iam::111122223333:role/R\n"
    )


def template(*names: str) -> str:
    return 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n' + "".join(map(notebook, names))


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    proc = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return proc.stdout.strip()


class Origin:
    """``origin.git`` with ``main`` (notebooks Old, Kept; two commits deep) and ``feature``
    (from main: Old removed, New added)."""

    def __init__(self, tmp: Path) -> None:
        work = tmp / "work"
        (work / "infra").mkdir(parents=True)
        git(work, "init", "-q", "-b", "main")
        (work / "README.md").write_text("demo\n", encoding="utf-8")
        git(work, "add", ".")
        git(work, "commit", "-q", "-m", "start")
        (work / "infra" / "nb.yaml").write_text(template("Old", "Kept"), encoding="utf-8")
        git(work, "add", ".")
        git(work, "commit", "-q", "-m", "base")
        self.base = git(work, "rev-parse", "HEAD")
        git(work, "checkout", "-q", "-b", "feature")
        (work / "infra" / "nb.yaml").write_text(template("Kept", "New"), encoding="utf-8")
        git(work, "commit", "-q", "-am", "change")
        self.bare = tmp / "origin.git"
        git(tmp, "clone", "-q", "--bare", str(work), str(self.bare))
        self.tmp = tmp

    def clone(self, name: str, *, shallow: bool = True) -> Path:
        """The feature branch alone, as a CI job checks it out."""
        depth = ["--depth=1"] if shallow else []
        target = self.tmp / name
        git(
            self.tmp,
            "clone",
            "-q",
            *depth,
            "--single-branch",
            "--branch",
            "feature",
            self.bare.as_uri(),
            name,
        )
        return target


@pytest.fixture()
def origin(tmp_path: Path) -> Origin:
    return Origin(tmp_path)


def diff(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, Any, str]:
    monkeypatch.chdir(cwd)
    result = CliRunner().invoke(main, ["diff", "--ignore", "FIN302", "--format", "json", *args])
    try:
        doc = json.loads(result.stdout)
    except json.JSONDecodeError:
        doc = None
    return result.exit_code, doc, result.stderr


def new_and_fixed(doc: Any) -> tuple[list[str], list[str]]:
    comp = doc["comparison"]
    new = sorted(f["resource"] for f in doc["findings"] if not f.get("baseline"))
    return new, sorted(f["resource"] for f in comp["fixed"])


def is_shallow(repo: Path) -> bool:
    return git(repo, "rev-parse", "--is-shallow-repository") == "true"


def test_without_fetch_nothing_is_fetched(origin: Origin, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = origin.clone("ci")
    code, _, err = diff(clone, monkeypatch, "origin/main")
    assert code == 2 and "unknown git ref 'origin/main'" in err and "`git fetch origin main`" in err
    code, _, err = diff(clone, monkeypatch, origin.base)
    assert code == 2 and "unknown git ref" in err
    assert "origin/main" not in git(clone, "branch", "-r")  # the clone is as it was


def test_fetch_a_remote_branch_then_compare(origin: Origin, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = origin.clone("ci")
    code, doc, err = diff(clone, monkeypatch, "origin/main", "--fetch")
    assert code == 1, err
    assert new_and_fixed(doc) == (["New"], ["Old"])
    assert doc["comparison"]["unchanged"] == 1
    assert is_shallow(clone)  # fetched at --depth=1: still shallow
    assert git(clone, "worktree", "list").count("\n") == 0  # the temporary worktree is gone


def test_fetch_a_commit_id_and_a_branch_name(origin: Origin, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = origin.clone("ci")
    code, doc, err = diff(clone, monkeypatch, origin.base, "--fetch", "--fetch-depth", "2")
    assert code == 1, err
    assert new_and_fixed(doc) == (["New"], ["Old"])
    other = origin.clone("ci2")
    code, doc, err = diff(other, monkeypatch, "main", "--fetch")  # no local main: FETCH_HEAD
    assert code == 1, err
    assert new_and_fixed(doc) == (["New"], ["Old"])


def test_a_complete_clone_is_not_made_shallow(origin: Origin, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = origin.clone("full", shallow=False)
    assert not is_shallow(clone)
    code, doc, err = diff(clone, monkeypatch, "origin/main", "--fetch")
    assert code == 1, err
    assert new_and_fixed(doc) == (["New"], ["Old"])
    assert not is_shallow(clone)  # no --depth in a complete clone


def test_fetch_failures_and_refused_refs(origin: Origin, monkeypatch: pytest.MonkeyPatch) -> None:
    clone = origin.clone("ci")
    code, _, err = diff(clone, monkeypatch, "origin/no-such-branch", "--fetch")
    assert code == 2 and "git fetch" in err and "no-such-branch" in err
    for ref in ("--upload-pack=touch pwned", "-x"):  # never an option, never run
        code, _, err = diff(clone, monkeypatch, "--fetch", "--", ref)
        assert code == 2 and f"cannot fetch {ref!r}: not a git ref name" in err
    assert not (clone / "pwned").exists()
    for ref in ("main..feature", "a b", "main^", "x:y", "@{-1}", ".hidden", "a/.b", "x.lock"):
        code, _, err = diff(clone, monkeypatch, "--fetch", "--", ref)
        assert code == 2 and f"cannot fetch {ref!r}" in err, (ref, err)


def test_fetch_target() -> None:
    assert fetch_target("origin/main") == "main"
    assert fetch_target("origin/release/1.x") == "release/1.x"
    assert fetch_target("refs/remotes/origin/main") == "refs/heads/main"
    assert fetch_target("main") == "main"
    sha = "a" * 40
    assert fetch_target(sha) == sha
    for bad in (
        "",
        "-x",
        "--end-of-options",
        "a..b",
        "a b",
        "a\tb",
        "a~1",
        "a^",
        "a:b",
        "a?",
        "a*",
        "a[",
        "a\\b",
    ):
        with pytest.raises(DiffError):
            fetch_target(bad)
    for bad in ("@", "a@{1}", "/a", "a/", "a.", "a//b", "a/.b", ".a", "a.lock", "a.lock/b", "a\x7f"):
        with pytest.raises(DiffError):
            fetch_target(bad)


def test_docs_say_what_diff_fetches() -> None:
    """docs/gitlab.md once said `finlint diff` fetches a missing base; now both CI guides say it
    does so only with --fetch, and the GitLab job passes it."""
    import re

    import yaml

    docs = Path(__file__).resolve().parents[2] / "docs"
    gitlab = (docs / "gitlab.md").read_text("utf-8")
    (block,) = re.findall(r"```yaml\n(.*?)```", gitlab, re.S)
    job = yaml.safe_load(block)["finlint"]
    (line,) = [x for x in "\n".join(job["script"]).splitlines() if "finlint diff" in x]
    assert "finlint diff --fetch " in line
    github = (docs / "github-actions.md").read_text("utf-8")
    help_text = CliRunner().invoke(main, ["diff", "--help"]).output
    for text in (" ".join(gitlab.split()), " ".join(github.split())):
        assert "`--fetch`" in text and "--fetch-depth N" in text and "never fetches" in text
        assert "git fetch --no-tags --depth=N origin" in text
    assert "--fetch" in help_text and "--fetch-depth" in help_text
