"""FIN102/FIN204/FIN501/FIN502 cost models, recomputed by hand from the snapshot prices."""

from __future__ import annotations

import math
from typing import Any

import pytest

from finlint import rules
from finlint.cost import price_findings
from finlint.cost.spot import expected_hours_checkpointed
from finlint.cost.usage import parse_usage
from finlint.finding import Finding
from finlint.ir import UNKNOWN, Location, TrainingJob

LOC = Location("train.json", 1, 9)
P4D = 25.2513  # ml.p4d.24xlarge, us-east-1, data/pricing.json
G5_2XL_KEY = "ml.g5.2xlarge"


def job(**kw: Any) -> TrainingJob:
    base: dict[str, Any] = dict(address="TrainJob", location=LOC, source_format="sagemaker-api")
    base.update(kw)
    return TrainingJob(**base)


def cost(rec: TrainingJob, model: str, params: dict[str, Any] | None = None, usage: str = "") -> Any:
    f = Finding("FIN000", "x", "low", "train.json", 1, 1, rec.address, "m", record=rec, params=params or {})
    f.cost_model = model
    price_findings([f], [rec], {"usage": parse_usage(usage, "u.yml")}, rules.registry().cost_models)
    assert f.cost is not None
    return f.cost


def test_excess_runtime_prices_the_hours_beyond_the_guard() -> None:
    rec = job(instance_type="ml.p4d.24xlarge", instance_count=2, max_runtime_s=2_419_200)
    c = cost(rec, "excess-runtime", {"gpu_max_runtime_s": 604_800})
    # 28 days - 7 days = 504 h x 2 x 25.2513
    assert c.per_run_usd == pytest.approx(504 * 2 * P4D)
    assert c.monthly_usd == pytest.approx(504 * 2 * P4D)
    assert c.kind == "exposure" and "504 h" in c.basis
    twice = cost(
        rec, "excess-runtime", {"gpu_max_runtime_s": 604_800}, "defaults:\n  stuck_runs_per_month: 2\n"
    )
    assert twice.monthly_usd == pytest.approx(2 * 504 * 2 * P4D)


def test_excess_runtime_unknown_type_is_not_priced() -> None:
    c = cost(job(instance_type=UNKNOWN, max_runtime_s=2_419_200), "excess-runtime")
    assert c.monthly_usd is None and "instance type" in (c.reason or "")


def test_multi_node_spot_prices_the_checkpointed_overhead() -> None:
    rec = job(instance_type="ml.p4d.24xlarge", instance_count=4, spot=True, max_runtime_s=172_800)
    c = cost(rec, "multi-node-spot", usage="defaults:\n  expected_runtime_hours: 24\n")
    rate = 4 * -math.log(0.75) / 730  # the '>20%' band read literally: 0.00157634/h
    ec = expected_hours_checkpointed(rate, 24.0, 0.25, 10 / 60)
    assert ec == pytest.approx(24 / 0.25 * (1 / rate + 10 / 60) * math.expm1(rate * 0.25))
    assert c.per_run_usd == pytest.approx((ec - 24) * 4 * P4D * 0.4, rel=1e-9)
    assert c.assumptions["wall_clock_overhead_share"] == pytest.approx(ec / 24 - 1)
    assert "FIN201" in c.basis  # the restart-from-zero part is not counted twice


def test_multi_node_spot_eight_nodes_matches_the_field_figure() -> None:
    rec = job(instance_type="ml.p4d.24xlarge", instance_count=8, spot=True, max_runtime_s=172_800)
    usage = "defaults:\n  expected_runtime_hours: 24\n  spot_interruption_rate: 0.133\n"  # the guide's case
    c = cost(rec, "multi-node-spot", usage=usage)
    assert c.assumptions["wall_clock_overhead_share"] == pytest.approx(0.35, abs=0.005)  # field: +35 %
    default = cost(rec, "multi-node-spot", usage="defaults:\n  expected_runtime_hours: 24\n")
    assert default.assumptions["wall_clock_overhead_share"] == pytest.approx(0.000915, rel=0.01)


def test_warm_pool_bills_the_keep_alive_per_job() -> None:
    rec = job(instance_type="ml.p4d.24xlarge", instance_count=2, keep_alive_s=1800, runs_multiplier=3)
    c = cost(rec, "warm-pool", usage="defaults:\n  runs_per_month: 10\n")
    assert c.kind == "waste"
    assert c.per_run_usd == pytest.approx(P4D * 2 * 0.5 * 3)  # 3 tuner jobs per run
    assert c.monthly_usd == pytest.approx(P4D * 2 * 0.5 * 30)  # 10 runs x 3 jobs


def test_warm_pool_keep_alive_is_bounded_by_the_api_range() -> None:
    c = cost(job(instance_type="ml.p4d.24xlarge", keep_alive_s=86_400), "warm-pool")
    assert c.per_run_usd == pytest.approx(P4D * 1.0)  # at most 3,600 s


def test_trainium_saving_is_the_field_share_of_the_on_demand_run() -> None:
    rec = job(instance_type="ml.p4d.24xlarge", instance_count=2, max_runtime_s=259_200)
    c = cost(rec, "trainium", {"trainium_saving": 0.4})
    assert c.kind == "savings"
    assert c.per_run_usd == pytest.approx(P4D * 2 * 72 * 0.4)
    assert "ml.trn1.32xlarge" in c.basis  # the reference price is named
    shorter = cost(rec, "trainium", {"trainium_saving": 0.4}, "defaults:\n  expected_runtime_hours: 10\n")
    assert shorter.per_run_usd == pytest.approx(P4D * 2 * 10 * 0.4)


def test_trainium_rejects_a_share_outside_zero_to_one() -> None:
    rec = job(instance_type="ml.p4d.24xlarge", max_runtime_s=259_200)
    c = cost(rec, "trainium", {"trainium_saving": 4})
    assert c.monthly_usd is None and "between 0 and 1" in (c.reason or "")
