"""Kubernetes manifests -> IR: Karpenter pools, storage objects, workloads' mounts, SageMaker CRs, eksctl.

One parsed document at a time (the caller splits multi-document files; lines are absolute,
shifted by ``ctx.line_offset`` for documents embedded in Terraform). What each kind becomes:

* Karpenter ``NodePool`` (karpenter.sh/v1, v1beta1) and ``Provisioner`` (v1alpha5) ->
  :class:`ComputePool` with the requirements themselves (the engine evaluates them against the
  instance catalog). Template labels on well-known keys are requirements too, as in Karpenter.
* ``EC2NodeClass`` with ``capacityReservationSelectorTerms`` -> a bare :class:`ir.Record`
  carrying its facts in ``extra``. No rule applies to the base kind; :func:`finalize` uses it
  to mark reserved-only NodePools that point at it as reserved capacity, then drops it. The
  facts thus travel with the scan's own records: no module state, nothing to reset.
* ``StorageClass`` / ``PersistentVolume`` / ``PersistentVolumeClaim`` -> :class:`Volume`;
  anything with pod specs (Pod, Job, Deployment, PyTorchJob, RayJob, JobSet, ...) ->
  ``Volume(volume_kind="workload")`` with one :class:`Mount` per container volume mount.
  ``Mount.is_efs`` is set when the pod volume shows it (inline EFS/FSx CSI, an ``nfs`` server
  that is an EFS DNS name, emptyDir/hostPath/...); claims are left to the linking pass.
* SageMaker ``TrainingJob`` / ``HyperParameterTuningJob`` CRs (ACK and the older operator) ->
  :class:`TrainingJob`; eksctl ``ClusterConfig`` node groups -> :class:`ComputePool`.

Template placeholders (``{{ }}``, ``${...}``, ``$VAR``) make the value :class:`Unknown`.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, NamedTuple

from finlint import ir
from finlint.ir import (
    ComputePool,
    Location,
    Maybe,
    Mount,
    Record,
    Requirement,
    Suppression,
    TrainingJob,
    Unknown,
    Volume,
)
from finlint.loaders import DocContext
from finlint.quantity import quantity_to_gib
from finlint.yamlload import LineDict, LineList, pin_lines

_Node = dict[Any, Any]  # a parsed mapping (a LineDict when it came from YAML)

FORMAT = "kubernetes"

SUPPRESSION_ANNOTATION = "finlint.io/ignore"
NODE_CLASS_FACTS = "karpenter_node_class"  # extra key of the EC2NodeClass carrier record
CAPACITY_TYPE_KEY = "karpenter.sh/capacity-type"
ALL_CAPACITY_TYPES = ("on-demand", "spot", "reserved")
SAGEMAKER_DEFAULT_MAX_RUNTIME_S = 86_400
EKSCTL_DEFAULT_NODE_COUNT = 2  # eksctl's DefaultNodeCount when no size is given

EFS_DRIVER = "efs.csi.aws.com"
#: Provisioners / drivers known not to be EFS (anything else is left for the linking pass).
NON_EFS_DRIVERS = frozenset(
    {
        "ebs.csi.aws.com",
        "kubernetes.io/aws-ebs",
        "fsx.csi.aws.com",
        "fsx.openzfs.csi.aws.com",
        "s3.csi.aws.com",
        "kubernetes.io/no-provisioner",
        "kubernetes.io/host-path",
        "kubernetes.io/local",
        "rancher.io/local-path",
        "secrets-store.csi.k8s.io",
    }
)
FILE_SYSTEM_DRIVERS = frozenset({EFS_DRIVER, "fsx.csi.aws.com", "fsx.openzfs.csi.aws.com"})

_TEMPLATE = re.compile(r"\{\{|\{%|\$\{|\$[A-Za-z_]")
_EFS_DNS = re.compile(r"^(fs-[0-9a-f]+)\.efs\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\.?$")
_RULE_REF = re.compile(r"^\s*([A-Za-z][\w-]*(?:\s*,\s*[A-Za-z][\w-]*)*)\s*(?::\s*(.*))?$", re.DOTALL)
_CHECKPOINT_WORD = re.compile(r"checkpoint|ckpt", re.IGNORECASE)
_CHECKPOINT_FLAG = re.compile(r"--?[\w.-]*(?:checkpoint|ckpt)[\w.-]*(?:=|\s+)(/[^\s'\";,]*)", re.IGNORECASE)
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
_INSTANCE_SELECTION_KEYS = frozenset(
    {
        "node.kubernetes.io/instance-type",
        "beta.kubernetes.io/instance-type",
        "karpenter.k8s.aws/instance-family",
        "karpenter.k8s.aws/instance-category",
        "karpenter.k8s.aws/instance-generation",
    }
)


class _ShapeError(Exception):
    """A document whose structure the API server would reject (reported as FIN000)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


# --------------------------------------------------------------------------- values


def _templated(value: Any) -> bool:
    return isinstance(value, str) and _TEMPLATE.search(value) is not None


def _placeholder(what: str, value: Any) -> Unknown:
    return Unknown(f"{what} is a template placeholder ({value!r})")


def _text(value: Any, what: str) -> Maybe[str]:
    if value is None or isinstance(value, Unknown):  # Unknown: from Terraform values
        return value
    if _templated(value):
        return _placeholder(what, value)
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return Unknown(f"{what} is not a string ({type(value).__name__})")


