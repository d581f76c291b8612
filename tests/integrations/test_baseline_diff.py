"""Baselines (keyed by rule, file and resource, not line) and ``finlint diff`` in temporary git repos.

``finlint diff`` creates git worktrees: these tests only ever run it in repositories they
create under tmp_path.
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

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def notebook(name: str, instance_type: str = "ml.p5.48xlarge") -> str:
    return (
        f"  {name}:\n    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n"
        f"      InstanceType: {instance_type}\n      RoleArn: arn:aws:iam::111122223333:role/R\n"
    )


def template(*bodies: str, preamble: str = "") -> str:
    return f'AWSTemplateFormatVersion: "2010-09-09"\n{preamble}Resources:\n' + "".join(bodies)


def invoke(*args: str) -> tuple[int, Any, str]:
    if args and args[0] in ("scan", "diff"):
        # FIN302 (no auto-stop) fires on the same p5 notebooks as FIN301 and prices the same
        # hours (counted once); these tests are about baselines and diffs of FIN301 findings.
        args = (*args, "--ignore", "FIN302")
    result = CliRunner().invoke(main, list(args))
    try:
        doc = json.loads(result.stdout)
    except json.JSONDecodeError:
        doc = result.stdout
    return result.exit_code, doc, result.stderr


def active(doc: Any) -> list[tuple[str, str]]:
    return sorted((f["rule_id"], f["resource"]) for f in doc["findings"] if not f.get("baseline"))


# --- baseline ----------------------------------------------------------------------------------


def test_write_then_use_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    infra = tmp_path / "infra"
    infra.mkdir()
    (infra / "nb.yaml").write_text(template(notebook("A"), notebook("B")), encoding="utf-8")
    code, _, err = invoke("scan", "infra", "--write-baseline", ".finlint-baseline.json", "-o", "report.txt")
    assert code == 0 and "wrote 2 finding(s) to baseline" in err  # writing a baseline never fails the run
    stored = json.loads((tmp_path / ".finlint-baseline.json").read_text("utf-8"))
    assert [(f["rule_id"], f["file"], f["resource"]) for f in stored["findings"]] == [
        ("FIN301", "infra/nb.yaml", "A"),
        ("FIN301", "infra/nb.yaml", "B"),
    ]
    assert all(f["monthly_usd"] > 1000 for f in stored["findings"])

    # unrelated lines move: still known
    moved = template(notebook("A"), notebook("B"), preamble='Description: "moved"\nParameters: {}\n')
    (infra / "nb.yaml").write_text(moved, encoding="utf-8")
    code, doc, _ = invoke("scan", "infra", "--baseline", ".finlint-baseline.json", "--format", "json")
    assert code == 0 and active(doc) == []
    assert doc["summary"]["baseline"] == 2 and doc["summary"]["findings"] == 0
    assert doc["comparison"]["new"] == 0 and doc["comparison"]["unchanged"] == 2

    # a new finding fails the run; a removed one is fixed
    (infra / "nb.yaml").write_text(template(notebook("A"), notebook("C")), encoding="utf-8")
    code, doc, _ = invoke("scan", "infra", "--baseline", ".finlint-baseline.json", "--format", "json")
    assert code == 1 and active(doc) == [("FIN301", "C")]
    assert [f["resource"] for f in doc["comparison"]["fixed"]] == ["B"]


def test_baseline_counts_duplicates(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two known findings on one key excuse two, not three."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "b.json").write_text(
        json.dumps(
            {"finlint_baseline": 1, "findings": [{"rule_id": "FIN301", "file": "nb.yaml", "resource": "A"}]}
        ),
        encoding="utf-8",
    )
    (tmp_path / "nb.yaml").write_text(template(notebook("A"), notebook("B")), encoding="utf-8")
    code, doc, _ = invoke("scan", "nb.yaml", "--baseline", "b.json", "--format", "json")
    assert code == 1 and active(doc) == [("FIN301", "B")]


def test_baseline_paths_are_relative_to_the_baseline_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "nb.yaml").write_text(template(notebook("A")), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert invoke("scan", "infra", "--write-baseline", "ci/base.json", "-o", "ci/out.txt")[0] == 0
    assert (
        json.loads((tmp_path / "ci" / "base.json").read_text("utf-8"))["findings"][0]["file"]
        == "../infra/nb.yaml"
    )
    monkeypatch.chdir(tmp_path / "infra")  # run from elsewhere
    code, doc, _ = invoke("scan", ".", "--baseline", "../ci/base.json", "--format", "json")
    assert code == 0 and active(doc) == []


def test_baseline_from_config_and_bad_baselines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "nb.yaml").write_text(template(notebook("A")), encoding="utf-8")
    (tmp_path / ".finlint.yaml").write_text("baseline: known.json\n", encoding="utf-8")
    assert invoke("scan", "nb.yaml", "--write-baseline", "known.json", "-o", "out.txt")[0] == 0
    assert invoke("scan", "nb.yaml", "-o", "out.txt")[0] == 0  # the configured baseline applies
    (tmp_path / "known.json").write_text("[1, 2]", encoding="utf-8")
    code, _, err = invoke("scan", "nb.yaml", "-o", "out.txt")
    assert code == 2 and "not a finlint baseline" in err
    code, _, err = invoke("scan", "nb.yaml", "--baseline", "missing.json", "-o", "out.txt")
    assert code == 2 and "cannot read baseline" in err


# --- finlint diff ------------------------------------------------------------------------------


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


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / "infra").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "infra" / "nb.yaml").write_text(template(notebook("Old"), notebook("Kept")), encoding="utf-8")
    (root / "README.md").write_text("demo\n", encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    monkeypatch.chdir(root)
    return root


def test_diff_reports_new_fixed_and_cost_change(repo: Path) -> None:
    (repo / "infra" / "nb.yaml").write_text(
        template(
            notebook("Kept"), notebook("Small", "ml.g5.xlarge"), notebook("New"), preamble="Parameters: {}\n"
        ),
        encoding="utf-8",
    )  # Old removed, Kept moved, New added
    code, doc, _ = invoke("diff", "main", "--format", "json")
    assert code == 1  # New fails the run; Kept is known
    assert active(doc) == [("FIN301", "New")]
    comp = doc["comparison"]
    assert comp["against"].startswith("main (") and comp["new"] == 1 and comp["unchanged"] == 1
    assert [f["resource"] for f in comp["fixed"]] == ["Old"]
    assert comp["fixed"][0]["file"] == "infra/nb.yaml"
    assert comp["delta_monthly_usd"] == pytest.approx(0.0, abs=0.01)  # one p5 notebook out, one in
    assert git(repo, "worktree", "list").count("\n") == 0  # the temporary worktree is gone
    assert git(repo, "status", "--porcelain") == "M infra/nb.yaml"  # the checkout is untouched


def test_diff_text_output_shows_new_fixed_and_cost_change(repo: Path) -> None:
    """The README's promise holds in the default text output too (issue 10)."""
    (repo / "infra" / "nb.yaml").write_text(
        template(notebook("Kept"), notebook("Small", "ml.g5.xlarge"), notebook("New")), encoding="utf-8"
    )
    result = CliRunner().invoke(main, ["diff", "main", "--ignore", "FIN302"])
    assert result.exit_code == 1
    out = result.stdout
    assert "1 new, 1 unchanged, 1 fixed; monthly cost change +$0.00/month" in out
    assert "  new:   infra/nb.yaml:" in out and "FIN301 New" in out
    assert "  fixed: infra/nb.yaml:" in out and "FIN301 Old (was $10,873/month)" in out


