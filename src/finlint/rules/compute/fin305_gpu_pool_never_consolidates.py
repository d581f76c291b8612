"""FIN305 gpu-pool-never-consolidates: A GPU Karpenter pool that never removes idle nodes.

The policy is ``policies/FIN305-gpu-pool-never-consolidates.yaml``; this module holds its facts
and its price.

Price (idle-gpu-node, exposure): one idle node-month of the cheapest priced accelerated type the
pool admits: what each node that stays idle bills (field figure: consolidation on GPU pools cut
node count 22 %), on the pool model of ``finlint cost``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint.cost.common import CostContext, brief_text, num, price_note, quote_json, usd
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding, Fix
from finlint.ir import ComputePool, Record, Unknown, is_unknown
from finlint.rules.base import Rule
from finlint.rules.compute.gpu_pools import PoolTypes, gpu_types, listed, pool_type_prices

KIND = "exposure"  # per node that stays idle


def _zero_budget(budget: Any) -> bool:
    """A disruption budget of 0 nodes (or 0 %) that applies at all times (no schedule)."""
    if not isinstance(budget, dict) or "schedule" in budget or "reasons" in budget:
        return False
    nodes = budget.get("nodes")
    return isinstance(nodes, (str, int)) and str(nodes).strip() in ("0", "0%")


def pool_never_consolidates(record: Record) -> Any:
    """Evidence that a Karpenter pool admitting accelerated types never removes idle nodes."""
    types = gpu_types(record)
    if types is None or is_unknown(types):
        return types
    assert isinstance(record, ComputePool)
    d = record.disruption
    line = record.line_of("disruption") or record.location.line
    data = PoolTypes(tuple(types), "accelerated types the pool admits")
    if any(isinstance(v, Unknown) for v in d.values()):
        return next(v for v in d.values() if isinstance(v, Unknown))
    if record.pool_kind == "karpenter-provisioner":
        if d.get("consolidationEnabled") is True or "ttlSecondsAfterEmpty" in d:
            return None
        return Evidence(
            "has neither consolidation.enabled nor ttlSecondsAfterEmpty, so empty GPU nodes are "
            "never removed",
            record.line_of("disruption") or record.line_of("requirements") or record.location.line,
            data,
        )
    after = d.get("consolidateAfter")
    if isinstance(after, str) and after.strip() == "Never":
        return Evidence(
            "sets consolidateAfter: Never, so idle GPU nodes are never consolidated",
            record.line_of("disruption.consolidateAfter") or line,
            data,
        )
    budgets = d.get("budgets")
    if isinstance(budgets, list) and any(_zero_budget(b) for b in budgets):
        return Evidence(
            "has a disruption budget of 0 nodes at all times, so no node is ever consolidated",
            record.line_of("disruption.budgets") or line,
            data,
        )
    version = record.api_version if isinstance(record.api_version, str) else ""
    if version.endswith("v1beta1") and d.get("consolidationPolicy") == "WhenEmpty":
        expiry = d.get("expireAfter")  # absent: the v1beta1 CRD defaults it to 720h
        if expiry is not None and str(expiry).strip() == "Never":
            return Evidence(
                "consolidates only empty nodes (WhenEmpty) and never expires them, so underused "
                "GPU nodes stay",
                record.line_of("disruption.consolidationPolicy") or line,
                data,
            )
    return None


def price_idle_node(finding: Finding, ctx: CostContext) -> Cost:
    prices, types, failed = pool_type_prices(finding, ctx)
    if failed is not None:
        return failed
    low = prices.cheapest
    month = prices.node_month(low)
    basis = (
        f"Risk per idle node: a node the pool never removes bills {low.key} {low.rate()} x "
        f"{num(prices.hours_per_month)} h = {usd(month)} per idle node-month, the cheapest priced of "
        f"{listed(types)}{prices.gap_note()} (field figure: consolidation on GPU pools cut node "
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
    brief = brief_text(
        f"per node it never removes: {low.key} {low.rate()} x {num(prices.hours_per_month)} h "
        "(the cheapest type it admits)"
    )
    return Cost(month, None, KIND, basis, assumptions, brief=brief)


#: what an unsafe fix writes over ``consolidateAfter: Never``: the one idle hour finlint's usage
#: defaults price (``idle_hours_after_job``), so a node idle that long is consolidated
FIX_CONSOLIDATE_AFTER = "1h"


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """NodePool ``consolidateAfter: Never`` becomes ``1h`` (unsafe: Karpenter then removes GPU
    nodes idle for an hour); the other cases (budgets, Provisioners) need a person."""
    from finlint.textedit import yaml_set_key

    pool = finding.record
    if not isinstance(pool, ComputePool) or not finding.file.endswith((".yaml", ".yml")):
        return None
    edit = yaml_set_key(
        finding.file, text, pool.location.line, ("spec", "disruption"), "consolidateAfter",
        FIX_CONSOLIDATE_AFTER, keep_quotes=True,
    )  # fmt: skip
    if edit is None or edit.start_line != finding.line or edit.start_col == edit.end_col:  # another cause
        return None
    return Fix(
        f"set consolidateAfter: {FIX_CONSOLIDATE_AFTER} (idle GPU nodes are consolidated)", False, (edit,)
    )


RULE = Rule(
    "FIN305",
    facts=(pool_never_consolidates,),
    cost_model="idle-gpu-node",
    price=price_idle_node,
    fix=fix,
    fix_safety="unsafe",
)
