"""Karpenter -> :class:`ComputePool`: NodePool (v1, v1beta1), Provisioner (v1alpha5), EC2NodeClass.

A pool keeps its requirements themselves (the engine evaluates them against the instance
catalog); template labels on well-known keys are requirements too, as in Karpenter, and a
v1alpha5 Provisioner gets its defaulting webhook's instance requirements when nothing selects
types. An ``EC2NodeClass`` with ``capacityReservationSelectorTerms`` becomes a bare
:class:`ir.Record` carrying its facts in ``extra``: no rule applies to the base kind;
:func:`finalize` uses it to mark reserved-only NodePools that point at it as reserved capacity,
then drops it. The facts thus travel with the scan's own records: no module state, nothing to
reset.
"""

from __future__ import annotations

from typing import Any

from finlint.ir import ComputePool, Maybe, Record, Requirement, Unknown
from finlint.loaders.common.yamlload import LineDict, kind_name
from finlint.loaders.kubernetes.object import (
    Doc,
    Node,
    boolean,
    child,
    integer,
    items,
    mapping,
    placeholder,
    plain,
    raw_line,
    templated,
    text,
)

NODE_CLASS_FACTS = "karpenter_node_class"  # extra key of the EC2NodeClass carrier record
CAPACITY_TYPE_KEY = "karpenter.sh/capacity-type"
ALL_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
#: Label keys that Karpenter turns into requirements and that decide which instances launch.
_LABEL_REQUIREMENT_KEYS = ("node.kubernetes.io/instance-type", CAPACITY_TYPE_KEY)
_LABEL_REQUIREMENT_PREFIX = "karpenter.k8s.aws/instance-"
#: The AWS provider's defaulting webhook for ``karpenter.sh/v1alpha5`` Provisioners adds these
#: requirements when none of the instance-selection keys below is constrained (v1beta1/v1
#: NodePools have no such default: an unconstrained NodePool admits every instance type).
_PROVISIONER_DEFAULT_REQUIREMENTS = (
    ("karpenter.k8s.aws/instance-category", "In", ("c", "m", "r")),
    ("karpenter.k8s.aws/instance-generation", "Gt", ("2",)),
)
#: ``nodeClassRef.group`` of SageMaker HyperPod's Karpenter autoscaling: a ``HyperpodNodeClass``
#: names HyperPod instance groups, and the pool launches only their (``ml.*``) instance types,
#: which the HyperPod cluster sets, not every EC2 type its requirements admit.
HYPERPOD_NODE_CLASS_GROUP = "karpenter.sagemaker.amazonaws.com"
_INSTANCE_SELECTION_KEYS = frozenset(
    {
        "node.kubernetes.io/instance-type",
        "beta.kubernetes.io/instance-type",
        "karpenter.k8s.aws/instance-family",
        "karpenter.k8s.aws/instance-category",
        "karpenter.k8s.aws/instance-generation",
    }
)


def _selects_instances(key: str) -> bool:
    """Whether a requirement on ``key`` can change which instances launch or how they are bought.

    A placeholder in the values of another key (a zone, a team label) leaves the literal
    instance requirements decidable (the capacity type is read on its own).
    """
    return key in _INSTANCE_SELECTION_KEYS or key.startswith(_LABEL_REQUIREMENT_PREFIX) or templated(key)


def _requirements(d: Doc, node: Any, key: str) -> tuple[list[Requirement], Unknown | None]:
    """Parsed requirements, and why they cannot be evaluated (a placeholder) if so."""
    value = child(node, key)
    if value is None:
        return [], None
    if templated(value):
        return [], placeholder(key, value)
    if not isinstance(value, list):
        raise d.error(f"`{key}` must be a list", raw_line(node, key))
    found: list[Requirement] = []
    unresolved: Unknown | None = None
    for _index, item, line in items(node, key):
        if not isinstance(item, dict):
            raise d.error(f"`{key}` item is not a mapping", line)
        req_key, operator, values = item.get("key"), item.get("operator"), item.get("values")
        if not isinstance(req_key, str) or not isinstance(operator, str):
            raise d.error(f"`{key}` item needs a string `key` and `operator`", line)
        if values is None:
            values = []
        if not isinstance(values, list) or any(isinstance(v, (dict, list)) for v in values):
            raise d.error(f"`values` of requirement {req_key} must be a list of strings", line)
        for part in (req_key, operator, *(values if _selects_instances(req_key) else ())):
            if templated(part) and unresolved is None:
                unresolved = placeholder(f"requirement {req_key}", part)
        found.append(Requirement(req_key, operator, tuple(str(v) for v in values), d.line(line)))
    return found, unresolved


