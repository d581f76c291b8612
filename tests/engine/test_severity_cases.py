"""Per-case severity (`severity_when`): validated at load time, first known-true case wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from finlint.engine import EngineConfig, PolicyError, run_policies
from finlint.ir import Location, TrainingJob, Unknown
from finlint.ruledocs import rule_markdown, rule_text
from finlint.rules import load_policies, load_policy

POLICY = """\
id: TST204
name: test-cases
severity: medium
severity_when:
{cases}
applies_to: [training_job]
condition:
  is_true: spot
message: "{{address}}"
docs: {{what: w, why: y, known_false_positives: k, remediation: r, references: ["https://example.com"]}}
"""
CASES = """\
  - when: {exists: checkpoint_s3_uri}
    severity: info
  - when: {gt: [instance_count, 8]}
    severity: high"""


def write(tmp_path: Path, cases: str) -> Path:
    path = tmp_path / "TST204-test-cases.yaml"
    path.write_text(POLICY.format(cases=cases))
    return path


def job(**kw: Any) -> TrainingJob:
    return TrainingJob(
        address="j", location=Location("f.json", 1, 2), source_format="sagemaker-api", spot=True, **kw
    )


def severities(tmp_path: Path, jobs: list[TrainingJob], config: EngineConfig | None = None) -> list[str]:
    policy = load_policy(write(tmp_path, CASES), builtin=False)
    return [f.severity for f in run_policies([policy], list(jobs), config or EngineConfig())]


def test_first_matching_case_wins_else_the_default(tmp_path: Path) -> None:
    got = severities(
        tmp_path,
        [
            job(),  # no case: medium
            job(checkpoint_s3_uri="s3://b/c"),  # info
            job(instance_count=16),  # high
            job(instance_count=16, checkpoint_s3_uri="s3://b/c"),  # the first case wins: info
        ],
    )
    assert got == ["medium", "info", "high", "info"]


def test_an_unknown_case_keeps_the_default(tmp_path: Path) -> None:
    assert severities(tmp_path, [job(checkpoint_s3_uri=Unknown("var.ckpt"))]) == ["medium"]


def test_configured_severity_replaces_every_case(tmp_path: Path) -> None:
    config = EngineConfig(severity={"TST204": "low"})
    assert severities(tmp_path, [job(), job(checkpoint_s3_uri="s3://b/c")], config) == ["low", "low"]


@pytest.mark.parametrize(
    ("cases", "error"),
    [
        ("  - when: {exists: checkpoint_s3_uri}\n    severity: urgent", "severity must be one of"),
        ("  - when: {exists: no_such_field}\n    severity: info", "has no field 'no_such_field'"),
        ("  - when: {exists: checkpoint_s3_uri}", "exactly the keys"),
        ("  - when: {exists: checkpoint_s3_uri}\n    severity: info\n    extra: 1", "exactly the keys"),
        ("  {}", "non-empty list"),
        ("  - when: {gt: [instance_count, $nope]}\n    severity: info", "unknown param"),
    ],
)
def test_bad_cases_are_rejected_at_load_time(tmp_path: Path, cases: str, error: str) -> None:
    with pytest.raises(PolicyError) as exc:
        load_policy(write(tmp_path, cases), builtin=False)
    assert error in str(exc.value)
    assert exc.value.line == 4  # points at severity_when


def test_docs_show_each_case() -> None:
    fin204 = next(p for p in load_policies() if p.id == "FIN204")
    assert fin204.severity_label() == "medium/info"
    assert '- info when {"exists": "checkpoint_s3_uri"}' in rule_text(fin204)
    assert "- medium otherwise" in rule_markdown(fin204)
