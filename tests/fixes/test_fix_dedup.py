"""One edit that resolves several findings (a module's resource in two instances, two rules with
one remedy) is applied once by ``finlint fix``, shown once in the Markdown comment and posted
once by ``finlint suggest``; every finding it resolves is counted and named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.finding import Fix, TextEdit
from finlint.fixes import offer_fixes, plan, reader_for
from finlint.reporters import markdown_fixes
from finlint.review.suggestions import Fixable, to_suggestions, unique
from finlint.scan import ScanOptions, lint

MODULE = """resource "aws_batch_job_definition" "train" {
  name = "llm-train"
  type = "container"
  container_properties = jsonencode({
    image                = "111122223333.dkr.ecr.us-east-1.amazonaws.com/train:latest"
    resourceRequirements = [{ type = "GPU", value = "8" }]
  })
}
"""
ROOT = 'module "a" {\n  source = "./modules/job"\n}\n\nmodule "b" {\n  source = "./modules/job"\n}\n'


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "modules" / "job").mkdir(parents=True)
    (tmp_path / "modules" / "job" / "main.tf").write_text(MODULE, encoding="utf-8")
    (tmp_path / "main.tf").write_text(ROOT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_one_edit_for_two_module_instances_is_applied_once(tree: Path) -> None:
    options = ScanOptions(paths=[tree], display_root=tree)
    findings = [f for f in lint(options).findings if f.rule_id == "FIN101"]
    assert len(findings) == 2
    fixes = plan(findings, reader_for(options), options, unsafe=True)
    assert fixes.rejected == [] and fixes.remaining == 0
    (ff,) = fixes.files
    assert (len(ff.fixes), len(ff.shared), ff.resolved) == (1, 1, 2)
    assert ff.after.count("timeout {") == 1
    result = CliRunner().invoke(main, ["fix", "--unsafe-fixes", "."])
    assert "Fixed 2 finding(s) in 1 file(s)" in result.stderr, result.output
    assert (tree / "modules/job/main.tf").read_text("utf-8").count("attempt_duration_seconds = 86400") == 1


def test_markdown_shows_one_entry_naming_both(tree: Path) -> None:
    options = ScanOptions(paths=[tree], display_root=tree)
    findings = lint(options).findings
    offer_fixes(findings, options)
    text = "\n".join(markdown_fixes.section(findings))
    assert "Suggested fixes (1)" in text
    assert text.count("+  timeout {") == 1
    assert "also resolves **FIN101** `module.b.aws_batch_job_definition.train`" in text


def test_suggest_posts_one_suggestion_per_distinct_edit(tmp_path: Path) -> None:
    (tmp_path / "launch.py").write_text("est = PyTorch(a=1)\n", encoding="utf-8")
    edit = TextEdit("launch.py", 1, 17, 1, 17, ", max_run=86400")
    other = TextEdit("launch.py", 1, 17, 1, 17, ", max_wait=1")
    fixable = [
        Fixable("FIN101", "m", Fix("d", True, (edit,))),
        Fixable("FIN101", "m", Fix("d", True, (edit,))),
        Fixable("FIN202", "m", Fix("d", True, (edit,))),
        Fixable("FIN203", "m", Fix("d", True, (other,))),
    ]
    posted = unique([s for f in fixable for s in to_suggestions(f, tmp_path)])
    assert [(s.rule_id, s.new_lines) for s in posted] == [
        ("FIN101, FIN202", ("est = PyTorch(a=1, max_run=86400)",)),
        ("FIN203", ("est = PyTorch(a=1, max_wait=1)",)),
    ]


def test_a_fix_that_leaves_a_module_instances_finding_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The file linted alone names the resource without ``module.a.``: still the same finding."""
    from dataclasses import replace
    from typing import Any

    from finlint.rules import registry

    def comment_only(finding: Any, text: str, usage: Any) -> Fix:
        return Fix("a comment", True, (TextEdit(finding.file, 1, 0, 1, 0, "# finlint was here\n"),))

    rules = registry().rules
    monkeypatch.setitem(rules, "FIN101", replace(rules["FIN101"], fix=comment_only))  # type: ignore[index]
    options = ScanOptions(paths=[tree], display_root=tree)
    findings = [f for f in lint(options).findings if f.rule_id == "FIN101"]
    fixes = plan(findings, reader_for(options), options, unsafe=True)
    assert fixes.files == []
    assert [why for _, why in fixes.rejected] == [
        "FIN101 still reported after the edit",
        "its edit is another finding's, which was not applied",  # the other instance's same edit
    ]