def _label_requirements(d: Doc, labels: Any) -> list[Requirement]:
    """Karpenter adds a pool's template labels to its requirements (``In [value]``)."""
    if not isinstance(labels, dict):
        return []
    found = []
    for key, value in labels.items():
        if not isinstance(key, str) or not isinstance(value, (str, int)) or isinstance(value, bool):
            continue
        if key in _LABEL_REQUIREMENT_KEYS or key.startswith(_LABEL_REQUIREMENT_PREFIX):
            found.append(Requirement(key, "In", (str(value),), d.line_at(labels, key)))
    return found


def _provisioner_defaults(requirements: list[Requirement], extra: dict[str, Any]) -> list[Requirement]:
    """The v1alpha5 webhook's instance defaults (c/m/r, generation > 2) when nothing selects types."""
    if any(r.key in _INSTANCE_SELECTION_KEYS for r in requirements):
        return []
    extra["defaulted_requirements"] = (
        "karpenter.sh/v1alpha5 webhook: instance-category In c,m,r; instance-generation Gt 2"
    )
    return [Requirement(key, op, values) for key, op, values in _PROVISIONER_DEFAULT_REQUIREMENTS]


def _capacity_types(requirements: list[Requirement]) -> Maybe[tuple[str, ...]]:
    """What ``karpenter.sh/capacity-type`` admits; on-demand (Karpenter's default) when unset."""
    allowed = list(ALL_CAPACITY_TYPES)
    constrained = False
    for req in requirements:
        if req.key != CAPACITY_TYPE_KEY:
            continue
        if any(templated(v) for v in req.values):
            return placeholder(CAPACITY_TYPE_KEY, list(req.values))
        constrained = True
        if req.operator == "In":
            allowed = [t for t in allowed if t in req.values] + [
                v for v in req.values if v not in allowed and v not in ALL_CAPACITY_TYPES
            ]
        elif req.operator == "NotIn":
            allowed = [t for t in allowed if t not in req.values]
        elif req.operator == "DoesNotExist":
            allowed = []
        elif req.operator != "Exists":
            return Unknown(f"{CAPACITY_TYPE_KEY} with operator {req.operator}")
    if not constrained:
        return ("on-demand",)
    return tuple(dict.fromkeys(allowed))


def _limits(d: Doc, node: Any, key: str) -> Maybe[dict[str, Any]]:
    value = child(node, key)
    if value is None:
        return None
    if templated(value):
        return placeholder(key, value)
    if not isinstance(value, dict):
        return Unknown(f"`{key}` is not a mapping")
    limits = {str(k): placeholder(f"limit {k}", v) if templated(v) else v for k, v in value.items()}
    return limits or None


def _taints(d: Doc, node: Any, key: str) -> tuple[str, ...]:
    taints = []
    for _index, item, _line in items(node, key):
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            value = f"={item['value']}" if item.get("value") not in (None, "") else ""
            effect = f":{item['effect']}" if item.get("effect") else ""
            taints.append(f"{item['key']}{value}{effect}")
    return tuple(taints)


def _section(d: Doc, node: Any, key: str) -> Node:
    """``node[key]`` as a mapping; empty when absent; FIN000 when it is something else.

    A pool whose spec cannot be read must not look like a pool without requirements (which
    would admit every instance type)."""
    value = child(node, key)
    if value is None:
        return LineDict()
    if not isinstance(value, dict):
        what = "a template placeholder" if templated(value) else kind_name(value)
        raise d.error(f"`{key}` must be a mapping, not {what}", raw_line(node, key))
    return value