def test_diff_markdown_and_path_argument(repo: Path) -> None:
    (repo / "infra" / "nb.yaml").write_text(template(notebook("Kept")), encoding="utf-8")
    git(repo, "commit", "-qam", "drop Old")
    (repo / "infra" / "extra.yaml").write_text(template(notebook("New")), encoding="utf-8")
    code, text, _ = invoke("diff", "HEAD~1", "infra", "--format", "markdown")
    assert code == 1
    assert "## finlint: ±$0.00/month against HEAD~1 (" in text  # New and Old cost the same
    assert "1 new (+$" in text and "1 fixed (−$" in text
    assert "### Fixed findings (1)" in text and "`Old`" in text and "`infra/extra.yaml:" in text
    # from a subdirectory, with a new directory absent at the base
    (repo / "new-dir").mkdir()
    (repo / "new-dir" / "nb.yaml").write_text(template(notebook("Fresh")), encoding="utf-8")
    os.chdir(repo / "new-dir")
    code, doc, _ = invoke("diff", "HEAD", ".", "--format", "json")
    assert code == 1 and active(doc) == [("FIN301", "Fresh")] and doc["comparison"]["fixed"] == []


def test_diff_only_new_findings_fail(repo: Path) -> None:
    (repo / "README.md").write_text("changed\n", encoding="utf-8")
    code, doc, _ = invoke("diff", "main", "--format", "json")
    assert code == 0 and active(doc) == [] and doc["comparison"]["unchanged"] == 2


