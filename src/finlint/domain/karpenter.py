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


# --- where a pod lands: a pool's taints, labels and requirements against a pod's placement ---

#: Node groups (EKS managed, eksctl) label their nodes with their name and capacity type.
NODEGROUP_LABELS = ("eks.amazonaws.com/nodegroup", "alpha.eksctl.io/nodegroup-name")
NODEGROUP_CAPACITY_LABEL = "eks.amazonaws.com/capacityType"
NODEPOOL_LABEL = "karpenter.sh/nodepool"
CAPACITY_LABEL = "karpenter.sh/capacity-type"
NODE_GROUPS = ("eksctl-nodegroup", "eks-nodegroup")
#: Labels every node carries whatever its pool (a pod selecting them does not exclude a pool
#: that does not constrain them).
_WELL_KNOWN = (
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "failure-domain.beta.kubernetes.io/zone",
    "kubernetes.io/hostname",
)


def _taint_parts(taint: str) -> tuple[str, str, str]:
    """``key=value:Effect`` -> (key, value, effect normalised: ``noschedule``)."""
    head, sep, effect = taint.rpartition(":")
    if not sep:
        head, effect = taint, ""
    key, _, value = head.partition("=")
    return key, value, effect.lower().replace("_", "")


def _tolerated(taint: str, tolerations: Iterable[Any]) -> bool:
    key, value, effect = _taint_parts(taint)
    if effect == "prefernoschedule":
        return True  # a preference, never a refusal
    for tol_key, operator, tol_value, tol_effect in tolerations:
        if tol_key and tol_key != key:
            continue
        if not tol_key and operator != "Exists":
            continue
        if operator != "Exists" and tol_value != value:
            continue
        if tol_effect and tol_effect.lower().replace("_", "") != effect:
            continue
        return True
    return False


def _node_labels(pool: ComputePool) -> dict[str, tuple[str, ...]]:
    """The label values a pool's nodes may carry (several for a Karpenter ``In`` requirement)."""
    labels: dict[str, tuple[str, ...]] = {
        str(k): (str(v),)
        for k, v in pool.labels.items()
        if isinstance(v, (str, int)) and not isinstance(v, bool)
    }
    if pool.pool_kind in KARPENTER:
        if isinstance(pool.name, str):
            labels[NODEPOOL_LABEL] = (pool.name,)
        if isinstance(pool.capacity_types, tuple):
            labels[CAPACITY_LABEL] = pool.capacity_types
        for req in pool.requirements:
            if req.operator == "In" and not _requirement_label_key(req.key):
                labels[req.key] = req.values
    elif isinstance(pool.name, str):
        for key in NODEGROUP_LABELS:
            labels[key] = (pool.name,)
        if isinstance(pool.capacity_types, tuple):
            labels[NODEGROUP_CAPACITY_LABEL] = tuple(c.upper().replace("-", "_") for c in pool.capacity_types)
    return labels


_TYPE_LABEL_PREFIXES = ("karpenter.k8s.aws/instance-", "eks.amazonaws.com/instance-")


def _requirement_label_key(key: str) -> bool:
    return key in _NODE_TYPE_KEYS or key.startswith(_TYPE_LABEL_PREFIXES)


def _label_ok(req: Requirement, labels: dict[str, tuple[str, ...]], karpenter: bool) -> bool:
    """Can a node of the pool carry a label meeting ``req`` (instance-type keys are checked apart)."""
    have = labels.get(req.key)
    if req.operator in ("NotIn", "DoesNotExist"):
        if have is None:
            return True
        return req.operator == "NotIn" and any(v not in req.values for v in have)
    if have is None:
        # Karpenter nodes carry its well-known labels; a custom label must be the pool's own
        return req.key in _WELL_KNOWN or (karpenter and req.key.startswith("karpenter."))
    if req.operator == "Exists":
        return True
    if req.operator == "In":
        return any(v in req.values for v in have)
    return True  # Gt/Lt on a custom label: not decided here


def fitting_types(pool: ComputePool, placement: Any) -> Any:
    """The instance types ``pool`` may launch for a pod placed by ``placement`` (an
    :class:`finlint.ir.PodPlacement`): a sorted tuple (empty: the pod does not land there) and
    why not, or an :class:`Unknown` when the pool's types or labels are not literal.

    A pod lands on a pool when it tolerates every ``NoSchedule``/``NoExecute`` taint, every label
    it selects (``nodeSelector``, a required node-affinity term) is one the pool's nodes carry,
    and the pool admits a type with the pod's accelerators (kind and count)."""
    for taint in pool.taints:
        if not _tolerated(taint, placement.tolerations):
            return (), f"its taint {taint} is not tolerated"
    karpenter = pool.pool_kind in KARPENTER
    labels = _node_labels(pool)
    terms = placement.affinity or ((),)
    selector = tuple(Requirement(k, "In", (v,)) for k, v in placement.selector)
    candidates = _pool_types(pool)
    if isinstance(candidates, Unknown):
        return candidates
    fits: set[str] = set()
    why = ""
    for term in terms:
        reqs = (*selector, *term)
        label_reqs = [r for r in reqs if not _requirement_label_key(r.key)]
        bad = next((r for r in label_reqs if not _label_ok(r, labels, karpenter)), None)
        if bad is not None:
            why = f"its nodes do not carry {bad.key} {bad.operator} {', '.join(bad.values)}".rstrip()
            continue
        type_reqs = [r for r in reqs if _requirement_label_key(r.key)]
        for spec in candidates:
            if _fits_pod(spec, placement) and all(_satisfies(spec, r) for r in type_reqs):
                fits.add(spec.name)
        if not fits:
            why = _no_type_text(placement)
    return tuple(sorted(fits)), ("" if fits else why)


def _pool_types(pool: ComputePool) -> Any:
    """The catalog specs a pool may launch (Karpenter: what its requirements admit)."""
    if pool.pool_kind in KARPENTER:
        admitted = admitted_types(pool, {s.family for s in catalog.all_instances()})
        if isinstance(admitted, Unknown):
            return admitted
        return [spec for name in admitted if (spec := catalog.lookup(name)) is not None]
    types = pool.instance_types
    if isinstance(types, Unknown):
        return types
    if types is None:
        return Unknown("the node group's instance types are not in the scan")
    specs = []
    for name in types:
        if not isinstance(name, str):
            return Unknown("an instance type of the node group is unresolved")
        spec = catalog.lookup(name)
        if spec is not None:
            specs.append(spec)
    return specs


def _fits_pod(spec: catalog.InstanceSpec, placement: Any) -> bool:
    kind = placement.accelerator_kind
    if kind is None:
        return True  # no accelerators asked: any type the pool admits
    neuron = spec.accelerator_count if not spec.gpu_count else 0  # Trainium / Inferentia
    have = spec.gpu_count if kind == "gpu" else neuron
    need = placement.accelerators if isinstance(placement.accelerators, int) else 1
    return have >= max(need, 1)


def _no_type_text(placement: Any) -> str:
    need = placement.accelerators if isinstance(placement.accelerators, int) else 1
    what = {"gpu": "GPUs", "neuron": "Neuron devices"}.get(str(placement.accelerator_kind), "accelerators")
    return f"it admits no type with {max(need, 1)} {what} for the pod's selectors"
