"""The condition language: three-valued logic, refs, params, validation errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from finlint.engine import EngineConfig, PolicyError, run_policies
from finlint.engine.conditions import Env, evaluate
from finlint.ir import UNKNOWN, Location, TrainingJob, Unknown
from finlint.rules import load_policy


def job(**kw: object) -> TrainingJob:
    return TrainingJob(address="j", location=Location("f.json", 1, 9), source_format="sagemaker-api", **kw)  # type: ignore[arg-type]


POLICY = """\
id: TST101
name: test-rule
severity: medium
applies_to: [training_job]
params: {limit: 10}
condition:
  all:
    - is_true: spot
    - missing: checkpoint_s3_uri
at: [spot]
message: "{address} spot={spot} limit={limit}"
docs: {what: w, why: y, known_false_positives: k, remediation: r, references: ["https://example.com"]}
"""


@pytest.fixture()
def policy(tmp_path: Path):  # type: ignore[no-untyped-def]
    path = tmp_path / "TST101-test-rule.yaml"
    path.write_text(POLICY)
    return load_policy(path, builtin=False)


def env(policy, record):  # type: ignore[no-untyped-def]
    return Env(policy, record, dict(policy.params))


def test_all_is_true_only_when_every_part_is_known_true(policy) -> None:  # type: ignore[no-untyped-def]
    cond = policy.condition
    assert evaluate(cond, env(policy, job(spot=True))) is True
    assert evaluate(cond, env(policy, job(spot=True, checkpoint_s3_uri="s3://b/c"))) is False
    assert evaluate(cond, env(policy, job(spot=UNKNOWN))) is None
    assert evaluate(cond, env(policy, job(spot=True, checkpoint_s3_uri=Unknown("ref")))) is None
    # False wins over unknown in `all`
    assert evaluate(cond, env(policy, job(spot=False, checkpoint_s3_uri=Unknown("ref")))) is False


def test_any_not_and_comparisons(policy) -> None:  # type: ignore[no-untyped-def]
    e = env(policy, job(instance_count=4, max_runtime_s=UNKNOWN))
    assert evaluate({"any": [{"gt": ["instance_count", 3]}, {"missing": "max_runtime_s"}]}, e) is True
    assert evaluate({"any": [{"gt": ["instance_count", 5]}, {"missing": "max_runtime_s"}]}, e) is None
    assert evaluate({"not": {"lt": ["instance_count", "$limit"]}}, e) is False
    assert evaluate({"not": {"exists": "max_runtime_s"}}, e) is None
    assert evaluate({"in": ["instance_count", [1, 4]]}, e) is True
    assert evaluate({"matches": ["address", "^j$"]}, e) is True


def test_rule_never_fires_on_unknown(policy) -> None:  # type: ignore[no-untyped-def]
    records = [job(spot=True), job(spot=UNKNOWN), job(spot=True, checkpoint_s3_uri=UNKNOWN)]
    findings = run_policies([policy], records, EngineConfig())
    assert len(findings) == 1
    assert findings[0].message == "j spot=True limit=10"
    assert findings[0].line == 1  # no attr line recorded: the object's first line


def test_finding_points_at_the_attribute_line(policy) -> None:  # type: ignore[no-untyped-def]
    record = job(spot=True, attr_lines={"spot": 7})
    (finding,) = run_policies([policy], [record], EngineConfig())
    assert (finding.line, finding.end_line) == (7, 7)


def test_select_ignore_and_severity_override(policy) -> None:  # type: ignore[no-untyped-def]
    record = job(spot=True)
    assert run_policies([policy], [record], EngineConfig(ignore=("test-rule",))) == []
    assert run_policies([policy], [record], EngineConfig(select=("FIN",))) == []
    assert len(run_policies([policy], [record], EngineConfig(select=("TST1",)))) == 1
    (f,) = run_policies([policy], [record], EngineConfig(severity={"TST101": "info"}))
    assert f.severity == "info"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("severity: medium", "severity: urgent"), "severity must be one of"),
        (("missing: checkpoint_s3_uri", "missing: checkpoint_uri"), "has no field 'checkpoint_uri'"),
        (("is_true: spot", "is_truthy: spot"), "unknown operator 'is_truthy'"),
        (("id: TST101", "id: tst-1"), "must look like FIN101"),
        (("params: {limit: 10}", "params: {limit: 10}\nbogus: 1"), "unknown policy key"),
    ],
)
def test_invalid_policies_are_rejected_with_a_line(
    tmp_path: Path, edit: tuple[str, str], message: str
) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(POLICY.replace(*edit))
    with pytest.raises(PolicyError) as info:
        load_policy(path)
    assert message in str(info.value)
    assert info.value.line >= 1


def test_undecided_checks_are_reported_with_the_reason(policy) -> None:  # type: ignore[no-untyped-def]
    from finlint.engine import Undetermined

    records = [job(spot=True), job(spot=Unknown("args.use_spot has no default")), job(spot=False)]
    undecided: list[Undetermined] = []
    findings = run_policies([policy], records, EngineConfig(), undecided)
    assert len(findings) == 1
    assert [u.reasons for u in undecided] == [("spot: args.use_spot has no default",)]
    assert undecided[0].to_json()["rule_id"] == "TST101"


def test_undetermined_points_at_the_attribute_whose_value_is_unknown(tmp_path: Path) -> None:
    """The line a person edits to make the check decidable: the attribute holding ``var.x``
    (a field the condition reads, or a fact that passed the field's Unknown on), not the
    resource's first line."""
    (tmp_path / "main.tf").write_text(
        'variable "notebook_type" {\n  type = string\n}\n\n'
        'resource "aws_sagemaker_notebook_instance" "nb" {\n'
        '  name          = "research"\n'
        '  role_arn      = "arn:aws:iam::111122223333:role/R"\n'
        "  instance_type = var.notebook_type\n"
        "}\n\n"
        'resource "aws_sagemaker_training_job" "job" {\n'
        '  training_job_name = "t"\n'
        '  role_arn          = "arn:aws:iam::111122223333:role/R"\n'
        "  stopping_condition {\n"
        "    max_runtime_in_seconds = var.max_runtime\n"
        "  }\n"
        "}\n"
    )
    from finlint.scan import ScanOptions, lint

    result = lint(ScanOptions(paths=[tmp_path]))
    lines = {(u.rule_id, u.line) for u in result.undetermined}
    assert ("FIN301", 8) in lines and ("FIN302", 8) in lines  # instance_type = var.notebook_type
    assert all(line != 5 for _, line in lines), lines  # never the resource's first line here