def load_karpenter_pool(d: Doc) -> list[Record]:
    if child(d.doc, "spec") is None:  # Karpenter rejects it; not a pool that admits every type
        raise d.error("has no `spec` (Karpenter requires one); not checked", getattr(d.doc, "line", 1))
    spec = _section(d, d.doc, "spec")
    lines: dict[str, int] = {}
    paths: dict[str, str] = {}
    extra: dict[str, Any] = {"api_version": d.api_version}
    if d.kind == "Provisioner":
        pool_kind, pod_spec, labels_node = "karpenter-provisioner", spec, spec
        limits_parent, limits_key = mapping(spec, "limits"), "resources"
        node_ref = mapping(spec, "providerRef")
        disruption = _provisioner_disruption(d, spec, lines)
    else:
        pool_kind = "karpenter-nodepool"
        template = _section(d, spec, "template")
        pod_spec = _section(d, template, "spec")
        labels_node = mapping(template, "metadata") or LineDict()
        limits_parent, limits_key = spec, "limits"
        node_ref = mapping(pod_spec, "nodeClassRef")
        disruption = _nodepool_disruption(d, spec, pod_spec, lines, paths)
    requirements, unresolved = _requirements(d, pod_spec, "requirements")
    if "requirements" in pod_spec:
        lines["requirements"] = d.line_at(pod_spec, "requirements")
    labels = mapping(labels_node, "labels")
    requirements += _label_requirements(d, labels)
    if labels is not None:
        lines["labels"] = d.line_at(labels_node, "labels")
    if d.kind == "Provisioner" and unresolved is None:
        requirements += _provisioner_defaults(requirements, extra)
    capacity = [r for r in requirements if r.key == CAPACITY_TYPE_KEY]
    if capacity and capacity[0].line is not None:
        lines["capacity_types"] = capacity[0].line
    limits = _limits(d, limits_parent, limits_key)
    if limits_parent is not None and limits_key in limits_parent:
        lines["limits"] = d.line_at(limits_parent, limits_key)
        for resource in limits if isinstance(limits, dict) else ():
            lines[f"limits.{resource}"] = d.line_at(limits_parent[limits_key], resource)
    elif d.kind == "Provisioner" and "limits" in spec:
        lines["limits"] = d.line_at(spec, "limits")
    if "taints" in pod_spec:
        lines["taints"] = d.line_at(pod_spec, "taints")
    hyperpod = False
    if node_ref is not None:
        extra["node_class"] = text(node_ref.get("name"), "nodeClassRef.name")
        extra["node_class_kind"] = node_ref.get("kind")
        if node_ref.get("group") == HYPERPOD_NODE_CLASS_GROUP and unresolved is None:
            hyperpod = True
            unresolved = Unknown(
                f"nodeClassRef is HyperpodNodeClass {extra['node_class']!r}: the pool launches the "
                "SageMaker HyperPod instance groups that class names, whose instance types are set "
                "on the HyperPod cluster"
            )
            lines["instance_types"] = d.line_at(pod_spec, "nodeClassRef")
    if "weight" in spec:
        extra["weight"] = integer(spec.get("weight"), "weight")
    min_size: Maybe[int] = 0
    desired: Maybe[int] = None
    if d.kind == "NodePool" and "replicas" in spec:  # static capacity (Karpenter v1.8+)
        min_size = desired = integer(spec.get("replicas"), "spec.replicas")
        lines["min_size"] = lines["desired_size"] = d.line_at(spec, "replicas")
    if unresolved is not None:
        lines.setdefault("instance_types", lines.get("requirements", d.line(d.doc.line)))
    pool = ComputePool(
        **d.common(namespaced=False, lines=lines),
        extra=extra,
        hyperpod_node_class=hyperpod,
        pool_kind=pool_kind,
        instance_types=unresolved,
        requirements=tuple(requirements),
        capacity_types=_capacity_types(requirements),
        min_size=min_size,
        desired_size=desired,
        limits=limits,
        disruption=disruption,
        api_version=d.api_version,
        disruption_paths=paths,
        labels=plain(labels) if labels is not None else {},
        taints=_taints(d, pod_spec, "taints"),
    )
    return [pool]


