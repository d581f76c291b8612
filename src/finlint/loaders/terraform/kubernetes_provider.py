"""The kubernetes provider's typed resources (storage classes, PVs, PVCs, workloads) rebuilt as
Kubernetes objects and read by the Kubernetes loader, with lines in the .tf file."""

from __future__ import annotations

from typing import Any

from finlint import ir
from finlint.ir import Unknown, plain_unknown
from finlint.loaders.common.yamlload import LineDict, LineList
from finlint.loaders.terraform.items import Item

_K8S_OBJECTS = {
    "kubernetes_storage_class": ("storage.k8s.io/v1", "StorageClass"),
    "kubernetes_persistent_volume": ("v1", "PersistentVolume"),
    "kubernetes_persistent_volume_claim": ("v1", "PersistentVolumeClaim"),
    "kubernetes_pod": ("v1", "Pod"),
    "kubernetes_job": ("batch/v1", "Job"),
    "kubernetes_cron_job": ("batch/v1", "CronJob"),
    "kubernetes_deployment": ("apps/v1", "Deployment"),
    "kubernetes_stateful_set": ("apps/v1", "StatefulSet"),
}


#: ``kubernetes_*`` resource type -> (apiVersion, kind) of the object it manages.
K8S_KINDS = {
    **_K8S_OBJECTS,
    **{f"{rtype}_v1": object_kind for rtype, object_kind in _K8S_OBJECTS.items()},
    "kubernetes_daemonset": ("apps/v1", "DaemonSet"),
    "kubernetes_daemon_set_v1": ("apps/v1", "DaemonSet"),
}


K8S_TYPES = frozenset(K8S_KINDS)


_CLUSTER_SCOPED = ("StorageClass", "PersistentVolume")


#: Repeated blocks that are lists in the Kubernetes API (``container {}`` -> ``containers: []``).
_LIST_BLOCKS = {
    "container": "containers",
    "init_container": "initContainers",
    "volume": "volumes",
    "volume_mount": "volumeMounts",
    "env": "env",
    "env_from": "envFrom",
    "port": "ports",
    "toleration": "tolerations",
    "volume_claim_template": "volumeClaimTemplates",
}


#: Renamed arguments (the rest is snake_case -> camelCase).
_RENAMED = {"storage_provisioner": "provisioner"}


def _camel(key: str) -> str:
    if key in _RENAMED:
        return _RENAMED[key]
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _is_block(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _k8s_value(value: Any, line: int) -> Any:
    """An argument's value (a map keeps its keys: labels, parameters, requests) with lines."""
    if isinstance(value, dict):
        out = LineDict()
        out.line = getattr(value, "line", 0) or line
        out.end_line = getattr(value, "end_line", 0) or out.line
        key_lines = getattr(value, "key_lines", None) or {}
        out.key_lines = {}
        for k, v in value.items():
            out.key_lines[k] = key_lines.get(k, out.line)
            out[k] = _k8s_value(v, out.key_lines[k])
        return out
    if isinstance(value, list):
        items = LineList()
        items.line = getattr(value, "line", 0) or line
        items.end_line = getattr(value, "end_line", 0) or items.line
        item_lines = getattr(value, "item_lines", None) or []
        items.item_lines = [item_lines[i] if i < len(item_lines) else items.line for i in range(len(value))]
        items.extend(_k8s_value(v, items.item_lines[i]) for i, v in enumerate(value))
        return items
    return plain_unknown(value)  # the Kubernetes loader is not written for alternatives


def _k8s_block(block: Any, line: int, parent: str = "") -> LineDict:
    """A resource body or nested block in the Kubernetes API's shape: camelCase keys, single
    blocks as objects, repeated blocks (``container``, ``volume``...) as lists."""
    out = LineDict()
    out.line = getattr(block, "line", 0) or line
    out.end_line = getattr(block, "end_line", 0) or out.line
    out.key_lines = {}
    key_lines = getattr(block, "key_lines", None) or {}
    for key, value in block.items():
        if value is None or value == []:  # plan JSON writes unset arguments and blocks so
            continue
        key_line = key_lines.get(key, out.line)
        if _is_block(value):
            item_lines = getattr(value, "item_lines", None) or []
            lines = [item_lines[i] if i < len(item_lines) else key_line for i in range(len(value))]
            if key in _LIST_BLOCKS and not (key == "volume_claim_template" and parent == "ephemeral"):
                name = _LIST_BLOCKS[key]
                items = LineList(_k8s_block(v, lines[i], key) for i, v in enumerate(value))
                items.line = items.end_line = key_line
                items.item_lines = lines
                out[name] = items
            else:
                name = _camel(key)
                out[name] = _k8s_block(value[0], lines[0], key)
        else:
            name = _camel(key)
            out[name] = _k8s_value(value, key_line)
        out.key_lines[name] = key_line
    return out


def _k8s_document(item: Item) -> LineDict:
    api_version, kind = K8S_KINDS[item.rtype]
    doc = _k8s_block(item.values, item.location.line)
    spec = doc.get("spec")
    if kind == "PersistentVolume" and isinstance(spec, LineDict):
        source = spec.pop("persistentVolumeSource", None)  # its csi/nfs/... sit in spec in the API
        if isinstance(source, LineDict):
            for k, v in source.items():
                spec[k] = v
                spec.key_lines[k] = source.line_of(k)
    out = LineDict({"apiVersion": api_version, "kind": kind, **doc})
    out.line, out.end_line = item.location.line, item.location.end_line
    out.key_lines = {"apiVersion": out.line, "kind": out.line, **doc.key_lines}
    return out


def kubernetes_resource(item: Item) -> list[ir.Record]:
    """``kubernetes_storage_class``, ``kubernetes_persistent_volume(_claim)``, and workloads
    (``kubernetes_job``, ``kubernetes_deployment``, ``kubernetes_stateful_set``...): the
    object they manage, read by the Kubernetes loader at the .tf lines."""
    from finlint.loaders import DocContext, kubernetes

    doc = _k8s_document(item)
    prefix = f"{item.address}/"
    result = kubernetes.load(doc, DocContext(file=item.location.file, address_prefix=prefix))
    scope = 2 if doc["kind"] in _CLUSTER_SCOPED else 3  # Kind/name or Kind/namespace/name
    out: list[ir.Record] = []
    for record in result.records:
        rest = record.address[len(prefix) :].split("/")[scope:] if record.address.startswith(prefix) else []
        extra = {**item.extra, **record.extra, "tf_address": item.address, "tf_type": item.rtype}
        if item.multiplier != 1:
            extra["count"] = item.multiplier
        changes: dict[str, Any] = {
            "address": "/".join([item.address, *rest]),
            "source_format": item.source_format,
            "extra": extra,
        }
        fs_ref = item.refs.get("spec.persistent_volume_source.csi.volume_handle")
        if fs_ref and isinstance(record, ir.Volume) and isinstance(record.file_system_ref, Unknown):
            changes["file_system_ref"] = fs_ref
            changes["efs_target"] = fs_ref if record.is_efs is True else None
        out.append(record.with_changes(**changes))
    return out
