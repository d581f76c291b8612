"""Issue 26's done-when checks: briefs, the demo's bills, one pool ceiling, EFS baseline, warm pools,
and price provenance that names what each source is."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest
from tests.conftest import scan_paths

from finlint.cost.breakdown import build_breakdown
from finlint.cost.common import BRIEF_MAX, brief_text
from finlint.cost.efs import baseline_mibps, provisioned_charge
from finlint.cost.pricing import load_pricing
from finlint.cost.totals import resource_of, totals

REPO = Path(__file__).resolve().parents[2]
TREES = sorted(p for p in (REPO / "fixtures").iterdir() if p.is_dir())
DEMO = REPO / "fixtures" / "demo"


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_every_priced_finding_has_a_short_brief(tree: Path) -> None:
    for f in scan_paths([tree]).findings:
        if f.cost is None:
            continue
        assert len(f.cost.brief) <= BRIEF_MAX, (f.rule_id, f.cost.brief)
        if f.cost.monthly_usd is not None:
            assert f.cost.brief, (f.rule_id, f.resource)
        elif f.cost.reason:
            # the reason alone: the report labels the line "not priced" itself
            assert f.cost.brief == brief_text(f.cost.reason), (f.rule_id, f.cost.brief)
            assert not f.cost.brief.startswith("not priced"), (f.rule_id, f.cost.brief)


def test_brief_text_cuts_at_a_word() -> None:
    text = brief_text("word " * 40)
    assert len(text) <= BRIEF_MAX and text.endswith("…") and " wor…" not in text


def test_the_demos_headline_is_within_its_bill_and_no_resource_is_over_its_own() -> None:
    result = scan_paths([DEMO])
    bill = build_breakdown(result.records)
    assert result.totals().avoidable_usd <= bill.total_monthly_usd
    billed: dict[str, float] = defaultdict(float)
    for item in bill.items:
        billed[item.resource] += item.monthly_usd or 0.0
    per_resource = defaultdict(list)
    for f in result.active():
        if f.cost is not None and f.cost.monthly_usd is not None and f.cost.kind != "exposure":
            per_resource[resource_of(f)].append(f)
    assert per_resource
    for resource, findings in per_resource.items():
        assert resource in billed, resource  # every avoidable figure is on a resource cost bills
        assert totals(findings).avoidable_usd <= billed[resource] + 0.01, resource


def test_one_pool_ceiling_for_fin301_fin304_and_cost() -> None:
    result = scan_paths([DEMO])
    pool = "NodePool/gpu-training"
    figures = {
        f.rule_id: round(f.cost.monthly_usd or 0, 2) for f in result.findings if f.resource == pool and f.cost
    }
    item = next(i for i in build_breakdown(result.records).items if i.resource == pool)
    # p6-b200.48xlarge $113.9328/h x 730 h, the dearest priced accelerated type the pool admits
    assert figures == {"FIN301": 83170.94, "FIN304": 83170.94}
    assert item.ceiling_per_node_month_usd == pytest.approx(113.9328 * 730)


def test_provisioned_throughput_bills_only_above_the_stored_baseline() -> None:
    quote = load_pricing("us-east-1").efs("provisioned_throughput_mibps_month")
    assert quote is not None and quote.usd == 6.0
    # 50 KiB/s per GiB: 1 TiB (1,099.51 GB) stored includes 50 MiB/s
    assert baseline_mibps(2**40 / 1e9) == pytest.approx(50.0)
    assert provisioned_charge(256, 0, quote).usd == pytest.approx(1536.0)
    assert provisioned_charge(256, 2**40 / 1e9, quote).usd == pytest.approx(206 * 6.0)
    big = provisioned_charge(256, 10 * 2**40 / 1e9, quote)  # 10 TiB include 500 MiB/s
    assert big.usd == 0.0 and big.billed_mibps == 0.0


def test_fin403_and_cost_take_the_same_size_and_charge(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'resource "aws_efs_file_system" "training" {\n  throughput_mode = "provisioned"\n'
        "  provisioned_throughput_in_mibps = 256\n}\n"
    )
    usage = tmp_path / "u.yml"
    usage.write_text("defaults:\n  checkpoint_storage_gb: 4000\n")
    from finlint.cost.common import CostSettings
    from finlint.options import ScanOptions
    from finlint.scan import lint

    settings = CostSettings(usage_file=usage)
    result = lint(ScanOptions(paths=[tmp_path], cost_settings=settings))
    f = next(f for f in result.findings if f.rule_id == "FIN403")
    base = 4000 * 1e9 / 2**30 * 50 / 1024  # 181.90 MiB/s
    assert f.cost is not None and f.cost.monthly_usd == pytest.approx((256 - base) * 6, abs=0.01)
    item = next(i for i in build_breakdown(result.records, settings).items if "training" in i.resource)
    assert item.monthly_usd == pytest.approx(4000 * 0.30 + (256 - base) * 6)


def test_cost_shows_the_warm_pool_time() -> None:
    result = scan_paths([DEMO])
    bill = build_breakdown(result.records)
    item = next(i for i in bill.items if i.resource == "TrainingJob/training/llm-pretrain")
    assert item.warm_pool_hours == 0.5
    # 2 x ml.p4d.24xlarge x 240 h cap + 2 x 0.5 h warm pool, at $25.2513/h
    assert item.per_run_usd == pytest.approx(25.2513 * 2 * 240.5)
    assert "warm pool 30 min" in item.quantity
    warm = next(f for f in result.findings if f.rule_id == "FIN501")
    assert warm.cost is not None and warm.cost.per_run_usd == pytest.approx(25.2513 * 2 * 0.5)
    assert json.loads(json.dumps(item.to_json()))["warm_pool_hours"] == 0.5


def test_cost_shows_the_interruption_probability_of_spot_jobs() -> None:
    bill = build_breakdown(scan_paths([DEMO]).records)
    item = next(i for i in bill.items if i.resource == "FineTuneSpot")
    # 4 x 0.000394085 per instance-hour over 48 h: 1 - e^(-0.0756643) = 7.29 %
    assert item.p_interrupted == pytest.approx(0.072872, abs=1e-5)
    assert "P(interrupted in 48 h) = 7.29 %" in item.description


def test_cites_name_what_each_source_is() -> None:
    """S2 and S7 are public modules that say they were checked against the AWS Price List: the
    printed cite says so, never that the figure is the offer file itself."""
    pricing = load_pricing("us-east-1")
    ec2, sm = pricing.hourly("p5.48xlarge"), pricing.hourly("ml.p5.48xlarge")
    assert ec2 is not None and sm is not None
    for quote in (ec2, sm):
        assert not quote.cite().split("; ", 1)[1].startswith("AWS Price List"), quote.cite()
        assert "public" in quote.cite() and "its own statement" in quote.cite()
        assert quote.source.startswith("a public")
