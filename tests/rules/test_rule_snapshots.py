"""Per-rule snapshots (ruff's ``.snap`` files): what each policy example reports, and its cost.

``tests/rules/snapshots/FINnnn.snap`` holds, for every example of ``policies/FINnnn-*.yaml`` in
the policy file's order, the rendered findings (rule, file:line, severity, resource, message)
with their cost as the JSON reporter gives it (monthly and per-run USD, kind, basis,
assumptions), and what the rule could not decide. The example tests check *where* a rule
fires; these show *what it says* and *what it charges*, so a changed message or dollar figure
is one reviewable diff of one rule's file.

After an intended change, regenerate and review the diff like code::

    FINLINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/rules/test_rule_snapshots.py
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from tests.policy_examples import POLICIES, example_filename, run_example

from finlint.engine import Example, Policy
from finlint.result import ScanResult

SNAPSHOT_DIR = Path(__file__).resolve().parent / "snapshots"
REPO = Path(__file__).resolve().parents[2]
UPDATE_ENV = "FINLINT_UPDATE_SNAPSHOTS"
UPDATE_COMMAND = f"{UPDATE_ENV}=1 python -m pytest tests/rules/test_rule_snapshots.py"

SNAPSHOTTED = [p for p in POLICIES if p.examples]


def updating() -> bool:
    return os.environ.get(UPDATE_ENV, "") not in ("", "0")


def snapshot_file(policy: Policy) -> Path:
    return SNAPSHOT_DIR / f"{policy.id}.snap"


def _indented(label: str, value: Any, indent: str) -> list[str]:
    """``label: value`` with ``value`` as JSON; a non-empty mapping or list one item a line."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    first, *rest = text.splitlines()
    return [f"{indent}{label}: {first}", *(indent + line for line in rest)]


def render_finding(finding: dict[str, Any]) -> list[str]:
    where = f"{finding['file']}:{finding['line']}"
    if finding["end_line"] != finding["line"]:
        where += f"-{finding['end_line']}"
    out = [f"- {finding['rule_id']} {finding['rule']} at {where} [{finding['severity']}]"]
    out.append(f"    resource: {finding['resource']}")
    out.append(f"    message: {finding['message']}")
    if "suppressed" in finding:
        justification = finding["suppressed"]["justification"]
        out.append(f"    suppressed: {json.dumps(justification, ensure_ascii=False)}")
    if finding.get("baseline"):
        out.append("    baseline: true")
    cost = finding["cost"]
    if cost is None:
        out.append("    cost: none")
        return out
    out.append(
        f"    cost: {cost['kind']}, monthly_usd {json.dumps(cost['monthly_usd'])},"
        f" per_run_usd {json.dumps(cost['per_run_usd'])}"
    )
    if "reason" in cost:
        out.append(f"    reason: {cost['reason']}")
    out.append(f"    basis: {cost['basis']}")
    out.extend(_indented("assumptions", cost["assumptions"], "    "))
    return out


def render_example(example: Example, result: ScanResult) -> list[str]:
    out = [f"## {example.name}", f"kind: {example.kind}", f"format: {example.format}"]
    out.append(f"file: {example_filename(example)}")
    if example.params:
        out.append(f"params: {json.dumps(example.params, sort_keys=True, ensure_ascii=False)}")
    if example.kind == "fail":
        out.append(f"expected lines: {', '.join(str(n) for n in example.lines)}")
    findings = [f.to_json() for f in result.findings]  # the JSON reporter's finding dicts, in its order
    if not findings:
        out.append("no findings")
    for finding in findings:
        out.extend(render_finding(finding))
    for u in result.undetermined:
        out.append(f"- undetermined {u.rule_id} at {u.file}:{u.line} ({u.resource}): {'; '.join(u.reasons)}")
    return out


def render_policy(policy: Policy, directory: Path) -> str:
    policy_path = Path(policy.path).resolve()
    try:
        shown = policy_path.relative_to(REPO).as_posix()
    except ValueError:
        shown = policy_path.name
    out = [
        f"# {policy.id} {policy.name}: the examples of {shown}, as finlint reports them.",
        f"# Generated; after an intended change run: {UPDATE_COMMAND}",
    ]
    for i, example in enumerate(policy.examples):
        case_dir = directory / f"{i:03d}"
        case_dir.mkdir()
        out.append("")
        out.extend(render_example(example, run_example(policy, example, case_dir)))
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("policy", SNAPSHOTTED, ids=[p.id for p in SNAPSHOTTED])
def test_rule_snapshot(policy: Policy, tmp_path: Path) -> None:
    actual = render_policy(policy, tmp_path)
    target = snapshot_file(policy)
    expected = target.read_text(encoding="utf-8") if target.exists() else None
    if actual == expected:
        return
    if updating():
        SNAPSHOT_DIR.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8", newline="\n") as out:
            out.write(actual)
        return
    shown = target.relative_to(REPO).as_posix()
    if expected is None:
        pytest.fail(f"{shown} does not exist; create it with: {UPDATE_COMMAND}", pytrace=False)
    diff = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile=f"{shown} (snapshot)",
        tofile=f"{shown} (rendered now)",
    )
    pytest.fail(
        f"{policy.id}'s examples no longer render as {shown}:\n{''.join(diff)}\n"
        f"If the change is intended, regenerate with: {UPDATE_COMMAND}\n"
        "and review the snapshot diff like code.",
        pytrace=False,
    )


def test_every_rule_with_examples_has_a_snapshot_and_none_is_orphaned() -> None:
    wanted = {snapshot_file(p).name for p in SNAPSHOTTED}
    present = {p.name for p in SNAPSHOT_DIR.glob("*.snap")} if SNAPSHOT_DIR.is_dir() else set()
    if updating():
        for stale in present - wanted:
            (SNAPSHOT_DIR / stale).unlink()
        present &= wanted
    missing = sorted(wanted - present)
    orphaned = sorted(present - wanted)
    assert not missing, f"rules without a snapshot: {missing}; create them with: {UPDATE_COMMAND}"
    assert not orphaned, f"snapshots of no rule with examples: {orphaned}; run: {UPDATE_COMMAND}"
