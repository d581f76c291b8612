"""Risk figures for accelerated Karpenter pools (FIN304, FIN305), on the pool model of `finlint cost`.

gpu-pool-ceiling (FIN304): a pool with no limit that caps it can add nodes without bound; the
    figure is one node-month of the dearest priced type it admits (hourly x hours_per_month), the
    least such a pool can run away with per node, stated as "per node-month, no upper bound".
idle-gpu-node (FIN305): a pool that never consolidates keeps idle nodes; the figure is one idle
    node-month of the cheapest priced accelerated type it admits: what each node that stays idle
    bills (field figure: consolidation on GPU pools cut node count 22 %).
Both read the types the rule established (``finding.evidence['types']``) and price them with
:func:`finlint.cost.pools.pool_prices`, as `finlint cost` does.
"""

from __future__ import annotations

from typing import Any

from finlint.cost.common import CostContext, num, price_note, quote_json, unpriced, usd
from finlint.cost.pools import pool_prices
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.finding import Cost, CountedOnce, Finding

KIND = "risk"


def _prices(finding: Finding, ctx: CostContext) -> tuple[Any, list[str], Cost | None]:
    types = [t for t in finding.evidence.get("types", ()) if isinstance(t, str)]
    if not types:
        return None, [], unpriced(KIND, "the rule established no instance types for this pool")
    params = ctx.params(finding.record)
    pricing = ctx.pricing_for(params)
    hpm = float(params.get("hours_per_month", HOURS_PER_MONTH))
    prices = pool_prices(pricing, types, hpm)
    if prices.cheapest is None:
        return None, types, unpriced(KIND, pricing.missing(" or ".join(types)), region=pricing.region)
    return prices, types, None


def _listed(types: list[str]) -> str:
    return ", ".join(types) if len(types) <= 6 else f"{', '.join(types[:5])} and {len(types) - 5} more"


def price_ceiling(finding: Finding, ctx: CostContext) -> Cost:
    prices, types, failed = _prices(finding, ctx)
    if failed is not None:
        return failed
    top = prices.dearest
    month = prices.node_month(top)
    basis = (
        f"Risk, no upper bound: each node the pool adds bills up to {top.key} {top.rate()} x "
        f"{num(prices.hours_per_month)} h = {usd(month)} per node-month, the dearest priced of "
        f"{_listed(types)}{prices.gap_note()}; with no limit that caps the pool, nothing stops it "
        f"at one node. {price_note(top)}"
    )
    assumptions: dict[str, Any] = {
        "ceiling": True,
        "per": "node-month",
        "instance_type": top.key,
        "hourly_usd": top.usd,
        "hours_per_month": prices.hours_per_month,
        "unpriced_types": list(prices.unpriced),
        "region": top.region,
        "prices": quote_json(top),
        "once": f"pool:{finding.resource}",
    }
    return Cost(month, None, KIND, basis, assumptions, counted_once=CountedOnce("pool", finding.resource))


def price_idle_node(finding: Finding, ctx: CostContext) -> Cost:
    prices, types, failed = _prices(finding, ctx)
    if failed is not None:
        return failed
    low = prices.cheapest
    month = prices.node_month(low)
    basis = (
        f"Risk per idle node: a node the pool never removes bills {low.key} {low.rate()} x "
        f"{num(prices.hours_per_month)} h = {usd(month)} per idle node-month, the cheapest priced of "
        f"{_listed(types)}{prices.gap_note()} (field figure: consolidation on GPU pools cut node "
        f"count 22 %). {price_note(low)}"
    )
    assumptions: dict[str, Any] = {
        "per": "idle node-month",
        "instance_type": low.key,
        "hourly_usd": low.usd,
        "hours_per_month": prices.hours_per_month,
        "unpriced_types": list(prices.unpriced),
        "region": low.region,
        "prices": quote_json(low),
    }
    return Cost(month, None, KIND, basis, assumptions)