def _integer(value: Any, what: str) -> Maybe[int]:
    if value is None or isinstance(value, Unknown):  # Unknown: from Terraform values
        return value
    if _templated(value):
        return _placeholder(what, value)
    if isinstance(value, bool):
        return Unknown(f"{what} is a boolean, not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    return Unknown(f"{what} is not an integer ({value!r})")


def _boolean(value: Any, what: str) -> Maybe[bool]:
    if value is None or isinstance(value, (bool, Unknown)):
        return value
    if _templated(value):
        return _placeholder(what, value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return Unknown(f"{what} is not a boolean ({value!r})")


def _gib(value: Any, what: str) -> Maybe[float]:
    if value is None or isinstance(value, Unknown):  # Unknown: from Terraform values
        return value
    if _templated(value):
        return _placeholder(what, value)
    size = quantity_to_gib(value)
    return Unknown(f"{what} is not a quantity ({value!r})") if size is None else size


def _plain(value: Any) -> Any:
    """LineDict/LineList -> dict/list, template placeholders -> Unknown (for ``extra``-like data)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return _placeholder("value", value) if _templated(value) else value


def _child(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, dict) else None


def _mapping(node: Any, key: str) -> _Node | None:
    """``node[key]`` when it is a mapping; None when absent or not a mapping."""
    value = _child(node, key)
    return value if isinstance(value, dict) else None


def _items(node: Any, key: str) -> Iterator[tuple[int, Any, int]]:
    """(index, item, raw line) of the list ``node[key]``; nothing when it is not a list."""
    value = _child(node, key)
    if isinstance(value, list):
        for index, item in enumerate(value):
            line = value.line_of(index) if isinstance(value, LineList) else _raw_line(node, key)
            yield index, item, line


def _raw_line(node: Any, key: Any) -> int:
    """The source line of ``node[key]`` (before any offset), or the node's own line."""
    if isinstance(node, LineDict):
        return node.line_of(key)
    return int(getattr(node, "line", 1) or 1)


# --------------------------------------------------------------------------- per-document context


class _Doc:
    """One Kubernetes object: its identity, where it is, and the record fields every kind shares."""

    def __init__(self, doc: LineDict, ctx: DocContext) -> None:
        self.doc = doc
        self.ctx = ctx
        self.api_version: str = doc["apiVersion"]
        self.kind: str = doc["kind"]
        self.group, _, self.version = self.api_version.rpartition("/")
        self.metadata = _mapping(doc, "metadata") or LineDict()
        self.spec = _mapping(doc, "spec")
        raw_name = _child(self.metadata, "name")
        self.name: Maybe[str] = _text(raw_name, "metadata.name")
        raw_namespace = _child(self.metadata, "namespace")
        self.namespace: Maybe[str] = _text(raw_namespace, "metadata.namespace")
        if isinstance(raw_name, str):
            self.name_key = raw_name
        elif isinstance(_child(self.metadata, "generateName"), str):
            self.name_key = f"{self.metadata['generateName']}*"
        else:
            self.name_key = f"#{ctx.doc_index}"
        self.namespace_key = raw_namespace if isinstance(raw_namespace, str) else "default"

    def line(self, raw: int) -> int:
        return self.ctx.line(raw)

    def line_at(self, node: Any, key: Any) -> int:
        return self.ctx.line(_raw_line(node, key))

    def location(self, node: Any = None) -> Location:
        node = self.doc if node is None else node
        start = int(getattr(node, "line", 0) or self.doc.line or 1)
        end = int(getattr(node, "end_line", 0) or start)
        return Location(self.ctx.file, self.ctx.line(start), self.ctx.line(max(start, end)))

    def address(self, *parts: str, namespaced: bool = True) -> str:
        scope = [self.kind, self.namespace_key] if namespaced else [self.kind]
        return self.ctx.address_prefix + "/".join([*scope, self.name_key, *parts])

    def suppressions(self, annotations: Any = None) -> tuple[Suppression, ...]:
        node = _mapping(self.metadata, "annotations") if annotations is None else annotations
        return _suppressions(node, self.ctx)

    def common(
        self, node: Any = None, *, namespaced: bool = True, lines: dict[str, int] | None = None
    ) -> dict[str, Any]:
        """Keyword arguments every record of this object gets."""
        lines = dict(lines or {})
        if "name" in self.metadata:
            lines.setdefault("name", self.line_at(self.metadata, "name"))
        return {
            "address": self.address(namespaced=namespaced),
            "location": self.location(node),
            "source_format": FORMAT,
            "attr_lines": lines,
            "suppressions": self.suppressions(),
            "name": self.name,
        }

    def error(self, message: str, raw_line: int) -> _ShapeError:
        return _ShapeError(f"{self.kind} {self.name_key}: {message}", raw_line)


def _suppressions(annotations: Any, ctx: DocContext) -> tuple[Suppression, ...]:
    """``finlint.io/ignore: "FIN301: reason; FIN401: other reason"`` (or one per line)."""
    if not isinstance(annotations, dict):
        return ()
    value = annotations.get(SUPPRESSION_ANNOTATION)
    if not isinstance(value, str):
        return ()
    line = ctx.line(_raw_line(annotations, SUPPRESSION_ANNOTATION))
    found: list[Suppression] = []
    for entry in re.split(r"[;\n]", value):
        match = _RULE_REF.match(entry) if entry.strip() else None
        if match is None:
            continue
        reason = (match.group(2) or "").strip()
        for rule in match.group(1).split(","):
            found.append(Suppression(rule=rule.strip(), reason=reason, line=line))
    return tuple(found)


# --------------------------------------------------------------------------- Karpenter


def _requirements(d: _Doc, node: Any, key: str) -> tuple[list[Requirement], Unknown | None]:
    """Parsed requirements, and why they cannot be evaluated (a placeholder) if so."""
    value = _child(node, key)
    if value is None:
        return [], None
    if _templated(value):
        return [], _placeholder(key, value)
    if not isinstance(value, list):
        raise d.error(f"`{key}` must be a list", _raw_line(node, key))
    found: list[Requirement] = []
    unresolved: Unknown | None = None
    for _index, item, line in _items(node, key):
        if not isinstance(item, dict):
            raise d.error(f"`{key}` item is not a mapping", line)
        req_key, operator, values = item.get("key"), item.get("operator"), item.get("values")
        if not isinstance(req_key, str) or not isinstance(operator, str):
            raise d.error(f"`{key}` item needs a string `key` and `operator`", line)
        if values is None:
            values = []
        if not isinstance(values, list) or any(isinstance(v, (dict, list)) for v in values):
            raise d.error(f"`values` of requirement {req_key} must be a list of strings", line)
        for text in (req_key, operator, *values):
            if _templated(text) and unresolved is None:
                unresolved = _placeholder(f"requirement {req_key}", text)
        found.append(Requirement(req_key, operator, tuple(str(v) for v in values), d.line(line)))
    return found, unresolved


def _label_requirements(d: _Doc, labels: Any) -> list[Requirement]:
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
        if any(_templated(v) for v in req.values):
            return _placeholder(CAPACITY_TYPE_KEY, list(req.values))
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


def _limits(d: _Doc, node: Any, key: str) -> Maybe[dict[str, Any]]:
    value = _child(node, key)
    if value is None:
        return None
    if _templated(value):
        return _placeholder(key, value)
    if not isinstance(value, dict):
        return Unknown(f"`{key}` is not a mapping")
    limits = {str(k): _placeholder(f"limit {k}", v) if _templated(v) else v for k, v in value.items()}
    return limits or None


def _taints(d: _Doc, node: Any, key: str) -> tuple[str, ...]:
    taints = []
    for _index, item, _line in _items(node, key):
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            value = f"={item['value']}" if item.get("value") not in (None, "") else ""
            effect = f":{item['effect']}" if item.get("effect") else ""
            taints.append(f"{item['key']}{value}{effect}")
    return tuple(taints)


def _section(d: _Doc, node: Any, key: str) -> _Node:
    """``node[key]`` as a mapping; empty when absent; FIN000 when it is something else.

    A pool whose spec cannot be read must not look like a pool without requirements (which
    would admit every instance type)."""
    value = _child(node, key)
    if value is None:
        return LineDict()
    if not isinstance(value, dict):
        what = "a template placeholder" if _templated(value) else type(value).__name__
        raise d.error(f"`{key}` must be a mapping, not {what}", _raw_line(node, key))
    return value


def _load_karpenter_pool(d: _Doc) -> list[Record]:
    spec = _section(d, d.doc, "spec")
    lines: dict[str, int] = {}
    extra: dict[str, Any] = {"api_version": d.api_version}
    if d.kind == "Provisioner":
        pool_kind, pod_spec, labels_node = "karpenter-provisioner", spec, spec
        limits_parent, limits_key = _mapping(spec, "limits"), "resources"
        node_ref = _mapping(spec, "providerRef")
        disruption = _provisioner_disruption(d, spec, lines)
    else:
        pool_kind = "karpenter-nodepool"
        template = _section(d, spec, "template")
        pod_spec = _section(d, template, "spec")
        labels_node = _mapping(template, "metadata") or LineDict()
        limits_parent, limits_key = spec, "limits"
        node_ref = _mapping(pod_spec, "nodeClassRef")
        disruption = _nodepool_disruption(d, spec, pod_spec, lines)
    requirements, unresolved = _requirements(d, pod_spec, "requirements")
    if "requirements" in pod_spec:
        lines["requirements"] = d.line_at(pod_spec, "requirements")
    labels = _mapping(labels_node, "labels")
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
    if node_ref is not None:
        extra["node_class"] = _text(node_ref.get("name"), "nodeClassRef.name")
        extra["node_class_kind"] = node_ref.get("kind")
    if "weight" in spec:
        extra["weight"] = _integer(spec.get("weight"), "weight")
    min_size: Maybe[int] = 0
    desired: Maybe[int] = None
    if d.kind == "NodePool" and "replicas" in spec:  # static capacity (Karpenter v1.8+)
        min_size = desired = _integer(spec.get("replicas"), "spec.replicas")
        lines["min_size"] = lines["desired_size"] = d.line_at(spec, "replicas")
    if unresolved is not None:
        lines["instance_types"] = lines.get("requirements", d.line(d.doc.line))
    pool = ComputePool(
        **d.common(namespaced=False, lines=lines),
        extra=extra,
        pool_kind=pool_kind,
        instance_types=unresolved,
        requirements=tuple(requirements),
        capacity_types=_capacity_types(requirements),
        min_size=min_size,
        desired_size=desired,
        limits=limits,
        disruption=disruption,
        labels=_plain(labels) if labels is not None else {},
        taints=_taints(d, pod_spec, "taints"),
    )
    return [pool]


def _nodepool_disruption(d: _Doc, spec: _Node, pod_spec: _Node, lines: dict[str, int]) -> dict[str, Any]:
    """v1: spec.disruption plus template expireAfter; v1beta1 keeps expireAfter in disruption."""
    node = _mapping(spec, "disruption")
    disruption: dict[str, Any] = _plain(node) if node is not None else {}
    if node is not None:
        lines["disruption"] = d.line_at(spec, "disruption")
    for key in ("expireAfter", "terminationGracePeriod"):
        if key in pod_spec:
            disruption[key] = _plain(pod_spec[key])
            lines.setdefault("disruption", d.line_at(pod_spec, key))
    return disruption


def _provisioner_disruption(d: _Doc, spec: _Node, lines: dict[str, int]) -> dict[str, Any]:
    disruption: dict[str, Any] = {}
    consolidation = _mapping(spec, "consolidation")
    if consolidation is not None and "enabled" in consolidation:
        disruption["consolidationEnabled"] = _boolean(consolidation["enabled"], "consolidation.enabled")
        lines["disruption"] = d.line_at(spec, "consolidation")
    for key in ("ttlSecondsAfterEmpty", "ttlSecondsUntilExpired"):
        if key in spec:
            disruption[key] = _integer(spec[key], key)
            lines.setdefault("disruption", d.line_at(spec, key))
    return disruption


def _load_node_class(d: _Doc) -> list[Record]:
    """An EC2NodeClass matters only when it selects capacity reservations (see :func:`finalize`)."""
    terms = _child(d.spec, "capacityReservationSelectorTerms")
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


# --------------------------------------------------------------------------- storage


def _is_efs(driver: Maybe[str]) -> Maybe[bool]:
    if not isinstance(driver, str):
        return driver  # None (absent) or Unknown
    if driver == EFS_DRIVER:
        return True
    return False if driver in NON_EFS_DRIVERS else None


def _efs_id_from_dns(server: Any) -> str | None:
    match = _EFS_DNS.match(server.strip().lower()) if isinstance(server, str) else None
    return match.group(1) if match else None


def _load_storage_class(d: _Doc) -> list[Record]:
    provisioner = _text(d.doc.get("provisioner"), "provisioner")
    parameters = _mapping(d.doc, "parameters")
    lines: dict[str, int] = {}
    if "provisioner" in d.doc:
        lines["provisioner"] = lines["is_efs"] = d.line_at(d.doc, "provisioner")
    fs_ref: Maybe[str] = None
    root: Maybe[str] = None
    if parameters is not None:
        if "fileSystemId" in parameters:
            fs_ref = _text(parameters["fileSystemId"], "parameters.fileSystemId")
            lines["file_system_ref"] = d.line_at(parameters, "fileSystemId")
        if "basePath" in parameters:
            root = _text(parameters["basePath"], "parameters.basePath")
            lines["root_path"] = d.line_at(parameters, "basePath")
    annotations = _mapping(d.metadata, "annotations") or {}
    extra: dict[str, Any] = {"parameters": _plain(parameters) if parameters is not None else {}}
    if str(annotations.get("storageclass.kubernetes.io/is-default-class", "")).lower() == "true":
        extra["default_class"] = True
    volume = Volume(
        **d.common(namespaced=False, lines=lines),
        extra=extra,
        volume_kind="storage-class",
        provisioner=provisioner,
        file_system_ref=fs_ref,
        root_path=root,
        is_efs=_is_efs(provisioner),
    )
    return [volume]


class _Source(NamedTuple):
    """What a PersistentVolume's volume source says about the storage behind it."""

    driver: Maybe[str] = None
    file_system_ref: Maybe[str] = None
    root_path: Maybe[str] = None
    is_efs: Maybe[bool] = None
    extra: dict[str, Any] = {}


def _csi_source(d: _Doc, csi: _Node, lines: dict[str, int]) -> _Source:
    driver = _text(csi.get("driver"), "csi.driver")
    if "driver" in csi:
        lines["provisioner"] = lines["is_efs"] = d.line_at(csi, "driver")
    handle = _text(csi.get("volumeHandle"), "csi.volumeHandle")
    if not isinstance(handle, str):
        fs_ref = handle if driver in FILE_SYSTEM_DRIVERS else None
        return _Source(driver, fs_ref, None, _is_efs(driver))
    fs_id, _, rest = handle.partition(":")
    if driver not in FILE_SYSTEM_DRIVERS and not fs_id.startswith("fs-"):
        return _Source(driver, None, None, _is_efs(driver), {"volume_handle": handle})
    lines["file_system_ref"] = d.line_at(csi, "volumeHandle")
    if rest.startswith(":"):  # fs-123::fsap-456 (through an access point)
        return _Source(driver, fs_id, None, _is_efs(driver), {"access_point": rest[1:]})
    return _Source(driver, fs_id, rest or None, _is_efs(driver))  # fs-123 or fs-123:/sub/dir


def _nfs_source(d: _Doc, nfs: _Node, lines: dict[str, int]) -> _Source:
    """An in-tree ``nfs`` volume is EFS when its server is an EFS DNS name."""
    server = nfs.get("server")
    path = _text(nfs.get("path"), "nfs.path")
    if _templated(server):
        unknown = _placeholder("nfs.server", server)
        return _Source("kubernetes.io/nfs", unknown, path, unknown)
    efs_id = _efs_id_from_dns(server)
    if efs_id is None:
        return _Source("kubernetes.io/nfs", None, path, None, {"nfs_server": server})
    lines["file_system_ref"] = lines["is_efs"] = d.line_at(nfs, "server")
    return _Source("kubernetes.io/nfs", efs_id, path, True, {"nfs_server": server})


def _pv_source(d: _Doc, spec: _Node, lines: dict[str, int]) -> _Source:
    csi = _mapping(spec, "csi")
    if csi is not None:
        return _csi_source(d, csi, lines)
    nfs = _mapping(spec, "nfs")
    if nfs is not None:
        lines["provisioner"] = d.line_at(spec, "nfs")
        return _nfs_source(d, nfs, lines)
    for key, driver in (
        ("awsElasticBlockStore", "kubernetes.io/aws-ebs"),
        ("hostPath", "kubernetes.io/host-path"),
        ("local", "kubernetes.io/local"),
    ):
        if key in spec:
            lines["provisioner"] = lines["is_efs"] = d.line_at(spec, key)
            return _Source(driver, is_efs=False)
    return _Source()


def _load_persistent_volume(d: _Doc) -> list[Record]:
    spec = d.spec or LineDict()
    lines: dict[str, int] = {}
    source = _pv_source(d, spec, lines)
    extra = dict(source.extra)
    if "storageClassName" in spec:
        lines["storage_class"] = d.line_at(spec, "storageClassName")
    capacity = _mapping(spec, "capacity")
    if capacity is not None and "storage" in capacity:
        lines["capacity_gb"] = d.line_at(capacity, "storage")
    claim_ref = _mapping(spec, "claimRef")
    if claim_ref is not None:
        extra["claim_ref"] = {"namespace": claim_ref.get("namespace"), "name": claim_ref.get("name")}
    volume = Volume(
        **d.common(namespaced=False, lines=lines),
        extra=extra,
        volume_kind="pv",
        storage_class=_text(spec.get("storageClassName"), "storageClassName"),
        provisioner=source.driver,
        capacity_gb=_gib(_child(capacity, "storage"), "capacity.storage"),
        file_system_ref=source.file_system_ref,
        root_path=source.root_path,
        is_efs=source.is_efs,
    )
    return [volume]


def _claim_volume(d: _Doc, claim_spec: Any, annotations: Any, **record: Any) -> Volume:
    """A PVC (standalone, StatefulSet template or ephemeral template): class, bound PV, size."""
    spec = claim_spec if isinstance(claim_spec, dict) else LineDict()
    lines: dict[str, int] = dict(record.pop("attr_lines", {}))
    storage_class = _text(spec.get("storageClassName"), "storageClassName")
    if "storageClassName" in spec:
        lines["storage_class"] = d.line_at(spec, "storageClassName")
    elif isinstance(annotations, dict) and "volume.beta.kubernetes.io/storage-class" in annotations:
        storage_class = _text(
            annotations["volume.beta.kubernetes.io/storage-class"], "storage-class annotation"
        )
        lines["storage_class"] = d.line_at(annotations, "volume.beta.kubernetes.io/storage-class")
    if "volumeName" in spec:
        lines["volume_name"] = d.line_at(spec, "volumeName")
    requests = _mapping(_mapping(spec, "resources"), "requests")
    if requests is not None and "storage" in requests:
        lines["capacity_gb"] = d.line_at(requests, "storage")
    return Volume(
        **record,
        attr_lines=lines,
        volume_kind="pvc",
        namespace=d.namespace,
        storage_class=storage_class,
        volume_name=_text(spec.get("volumeName"), "volumeName"),
        capacity_gb=_gib(_child(requests, "storage"), "resources.requests.storage"),
    )


def _load_claim(d: _Doc) -> list[Record]:
    common = d.common()
    return [_claim_volume(d, d.spec, _mapping(d.metadata, "annotations"), **common)]


# --------------------------------------------------------------------------- workloads


def _pod_specs(node: Any, path: str, depth: int = 0) -> Iterator[tuple[str, _Node]]:
    """Every pod spec (a mapping with a ``containers`` list) under ``node``, with its path.

    Generic on purpose: Kubeflow replica specs, RayCluster groups, JobSet replicated jobs and
    CRDs not listed anywhere all nest ``template.spec`` differently.
    """
    if depth > 12:
        return
    if isinstance(node, dict):
        if isinstance(node.get("containers"), list):
            yield path, node
            return
        for key, value in node.items():
            if isinstance(value, (dict, list)) and key not in ("metadata", "status"):
                yield from _pod_specs(value, f"{path}.{key}", depth + 1)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _pod_specs(value, f"{path}[{index}]", depth + 1)


def _claim_templates(node: Any, depth: int = 0) -> Iterator[_Node]:
    """StatefulSet ``volumeClaimTemplates`` items (wherever a CRD nests a StatefulSet-like spec)."""
    if depth > 12 or not isinstance(node, dict):
        return
    for key, value in node.items():
        if key == "volumeClaimTemplates" and isinstance(value, list):
            yield from (item for item in value if isinstance(item, dict))
        elif isinstance(value, dict) and key not in ("metadata", "status"):
            yield from _claim_templates(value, depth + 1)


#: Pod volume sources that are never EFS.
_LOCAL_SOURCES = (
    "emptyDir",
    "hostPath",
    "configMap",
    "secret",
    "downwardAPI",
    "projected",
    "awsElasticBlockStore",
)


class _VolumeRef(NamedTuple):
    claim_name: Maybe[str] = None
    file_system_ref: Maybe[str] = None
    is_efs: Maybe[bool] = None


def _volume_ref(volume: Any) -> _VolumeRef:
    """What a pod volume points at: a claim (linked later), or storage that is visibly EFS or not."""
    if not isinstance(volume, dict):
        return _VolumeRef()
    claim = _mapping(volume, "persistentVolumeClaim")
    if claim is not None:
        return _VolumeRef(_text(claim.get("claimName"), "persistentVolumeClaim.claimName"))
    if "ephemeral" in volume:  # a generic ephemeral volume: the PVC emitted by _template_claims
        return _VolumeRef(_text(volume.get("name"), "volume name"))
    csi = _mapping(volume, "csi")
    if csi is not None:
        driver = _text(csi.get("driver"), "csi.driver")
        handle: Any = csi.get("volumeHandle") or _child(_mapping(csi, "volumeAttributes"), "fileSystemId")
        fs_ref = _text(handle, "csi.volumeHandle") if driver in FILE_SYSTEM_DRIVERS else None
        if isinstance(fs_ref, str):
            fs_ref = fs_ref.partition(":")[0]
        return _VolumeRef(None, fs_ref, _is_efs(driver))
    nfs = _mapping(volume, "nfs")
    if nfs is not None:
        server = nfs.get("server")
        if _templated(server):
            unknown = _placeholder("nfs.server", server)
            return _VolumeRef(None, unknown, unknown)
        efs_id = _efs_id_from_dns(server)
        return _VolumeRef(None, efs_id, True if efs_id else None)
    if any(key in volume for key in _LOCAL_SOURCES):
        return _VolumeRef(is_efs=False)
    return _VolumeRef()


def _checkpoint_paths(d: _Doc, container: _Node) -> list[dict[str, Any]]:
    """Paths a container is told to checkpoint to (env ``*CHECKPOINT*``/``*CKPT*``, ``--ckpt-dir``)."""
    found: list[dict[str, Any]] = []
    for _index, env, line in _items(container, "env"):
        name, value = _child(env, "name"), _child(env, "value")
        if (
            isinstance(name, str)
            and _CHECKPOINT_WORD.search(name)
            and isinstance(value, str)
            and value.startswith("/")
        ):
            found.append({"path": value, "line": d.line(line), "source": f"env {name}"})
    for key in ("command", "args"):
        words = [(item, line) for _i, item, line in _items(container, key) if isinstance(item, str)]
        for position, (word, line) in enumerate(words):
            for match in _CHECKPOINT_FLAG.finditer(word):
                found.append({"path": match.group(1), "line": d.line(line), "source": key})
            nxt = words[position + 1] if position + 1 < len(words) else None
            if (
                nxt is not None
                and re.fullmatch(r"--?[\w.-]*(?:checkpoint|ckpt)[\w.-]*", word, re.IGNORECASE)
                and nxt[0].startswith("/")
            ):
                found.append({"path": nxt[0], "line": d.line(nxt[1]), "source": key})
    return found


def _load_workload(d: _Doc) -> list[Record]:
    if d.spec is None:
        return []
    mounts: list[Mount] = []
    checkpoint_paths: list[dict[str, Any]] = []
    claim_templates = list(_claim_templates(d.spec))
    template_names = {
        t["metadata"].get("name") for t in claim_templates if isinstance(t.get("metadata"), dict)
    }
    pod_paths: list[str] = []
    for path, pod in _pod_specs(d.spec, "spec"):
        pod_paths.append(path)
        volumes = {v.get("name"): v for _i, v, _l in _items(pod, "volumes") if isinstance(v, dict)}
        for container_key in ("initContainers", "containers"):
            for _index, container, _line in _items(pod, container_key):
                if not isinstance(container, dict):
                    continue
                checkpoint_paths += _checkpoint_paths(d, container)
                for _m, mount, line in _items(container, "volumeMounts"):
                    if not isinstance(mount, dict) or not isinstance(mount.get("name"), str):
                        continue
                    name = mount["name"]
                    ref = _volume_ref(volumes.get(name))
                    if name not in volumes and name in template_names:
                        ref = _VolumeRef(name)  # StatefulSet volumeClaimTemplates: a claim per replica
                    mounts.append(
                        Mount(
                            volume=name,
                            mount_path=_text(mount.get("mountPath"), "mountPath"),
                            claim_name=ref.claim_name,
                            file_system_ref=ref.file_system_ref,
                            line=d.line(line),
                            is_efs=ref.is_efs,
                        )
                    )
    records: list[Record] = []
    if mounts:
        extra: dict[str, Any] = {"kind": d.kind, "api_version": d.api_version, "pod_specs": pod_paths}
        if checkpoint_paths:
            extra["checkpoint_paths"] = checkpoint_paths
        lines = {"mounts": min(m.line for m in mounts if m.line is not None)}
        records.append(
            Volume(
                **d.common(lines=lines),
                extra=extra,
                volume_kind="workload",
                namespace=d.namespace,
                mounts=tuple(mounts),
            )
        )
    records += _template_claims(d, claim_templates)
    return records


def _template_claims(d: _Doc, claim_templates: list[_Node]) -> list[Record]:
    """PVCs a workload creates: StatefulSet volumeClaimTemplates and generic ephemeral volumes."""
    records: list[Record] = []
    owner = d.address()
    sources: list[tuple[Any, _Node, Any]] = []
    for template in claim_templates:
        meta = _mapping(template, "metadata") or LineDict()
        sources.append((meta.get("name"), template, meta))
    for _path, pod in _pod_specs(d.spec, "spec"):
        for _i, volume, _l in _items(pod, "volumes"):
            ephemeral = _mapping(_mapping(volume, "ephemeral"), "volumeClaimTemplate")
            if ephemeral is not None:
                sources.append((volume.get("name"), ephemeral, volume))
    for name, template, name_node in sources:
        if not isinstance(name, str):
            continue
        lines = {"name": d.line_at(name_node, "name")}
        claim_meta = _mapping(template, "metadata")
        records.append(
            _claim_volume(
                d,
                _mapping(template, "spec"),
                _mapping(claim_meta, "annotations"),
                address=f"{owner}/claims/{name}",
                location=d.location(template),
                source_format=FORMAT,
                attr_lines=lines,
                suppressions=d.suppressions(),
                name=name,
                extra={"owner": owner},
            )
        )
    return records


# --------------------------------------------------------------------------- SageMaker CRs


def _training_job(
    d: _Doc, definition: _Node, address: str, runs: Maybe[int], run_line: int | None
) -> TrainingJob:
    lines: dict[str, int] = {}

    def field(node: Any, attr: str, *keys: str) -> Any:
        for key in keys:
            if isinstance(node, dict) and key in node:
                lines[attr] = d.line_at(node, key)
                return node[key]
        return None

    resources = _mapping(definition, "resourceConfig")
    stopping = _mapping(definition, "stoppingCondition")
    checkpoint = _mapping(definition, "checkpointConfig")
    instance_type = _text(field(resources, "instance_type", "instanceType"), "instanceType")
    if instance_type is None and isinstance(_child(resources, "instanceGroups"), list):
        instance_type = Unknown("heterogeneous cluster (resourceConfig.instanceGroups)")
        lines["instance_type"] = d.line_at(resources, "instanceGroups")
    if run_line is not None:
        lines["runs_multiplier"] = run_line
    job_name = _text(field(definition, "name", "trainingJobName"), "trainingJobName")
    if job_name is None and "name" in d.metadata:
        lines["name"] = d.line_at(d.metadata, "name")
    return TrainingJob(
        address=address,
        location=d.location(),
        source_format=FORMAT,
        attr_lines=lines,
        suppressions=d.suppressions(),
        name=job_name if job_name is not None else d.name,
        extra={
            "api_version": d.api_version,
            "kind": d.kind,
            "default_note": "SageMaker stops a job after 86,400 s (1 day) when stoppingCondition is absent",
        },
        launcher="kubernetes-crd",
        instance_type=instance_type,
        instance_count=_integer(field(resources, "instance_count", "instanceCount"), "instanceCount"),
        volume_size_gb=_integer(field(resources, "volume_size_gb", "volumeSizeInGB"), "volumeSizeInGB"),
        keep_alive_s=_integer(
            field(resources, "keep_alive_s", "keepAlivePeriodInSeconds"), "keepAlivePeriodInSeconds"
        ),
        training_plan=_text(
            field(resources, "training_plan", "trainingPlanARN", "trainingPlanArn"), "trainingPlan"
        ),
        spot=_boolean(field(definition, "spot", "enableManagedSpotTraining"), "enableManagedSpotTraining"),
        max_runtime_s=_integer(
            field(stopping, "max_runtime_s", "maxRuntimeInSeconds"), "maxRuntimeInSeconds"
        ),
        max_runtime_default_s=SAGEMAKER_DEFAULT_MAX_RUNTIME_S,
        max_wait_s=_integer(field(stopping, "max_wait_s", "maxWaitTimeInSeconds"), "maxWaitTimeInSeconds"),
        checkpoint_s3_uri=_text(field(checkpoint, "checkpoint_s3_uri", "s3URI", "s3Uri", "S3Uri"), "s3URI"),
        checkpoint_local_path=_text(field(checkpoint, "checkpoint_local_path", "localPath"), "localPath"),
        runs_multiplier=runs,
    )


_TRAINING_JOB_KEYS = ("resourceConfig", "stoppingCondition", "algorithmSpecification", "trainingJobName")


def _load_sagemaker_job(d: _Doc) -> list[Record]:
    spec = d.spec or LineDict()
    if d.kind == "TrainingJob":
        if not any(key in spec for key in _TRAINING_JOB_KEYS):
            return _load_workload(d)  # another CRD that reuses the name (e.g. a HyperPod operator)
        return [_training_job(d, spec, d.address(), 1, None)]
    limits = _mapping(_mapping(spec, "hyperParameterTuningJobConfig"), "resourceLimits")
    runs = _integer(_child(limits, "maxNumberOfTrainingJobs"), "maxNumberOfTrainingJobs")
    run_line = d.line_at(limits, "maxNumberOfTrainingJobs") if runs is not None else None
    if runs is None:
        runs = Unknown("maxNumberOfTrainingJobs is not set")
    jobs: list[Record] = []
    definition = _mapping(spec, "trainingJobDefinition")
    if definition is not None:
        jobs.append(_training_job(d, definition, d.address(), runs, run_line))
    for index, item, _line in _items(spec, "trainingJobDefinitions"):
        if isinstance(item, dict):
            jobs.append(_training_job(d, item, d.address(str(index)), runs, run_line))
    return jobs


# --------------------------------------------------------------------------- eksctl


def _eksctl_taints(value: Any) -> tuple[str, ...]:
    if isinstance(value, dict):  # older form: {key: "value:Effect"}
        return tuple(f"{k}={v}" if v not in (None, "") else str(k) for k, v in value.items())
    taints = []
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict) and "key" in item:
            suffix = f"={item['value']}" if item.get("value") not in (None, "") else ""
            taints.append(f"{item['key']}{suffix}:{item.get('effect', '')}".rstrip(":"))
    return tuple(taints)


def _eksctl_nodegroup(d: _Doc, cluster: str, group: _Node, managed: bool) -> ComputePool:
    lines: dict[str, int] = {}
    extra: dict[str, Any] = {"managed": managed, "cluster": cluster}

    def at(node: Any, attr: str, key: str) -> Any:
        if isinstance(node, dict) and key in node:
            lines.setdefault(attr, d.line_at(node, key))
            return node[key]
        return None

    name = _text(group.get("name"), "nodegroup name")
    distribution = _mapping(group, "instancesDistribution")
    types: Maybe[tuple[Maybe[str], ...]] = None
    listed = at(group, "instance_types", "instanceTypes")
    if listed is None and distribution is not None:
        listed = at(distribution, "instance_types", "instanceTypes")
    single = group.get("instanceType")
    if isinstance(listed, list):
        types = tuple(_text(t, "instanceTypes item") for t in listed)
    elif _templated(listed):
        types = _placeholder("instanceTypes", listed)
    elif single is not None and single != "mixed":
        at(group, "instance_types", "instanceType")
        one = _text(single, "instanceType")
        types = one if isinstance(one, Unknown) else (one,)
    elif isinstance(group.get("instanceSelector"), dict):
        at(group, "instance_types", "instanceSelector")
        types = Unknown("instanceSelector: eksctl picks the types when it creates the group")
    capacity: Maybe[tuple[str, ...]] = ("on-demand",)
    spot = _boolean(at(group, "capacity_types", "spot"), "spot")
    if isinstance(spot, Unknown):
        capacity = spot
    elif spot:
        capacity = ("spot",)
    elif distribution is not None:
        percent = _integer(distribution.get("onDemandPercentageAboveBaseCapacity"), "onDemandPercentage")
        base = _integer(distribution.get("onDemandBaseCapacity"), "onDemandBaseCapacity")
        lines["capacity_types"] = d.line_at(group, "instancesDistribution")
        if isinstance(percent, Unknown) or isinstance(base, Unknown):
            capacity = Unknown("instancesDistribution has placeholders")
        elif percent == 0 and not base:
            capacity = ("spot",)
        elif percent is not None and percent < 100:
            capacity = ("on-demand", "spot")
    reserved: Maybe[bool] = None
    market = _mapping(group, "instanceMarketOptions")
    if market is not None and str(market.get("marketType", "")).lower() == "capacity-block":
        capacity, reserved = ("capacity-block",), True
        lines["capacity_types"] = lines["capacity_reservation"] = d.line_at(group, "instanceMarketOptions")
    reservation = _mapping(group, "capacityReservation")
    if reservation is not None:
        lines["capacity_reservation"] = d.line_at(group, "capacityReservation")
        preference = str(reservation.get("capacityReservationPreference", "")).lower()
        if "capacityReservationTarget" in reservation or preference == "capacity-reservations-only":
            reserved = True
        elif reserved is None:
            reserved = False
    sizes = {
        attr: _integer(at(group, attr, key), key)
        for attr, key in (
            ("min_size", "minSize"),
            ("desired_size", "desiredCapacity"),
            ("max_size", "maxSize"),
        )
    }
    if all(value is None for value in sizes.values()):
        sizes["desired_size"] = EKSCTL_DEFAULT_NODE_COUNT
        extra["default_note"] = f"eksctl creates {EKSCTL_DEFAULT_NODE_COUNT} nodes when no size is given"
    labels = _mapping(group, "labels")
    if labels is not None:
        lines["labels"] = d.line_at(group, "labels")
    if "taints" in group:
        lines["taints"] = d.line_at(group, "taints")
    if "name" in group:
        lines["name"] = d.line_at(group, "name")
    tags = _mapping(group, "tags")
    suppressions = d.suppressions() + _suppressions(tags, d.ctx)
    return ComputePool(
        address=d.ctx.address_prefix + f"ClusterConfig/{cluster}/{group.get('name', '?')}",
        location=d.location(group),
        source_format=FORMAT,
        attr_lines=lines,
        suppressions=suppressions,
        name=name,
        extra=extra,
        pool_kind="eksctl-nodegroup",
        instance_types=types,
        capacity_types=capacity,
        capacity_reservation=reserved,
        labels=_plain(labels) if labels is not None else {},
        taints=_eksctl_taints(group.get("taints")),
        min_size=sizes["min_size"],
        desired_size=sizes["desired_size"],
        max_size=sizes["max_size"],
    )


def _load_eksctl(d: _Doc) -> list[Record]:
    pools: list[Record] = []
    cluster = d.name_key
    for key, managed in (("nodeGroups", False), ("managedNodeGroups", True)):
        for _index, group, _line in _items(d.doc, key):
            if isinstance(group, dict):
                pools.append(_eksctl_nodegroup(d, cluster, group, managed))
    return pools


# --------------------------------------------------------------------------- dispatch

_Handler = Callable[[_Doc], "list[Record]"]

_HANDLERS: dict[tuple[str, str], _Handler] = {
    ("karpenter.sh", "NodePool"): _load_karpenter_pool,
    ("karpenter.sh", "Provisioner"): _load_karpenter_pool,
    ("karpenter.k8s.aws", "EC2NodeClass"): _load_node_class,
    ("storage.k8s.io", "StorageClass"): _load_storage_class,
    ("", "PersistentVolume"): _load_persistent_volume,
    ("", "PersistentVolumeClaim"): _load_claim,
    ("eksctl.io", "ClusterConfig"): _load_eksctl,
}
_SAGEMAKER_GROUPS = ("sagemaker.services.k8s.aws", "sagemaker.aws.amazon.com")
_SAGEMAKER_KINDS = ("trainingjob", "hyperparametertuningjob")
#: Kinds that never hold pod specs: not worth a walk.
_NOT_WORKLOADS = frozenset(
    {"ConfigMap", "Secret", "Service", "Namespace", "ServiceAccount", "CustomResourceDefinition"}
)


def _handler(d: _Doc) -> _Handler | None:
    handler = _HANDLERS.get((d.group, d.kind))
    if handler is not None:
        return handler
    if d.group in _SAGEMAKER_GROUPS and d.kind.lower() in _SAGEMAKER_KINDS:
        return _load_sagemaker_job
    if d.kind in _NOT_WORKLOADS or d.group.endswith("rbac.authorization.k8s.io"):
        return None
    return _load_workload


def claims(doc: Any) -> bool:
    """A Kubernetes object: a mapping with string ``apiVersion`` and ``kind``."""
    return (
        isinstance(doc, dict) and isinstance(doc.get("apiVersion"), str) and isinstance(doc.get("kind"), str)
    )


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    """One Kubernetes object (or a ``kind: List`` of them) -> records, or a FIN000 error."""
    result = ir.LoadResult()
    if not claims(doc):
        return result
    if doc["kind"] == "List" and isinstance(doc.get("items"), list):
        for item in doc["items"]:
            result.extend(load(item, ctx))
        return result
    try:
        if not isinstance(doc, LineDict):  # plain dicts (e.g. from HCL): every value on line 1 + offset
            doc = pin_lines(doc, 1)
        d = _Doc(doc, ctx)
        handler = _handler(d)
        if handler is not None:
            result.records.extend(handler(d))
    except _ShapeError as exc:
        result.errors.append(ir.LoadError(ctx.file, ctx.line(exc.line), str(exc)))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        line = ctx.line(int(getattr(doc, "line", 1) or 1))
        result.errors.append(ir.LoadError(ctx.file, line, f"cannot interpret {doc.get('kind')}: {exc!r}"))
    return result


def load_documents(docs: list[Any], ctx: DocContext) -> ir.LoadResult:
    """Several parsed documents (a Terraform heredoc, a ``kubernetes_manifest`` list)."""
    result = ir.LoadResult()
    for index, doc in enumerate(docs):
        sub = DocContext(
            file=ctx.file,
            lines=ctx.lines,
            doc_index=ctx.doc_index + index,
            line_offset=ctx.line_offset,
            address_prefix=ctx.address_prefix,
            options=ctx.options,
        )
        if claims(doc):
            result.extend(load(doc, sub))
    return result
