"""Every policy example's fix, applied as `finlint fix --unsafe-fixes` would: a fail example with
``fixed:`` becomes exactly that text (re-linted: the finding is gone, nothing new); a fail example
of a rule with a fix but no ``fixed:`` gets no fix (so an unexpected edit fails here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.policy_examples import CASES, case_id, run_example

from finlint.engine import Example, Policy
from finlint.fixes import plan, reader_for
from finlint.rules import registry
from finlint.scan import ScanOptions
from finlint.textedit import apply_edits

FIXABLE = [(p, e) for p, e in CASES if e.kind == "fail" and registry().rules[p.id].fix is not None]


@pytest.mark.parametrize(("policy", "example"), FIXABLE, ids=[case_id(p, e) for p, e in FIXABLE])
def test_example_fix(policy: Policy, example: Example, tmp_path: Path) -> None:
    result = run_example(policy, example, tmp_path)
    options = ScanOptions(paths=[tmp_path], display_root=tmp_path)
    fixes = plan(result.findings, reader_for(options), options, unsafe=True)
    if example.fixed is None:
        assert fixes.files == [], [ff.diff() for ff in fixes.files]
        return
    assert fixes.rejected == []
    assert len(fixes.files) == 1
    assert fixes.files[0].after == example.fixed
    assert all(f.rule_id == policy.id for f, _ in fixes.files[0].fixes)
    declared = registry().rules[policy.id].fix_safety  # what `finlint rule` says it offers
    for _, fix in fixes.files[0].fixes:
        assert declared == "safe and unsafe" or declared == ("safe" if fix.safe else "unsafe")


def test_rules_say_which_fix_they_have() -> None:
    from finlint.ruledocs import rule_text, rules_page

    policies = {p.id: p for p, _ in CASES}
    assert "## Fix (finlint fix)\nsafe and unsafe: SDK launchers" in rule_text(policies["FIN101"])
    assert "## Fix (finlint fix)\nnone: edit the source by hand" in rule_text(policies["FIN102"])
    page = rules_page(list(policies.values()))
    assert "| high | unsafe | Spot training without a checkpoint (managed spot" in page
    for rule_id, rule in registry().rules.items():  # both ways: a fix says its safety
        assert (rule.fix is None) == (rule.fix_safety is None), rule_id


def test_some_examples_have_fixes() -> None:
    assert sum(1 for _, e in FIXABLE if e.fixed) >= 4


def test_apply_edits_refuses_overlaps_and_out_of_range() -> None:
    from finlint.finding import TextEdit

    text = "ab\ncd\n"
    assert apply_edits(text, [TextEdit("f", 1, 1, 2, 1, "X")]) == "aXd\n"
    assert apply_edits(text, [TextEdit("f", 3, 0, 3, 0, "e\n")]) == "ab\ncd\ne\n"
    with pytest.raises(ValueError):
        apply_edits(text, [TextEdit("f", 1, 0, 1, 2, "x"), TextEdit("f", 1, 1, 2, 0, "y")])
    with pytest.raises(ValueError):
        apply_edits(text, [TextEdit("f", 1, 5, 1, 5, "x")])


def test_inserted_lines_keep_the_files_line_endings() -> None:
    from finlint.textedit import insert_line_after, yaml_add_key

    text = "#!/bin/bash\r\n#SBATCH --nodes=2\r\nsrun x\r\n"
    edit = insert_line_after("f", text, 2, "#SBATCH --time=1:00:00")
    assert (
        apply_edits(text, [edit])
        == "#!/bin/bash\r\n#SBATCH --nodes=2\r\n#SBATCH --time=1:00:00\r\nsrun x\r\n"
    )
    doc = "kind: Job\r\nspec:\r\n  template: {}\r\n"
    yedit = yaml_add_key("f", doc, 1, ("spec",), "activeDeadlineSeconds", "60")
    assert yedit is not None
    assert (
        apply_edits(doc, [yedit]) == "kind: Job\r\nspec:\r\n  activeDeadlineSeconds: 60\r\n  template: {}\r\n"
    )


def test_yaml_in_flow_style_or_with_the_key_is_left_alone() -> None:
    from finlint.textedit import yaml_add_key

    assert yaml_add_key("f", "spec: {a: 1}\n", 1, ("spec",), "k", "1") is None
    assert yaml_add_key("f", "spec:\n  k: 2\n", 1, ("spec",), "k", "1") is None
    assert yaml_add_key("f", "spec: [\n", 1, ("spec",), "k", "1") is None  # does not parse
