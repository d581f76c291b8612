"""FIN201/FIN202 spot restarts, recomputed by hand from (e^(L*T) - 1)/L and (T/c)(e^(L*c) - 1)/L."""

from __future__ import annotations

import math
from typing import Any

import pytest

from finlint.cost import price_findings
from finlint.cost.usage import parse_usage
from finlint.finding import Finding
from finlint.ir import Location, TrainingJob

LOC = Location("train.yaml", 1, 9)
SPOT_P5 = 63.296 * (1 - 0.6)  # ml.p5.48xlarge On-Demand x (1 - default 60 % discount) = 25.3184


def job(**kw: Any) -> TrainingJob:
    base: dict[str, Any] = dict(
        address="SpotJob",
        location=LOC,
        source_format="sagemaker-api",
        instance_type="ml.p5.48xlarge",
        instance_count=4,
        spot=True,
        max_runtime_s=86400,
        max_wait_s=172800,
    )
    base.update(kw)
    return TrainingJob(**base)


def cost(rec: TrainingJob, usage: str = "", model: str = "spot-restart") -> Any:
    f = Finding("FIN201", model, "high", "train.yaml", 1, 1, rec.address, "m", record=rec)
    f.cost_model = model
    price_findings([f], [rec], {"usage": parse_usage(usage, "u.yml")})
    assert f.cost is not None
    return f.cost


USAGE = (
    "defaults:\n  spot_interruption_rate: 0.05\n  expected_runtime_hours: 10\n"
    "  checkpoint_interval_minutes: 30\n"
)


def test_poisson_restart_from_zero_vs_checkpoints() -> None:
    c = cost(job(), USAGE)
    # L = 4 x 0.05 = 0.2/h; T = 10 h; c = 0.5 h
    e0 = (math.e**2 - 1) / 0.2  # 31.945280...
    ec = (10 / 0.5) * (math.e**0.1 - 1) / 0.2  # 10.517092...
    assert e0 == pytest.approx(31.94528, abs=1e-5)
    assert ec == pytest.approx(10.517092, abs=1e-6)
    per_run = (e0 - ec) * 4 * SPOT_P5  # about 2,170.11
    assert c.per_run_usd == pytest.approx(per_run, rel=1e-9)
    assert c.monthly_usd == pytest.approx(per_run * 1, rel=1e-9)
    assert c.kind == "risk"
    assert "31.9453 h" in c.basis and "10.5171 h" in c.basis and "$25.3184/h" in c.basis
    assert c.assumptions["job_interruption_rate_per_hour"] == pytest.approx(0.2)


def test_capped_by_max_wait() -> None:
    c = cost(job(max_wait_s=20 * 3600), USAGE)
    ec = 20 * (math.e**0.1 - 1) / 0.2
    assert c.per_run_usd == pytest.approx((20 - ec) * 4 * SPOT_P5, rel=1e-9)  # 9.4829 h extra
    assert "ends unfinished" in c.basis


def test_runs_per_month_and_tuner_multiplier() -> None:
    c = cost(job(runs_multiplier=5), USAGE + "  runs_per_month: 2\n")
    e0 = (math.e**2 - 1) / 0.2
    ec = 20 * (math.e**0.1 - 1) / 0.2
    assert c.monthly_usd == pytest.approx((e0 - ec) * 4 * SPOT_P5 * 2 * 5, rel=1e-9)


def test_default_band_rate_is_a_lower_bound() -> None:
    c = cost(job(instance_count=1))
    lam = math.log(1 / 0.8) / 730  # '>20%' band, 20 % monthly share: 0.000305676/h
    assert c.assumptions["interruptions_per_instance_hour"] == pytest.approx(lam, rel=1e-12)
    t = 24.0  # runs to its 86,400 s cap
    e0 = (math.exp(lam * t) - 1) / lam
    ec = (t / 0.25) * (math.exp(lam * 0.25) - 1) / lam
    assert c.per_run_usd == pytest.approx((e0 - ec) * 1 * SPOT_P5, rel=1e-9)
    assert ">20%" in c.basis


def test_local_path_variant_prices_the_same_exposure() -> None:
    a = cost(job(), USAGE)
    b = cost(job(), USAGE, model="spot-restart-local-path")
    assert b.monthly_usd == a.monthly_usd
    assert "local path" in b.basis and "condition" in b.assumptions


def test_spot_discount_from_usage_per_resource_glob() -> None:
    usage = USAGE + "resources:\n  'Spot*':\n    spot_discount: 0.7\n"
    c = cost(job(), usage)
    e0 = (math.e**2 - 1) / 0.2
    ec = 20 * (math.e**0.1 - 1) / 0.2
    assert c.per_run_usd == pytest.approx((e0 - ec) * 4 * 63.296 * 0.3, rel=1e-9)


def test_unpriced_type() -> None:
    c = cost(job(instance_type="ml.trn1n.32xlarge"), USAGE)
    assert c.monthly_usd is None and c.reason and "ml.trn1n.32xlarge" in c.reason


def test_default_runtime_is_not_capped_by_itself() -> None:
    """max_wait == max_run (common) with T defaulting to that cap: both runs would end together."""
    c = cost(job(instance_count=8, max_wait_s=86400))
    lam = 8 * math.log(1 / 0.8) / 730
    e0 = (math.exp(lam * 24) - 1) / lam
    ec = 96 * (math.exp(lam * 0.25) - 1) / lam
    assert c.per_run_usd == pytest.approx((e0 - ec) * 8 * SPOT_P5, rel=1e-9)
    assert c.per_run_usd > 0 and "uncapped" in c.basis
