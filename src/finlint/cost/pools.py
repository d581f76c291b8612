"""One model of what a compute pool bills, shared by FIN301 (`finlint scan`) and `finlint cost`.

always-on nodes: Karpenter pools 0 (static replicas: min_size), EC2 instance 1 (or min size),
                 other groups max(min size, desired size); bounded like every count
node-month:      hourly price x hours_per_month, for each admitted type that has a price
pool per month:  always-on nodes x the cheapest priced node-month
ceiling:         an elastic pool (no always-on nodes) bills nothing until it scales; each node it
                 adds bills up to the dearest priced node-month of :func:`pool_types` (every
                 accelerated type it admits: the one definition FIN301, FIN304 and cost use).
                 Types without a price are named, because the cheapest or dearest priced may
                 then not be the cheapest or dearest.
limit ceiling:   a pool whose spec.limits admit N nodes of a type can bill up to N x that type's
                 node-month (N from domain.karpenter.nodes_within_limits, the smallest over limits)
"""

from __future__ import annotations

from dataclasses import dataclass

from finlint.cost import bounds
from finlint.cost.common import num, usd
from finlint.cost.pricing import PriceQuote, Pricing
from finlint.domain import catalog
from finlint.ir import ComputePool, is_unknown

KARPENTER = ("karpenter-nodepool", "karpenter-provisioner")


def pool_types(rec: ComputePool) -> list[str] | None:
    """The types a pool may launch: a Karpenter pool's admitted accelerated types (the families
    FIN301/FIN304/FIN305 count), else the group's listed types; None when unresolved."""
    if rec.pool_kind in KARPENTER:
        from finlint.domain.karpenter import admitted_types

        types = admitted_types(rec, catalog.accelerated_families())
        return None if is_unknown(types) else list(types)
    if not isinstance(rec.instance_types, (list, tuple)):
        return None
    return [t for t in rec.instance_types if isinstance(t, str)]


def always_on(pool: ComputePool) -> tuple[int | None, str]:
    """Nodes the pool keeps running, or None and why (unresolved or absurd sizes)."""
    if pool.pool_kind in KARPENTER:
        n, why = bounds.count(pool.min_size, "min_size") if isinstance(pool.min_size, int) else (0, None)
        return n, why or ""
    sizes: list[int] = []
    for what, value in (("min_size", pool.min_size), ("desired_size", pool.desired_size)):
        if isinstance(value, int) and not isinstance(value, bool):
            n, why = bounds.count(value, what)
            if n is None:
                return None, why or ""
            sizes.append(n)
    if pool.pool_kind == "ec2-instance" and pool.min_size is None:
        return max(sizes, default=1), ""
    return max(sizes, default=0), ""


@dataclass(frozen=True)
class PoolPrices:
    """The priced node types of a pool, cheapest first, and the types the snapshot cannot price."""

    quotes: tuple[PriceQuote, ...]
    unpriced: tuple[str, ...]
    hours_per_month: float

    @property
    def cheapest(self) -> PriceQuote | None:
        return self.quotes[0] if self.quotes else None

    @property
    def dearest(self) -> PriceQuote | None:
        return self.quotes[-1] if self.quotes else None

    def node_month(self, quote: PriceQuote) -> float:
        return quote.usd * self.hours_per_month

    def gap_note(self) -> str:
        """'' or '; p5.4xlarge has no price in the snapshot (a gap), so ... depends on it'."""
        if not self.unpriced or not self.quotes:
            return ""
        names = ", ".join(self.unpriced)
        verb = "has" if len(self.unpriced) == 1 else "have"
        return (
            f"; {names} {verb} no price in the snapshot (a gap): the cheapest and dearest priced depend on it"
        )

    def range_text(self) -> str:
        """'node-month $40,179.20 (p5.48xlarge) to $46,206.08 (p5en.48xlarge)'."""
        lo, hi = self.cheapest, self.dearest
        if lo is None or hi is None:
            return ""
        if lo.key == hi.key:
            return f"node-month {usd(self.node_month(lo))} ({lo.key}, {num(self.hours_per_month)} h)"
        return (
            f"node-month {usd(self.node_month(lo))} ({lo.key}) to {usd(self.node_month(hi))} ({hi.key}), "
            f"{num(self.hours_per_month)} h"
        )


def pool_prices(pricing: Pricing, types: list[str], hours_per_month: float) -> PoolPrices:
    quotes = []
    unpriced = []
    for t in dict.fromkeys(types):
        q = pricing.hourly(t)
        if q is None:
            unpriced.append(t)
        else:
            quotes.append(q)
    return PoolPrices(tuple(sorted(quotes, key=lambda q: q.usd)), tuple(unpriced), hours_per_month)


def limit_ceiling(prices: PoolPrices, node_type: str, nodes: int) -> tuple[float | None, str]:
    """N nodes x ``node_type``'s node-month: what a pool whose limits admit N such nodes may bill."""
    quote = next((q for q in prices.quotes if q.key == node_type), None)
    if quote is None:
        return None, f"{node_type} has no price in the snapshot"
    n, why = bounds.count(nodes, "nodes its limits admit")
    if n is None:
        return None, why or ""
    month = prices.node_month(quote)
    text = (
        f"{n:,} node(s) x {node_type} {quote.rate()} x {num(prices.hours_per_month)} h = "
        f"{usd(n * month)} per month if it scales to its limits"
    )
    return n * month, text
