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
* capacity type (``karpenter.sh/capacity-type``, ``eks.amazonaws.com/capacityType``) and the
  Karpenter pool (``karpenter.sh/nodepool``) a pod asks for, for ``extra``;
* the pod-level ``activeDeadlineSeconds``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from finlint.domain import catalog
from finlint.ir import Maybe, Unknown, alternatives, is_unknown
from finlint.loaders.kubernetes.object import Doc, Node, child, integer, items, mapping, text

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
    capacity, _ = _labels_in(d, pod, CAPACITY_LABELS)
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
