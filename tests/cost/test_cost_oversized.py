"""FIN301 oversized p5, recomputed by hand: (p5 price - alternative x factor) x hours."""

from __future__ import annotations

from typing import Any

import pytest

from finlint import rules
from finlint.cost import price_findings
from finlint.cost.usage import parse_usage
from finlint.engine import EngineConfig
from finlint.engine.facts import Evidence
from finlint.finding import Finding
from finlint.ir import ComputePool, Location, Notebook, Record, Requirement, TrainingJob
from finlint.rules import load_policies
from finlint.rules.compute.fin301_oversized_p5 import pool_family_exposure
from finlint.rules.compute.gpu_pools import PoolTypes
from finlint.scan import ScanOptions, lint

LOC = Location("x.yaml", 1, 9)


def fin301_params() -> dict[str, Any]:
    return dict(next(p for p in load_policies() if p.id == "FIN301").params)


def cost(
    rec: Record, params: dict[str, Any] | None = None, usage: str = "", region: str | None = None
) -> Any:
    """Price a finding as the engine hands it over: the policy params plus the facts' evidence."""
    full = {**fin301_params(), **(params or {})}
    f = Finding("FIN301", "oversized-p5", "medium", "x.yaml", 1, 1, rec.address, "m", record=rec)
    f.cost_model, f.params = "oversized-p5", full
    exposure = pool_family_exposure(rec, full["families"])
    f.evidence = (exposure.data,) if isinstance(exposure, Evidence) and exposure.data is not None else ()
    price_findings(
        [f], [rec], {"usage": parse_usage(usage, "u.yml"), "region": region}, rules.registry().cost_models
    )
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
    # the policy prices notebooks against notebook_alternative ml.g5.2xlarge ($1.52/h), for the
    # 176 active hours (usage active_hours_per_month); the idle rest is FIN302's waste
    assert c.monthly_usd == pytest.approx((63.296 - 1.52) * 176, rel=1e-12)  # 10,872.58
    assert "176 active h per month" in c.basis
    assert c.per_run_usd is None
    assert "policy param" in c.basis


def test_static_nodegroup_min_size() -> None:
    pool = ComputePool(
        address="NG", location=LOC, source_format="x", pool_kind="eks-nodegroup",
        instance_types=("p5.48xlarge",), min_size=2, max_size=4,
    )  # fmt: skip
    c = cost(pool, {"alternative": "p4d.24xlarge"})
    assert c.monthly_usd == pytest.approx((55.04 - 21.957642) * 2 * 730, rel=1e-12)  # 48,300.24


def test_elastic_karpenter_pool_is_a_risk_ceiling_not_a_saving() -> None:
    pool = ComputePool(
        address="NodePool/gpu", location=LOC, source_format="kubernetes", pool_kind="karpenter-nodepool",
        requirements=(Requirement("karpenter.k8s.aws/instance-family", "In", ("p5",)),),
    )  # fmt: skip
    east = cost(pool)
    # admits p5.4xlarge and p5.48xlarge, both priced in us-east-1 (p5.4xlarge $6.88 from the
    # regional instances.vantage.sh block): the dearest, p5.48xlarge, is the ceiling; no gap
    assert east.kind == "exposure" and east.assumptions["ceiling"] is True
    assert east.monthly_usd == pytest.approx(55.04 * 730, rel=1e-12)  # 40,179.20 per node-month
    assert "Exposure, not a saving" in east.basis and "per node-month" in east.basis
    assert "gap" not in east.basis
    gap = cost(pool, region="eu-west-1")  # p5 is not sold in eu-west-1: us-east-1's, and it says so
    assert gap.monthly_usd == pytest.approx(55.04 * 730, rel=1e-12)
    assert "us-east-1 price used for eu-west-1" in gap.basis
    west = cost(pool, region="us-west-2")
    # us-west-2 prices both: the dearest, p5.48xlarge, is what one more node may bill; no gap
    assert west.monthly_usd == pytest.approx(55.04 * 730, rel=1e-12)
    assert "gap" not in west.basis


def test_tuner_per_run_is_per_tuning_run() -> None:
    rec = TrainingJob(
        address="Job", location=LOC, source_format="x", instance_type="ml.p5.48xlarge", runs_multiplier=4,
        max_runtime_s=3600,
    )  # fmt: skip
    c = cost(rec, {"alternative": "p4d.24xlarge"}, "defaults:\n  runs_per_month: 3\n")
    saving_h = 63.296 - 25.2513 / 0.6  # 21.2105: the p4d run takes 1/0.6 as long (stated default)
    assert c.per_run_usd == pytest.approx(saving_h * 1 * 1 * 4, rel=1e-12)  # 84.842 per tuning run
    assert c.monthly_usd == pytest.approx(saving_h * 4 * 3, rel=1e-12)
    assert "4 jobs per tuning run" in c.basis


