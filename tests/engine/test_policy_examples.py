"""Every documented example of every rule is a test case (sqlfluff yml cases, ruff mdtest).

A ``fail`` example must fire its rule at exactly the documented line(s); a ``pass`` example
must not fire it. Run one rule's cases with ``pytest -k FIN301``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.policy_examples import CASES, case_id, run_example

from finlint.engine import Example, Policy
from finlint.rules import load_policies


@pytest.mark.parametrize(("policy", "example"), CASES, ids=[case_id(p, e) for p, e in CASES])
def test_example(policy: Policy, example: Example, tmp_path: Path) -> None:
    result = run_example(policy, example, tmp_path)
    if policy.id != "FIN000":
        assert not result.errors, f"example does not load: {result.errors}"
    lines = sorted(f.line for f in result.findings if f.rule_id == policy.id)
    if example.kind == "fail":
        assert lines == sorted(example.lines), [f.message for f in result.findings]
        if example.severity is not None:  # a rule with severity_when documents each case's level
            got = {f.severity for f in result.findings if f.rule_id == policy.id}
            assert got == {example.severity}, got
    else:
        assert lines == [], [f"{f.line}: {f.message}" for f in result.findings]


def test_every_rule_has_bad_and_good_examples() -> None:
    for policy in load_policies():
        kinds = {e.kind for e in policy.examples}
        assert kinds == {"fail", "pass"}, f"{policy.id} needs fail and pass examples"


def test_every_rule_documents_why_and_references() -> None:
    for policy in load_policies():
        for key in ("what", "why", "known_false_positives", "remediation", "references"):
            assert policy.docs.get(key), f"{policy.id} docs lack {key}"
        assert all(str(r).startswith("https://") for r in policy.docs["references"])


def test_policy_file_named_after_id_and_name() -> None:
    for policy in load_policies():
        assert Path(policy.path).name == f"{policy.id}-{policy.name}.yaml"


def test_lazily_parsed_examples_are_the_eagerly_parsed_ones() -> None:
    """The built-in pack's examples are parsed on first use (a scan never reads them): the same
    examples, at the same lines, as parsing each whole file; a file whose split is not certain
    (a top-level key after ``examples:``) is parsed whole."""
    from dataclasses import replace

    from finlint.engine.policy import Examples, builtin_policy_dir, split_examples
    from finlint.rules import load_policy

    for path in sorted(builtin_policy_dir().glob("*.yaml")):
        lazy, eager = load_policy(path, builtin=True), load_policy(path, builtin=False)
        assert isinstance(lazy.examples, Examples) and isinstance(eager.examples, tuple), path.name
        assert tuple(lazy.examples) == eager.examples and lazy == replace(eager, builtin=True), path.name
    text = (builtin_policy_dir() / "FIN101-training-job-missing-max-runtime.yaml").read_text(encoding="utf-8")
    assert split_examples(text + "tags: [late]\n") is None
    assert split_examples(text + "---\n") is None
    head, tail = split_examples(text) or ("", "")
    assert head.count("\n") == tail.count("\n") - text[len(head) :].count("\n") and "examples:" not in head
