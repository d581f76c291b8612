"""Prices wherever users deploy (issue 26 §4): the regional EC2 blocks, the script that regenerates
them, the regions that work end to end, and a `finlint cost` total that says what it covers."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.cost.breakdown import Breakdown, LineItem, render_json, render_text
from finlint.cost.pricing import _snapshot_raw, _snapshot_tables, check_region, load_pricing
from finlint.domain import catalog

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).with_name("data")
REQUIRED = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "eu-west-1",
    "eu-central-1",
    "ap-northeast-1",
    "ap-southeast-2",
)
DEMO = "fixtures/demo"


def script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_prices", ROOT / "scripts" / "update_prices.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    sys.modules["update_prices"] = mod
    spec.loader.exec_module(mod)
    return mod


def test_the_script_reproduces_the_json_from_a_small_hand_written_input() -> None:
    up = script()
    types = ["g5.xlarge", "p5.48xlarge", "p5e.48xlarge", "trn1.2xlarge"]
    regions = ("us-east-1", "eu-west-1", "ap-southeast-2")
    snapshot: dict[str, Any] = {
        "_meta": {"compiled": "2026-11-30"},
        "regions": {
            "us-east-1": {
                "ec2_hourly": [
                    {
                        "source": "old run",
                        "date": "2020",
                        "generated_by": up.GENERATED,
                        "prices": {"p3.2xlarge": 3},
                    },
                    {"source": "hand-curated", "date": "2026-09-24", "prices": {"p5.48xlarge": 55.04}},
                ],
                "efs": [{"source": "efs page", "date": "2023-11", "prices": {"standard_gb_month": 0.3}}],
            }
        },
    }
    instances = json.loads((DATA / "vantage_small.json").read_text())
    prices = up.on_demand_linux(instances, types, regions)
    # Linux On-Demand only: no Windows/RHEL/dedicated price, no "N/A", null or zero, no unknown type
    assert prices == {
        "us-east-1": {"g5.xlarge": 1.006, "p5.48xlarge": 55.04},
        "eu-west-1": {"g5.xlarge": 1.123},
        "ap-southeast-2": {"p5.48xlarge": 71.552},
    }
    doc = up.apply(snapshot, prices, types, source="test source", cite="test", date="2026-01-02")
    expected = (DATA / "vantage_small.expected.json").read_text()
    assert up.dump(doc) == expected
    assert (
        up.dump(up.apply(doc, prices, types, "test source", "test", "2026-01-02")) == expected
    )  # idempotent
    assert snapshot["regions"]["us-east-1"]["ec2_hourly"][0]["source"] == "old run"  # input untouched


def test_the_committed_snapshot_is_what_the_script_writes_in_its_layout() -> None:
    up = script()
    text = (ROOT / "src" / "finlint" / "data" / "pricing.json").read_text()
    assert up.dump(json.loads(text)) == text
    assert len(text.encode()) < 2_000_000
    meta = json.loads(text)["_meta"]["regional"]
    assert meta["source"] == up.SOURCE and meta["date"] == up.DATE and meta["regions"] == list(up.REGIONS)
    assert "2d0108c7bd261c8e40493fbd35135437bd6c9099" in meta["source"]  # repository, file, commit, date


def accelerated() -> list[str]:
    fams = set(catalog.accelerated_families())
    return [s.name for s in catalog.all_instances() if s.family in fams]


@pytest.mark.parametrize("region", REQUIRED)
def test_every_accelerated_catalog_type_is_priced_or_a_listed_exception(region: str) -> None:
    check_region(region)  # no exit 2
    meta = _snapshot_raw()["_meta"]["regional"]
    no_price = set(meta["no_price"][region])
    own = _snapshot_tables()[region]["ec2_hourly"]
    for name in accelerated():
        priced = name in own
        assert priced != (name in no_price), f"{name} in {region}: priced={priced}, listed={name in no_price}"
    # the exceptions are what the source does not sell there, never a price mixed in from elsewhere
    assert {"p5e.48xlarge", "trn2.48xlarge"} <= no_price


def test_sagemaker_accelerated_types_are_priced_in_us_east_1_or_named_a_gap() -> None:
    """SageMaker has no dated regional source: us-east-1 only, other regions fall back and say so."""
    gaps = " ".join(_snapshot_raw()["_meta"]["gaps"])
    east = load_pricing("us-east-1")
    unpriced = [f"ml.{n}" for n in accelerated() if east.hourly(f"ml.{n}") is None]
    listed = {"ml.trn1n.32xlarge", "ml.p5e.48xlarge", "ml.p5en.48xlarge", "ml.p6-b200.48xlarge"}
    assert listed <= set(unpriced) and all(t in gaps for t in listed)
    assert "SageMaker prices outside us-east-1" in gaps
    eu = load_pricing("eu-west-1").hourly("ml.p5.48xlarge")
    assert eu and eu.usd == 63.296 and eu.fallback and "us-east-1 price used for eu-west-1" in eu.cite()
    for region in REQUIRED:
        assert "sagemaker_hourly" not in _snapshot_tables().get(region, {}) or region == "us-east-1"


@pytest.mark.parametrize(
    ("region", "itype", "usd"),
    [  # figures of the regional block, each checked against a second source (docs/cost-model.md)
        ("us-east-2", "p5en.48xlarge", 63.296),  # dstack offer output, 2026-08-06 (reference S5)
        ("us-east-2", "p4d.24xlarge", 21.95764),  # pytorch gpu-dev report list rate (S4)
        ("eu-west-1", "g5.xlarge", 1.123),
        ("ap-northeast-1", "p5.48xlarge", 68.8),
        ("us-east-1", "g4dn.2xlarge", 0.752),  # was unpriced
        ("us-east-1", "p5.4xlarge", 6.88),  # was a named gap
    ],
)
def test_regional_figures(region: str, itype: str, usd: float) -> None:
    q = load_pricing(region).hourly(itype)
    assert q and q.usd == usd and q.region == region and not q.fallback
    assert "instances.vantage.sh" in q.source and q.date == "2025-11-30"


def test_curated_blocks_still_win_where_both_price_a_type() -> None:
    q = load_pricing("us-east-1").hourly("p5.48xlarge")
    assert (
        q
        and q.usd == 55.04
        and "offer file version 20260924211011" in q.source
        and "public pricing module" in q.source
    )


@pytest.mark.parametrize("region", REQUIRED)
@pytest.mark.parametrize("command", ["scan", "cost"])
def test_every_region_works_end_to_end(command: str, region: str) -> None:
    res = CliRunner().invoke(main, [command, DEMO, "--region", region, "--format", "json"])
    assert res.exit_code in (0, 1), res.output  # 1: the demo has findings; never 2
    data = json.loads(res.output)
    if command == "cost":
        assert data["region"] == region and data["total_monthly_usd"] > 0
        assert data["priced"] + data["unpriced"] == len(data["resources"])


def item(name: str, usd: float | None) -> LineItem:
    i = LineItem(name, "training_job", "x.json", 1, "training job")
    i.monthly_usd = usd
    if usd is None:
        i.reason = "instance type unknown or unresolved"
    return i


def test_a_total_with_unpriced_resources_says_for_n_of_m() -> None:
    b = Breakdown(
        "eu-west-1", [item("A", 100.0), item("B", None), item("C", 50.0), item("D", None), item("E", 1.0)]
    )
    text = render_text(b)
    assert "Total: $151.00/month for 3 of 5 resources (region eu-west-1, default usage assumptions)." in text
    data = json.loads(render_json(b))
    assert data["priced"] == 3 and data["unpriced"] == 2 and data["total_monthly_usd"] == 151.0
    whole = render_text(Breakdown("us-east-1", [item("A", 100.0)]))
    assert "Total: $100.00/month (region us-east-1" in whole and " of " not in whole.split("Total:")[1]
    from finlint.reporters.html_cost import render_breakdown

    assert "for 3 of 5 resources" in render_breakdown(b)


def test_the_demo_total_says_what_it_covers() -> None:
    res = CliRunner().invoke(main, ["cost", DEMO, "--region", "eu-west-1"])
    assert res.exit_code == 0, res.output
    m = re.search(r"Total: \$[\d,.]+/month for (\d+) of (\d+) resources \(region eu-west-1", res.output)
    assert m and int(m.group(1)) < int(m.group(2)), res.output
    assert "us-east-1 prices used instead" in res.output  # SageMaker, EFS, FSx fall back, and it says so
