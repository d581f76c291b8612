"""What a pod template says about the capacity it runs on: accelerators, instance type, capacity
type, its own deadline. Shared by the training launchers (``kubernetes_training_operators``,
``kubernetes_ray``).

* accelerators per pod: the sum over containers of ``resources.limits`` (else ``requests``) of
  ``nvidia.com/gpu``, ``amd.com/gpu`` and the Neuron resources (``aws.amazon.com/neuron``,
  ``neurondevice``, ``neuroncore``);
* the instance type: ``nodeSelector`` or a required node-affinity ``In`` term on
  ``node.kubernetes.io/instance-type`` (or its ``beta.`` label), else the Karpenter labels
  ``karpenter.k8s.aws/instance-family`` (+ ``instance-size``) resolved against the instance
  catalog (the types of that family with at least the pod's accelerators, as alternatives);
* capacity type (``karpenter.sh/capacity-type``, ``eks.amazonaws.com/capacityType``): a Ray
  group's pool's capacity types, and a job's ``capacity_spot`` (:func:`capacity_spot`);
* the pod-level ``activeDeadlineSeconds``;
* its placement (:class:`finlint.ir.PodPlacement`): ``selector`` the ``nodeSelector`` labels,
  ``affinity`` the required node-affinity terms (any term; every requirement of a term),
  ``tolerations`` as (key, operator, value, effect), per job the accelerated roles' devices per
  pod (``accelerators``, of ``accelerator_kind`` gpu | neuron) and in all (``devices``), and
  ``unresolved`` (a placeholder, roles placed differently); ``linking.landing`` matches it
  against the scan's pools (``domain.karpenter.fitting_types``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from finlint.domain import catalog
from finlint.ir import Maybe, PodPlacement, Requirement, Unknown, alternatives, is_unknown
from finlint.loaders.kubernetes.object import Doc, Node, child, integer, items, mapping, templated, text

#: Extended resources that are accelerators (GPUs, Neuron devices or cores).
ACCELERATOR_RESOURCES = (
    "nvidia.com/gpu",
    "amd.com/gpu",
    "aws.amazon.com/neuron",
    "aws.amazon.com/neurondevice",
    "aws.amazon.com/neuroncore",
)
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
FAMILY_LABEL = "karpenter.k8s.aws/instance-family"
SIZE_LABEL = "karpenter.k8s.aws/instance-size"
CAPACITY_LABELS = ("karpenter.sh/capacity-type", "eks.amazonaws.com/capacityType")
NODEPOOL_LABEL = "karpenter.sh/nodepool"


@dataclass(frozen=True)
class PodFacts:
    """One role's pods (a replica spec, a worker group, a replicated job)."""

    role: str
    replicas: Maybe[int]
    replicas_line: int | None
    accelerators: Maybe[int]  # per pod; 0 when none is requested
    accelerators_line: int | None
    instance_type: Maybe[str]
    instance_type_line: int | None
    capacity_type: Maybe[str] = None
    nodepool: Maybe[str] = None
    deadline_s: Maybe[int] = None  # pod-level activeDeadlineSeconds
    deadline_line: int | None = None
    placement: PodPlacement | None = None  # selectors, affinity, tolerations (no counts yet)
    capacity_line: int | None = None  # the capacity-type label's line

    @property
    def accelerated(self) -> bool:
        """Requests accelerators (a count that is a placeholder too), or selects an accelerated
        instance type."""
        if isinstance(self.accelerators, int) and self.accelerators > 0:
            return True
        if is_unknown(self.accelerators) and self.accelerators_line is not None:
            return True  # an accelerator resource is requested, its count is a placeholder
        itype = self.instance_type
        if isinstance(itype, str):
            spec = catalog.lookup(itype)
            return spec is not None and spec.accelerators > 0
        return False


def _labels_in(d: Doc, pod: Node, keys: tuple[str, ...]) -> tuple[Any, int | None]:
    """The value a pod's ``nodeSelector`` or required node affinity gives one of ``keys``:
    a str, an Alternatives/Unknown (several ``In`` values, a placeholder), or None."""
    selector = mapping(pod, "nodeSelector")
    for key in keys:
        if selector is not None and key in selector:
            return text(selector[key], f"nodeSelector {key}"), d.line_at(selector, key)
    required = mapping(
        mapping(mapping(pod, "affinity"), "nodeAffinity"), "requiredDuringSchedulingIgnoredDuringExecution"
    )
    values: list[Any] = []
    line: int | None = None
    for _t, term, _tl in items(required, "nodeSelectorTerms"):
        for _e, expr, expr_line in items(term, "matchExpressions"):
            if child(expr, "key") in keys and child(expr, "operator") == "In":
                for _v, value, _vl in items(expr, "values"):
                    values.append(text(value, f"node affinity {expr.get('key')}"))
                line = line or d.line(expr_line)
    if not values:
        return None, None
    return alternatives(values, "node affinity admits several instance types"), line


_NONE = ("0", "")  # an accelerator resource asked at zero asks for none