def test_a_jobs_relative_runtime_is_the_guides_measured_ratio_stated() -> None:
    """issue 26: 1.0 contradicted its own citation; a job's default is the field guide's one
    measured GPU-to-GPU ratio (A100 vs A10, 40 % faster measured: 1/0.6 = 1.67x as long), stated."""
    rec = TrainingJob(
        address="Job", location=LOC, source_format="x", instance_type="ml.p5.48xlarge", max_runtime_s=3600
    )
    c = cost(rec, {"alternative": "p4d.24xlarge"})
    assert c.assumptions["relative_runtime"] == pytest.approx(1 / 0.6)
    assert "assumed 1.67" in c.basis and "field guide" in c.basis and "set relative_runtime" in c.basis
    assert c.monthly_usd == pytest.approx(63.296 - 25.2513 / 0.6)  # $21.21 for one job-hour
    nb = Notebook(address="NB", location=LOC, source_format="x", instance_type="ml.p5.48xlarge")
    assert cost(nb, {"alternative": "g5.2xlarge"}).assumptions["relative_runtime"] == 1.0
    assert "assumed" not in cost(rec, {"alternative": "p4d.24xlarge", "relative_runtime": 1.5}).basis


def test_scan_and_cost_agree_on_the_same_pools() -> None:
    """FIN301 and `finlint cost` price a pool with one model (cost.pools)."""
    import json

    from click.testing import CliRunner

    from finlint.cli import main

    scan = json.loads(CliRunner().invoke(main, ["scan", "fixtures/demo", "--format", "json"]).output)
    table = json.loads(CliRunner().invoke(main, ["cost", "fixtures/demo", "--format", "json"]).output)
    fin301 = {f["resource"]: f["cost"] for f in scan["findings"] if f["rule_id"] == "FIN301"}
    items = {i["resource"]: i for i in table["resources"]}
    elastic, static = "NodePool/gpu-training", "aws_eks_node_group.h100"
    assert items[elastic]["monthly_usd"] == 0.0  # bills nothing until it scales
    assert fin301[elastic]["kind"] == "exposure"
    # one ceiling per pool (issue 26): the dearest priced accelerated type it admits, p6-b200.48xlarge
    # ($113.9328 x 730), whichever rule reports it
    assert fin301[elastic]["monthly_usd"] == 83170.94
    assert items[elastic]["ceiling_per_node_month_usd"] == 83170.94
    assert fin301[static]["kind"] == "savings"
    assert fin301[static]["monthly_usd"] <= items[static]["monthly_usd"]  # 24,150.12 <= 40,179.20
    assert fin301[static]["assumptions"]["hourly_usd"] == items[static]["unit_price"]["usd"]


def test_unpriced_alternative() -> None:
    rec = Notebook(address="NB", location=LOC, source_format="x", instance_type="ml.p5.48xlarge")
    c = cost(rec, {"notebook_alternative": "x9.huge"})
    assert c.monthly_usd is None and c.reason and "ml.x9.huge" in c.reason


def test_cost_follows_the_families_param() -> None:
    """Regression (issue 9): with families [p4d] a p4d pool fires and its cost prices the p4d type."""
    pool = ComputePool(
        address="NG", location=LOC, source_format="x", pool_kind="eks-nodegroup",
        instance_types=("p4d.24xlarge",), min_size=1,
    )  # fmt: skip
    c = cost(pool, {"families": ["p4d"], "alternative": {"p4d.24xlarge": "g6e.12xlarge"}})
    assert c.monthly_usd is not None, c.reason
    assert c.assumptions["instance_type"] == "p4d.24xlarge"
    assert "p5 instance types are unresolved" not in c.basis


def test_cost_without_an_alternative_says_which_param() -> None:
    pool = ComputePool(
        address="NG", location=LOC, source_format="x", pool_kind="eks-nodegroup",
        instance_types=("p4d.24xlarge",), min_size=1,
    )  # fmt: skip
    c = cost(pool, {"families": ["p4d"]})
    assert c.monthly_usd is None and "policy param 'alternative'" in (c.reason or "")


def test_scan_with_families_param_prices_the_configured_family(tmp_path: Any) -> None:
    """End to end through the engine: the finding's cost reads the evidence, not p5 constants."""
    (tmp_path / "ng.yaml").write_text(
        "Resources:\n  Ng:\n    Type: AWS::EKS::Nodegroup\n    Properties:\n"
        "      InstanceTypes: [p4d.24xlarge]\n"
        "      ScalingConfig: {MinSize: 1, DesiredSize: 1, MaxSize: 2}\n",
        encoding="utf-8",
    )
    params = {"FIN301": {"families": ["p4d"], "alternative": {"p4d.24xlarge": "g6e.12xlarge"}}}
    result = lint(ScanOptions(paths=[tmp_path], engine=EngineConfig(select=("FIN301",), params=params)))
    (finding,) = result.findings
    assert "p4d" in finding.message and "p5" not in finding.message
    found = finding.evidence_of(PoolTypes)
    assert found is not None and found.types == ("p4d.24xlarge",) and found.always_on == 1
    assert finding.cost is not None and finding.cost.monthly_usd, finding.cost
    assert finding.cost.assumptions["alternative"] == "g6e.12xlarge"