def _nodepool_disruption(
    d: Doc, spec: Node, pod_spec: Node, lines: dict[str, int], paths: dict[str, str]
) -> dict[str, Any]:
    """v1: spec.disruption plus template expireAfter; v1beta1 keeps expireAfter in disruption.

    ``paths`` records where each key was written (a v1beta1 field in a v1 pool stays visible)."""
    node = mapping(spec, "disruption")
    disruption: dict[str, Any] = plain(node) if node is not None else {}
    if node is not None:
        lines["disruption"] = d.line_at(spec, "disruption")
        for key in node:
            paths[str(key)] = f"spec.disruption.{key}"
            lines[f"disruption.{key}"] = d.line_at(node, key)
    for key in ("expireAfter", "terminationGracePeriod"):
        if key in pod_spec:
            disruption[key] = plain(pod_spec[key])
            paths[key] = f"spec.template.spec.{key}"
            lines[f"disruption.{key}"] = d.line_at(pod_spec, key)
            lines.setdefault("disruption", d.line_at(pod_spec, key))
    return disruption


def _provisioner_disruption(d: Doc, spec: Node, lines: dict[str, int]) -> dict[str, Any]:
    disruption: dict[str, Any] = {}
    consolidation = mapping(spec, "consolidation")
    if consolidation is not None and "enabled" in consolidation:
        disruption["consolidationEnabled"] = boolean(consolidation["enabled"], "consolidation.enabled")
        lines["disruption"] = d.line_at(spec, "consolidation")
    for key in ("ttlSecondsAfterEmpty", "ttlSecondsUntilExpired"):
        if key in spec:
            disruption[key] = integer(spec[key], key)
            lines.setdefault("disruption", d.line_at(spec, key))
    return disruption


def load_node_class(d: Doc) -> list[Record]:
    """An EC2NodeClass matters only when it selects capacity reservations (see :func:`finalize`)."""
    terms = child(d.spec, "capacityReservationSelectorTerms")
    if not isinstance(terms, list) or not terms or not isinstance(d.name, str):
        return []
    facts = {"name": d.name, "capacity_reservation_terms": len(terms)}
    line = d.line_at(d.spec, "capacityReservationSelectorTerms")
    return [
        Record(
            **d.common(namespaced=False, lines={"capacity_reservation": line}),
            extra={NODE_CLASS_FACTS: facts},
        )
    ]


def _is_node_class_carrier(record: Record) -> bool:
    return type(record) is Record and NODE_CLASS_FACTS in record.extra


def finalize(records: list[Record]) -> list[Record]:
    """After every file is loaded: reserved-only NodePools on a reservation-selecting EC2NodeClass
    are reserved capacity (the money is already committed). Drops the EC2NodeClass carriers."""
    reserving = {
        record.extra[NODE_CLASS_FACTS]["name"]: record for record in records if _is_node_class_carrier(record)
    }
    result: list[Record] = []
    for record in records:
        if _is_node_class_carrier(record):
            continue
        if (
            isinstance(record, ComputePool)
            and record.pool_kind == "karpenter-nodepool"
            and record.capacity_types == ("reserved",)
            and record.capacity_reservation is None
            and isinstance(record.extra.get("node_class"), str)
            and record.extra["node_class"] in reserving
        ):
            node_class = reserving[record.extra["node_class"]]
            lines = dict(record.attr_lines)
            lines["capacity_reservation"] = lines.get("capacity_types", record.location.line)
            record = record.with_changes(
                capacity_reservation=True,
                attr_lines=lines,
                extra={**record.extra, "capacity_reservation_from": str(node_class.location)},
            )
        result.append(record)
    return result
