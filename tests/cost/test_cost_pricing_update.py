"""`finlint pricing update` against botocore's Stubber with GetProducts responses in the real shape."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

boto3 = pytest.importorskip("boto3")
from botocore.stub import Stubber  # noqa: E402

from finlint.cost.pricing import load_pricing  # noqa: E402
from finlint.cost.pricing_update import ec2_filters, sagemaker_filters, update_overlay  # noqa: E402


def product(service: str, attrs: dict[str, str], usd: str) -> str:
    """One PriceList entry as GetProducts returns it: a JSON *string*."""
    sku = "ABCDEFGH12345678"
    return json.dumps(
        {
            "product": {"productFamily": "Compute Instance", "attributes": attrs, "sku": sku},
            "serviceCode": service,
            "terms": {
                "OnDemand": {
                    f"{sku}.JRTCKXETXF": {
                        "priceDimensions": {
                            f"{sku}.JRTCKXETXF.6YS6EN2CT7": {
                                "unit": "Hrs",
                                "endRange": "Inf",
                                "description": f"${usd} per On Demand Linux Instance Hour",
                                "appliesTo": [],
                                "rateCode": f"{sku}.JRTCKXETXF.6YS6EN2CT7",
                                "beginRange": "0",
                                "pricePerUnit": {"USD": usd},
                            }
                        },
                        "sku": sku,
                        "effectiveDate": "2026-10-01T00:00:00Z",
                        "offerTermCode": "JRTCKXETXF",
                        "termAttributes": {},
                    }
                }
            },
            "version": "20261101000000",
            "publicationDate": "2026-11-01T00:00:00Z",
        }
    )


def expect(
    stub: Stubber, service: str, filters: list[dict[str, str]], price_list: list[str], **extra: Any
) -> None:
    params = {"ServiceCode": service, "Filters": filters, "MaxResults": 100, **extra}
    stub.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": price_list}, params)


def test_update_writes_an_overlay_load_pricing_reads(tmp_path: Path) -> None:
    client = boto3.client(
        "pricing", region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
    )
    stub = Stubber(client)
    ec2 = {"instanceType": "p5.48xlarge", "regionCode": "us-east-1", "operatingSystem": "Linux"}
    expect(
        stub,
        "AmazonEC2",
        ec2_filters("us-east-1", "p5.48xlarge"),
        [product("AmazonEC2", ec2, "54.0000000000")],
    )
    expect(stub, "AmazonEC2", ec2_filters("us-east-1", "p5e.48xlarge"), [])  # no On-Demand listing
    ml = {"instanceName": "ml.p5.48xlarge", "component": "Training", "regionCode": "us-east-1"}
    stub.add_response(
        "get_products",
        {"FormatVersion": "aws_v1", "PriceList": [], "NextToken": "page2"},
        {"ServiceCode": "AmazonSageMaker", "Filters": sagemaker_filters("us-east-1", "ml.p5.48xlarge"),
         "MaxResults": 100},
    )  # fmt: skip
    expect(
        stub, "AmazonSageMaker", sagemaker_filters("us-east-1", "ml.p5.48xlarge"),
        [product("AmazonSageMaker", ml, "62.1000000000")], NextToken="page2",
    )  # fmt: skip
    out = tmp_path / "prices.json"
    with stub:
        summary = update_overlay(
            out,
            ["us-east-1"],
            ["p5.48xlarge", "p5e.48xlarge"],
            ["ml.p5.48xlarge"],
            client,
            today="2026-11-30",
        )
    stub.assert_no_pending_responses()
    assert summary["regions"]["us-east-1"] == {"priced": 2, "no_on_demand_price": ["p5e.48xlarge"]}
    p = load_pricing("us-east-1", out)
    q = p.hourly("p5.48xlarge")
    assert q and q.usd == 54.0 and q.date == "2026-11-01" and "Price List Query API" in q.source
    sm = p.hourly("ml.p5.48xlarge")
    assert sm and sm.usd == 62.1
    assert p.hourly("p5e.48xlarge") is None  # still not priced, never guessed
    assert p.hourly("g5.12xlarge").usd == 5.672  # type: ignore[union-attr]  # snapshot untouched
