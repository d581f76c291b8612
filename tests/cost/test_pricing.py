"""Snapshot prices against the published figures in the pricing reference, region fallback, overlay."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finlint.cost.pricing import PricingError, load_pricing, usd


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("p5.48xlarge", 55.04),  # post-June-2025 price, not 98.32
        ("p4d.24xlarge", 21.957642),
        ("p4de.24xlarge", 27.44705),
        ("p5en.48xlarge", 63.296),
        ("g5.12xlarge", 5.672),
        ("trn1.32xlarge", 21.50),
        ("ml.p5.48xlarge", 63.296),
        ("ml.g5.12xlarge", 7.09),
        ("ml.p4d.24xlarge", 25.2513),
        ("ml.trn1.32xlarge", 24.73),
    ],
)
def test_published_hourly_prices(name: str, expected: float) -> None:
    q = load_pricing("us-east-1").hourly(name)
    assert q is not None
    assert q.usd == expected
    assert q.unit == "h" and q.region == "us-east-1" and not q.fallback
    assert q.source and q.date and q.confidence in ("high", "medium", "low")


def test_storage_prices() -> None:
    p = load_pricing("us-east-1")
    efs, ia, s3ia, s3std, gp3, scratch = (
        p.efs("standard_gb_month"),
        p.efs("ia_gb_month"),
        p.s3("STANDARD_IA"),
        p.s3("standard"),
        p.ebs("gp3_gb_month"),
        p.fsx_lustre("SCRATCH_2"),
    )
    assert efs and efs.usd == 0.30 and efs.unit == "GB-month"
    assert ia and ia.usd == 0.016
    assert s3ia and s3ia.usd == 0.0125
    assert s3std and s3std.usd == 0.023
    assert gp3 and gp3.usd == 0.08
    assert scratch and scratch.usd == 0.140
    thr = p.efs("provisioned_throughput_mibps_month")
    assert thr and thr.usd == 6.00 and thr.unit == "MiB/s-month"
    p2 = p.fsx_lustre("PERSISTENT_2", 125)
    assert p2 and p2.usd == 0.145
    p250 = p.fsx_lustre("PERSISTENT_2", 250)  # derived (the field guide's tier), and it says so
    assert p250 and p250.usd == 0.217 and p250.confidence == "low" and "derived" in p250.source
    assert p.fsx_lustre("PERSISTENT_2", 500) is None  # not found in the reference: no guess


def test_gaps_are_not_priced() -> None:
    p = load_pricing("us-east-1")
    for name in (
        "p5e.48xlarge",
        "trn2.48xlarge",
        "p6-b300.48xlarge",
        "ml.trn1n.32xlarge",
        "ml.p5en.48xlarge",
    ):
        assert p.hourly(name) is None, name
    assert "p5e.48xlarge" in p.missing("p5e.48xlarge") and "us-east-1" in p.missing("x")


def test_us_west_2_and_fallback() -> None:
    west = load_pricing("us-west-2")
    b200 = west.hourly("p6-b200.48xlarge")
    assert b200 and b200.usd == 113.9328 and b200.region == "us-west-2"
    sm = west.hourly("ml.p5.48xlarge")  # no us-west-2 SageMaker prices: us-east-1, and it says so
    assert sm and sm.usd == 63.296 and sm.region == "us-east-1" and sm.fallback
    assert "us-east-1 price used for us-west-2" in sm.cite()
    eu = load_pricing("eu-west-1")
    q = eu.hourly("p5.48xlarge")
    assert q and q.usd == 55.04 and q.fallback and "eu-west-1" in q.cite()
    assert eu.hourly("p6-b300.48xlarge") is None  # us-west-2 is never used for another region


def test_overlay(tmp_path: Path) -> None:
    f = tmp_path / "prices.json"
    f.write_text(
        json.dumps(
            {
                "regions": {
                    "us-east-1": {
                        "ec2_hourly": [
                            {"source": "our EDP", "date": "2026-10-01", "prices": {"p5.48xlarge": 41.28}}
                        ]
                    },
                    "eu-west-1": {
                        "efs": {"source": "console", "date": "2026-11", "prices": {"standard_gb_month": 0.33}}
                    },
                }
            }
        )
    )
    p = load_pricing("us-east-1", f)
    q = p.hourly("p5.48xlarge")
    assert q and q.usd == 41.28 and q.source == "our EDP"
    g5 = p.hourly("g5.12xlarge")
    assert g5 and g5.usd == 5.672  # untouched entries stay
    eu = load_pricing("eu-west-1", f).efs("standard_gb_month")
    assert eu and eu.usd == 0.33 and not eu.fallback
    assert load_pricing("us-east-1").hourly("p5.48xlarge").usd == 55.04  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "doc",
    [
        {"regions": {"us-east-1": {"gpu": []}}},
        {"regions": {"us-east-1": {"ec2_hourly": [{"prices": {"x": 1}}]}}},
        {"regions": {"us-east-1": {"ec2_hourly": [{"source": "a", "date": "b", "prices": {"x": "cheap"}}]}}},
        {"prices": {}},
    ],
)
def test_bad_overlay(tmp_path: Path, doc: object) -> None:
    f = tmp_path / "p.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(PricingError):
        load_pricing("us-east-1", f)


def test_usd_format() -> None:
    assert usd(1234.567) == "$1,234.57"
    assert usd(21.957642, exact=True) == "$21.957642"
    assert usd(0.3, exact=True) == "$0.30"
    assert usd(0.00099, exact=True) == "$0.00099"