def test_diff_ignores_hook_git_environment(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside a git hook GIT_INDEX_FILE points at the commit's index: the worktree must not use it."""
    monkeypatch.setenv("GIT_INDEX_FILE", str(repo / ".git" / "index.lock-elsewhere"))
    code, doc, _ = invoke("diff", "main", "--format", "json")
    assert code == 0 and doc["comparison"]["unchanged"] == 2


def test_diff_usage_errors(repo: Path, tmp_path: Path) -> None:
    code, _, err = invoke("diff", "no-such-branch")
    assert code == 2 and "unknown git ref 'no-such-branch'" in err
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    os.chdir(outside)
    code, _, err = invoke("diff", "main", ".")
    assert code == 2 and "not inside a git repository" in err


def test_diff_takes_terraform_vars_for_both_trees(repo: Path) -> None:
    """`diff` accepts --var/--var-file like `scan` (issue 10); the same values apply to the base."""
    (repo / "tf").mkdir()
    (repo / "tf" / "main.tf").write_text(
        'variable "itype" {\n  type = string\n}\n\n'
        'resource "aws_sagemaker_notebook_instance" "nb" {\n  name          = "nb"\n'
        '  role_arn      = "arn:aws:iam::111122223333:role/x"\n  instance_type = var.itype\n}\n',
        encoding="utf-8",
    )
    (repo / "prod.tfvars").write_text('itype = "ml.p5.48xlarge"\n', encoding="utf-8")
    code, doc, _ = invoke("diff", "main", "tf", "--format", "json")
    assert code == 0 and not active(doc)  # the type is unknown without the variable
    code, doc, _ = invoke("diff", "main", "tf", "--var-file", "prod.tfvars", "--format", "json")
    assert code == 1 and active(doc) == [("FIN301", "aws_sagemaker_notebook_instance.nb")]
    code, doc, _ = invoke("diff", "main", "tf", "--var", "itype=ml.p5.48xlarge", "--format", "json")
    assert code == 1 and doc["comparison"]["new"] == 1


def test_unknown_ref_hint_fetches_the_branch_not_the_remote_name() -> None:
    """`origin/main` is branch main of origin: `git fetch origin origin/main` would fail."""
    from finlint.diff import fetch_hint

    assert fetch_hint("origin/main") == "`git fetch origin main`"
    assert fetch_hint("origin/release/1.x") == "`git fetch origin release/1.x`"
    assert fetch_hint("a1b2c3d") == "`git fetch origin a1b2c3d`"
