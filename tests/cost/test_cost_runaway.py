"""FIN101 runaway runtime, recomputed by hand: hourly price x instances x (cap - expected) hours."""

from __future__ import annotations

from typing import Any

from finlint import rules
from finlint.cost import price_findings
from finlint.cost.usage import parse_usage
from finlint.finding import Finding
from finlint.ir import UNKNOWN, Location, TrainingJob

LOC = Location("train.yaml", 1, 9)


def job(**kw: Any) -> TrainingJob:
    base: dict[str, Any] = dict(address="TrainJob", location=LOC, source_format="sagemaker-api")
    base.update(kw)
    return TrainingJob(**base)


def cost(rec: TrainingJob, usage: str = "") -> Any:
    f = Finding("FIN101", "runaway-runtime", "high", "train.yaml", 1, 1, rec.address, "m", record=rec)
    f.cost_model = "runaway-runtime"
    price_findings([f], [rec], {"usage": parse_usage(usage, "u.yml")}, rules.registry().cost_models)
    assert f.cost is not None
    return f.cost


def test_default_cap_sagemaker() -> None:
    c = cost(job(instance_type="ml.p4d.24xlarge", instance_count=2, max_runtime_default_s=86400))
    assert c.per_run_usd == 25.2513 * 2 * 24  # 1,212.0624
    assert c.monthly_usd == 25.2513 * 2 * 24 * 1
    assert c.kind == "exposure"
    assert "$25.2513/h" in c.basis and "2 instance(s)" in c.basis and "24 h" in c.basis
    assert "$1,212.06" in c.basis
    assert c.assumptions["cap_hours"] == 24


def test_expected_runtime_and_stuck_runs_from_usage() -> None:
    usage = "defaults:\n  expected_runtime_hours: 6\n  stuck_runs_per_month: 3\n"
    c = cost(job(instance_type="ml.p4d.24xlarge", instance_count=2, max_runtime_default_s=86400), usage)
    assert c.per_run_usd == 25.2513 * 2 * (24 - 6)  # 909.0468
    assert c.monthly_usd == 25.2513 * 2 * 18 * 3
    assert "(24 h cap - 6 h expected runtime)" in c.basis


def test_explicit_long_cap_ec2_price() -> None:
    c = cost(job(instance_type="p5.48xlarge", max_runtime_s=10 * 86400, max_runtime_default_s=86400))
    assert c.per_run_usd == 55.04 * 1 * 240  # 13,209.60
    assert "explicit" in c.basis


def test_unpriceable() -> None:
    missing = cost(job(instance_type="ml.p5en.48xlarge", max_runtime_default_s=86400))
    assert missing.monthly_usd is None and missing.per_run_usd is None
    assert missing.reason and "ml.p5en.48xlarge" in missing.reason
    unknown = cost(job(instance_type=UNKNOWN, max_runtime_default_s=86400))
    assert unknown.monthly_usd is None and unknown.reason
    invalid = cost(job(instance_type="ml.p4d.24xlarge", max_runtime_default_s=None))
    assert invalid.monthly_usd is None and invalid.reason and "cap" in invalid.reason


def test_stuck_spot_job_bills_the_spot_rate() -> None:
    """A stuck managed-spot job bills spot prices: On-Demand x (1 - spot_discount), as FIN201 does."""
    c = cost(job(instance_type="ml.p4d.24xlarge", instance_count=2, spot=True, max_runtime_default_s=86400))
    assert c.per_run_usd == 25.2513 * 0.4 * 2 * 24  # $10.10052/h x 2 x 24 h = 484.82496
    assert "$484.82" in c.basis and "managed spot $10.10052/h" in c.basis
    assert c.assumptions["billed_hourly_usd"] == 25.2513 * 0.4
    c70 = cost(
        job(instance_type="ml.p4d.24xlarge", spot=True, max_runtime_default_s=86400),
        "defaults:\n  spot_discount: 0.7\n",
    )
    assert c70.per_run_usd == 25.2513 * (1 - 0.7) * 24  # 181.80936


def test_absurd_inputs_are_unknown_with_the_reason() -> None:
    """issue 10: 1e308 instances or a cap beyond the API's 28 days is unknown, never a figure."""
    for count in (10**6, 1e308, 10**400):
        c = cost(job(instance_type="ml.p4d.24xlarge", instance_count=count, max_runtime_default_s=86400))
        assert c.monthly_usd is None and c.reason and "instance count" in c.reason
    c = cost(job(instance_type="ml.p4d.24xlarge", max_runtime_s=10**12))
    assert c.monthly_usd is None and c.reason and "2,419,200" in c.reason
