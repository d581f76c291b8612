"""FIN304 gpu-pool-without-limits: A Karpenter pool admitting GPU or Neuron types with no limit
that caps it.

The policy is ``policies/FIN304-gpu-pool-without-limits.yaml``; this module holds its facts and
its price.

Price (gpu-pool-ceiling, exposure): a pool with no limit that caps it can add nodes without
bound; the figure is one node-month of the dearest priced type it admits (hourly x
hours_per_month), stated as "per node-month, no upper bound", on the pool model of
``finlint cost`` (:func:`finlint.cost.pools.pool_prices`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from finlint.cost.common import CostContext, brief_text, num, price_note, quote_json, usd
from finlint.domain import catalog
from finlint.domain.karpenter import nodes_within_limits
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding, Fix
from finlint.ir import ComputePool, Record, Unknown, is_unknown
from finlint.rules.base import Rule
from finlint.rules.compute.gpu_pools import PoolTypes, gpu_types, listed, pool_type_prices

KIND = "exposure"


def _uncapped(types: tuple[str, ...], limits: Any) -> Any:
    """The ``types`` no limit caps (a list), or the Unknown of a limit that is not a quantity."""
    try:
        key = tuple(sorted(limits.items())) if isinstance(limits, dict) else None
        hash(key)
    except TypeError:  # a limit value that is not a plain scalar (Unknown, a list)
        key = None
    found = _uncapped_types(types, limits) if key is None else _uncapped_cached(types, key)
    return found if is_unknown(found) else list(found)  # a fresh list: evidence is per finding


@lru_cache(maxsize=1024)
def _uncapped_cached(types: tuple[str, ...], limits: tuple[tuple[str, Any], ...]) -> Any:
    """Cached: pools of one repository often repeat both their requirements and their limits."""
    return _uncapped_types(types, dict(limits))


def _uncapped_types(types: tuple[str, ...], limits: Any) -> Any:
    capped = set()
    for name in types:
        spec = catalog.lookup(name)
        if spec is None:
            continue
        fit = nodes_within_limits(limits, spec)
        if is_unknown(fit):
            return fit
        if fit is not None:
            capped.add(name)
    return tuple(t for t in types if t not in capped)


def gpu_pool_without_limits(record: Record) -> Any:
    """A Karpenter pool admitting accelerated types with no limit that caps how many it launches."""
    types = gpu_types(record)
    if types is None or is_unknown(types):
        return types
    assert isinstance(record, ComputePool)
    if isinstance(record.limits, Unknown):
        return record.limits
    uncapped = _uncapped(tuple(types), record.limits)
    if is_unknown(uncapped):
        return uncapped
    if not uncapped:
        return None
    limits = record.limits
    if not limits:
        why = "has no spec.limits"
    else:
        them = "them" if len(uncapped) > 1 else "it"
        why = f"its spec.limits ({', '.join(sorted(limits))}) do not cap {them}"
    shown = uncapped if len(uncapped) <= 4 else [*uncapped[:3], f"... ({len(uncapped)} types)"]
    return Evidence(
        f"admits accelerated types {', '.join(shown)} and {why}",
        record.line_of("limits") or record.line_of("requirements") or record.location.line,
        PoolTypes(tuple(uncapped), "admitted and not capped by spec.limits"),
    )


def price_ceiling(finding: Finding, ctx: CostContext) -> Cost:
    prices, types, failed = pool_type_prices(finding, ctx)
    if failed is not None:
        return failed
    top = prices.dearest
    month = prices.node_month(top)
    basis = (
        f"Exposure, no upper bound: each node the pool adds bills up to {top.key} {top.rate()} x "
        f"{num(prices.hours_per_month)} h = {usd(month)} per node-month, the dearest priced of "
        f"{listed(types)}{prices.gap_note()}; with no limit that caps the pool, nothing stops it "
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
    }
    brief = brief_text(
        f"no limit caps it: each node it adds bills up to {usd(month)} per node-month ({top.key}, "
        f"{num(prices.hours_per_month)} h)"
    )
    return Cost(month, None, KIND, basis, assumptions, brief=brief)


#: an unsafe fix's ceiling: this many nodes of the largest uncapped type the pool admits, in
#: that type's accelerators (the usage file has no node count; a stated default, to be edited)
FIX_DEFAULT_NODES = 4


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """Karpenter ``NodePool`` YAML: unsafe, add ``spec.limits`` (or a key to the limits there)
    in the accelerator the uncapped types consume: ``nvidia.com/gpu`` or
    ``aws.amazon.com/neuron`` = the accelerators of 4 nodes of the largest uncapped type the pool
    admits. Behaviour changes: Karpenter stops adding nodes at that ceiling, so pending pods wait;
    size it to the largest job. A NodePool in a Terraform ``kubectl_manifest`` heredoc is edited
    in the heredoc. No fix for Provisioners, Helm templates, ``yamlencode`` objects, or a pool
    whose uncapped types need both resources or include one with no whole accelerator (``g6f``)."""
    from finlint.textedit import yaml_add_key, yaml_add_key_within, yaml_source

    pool = finding.record
    types = finding.evidence_of(PoolTypes)
    heredoc = None
    if finding.file.endswith(".tf"):  # a kubectl_manifest's yaml_body heredoc
        from finlint.textedit.hcl import heredoc_body

        heredoc = heredoc_body(text, finding.line)
    if (
        not isinstance(pool, ComputePool)
        or pool.pool_kind != "karpenter-nodepool"
        or types is None
        or not (yaml_source(finding.file) or heredoc)
    ):
        return None
    specs = [s for s in (catalog.lookup(t) for t in types.types) if s is not None]
    resources = {
        "nvidia.com/gpu" if s.gpu_count else "aws.amazon.com/neuron" for s in specs if s.accelerators
    }
    if len(resources) != 1 or len(specs) != len(types.types) or not all(s.accelerators for s in specs):
        return None  # a type no accelerator limit caps (a fractional GPU: g6f) needs a person
    resource = resources.pop()
    largest = max(specs, key=lambda s: (s.accelerators, s.name))
    count = largest.accelerators * FIX_DEFAULT_NODES
    if heredoc is not None:
        edit = yaml_add_key_within(
            finding.file, text, heredoc, finding.line, ("spec", "limits"), resource, str(count)
        )
    else:
        edit = yaml_add_key(finding.file, text, pool.location.line, ("spec", "limits"), resource, str(count))
    if edit is None:
        return None
    why = f"{FIX_DEFAULT_NODES} x {largest.name} ({largest.accelerators} each), its largest uncapped type"
    return Fix(f"cap the pool: spec.limits {resource}: {count} ({why})", False, (edit,))


RULE = Rule(
    "FIN304",
    facts=(gpu_pool_without_limits,),
    cost_model="gpu-pool-ceiling",
    price=price_ceiling,
    fix=fix,
    fix_safety="unsafe",
)
