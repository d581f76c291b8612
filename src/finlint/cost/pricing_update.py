"""``finlint pricing update``: refresh a user's price overlay from the AWS Price List Query API.

The only network call finlint makes, and only when asked. boto3 is an optional extra
(``pip install finlint[pricing]``), imported here lazily. The overlay it writes has the
snapshot's format, so ``--pricing FILE`` reads it back.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, Iterable

from finlint.cost.pricing import PricingError, _snapshot_tables, read_price_file

SOURCE = "AWS Price List Query API (pricing:GetProducts), On-Demand, Linux, shared tenancy"


def default_types() -> tuple[list[str], list[str]]:
    """EC2 and SageMaker types worth refreshing: every snapshot key plus the known gaps."""
    ec2: set[str] = {"p5e.48xlarge", "p5.4xlarge", "p6-b200.48xlarge", "p6-b300.48xlarge", "trn2.48xlarge"}
    ml: set[str] = {"ml.trn1n.32xlarge", "ml.p5e.48xlarge", "ml.p5en.48xlarge", "ml.p6-b200.48xlarge"}
    for tables in _snapshot_tables().values():
        ec2 |= set(tables.get("ec2_hourly", {}))
        ml |= set(tables.get("sagemaker_hourly", {}))
    return sorted(ec2), sorted(ml)


def _filters(region: str, fields: dict[str, str]) -> list[dict[str, str]]:
    out = [{"Type": "TERM_MATCH", "Field": "regionCode", "Value": region}]
    return out + [{"Type": "TERM_MATCH", "Field": k, "Value": v} for k, v in fields.items()]


def ec2_filters(region: str, instance_type: str) -> list[dict[str, str]]:
    return _filters(
        region,
        {
            "instanceType": instance_type,
            "operatingSystem": "Linux",
            "tenancy": "Shared",
            "preInstalledSw": "NA",
            "capacitystatus": "Used",
            "licenseModel": "No License required",
        },
    )


def sagemaker_filters(region: str, instance_type: str) -> list[dict[str, str]]:
    return _filters(region, {"instanceName": instance_type, "component": "Training"})


def _hourly(price_list: Iterable[str]) -> tuple[float | None, str | None]:
    """The On-Demand hourly USD price in a GetProducts PriceList, and the publication date."""
    prices: list[float] = []
    date: str | None = None
    for raw in price_list:
        item = json.loads(raw)
        date = (item.get("publicationDate") or "")[:10] or date
        for term in item.get("terms", {}).get("OnDemand", {}).values():
            for dim in term.get("priceDimensions", {}).values():
                value = dim.get("pricePerUnit", {}).get("USD")
                if (
                    value is not None
                    and dim.get("unit", "Hrs") in ("Hrs", "Hours", "hour")
                    and float(value) > 0
                ):
                    prices.append(float(value))
    return (min(prices) if prices else None), date


def _get(client: Any, service: str, filters: list[dict[str, str]]) -> list[str]:
    out: list[str] = []
    kwargs: dict[str, Any] = {"ServiceCode": service, "Filters": filters, "MaxResults": 100}
    while True:
        resp = client.get_products(**kwargs)
        out += resp.get("PriceList", [])
        token = resp.get("NextToken")
        if not token:
            return out
        kwargs["NextToken"] = token


def fetch_region(
    client: Any, region: str, ec2_types: Iterable[str], ml_types: Iterable[str], today: str
) -> tuple[dict[str, Any], list[str]]:
    """Overlay tables for one region, and the types with no On-Demand price (left out)."""
    tables: dict[str, Any] = {}
    missing: list[str] = []
    for table, service, types, filt in (
        ("ec2_hourly", "AmazonEC2", ec2_types, ec2_filters),
        ("sagemaker_hourly", "AmazonSageMaker", ml_types, sagemaker_filters),
    ):
        prices: dict[str, float] = {}
        dates: set[str] = set()
        for itype in types:
            usd, date = _hourly(_get(client, service, filt(region, itype)))
            if usd is None:
                missing.append(itype)
                continue
            prices[itype] = usd
            if date:
                dates.add(date)
        if prices:
            tables[table] = [
                {
                    "source": f"{SOURCE}, {service}, {region}, fetched {today}",
                    "cite": "AWS Price List API",
                    "date": max(dates) if dates else today,
                    "confidence": "high",
                    "prices": prices,
                }
            ]
    return tables, missing


def update_overlay(
    path: Path,
    regions: Iterable[str],
    ec2_types: Iterable[str] | None = None,
    ml_types: Iterable[str] | None = None,
    client: Any = None,
    today: str | None = None,
) -> dict[str, Any]:
    """Write (or refresh) ``path`` with current prices; keeps the overlay's other regions and tables."""
    if client is None:
        try:
            import boto3
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise PricingError("finlint pricing update needs boto3: pip install 'finlint[pricing]'") from exc
        client = boto3.client("pricing", region_name="us-east-1")  # the Price List API's home region
    today = today or _dt.date.today().isoformat()
    default_ec2, default_ml = default_types()
    doc: dict[str, Any] = {"regions": {}}
    if path.exists():
        doc = read_price_file(path) or {"regions": {}}
        doc.setdefault("regions", {})
    summary: dict[str, Any] = {"file": str(path), "regions": {}}
    for region in regions:
        tables, missing = fetch_region(
            client, region, list(ec2_types or default_ec2), list(ml_types or default_ml), today
        )
        doc["regions"].setdefault(region, {}).update(tables)
        summary["regions"][region] = {
            "priced": sum(len(t[0]["prices"]) for t in tables.values()),
            "no_on_demand_price": missing,
        }
    doc["_meta"] = {"generated_by": "finlint pricing update", "date": today, "source": SOURCE}
    path.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return summary
