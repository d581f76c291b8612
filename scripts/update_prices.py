"""Regenerate the regional EC2 On-Demand blocks of ``src/finlint/data/pricing.json``.

Usage::

    python scripts/update_prices.py --input gpu_instances_raw.json            # the committed snapshot
    python scripts/update_prices.py --url https://instances.vantage.sh/instances.json \\
        --source "instances.vantage.sh instances.json, fetched 2026-12-03" --cite "..." --date 2026-12-03

The input is an ``instances.json`` in the format instances.vantage.sh publishes (built by the
vantage-sh/ec2instances.info scraper from the AWS Price List bulk offer files): a list of
``{"instance_type": ..., "pricing": {REGION: {"linux": {"ondemand": "1.006"}}}}``. Only the
On-Demand Linux (shared tenancy) price is read. The committed snapshot was built from the
GPU-instance extract of that file committed as ``tsaol/aws-gpu`` ``data/gpu_instances_raw.json``
(commit 2d0108c7bd261c8e40493fbd35135437bd6c9099, 2025-11-30); the defaults below cite it.

For each region in ``REGIONS`` and each type of the instance catalog (``data/instances.json``),
the script writes one ``ec2_hourly`` block marked ``"generated_by": "scripts/update_prices.py"``
first in the region's list (hand-curated blocks after it win where both price a type), and
records in ``_meta.regional`` the source, date, regions and, per region, the catalog types the
source has no price for. Nothing else in the file changes. Standard library only; the network
is used only with ``--url``, when a person runs it (never by the tests).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / "src" / "finlint" / "data" / "pricing.json"
CATALOG = ROOT / "src" / "finlint" / "data" / "instances.json"
GENERATED = "scripts/update_prices.py"

REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-1",
    "us-west-2",
    "ca-central-1",
    "eu-west-1",
    "eu-west-2",
    "eu-central-1",
    "eu-north-1",
    "ap-northeast-1",
    "ap-northeast-2",
    "ap-south-1",
    "ap-southeast-1",
    "ap-southeast-2",
)

SOURCE = (
    "instances.vantage.sh instances.json (built by the vantage-sh/ec2instances.info scraper from the "
    "AWS Price List bulk offer files), On-Demand Linux, as committed in its GPU-instance extract "
    "tsaol/aws-gpu data/gpu_instances_raw.json, commit 2d0108c7bd261c8e40493fbd35135437bd6c9099 "
    "(2025-11-30)"
)
CITE = "instances.vantage.sh data, GPU extract tsaol/aws-gpu@2d0108c"
DATE = "2025-11-30"
CONFIDENCE = "medium"


def catalog_types(path: Path = CATALOG) -> list[str]:
    """Every type of the instance catalog, in its order."""
    data = json.loads(path.read_text("utf-8"))
    return [str(name) for name in data["instances"]]


def on_demand_linux(
    instances: list[dict[str, Any]], types: list[str], regions: tuple[str, ...] | list[str]
) -> dict[str, dict[str, float]]:
    """``region -> type -> USD/h`` for the wanted types and regions (a missing or zero price is left out)."""
    wanted = set(types)
    out: dict[str, dict[str, float]] = {r: {} for r in regions}
    for item in instances:
        name = item.get("instance_type")
        if name not in wanted or not isinstance(item.get("pricing"), dict):
            continue
        for region in regions:
            linux = (item["pricing"].get(region) or {}).get("linux") or {}
            try:
                usd = float(linux.get("ondemand"))
            except (TypeError, ValueError):  # absent, "N/A", null: the type is not sold there
                continue
            if usd > 0:
                out[region][name] = usd
    return {r: {t: out[r][t] for t in types if t in out[r]} for r in regions}


def apply(
    snapshot: dict[str, Any],
    prices: dict[str, dict[str, float]],
    types: list[str],
    source: str = SOURCE,
    cite: str = CITE,
    date: str = DATE,
    confidence: str = CONFIDENCE,
) -> dict[str, Any]:
    """The snapshot with this script's blocks replaced by ``prices`` (other blocks untouched)."""
    doc = json.loads(json.dumps(snapshot))  # a copy
    regions = doc.setdefault("regions", {})
    for region, by_type in prices.items():
        tables = regions.setdefault(region, {})
        blocks = [b for b in tables.get("ec2_hourly", []) if b.get("generated_by") != GENERATED]
        if by_type:
            block = {
                "source": source,
                "cite": cite,
                "date": date,
                "confidence": confidence,
                "generated_by": GENERATED,
                "prices": dict(by_type),
            }
            blocks.insert(0, block)
        tables["ec2_hourly"] = blocks
    doc.setdefault("_meta", {})["regional"] = {
        "source": source,
        "date": date,
        "regions": list(prices),
        "no_price": {r: [t for t in types if t not in by_type] for r, by_type in prices.items()},
    }
    return doc


def dump(doc: dict[str, Any]) -> str:
    """The snapshot's own layout (one-space indent, ASCII), so a regenerated file diffs cleanly."""
    return json.dumps(doc, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--input", type=Path, help="an instances.json in instances.vantage.sh's format")
    src.add_argument("--url", help="download it (the only network use; run by a person)")
    ap.add_argument("--source", default=SOURCE, help="the block's full citation")
    ap.add_argument("--cite", default=CITE, help="the short citation printed in a basis")
    ap.add_argument("--date", default=DATE, help="the date of the prices (YYYY-MM-DD)")
    ap.add_argument("--confidence", default=CONFIDENCE, choices=("high", "medium", "low"))
    ap.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    ap.add_argument("--check", action="store_true", help="exit 1 if the snapshot would change")
    args = ap.parse_args(argv)
    if args.url:
        import urllib.request

        with urllib.request.urlopen(args.url, timeout=300) as resp:  # noqa: S310 - a person's explicit URL
            text = resp.read().decode("utf-8")
    else:
        text = args.input.read_text("utf-8")
    types = catalog_types()
    prices = on_demand_linux(json.loads(text), types, REGIONS)
    current = args.snapshot.read_text("utf-8")
    new = dump(apply(json.loads(current), prices, types, args.source, args.cite, args.date, args.confidence))
    if args.check:
        return 0 if new == current else 1
    args.snapshot.write_text(new, "utf-8")
    for region, by_type in prices.items():
        print(f"{region}: {len(by_type)} of {len(types)} catalog types priced", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
