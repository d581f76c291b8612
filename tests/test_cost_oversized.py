"""FIN301 oversized p5, recomputed by hand: (p5 price - alternative x factor) x hours."""

from __future__ import annotations

from typing import Any

import pytest

from finlint.cost import price_findings
from finlint.cost.usage import parse_usage
from finlint.finding import Finding
from finlint.ir import ComputePool, Location, Notebook, Record, Requirement, TrainingJob

LOC = Location("x.yaml", 1, 9)


def cost(
    rec: Record, params: dict[str, Any] | None = None, usage: str = "", region: str | None = None
) -> Any:
    f = Finding("FIN301", "oversized-p5", "medium", "x.yaml", 1, 1, rec.address, "m", record=rec)
    f.cost_model, f.params = "oversized-p5", params or {}
    price_findings([f], [rec], {"usage": parse_usage(usage, "u.yml"), "region": region})
    assert f.cost is not None
    return f.cost


def test_job_with_alternative_and_runtime_factor() -> None:
    rec = TrainingJob(
        address="Job", location=LOC, source_format="x", instance_type="ml.p5.48xlarge", instance_count=2
    )
    usage = "defaults:\n  expected_runtime_hours: 10\n  runs_per_month: 8\n"
    c = cost(rec, {"alternative": "p4d.24xlarge", "relative_runtime": 1.5}, usage)
    saving_h = 63.296 - 25.2513 * 1.5  # 25.41905 per instance-hour
    assert c.per_run_usd == pytest.approx(saving_h * 2 * 10, rel=1e-12)  # 508.381
    assert c.monthly_usd == pytest.approx(saving_h * 2 * 10 * 8, rel=1e-12)  # 4,067.048
    assert c.kind == "savings"
    assert "ml.p4d.24xlarge" in c.basis and "x 1.5 relative runtime" in c.basis
    assert "$4,067.05/month" in c.basis


def test_notebook_hours_in_service() -> None:
    c = cost(Notebook(address="NB", location=LOC, source_format="x", instance_type="ml.p5.48xlarge"))
    assert c.monthly_usd == pytest.approx((63.296 - 25.2513) * 730, rel=1e-12)  # 27,772.63
    assert c.per_run_usd is None
    assert "finlint default" in c.basis


def test_static_nodegroup_min_size() -> None:
    pool = ComputePool(
        address="NG", location=LOC, source_format="x", pool_kind="eks-nodegroup",
        instance_types=("p5.48xlarge",), min_size=2, max_size=4,
    )  # fmt: skip
    c = cost(pool, {"alternative": "p4d.24xlarge"})
    assert c.monthly_usd == pytest.approx((55.04 - 21.957642) * 2 * 730, rel=1e-12)  # 48,300.24


def test_karpenter_pool_per_node_month() -> None:
    pool = ComputePool(
        address="NodePool/gpu", location=LOC, source_format="kubernetes", pool_kind="karpenter-nodepool",
        requirements=(Requirement("karpenter.k8s.aws/instance-family", "In", ("p5",)),),
    )  # fmt: skip
    east = cost(pool)
    # admits p5.4xlarge and p5.48xlarge; only p5.48xlarge has a us-east-1 price
    assert east.monthly_usd == pytest.approx((55.04 - 21.957642) * 730, rel=1e-12)  # 24,150.12
    assert "node-month" in east.basis
    west = cost(pool, region="us-west-2")
    # us-west-2 prices p5.4xlarge ($6.88), the cheaper admitted type; default alternative g6e.xlarge
    assert west.monthly_usd == pytest.approx((6.88 - 1.861) * 730, rel=1e-12)  # 3,663.87


def test_unpriced_alternative() -> None:
    rec = Notebook(address="NB", location=LOC, source_format="x", instance_type="ml.p5.48xlarge")
    c = cost(rec, {"alternative": "x9.huge"})
    assert c.monthly_usd is None and c.reason and "ml.x9.huge" in c.reason