def accelerator_kind(pod: Node | None) -> str | None:
    """``gpu`` or ``neuron``: the kind of device a pod's containers request (None: none)."""
    for _i, container, _l in items(pod, "containers"):
        resources = mapping(container, "resources")
        for section in ("limits", "requests"):
            block = mapping(resources, section) or {}
            asked = [k for k in ACCELERATOR_RESOURCES if k in block and str(block[k]).strip() not in _NONE]
            if asked:
                return "gpu" if asked[0] in ACCELERATOR_RESOURCES[:2] else "neuron"
    return None


def _accelerators(d: Doc, pod: Node) -> tuple[Maybe[int], int | None]:
    total: Maybe[int] = 0
    line: int | None = None
    for _i, container, _l in items(pod, "containers"):
        resources = mapping(container, "resources")
        for section in ("limits", "requests"):
            block = mapping(resources, section)
            found = [k for k in ACCELERATOR_RESOURCES if block is not None and k in block]
            if not found:
                continue
            for key in found:
                value = integer(block[key] if block is not None else None, f"resources.{section} {key}")
                line = line or d.line_at(block, key)
                if isinstance(value, Unknown) or isinstance(total, Unknown):
                    total = value if isinstance(value, Unknown) else total
                elif isinstance(value, int) and isinstance(total, int):
                    total += value
            break  # limits win over requests (they are equal for extended resources)
    return total, line


def _from_family(family: Any, size: Any, accelerators: Maybe[int]) -> Maybe[str]:
    if not isinstance(family, str):
        return family if is_unknown(family) else None
    names = [
        s.name
        for s in catalog.all_instances()
        if s.family == family
        and (not isinstance(size, str) or s.size == size)
        and (not isinstance(accelerators, int) or s.accelerators >= accelerators)
    ]
    if not names:
        return Unknown(f"no {family} instance in the catalog fits the pod")
    chosen: Maybe[str] = alternatives(sorted(names), f"instance family {family} admits several sizes")
    return chosen


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value)


def _placement(d: Doc, pod: Node) -> PodPlacement:
    """What a pod template says about the nodes it may run on (counts are added per job)."""
    unresolved: str | None = None
    selector: list[tuple[str, str]] = []
    node_selector = mapping(pod, "nodeSelector")
    line: int | None = d.line_at(pod, "nodeSelector") if node_selector is not None else None
    if child(pod, "nodeSelector") is not None and node_selector is None:
        unresolved = "nodeSelector is not a mapping (a template placeholder?)"
    for key, value in (node_selector or {}).items():
        shown = _scalar(value)
        if templated(key) or templated(value) or shown is None:
            unresolved = unresolved or f"nodeSelector {key} is a template placeholder"
            continue
        selector.append((str(key), shown))
    terms: list[tuple[Requirement, ...]] = []
    node_affinity = mapping(mapping(pod, "affinity"), "nodeAffinity")
    required = mapping(node_affinity, "requiredDuringSchedulingIgnoredDuringExecution")
    for _t, term, term_line in items(required, "nodeSelectorTerms"):
        reqs: list[Requirement] = []
        for _e, expr, expr_line in items(term, "matchExpressions"):
            key, operator = child(expr, "key"), child(expr, "operator")
            values = [_scalar(v) for _i, v, _l in items(expr, "values")]
            if not isinstance(key, str) or not isinstance(operator, str) or None in values:
                unresolved = unresolved or "a node-affinity term is not literal"
                continue
            if templated(key) or any(templated(v) for v in values):
                unresolved = unresolved or f"node affinity on {key} is a template placeholder"
                continue
            reqs.append(Requirement(key, operator, tuple(str(v) for v in values), d.line(expr_line)))
        terms.append(tuple(reqs))
        line = line or d.line(term_line)
    tolerations: list[tuple[str, str, str, str]] = []
    for _i, item, _l in items(pod, "tolerations"):
        if not isinstance(item, dict):
            continue
        fields = [_scalar(item.get(k)) or "" for k in ("key", "operator", "value", "effect")]
        if any(templated(f) for f in fields):
            unresolved = unresolved or "a toleration is a template placeholder"
            continue
        tolerations.append((fields[0], fields[1] or "Equal", fields[2], fields[3]))
    if templated(child(pod, "tolerations")) or templated(child(pod, "affinity")):
        unresolved = unresolved or "tolerations or affinity are a template placeholder"
    return PodPlacement(
        selector=tuple(selector),
        affinity=tuple(terms),
        tolerations=tuple(tolerations),
        accelerator_kind=accelerator_kind(pod),
        line=line,
        unresolved=unresolved,
    )


