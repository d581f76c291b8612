"""Karpenter knowledge, defined once for rules, ``finlint cost`` and linking: which catalog
types a pool's requirements admit, and how many nodes its ``spec.limits`` allow."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Iterable

from finlint.domain import catalog
from finlint.domain.quantity import parse_quantity
from finlint.ir import ComputePool, Requirement, Unknown

KARPENTER = ("karpenter-nodepool", "karpenter-provisioner")
#: The spec.limits resources an instance consumes, and how much of each one instance uses.
LIMIT_RESOURCES = ("cpu", "memory", "nvidia.com/gpu", "aws.amazon.com/neuron", "nodes")


def _need(spec: catalog.InstanceSpec, resource: str) -> float:
    return {
        "cpu": float(spec.vcpu),
        "memory": float(spec.memory_mib) * 1024 * 1024,
        "nvidia.com/gpu": float(spec.gpu_count),
        "aws.amazon.com/neuron": float(spec.accelerator_count),
        "nodes": 1.0,
    }.get(resource, 0.0)


def _need_text(spec: catalog.InstanceSpec, resource: str) -> str:
    return {
        "cpu": f"{spec.vcpu} vCPU",
        "memory": f"{spec.memory_mib / 1024:,.0f} GiB",
        "nvidia.com/gpu": f"{spec.gpu_count} GPUs",
        "aws.amazon.com/neuron": f"{spec.accelerator_count} Neuron devices",
        "nodes": "1 node",
    }[resource]


def nodes_within_limits(limits: Any, spec: catalog.InstanceSpec) -> Any:
    """How many ``spec`` instances a pool's ``spec.limits`` admit, with the limit that binds.

    Returns ``None`` when no limit caps the type (no limits, or only limits on resources the type
    does not consume), :class:`Unknown` when a capping limit is not a quantity, else
    ``(count, resource, raw limit)`` for the smallest count over the limits.
    """
    if isinstance(limits, Unknown):
        return limits
    if not isinstance(limits, dict) or not limits:
        return None
    best: tuple[int, str, Any] | None = None
    for resource in LIMIT_RESOURCES:
        if resource not in limits:
            continue
        need = _need(spec, resource)
        if need <= 0:
            continue  # a limit on a resource this type does not consume never caps it
        raw = limits[resource]
        if isinstance(raw, Unknown):
            return raw
        have = parse_quantity(raw)
        if have is None:
            return Unknown(f"limit {resource}={raw!r} is not a quantity")
        if not math.isfinite(have):
            continue
        count = int(math.floor(have / need + 1e-9))
        if best is None or count < best[0]:
            best = (count, resource, raw)
    return best


_NODE_TYPE_KEYS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")


def _requirement_label(spec: catalog.InstanceSpec, key: str) -> tuple[bool, Any]:
    """(is this key about the instance type?, the spec's value for it)."""
    if key in _NODE_TYPE_KEYS:
        return True, spec.name
    if key.startswith(("karpenter.k8s.aws/instance-", "eks.amazonaws.com/instance-")):
        return True, spec.label(key)  # EKS Auto Mode's NodePools use eks.amazonaws.com/ labels
    return False, None


def _satisfies(spec: catalog.InstanceSpec, req: Requirement) -> bool:
    relevant, value = _requirement_label(spec, req.key)
    if not relevant:
        return True  # zone, arch, capacity-type, custom labels: do not filter instance types
    op = req.operator
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("In", "NotIn"):
        hit = value is not None and str(value) in req.values
        return hit if op == "In" else not hit
    if op in ("Gt", "Lt", "Gte", "Lte"):
        if value is None or not req.values:
            return False
        try:
            bound = float(req.values[0])
            number = float(value)
        except (TypeError, ValueError):
            return False
        return {
            "Gt": number > bound,
            "Lt": number < bound,
            "Gte": number >= bound,
            "Lte": number <= bound,
        }[op]
    return True


def admitted_types(pool: ComputePool, families: Iterable[str]) -> Any:
    """Catalog types of ``families`` a Karpenter pool's requirements admit (Unknown if templated)."""
    wanted = set(families)
    if isinstance(pool.instance_types, Unknown):
        return pool.instance_types  # the loader saw a templated requirement
    for req in pool.requirements:
        about_type = req.key in _NODE_TYPE_KEYS or req.key.startswith("karpenter.k8s.aws/instance-")
        if about_type and any("{{" in v or "${" in v for v in req.values):
            return Unknown(f"requirement {req.key} is templated")
    key = tuple(Requirement(r.key, r.operator, tuple(r.values)) for r in pool.requirements)  # no lines
    return list(_admitted(key, frozenset(wanted)))


@lru_cache(maxsize=1024)
def _admitted(requirements: tuple[Requirement, ...], families: frozenset[str]) -> tuple[str, ...]:
    """Catalog types of ``families`` meeting every requirement. Cached: three rules ask about
    each pool, and a repository's pools often repeat the same requirements."""
    return tuple(
        sorted(
            spec.name
            for spec in catalog.all_instances()
            if spec.family in families and all(_satisfies(spec, r) for r in requirements)
        )
    )
