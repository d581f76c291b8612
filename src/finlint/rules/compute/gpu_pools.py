"""GPU pools: the accelerated types a pool admits and their prices (FIN301, FIN304, FIN305)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from finlint.cost.common import CostContext, unpriced
from finlint.cost.pools import pool_prices
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.domain import catalog
from finlint.domain.catalog import accelerated_families
from finlint.domain.karpenter import KARPENTER, admitted_types
from finlint.finding import Cost, Finding
from finlint.ir import ComputePool, Record, is_unknown


def largest_spec(specs: Iterable[catalog.InstanceSpec]) -> catalog.InstanceSpec:
    return max(specs, key=lambda s: (s.vcpu, s.memory_mib, s.accelerators, s.name))


def gpu_types(record: Record) -> Any:
    if not isinstance(record, ComputePool) or record.pool_kind not in KARPENTER:
        return None
    types = admitted_types(record, accelerated_families())
    if is_unknown(types):
        return types
    return types or None


KIND = "exposure"


@dataclass(frozen=True)
class PoolTypes:
    """What a pool rule established for its price: the instance types to price and how they were
    found; how many nodes run always (a static pool), or that nothing caps it, or how many nodes
    of the largest type its limits admit and through which resource."""

    types: tuple[str, ...]
    how: str
    always_on: int | None = None
    unbounded: bool = False
    limit_nodes: int | None = None
    limit_resource: str | None = None


def pool_type_prices(finding: Finding, ctx: CostContext) -> tuple[Any, list[str], Cost | None]:
    found = finding.evidence_of(PoolTypes)
    types = list(found.types) if found is not None else []
    if not types:
        return None, [], unpriced(KIND, "the rule established no instance types for this pool")
    params = ctx.params(finding.record)
    pricing = ctx.pricing_for(params)
    hpm = float(params.get("hours_per_month", HOURS_PER_MONTH))
    prices = pool_prices(pricing, types, hpm)
    if prices.cheapest is None:
        return None, types, unpriced(KIND, pricing.missing(" or ".join(types)), region=pricing.region)
    return prices, types, None


def listed(types: list[str]) -> str:
    return ", ".join(types) if len(types) <= 6 else f"{', '.join(types[:5])} and {len(types) - 5} more"