def pod_facts(d: Doc, role: str, pod: Node | None, replicas: Any, replicas_line: int | None) -> PodFacts:
    """The facts of one role whose pod spec is ``pod`` (None when it is not visible)."""
    count = integer(replicas, f"{role} replicas") if replicas is not None else 1
    if pod is None:
        return PodFacts(role, count, replicas_line, Unknown("no pod spec"), None, None, None)
    accelerators, acc_line = _accelerators(d, pod)
    itype, itype_line = _labels_in(d, pod, INSTANCE_TYPE_LABELS)
    if itype is None:
        family, itype_line = _labels_in(d, pod, (FAMILY_LABEL,))
        size, _size_line = _labels_in(d, pod, (SIZE_LABEL,))
        itype = _from_family(family, size, accelerators)
    capacity, capacity_line = _labels_in(d, pod, CAPACITY_LABELS)
    nodepool, _ = _labels_in(d, pod, (NODEPOOL_LABEL,))
    deadline = integer(child(pod, "activeDeadlineSeconds"), "activeDeadlineSeconds")
    return PodFacts(
        role,
        count,
        replicas_line,
        accelerators,
        acc_line,
        itype,
        itype_line,
        capacity.lower().replace("_", "-") if isinstance(capacity, str) else capacity,
        nodepool,
        deadline,
        d.line_at(pod, "activeDeadlineSeconds") if deadline is not None else None,
        _placement(d, pod),
        capacity_line,
    )


def nodes_for(roles: list[PodFacts], instance_type: Maybe[str]) -> Maybe[int]:
    """Instances the roles occupy: their accelerators over the instance type's when both are
    known (pods that share a node are counted once), else one instance per pod."""
    pods: Maybe[int] = 0
    devices = 0
    for role in roles:
        if isinstance(role.replicas, Unknown):
            return role.replicas
        if isinstance(pods, int) and isinstance(role.replicas, int):
            pods += role.replicas
            if isinstance(role.accelerators, int) and devices >= 0:
                devices += role.replicas * role.accelerators
            else:
                devices = -1
    spec = catalog.lookup(instance_type) if isinstance(instance_type, str) else None
    if spec is not None and spec.accelerators > 0 and devices > 0:
        return math.ceil(devices / spec.accelerators)
    return pods


def job_instance_type(roles: list[PodFacts]) -> tuple[Maybe[str], int | None]:
    """The roles' instance type when they agree (the first role's line), else Unknown."""
    chosen = [r for r in roles if r.instance_type is not None]
    if not chosen:
        return None, None
    first = chosen[0]
    if is_unknown(first.instance_type):
        return first.instance_type, first.instance_type_line
    for other in chosen[1:]:
        if is_unknown(other.instance_type):
            return other.instance_type, other.instance_type_line
        if other.instance_type != first.instance_type:
            return Unknown("the job's roles select different instance types"), first.instance_type_line
    return first.instance_type, first.instance_type_line


def accelerated_roles(roles: list[PodFacts]) -> list[PodFacts]:
    """The roles that run on accelerators; all roles when none is known to."""
    accelerated = [r for r in roles if r.accelerated]
    return accelerated or roles


def job_placement(roles: list[PodFacts]) -> PodPlacement | None:
    """The accelerated roles' placement with their devices counted (None: no pod spec);
    ``unresolved`` when the roles are placed differently."""
    placed = [r for r in roles if r.placement is not None]
    if not placed:
        return None
    first = placed[0].placement
    assert first is not None
    unresolved = first.unresolved
    if any(
        (r.placement.selector, r.placement.affinity, r.placement.tolerations)
        != (first.selector, first.affinity, first.tolerations)
        for r in placed[1:]
        if r.placement is not None
    ):
        unresolved = unresolved or "the job's accelerated roles select different nodes"
    devices: int | None = 0
    per_pod: int | None = 0
    for role in placed:
        if not isinstance(role.replicas, int):
            devices = None
            break
        if isinstance(role.accelerators, int) and devices is not None and per_pod is not None:
            devices += role.replicas * role.accelerators
            per_pod = max(per_pod, role.accelerators)
        else:
            devices = per_pod = None
    kinds = [r.placement.accelerator_kind for r in placed if r.placement and r.placement.accelerator_kind]
    kind = kinds[0] if kinds else None
    return replace(first, accelerators=per_pod, accelerator_kind=kind, devices=devices, unresolved=unresolved)


def capacity_spot(roles: list[PodFacts]) -> tuple[Maybe[bool], str | None, int | None]:
    """Whether the roles' pods ask for spot capacity by label (``karpenter.sh/capacity-type``,
    ``eks.amazonaws.com/capacityType``), what says so and its line; (None, None, None) when none asks."""
    said: list[tuple[bool, str, int | None]] = []
    for role in roles:
        placement = role.placement
        if placement is None:
            continue
        for key, value in placement.selector:
            if key in CAPACITY_LABELS:
                said.append((_is_spot(value), f"nodeSelector {key}: {value}", role.capacity_line))
        for term in placement.affinity[:1]:  # several terms: any may match; the first is read
            for req in term:
                if req.key in CAPACITY_LABELS and req.operator == "In" and req.values:
                    spots = {_is_spot(v) for v in req.values}
                    if len(spots) == 1:
                        text = f"node affinity {req.key} In {', '.join(req.values)}"
                        said.append((spots.pop(), text, req.line))
    if not said:
        return None, None, None
    if len({spot for spot, _t, _l in said}) > 1:
        return Unknown("the job's roles ask for different capacity types"), None, said[0][2]
    return said[0]


def _is_spot(value: str) -> bool:
    return value.lower().replace("_", "-") == "spot"
