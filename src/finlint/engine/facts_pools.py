"""Facts about Karpenter pools: how many nodes their limits admit, GPU exposure, consolidation, API.

Registered in :data:`finlint.engine.facts.FACTS` (imported at the end of ``facts.py``). Every
fact returns a value, ``None`` (does not apply) or :class:`~finlint.ir.Unknown`, and the ones
that explain a finding return :class:`~finlint.engine.facts.Evidence` whose ``data`` is what the
cost model reads.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from finlint.domain import catalog
from finlint.domain.catalog import accelerated_families
from finlint.domain.karpenter import KARPENTER, _need_text, admitted_types, nodes_within_limits
from finlint.engine.facts import Evidence, fact
from finlint.ir import ComputePool, Record, Unknown, is_unknown


def _largest(specs: Iterable[catalog.InstanceSpec]) -> catalog.InstanceSpec:
    return max(specs, key=lambda s: (s.vcpu, s.memory_mib, s.accelerators, s.name))


def limit_exposure(pool: ComputePool, types: list[str], max_nodes: int) -> Any:
    """Evidence that finite limits still admit more than ``max_nodes`` of the largest type, or None.

    Types the limits cannot fit even once are dropped (they never launch); of the rest, the
    largest (vCPU, memory, accelerators) is counted.
    """
    specs = [s for s in (catalog.lookup(t) for t in types) if s is not None]
    fitting: list[tuple[catalog.InstanceSpec, tuple[int, str, Any] | None]] = []
    for spec in specs:
        fit = nodes_within_limits(pool.limits, spec)
        if is_unknown(fit):
            return fit
        if fit is None or fit[0] >= 1:
            fitting.append((spec, fit))
    if not fitting:
        return None
    top = _largest(s for s, _ in fitting)
    fit = dict((s.name, f) for s, f in fitting)[top.name]
    if fit is None:
        return None  # no capping limit: the unbounded case, reported by the caller
    count, resource, raw = fit
    if count <= max_nodes:
        return None
    line = pool.line_of(f"limits.{resource}") or pool.line_of("limits") or pool.location.line
    return Evidence(
        f"admits {', '.join(types)} and its limits admit up to {count:,} {top.name} "
        f"({resource} {raw} / {_need_text(top, resource)}), more than {max_nodes}",
        line,
        {
            "types": [top.name],
            "types_how": f"the largest type its limits admit, {count:,} times ({resource} {raw})",
            "limit_nodes": count,
            "limit_resource": resource,
        },
    )


# --- accelerated pools -----------------------------------------------------------------------


def _gpu_types(record: Record) -> Any:
    if not isinstance(record, ComputePool) or record.pool_kind not in KARPENTER:
        return None
    types = admitted_types(record, accelerated_families())
    if is_unknown(types):
        return types
    return types or None


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


@fact
def gpu_pool_without_limits(record: Record) -> Any:
    """A Karpenter pool admitting accelerated types with no limit that caps how many it launches."""
    types = _gpu_types(record)
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
    largest = _largest(s for s in (catalog.lookup(t) for t in uncapped) if s is not None)
    shown = uncapped if len(uncapped) <= 4 else [*uncapped[:3], f"... ({len(uncapped)} types)"]
    return Evidence(
        f"admits accelerated types {', '.join(shown)} and {why}",
        record.line_of("limits") or record.line_of("requirements") or record.location.line,
        {"types": uncapped, "largest": largest.name, "types_how": "admitted and not capped by spec.limits"},
    )


# --- consolidation ---------------------------------------------------------------------------


def _zero_budget(budget: Any) -> bool:
    """A disruption budget of 0 nodes (or 0 %) that applies at all times (no schedule)."""
    if not isinstance(budget, dict) or "schedule" in budget or "reasons" in budget:
        return False
    nodes = budget.get("nodes")
    return isinstance(nodes, (str, int)) and str(nodes).strip() in ("0", "0%")


@fact
def pool_never_consolidates(record: Record) -> Any:
    """Evidence that a Karpenter pool admitting accelerated types never removes idle nodes."""
    types = _gpu_types(record)
    if types is None or is_unknown(types):
        return types
    assert isinstance(record, ComputePool)
    d = record.disruption
    line = record.line_of("disruption") or record.location.line
    data = {"types": list(types), "types_how": "accelerated types the pool admits"}
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
        expiry = d.get("expireAfter")
        if expiry is None or str(expiry).strip() == "Never":
            return Evidence(
                "consolidates only empty nodes (WhenEmpty) and never expires them, so underused "
                "GPU nodes stay",
                record.line_of("disruption.consolidationPolicy") or line,
                data,
            )
    return None


# --- API version mismatches ------------------------------------------------------------------

#: (api version suffix, disruption path, value or None for any) -> why it is wrong there.
_MISMATCHES: tuple[tuple[str, str, str | None, str], ...] = (
    (
        "karpenter.sh/v1",
        "spec.disruption.consolidationPolicy",
        "WhenUnderutilized",
        "consolidationPolicy WhenUnderutilized is a v1beta1 value; karpenter.sh/v1 accepts WhenEmpty or "
        "WhenEmptyOrUnderutilized and rejects the pool",
    ),
    (
        "karpenter.sh/v1",
        "spec.disruption.expireAfter",
        None,
        "expireAfter under spec.disruption is v1beta1; karpenter.sh/v1 reads it from "
        "spec.template.spec.expireAfter, so node expiry is not what it says",
    ),
    (
        "karpenter.sh/v1beta1",
        "spec.disruption.consolidationPolicy",
        "WhenEmptyOrUnderutilized",
        "consolidationPolicy WhenEmptyOrUnderutilized is a karpenter.sh/v1 value; v1beta1 accepts "
        "WhenEmpty or WhenUnderutilized and rejects the pool",
    ),
    (
        "karpenter.sh/v1beta1",
        "spec.template.spec.expireAfter",
        None,
        "spec.template.spec.expireAfter is karpenter.sh/v1; v1beta1 reads expireAfter from "
        "spec.disruption, so node expiry is not what it says",
    ),
)


@fact
def karpenter_api_mismatch(record: Record) -> Any:
    """Evidence of a field or value of one Karpenter API version written in a pool of another."""
    if not isinstance(record, ComputePool) or record.pool_kind != "karpenter-nodepool":
        return None
    version = record.api_version
    if not isinstance(version, str):
        return version if is_unknown(version) else None
    found: list[tuple[int, str]] = []
    for api, path, value, why in _MISMATCHES:
        if version != api or path not in record.disruption_paths.values():
            continue
        key = next(k for k, p in record.disruption_paths.items() if p == path)
        actual = record.disruption.get(key)
        if value is not None and actual != value:
            continue
        line = record.line_of(f"disruption.{key}") or record.line_of("disruption") or record.location.line
        found.append((line, why))
    if not found:
        return None
    found.sort()
    return Evidence("; ".join(why for _, why in found), found[0][0], {"mismatches": len(found)})


# --- SageMaker names in EC2 requirements -----------------------------------------------------

_TYPE_KEYS = (
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-type",
)
_EC2_POOLS = ("eks-nodegroup", "eksctl-nodegroup", "autoscaling-group", "launch-template", "ec2-instance")


@fact
def sagemaker_type_in_pool(record: Record) -> Any:
    """Evidence that an EC2/Karpenter pool names SageMaker ``ml.*`` instance types (never matches)."""
    if not isinstance(record, ComputePool):
        return None
    if record.pool_kind in KARPENTER:
        if record.hyperpod_node_class:
            return None  # HyperPod nodes carry ml.* instance-type labels: the names match there
        for req in record.requirements:
            if req.key not in _TYPE_KEYS or req.operator not in ("In", "NotIn"):
                continue
            bad = [v for v in req.values if v.startswith("ml.")]
            if bad:
                fixed = ", ".join(catalog.ec2_twin(v) for v in bad)
                return Evidence(
                    f"requirement {req.key} {req.operator} lists SageMaker type(s) {', '.join(bad)}, "
                    f"which match no EC2 instance (the EC2 name is {fixed})",
                    req.line or record.line_of("requirements") or record.location.line,
                    {"sagemaker_types": bad, "operator": req.operator},
                )
        return None
    if record.pool_kind not in _EC2_POOLS:
        return None  # HyperPod instance groups use ml.* names legitimately
    types = record.instance_types
    if not isinstance(types, tuple):
        return None
    bad = [t for t in types if isinstance(t, str) and t.startswith("ml.")]
    if not bad:
        return None
    return Evidence(
        f"instance types list SageMaker type(s) {', '.join(bad)}, which are not EC2 instance types "
        f"(the EC2 name is {', '.join(catalog.ec2_twin(t) for t in bad)})",
        record.line_of("instance_types") or record.location.line,
        {"sagemaker_types": bad},
    )
