"""AWS ParallelCluster v3 configuration -> IR: each ``SlurmQueues[].ComputeResources[]`` entry is a
``ComputePool`` (``pool_kind="parallelcluster-compute-resource"``: ``InstanceType`` or
``Instances[].InstanceType``, ``MinCount`` = nodes kept running, ``MaxCount``, the queue's
``CapacityType``, a ``CapacityReservationTarget`` on the queue or the resource); each
``SharedStorage`` entry of type Efs/FsxLustre the cluster creates (no ``FileSystemId``) is a
``FileSystem``. ``ComputePool.partition`` names the Slurm partition, so the Slurm loader gives a job the
instance types of its partition. ``${VAR}``/Jinja placeholders are Unknown (a config that is not
YAML until rendered comes through the tolerant template reader)."""

from __future__ import annotations

import re
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext, no_finalize
from finlint.loaders.common import coerce
from finlint.loaders.common.yamlload import LineDict, LineList

FORMAT = "parallelcluster"
POOL_KIND = "parallelcluster-compute-resource"
finalize = no_finalize

_TEMPLATE = re.compile(r"\{\{|\{%|\$\{|\$[A-Za-z_]")
_CAPACITY = {"ONDEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}
_FS_TYPES = {"efs": "efs", "fsxlustre": "fsx-lustre"}
#: at most this many compute resources / storage entries are read from one configuration
MAX_ENTRIES = 1000


def claims(doc: Any) -> bool:
    from finlint.loaders.parallelcluster import hyperpod

    if hyperpod.claims(doc):
        return True  # HyperPod Slurm provisioning parameters
    scheduling = doc.get("Scheduling") if isinstance(doc, dict) else None
    if not isinstance(scheduling, dict) or "SlurmQueues" not in scheduling:
        return False
    scheduler = scheduling.get("Scheduler")
    # SlurmQueues belong to the slurm scheduler only: a templated Scheduler ({{ scheduler }}) is slurm
    return isinstance(scheduler, str) and (
        scheduler.strip().lower() == "slurm" or bool(_TEMPLATE.search(scheduler))
    )


def _value(value: Any, kind: type, what: str) -> Any:
    if value is None:
        return None
    if isinstance(value, str) and _TEMPLATE.search(value):
        return ir.Unknown(f"{what} is a template placeholder ({value!r})", value)
    if isinstance(value, (dict, list)):
        return ir.Unknown(f"{what} is not a single value")
    convert = {int: coerce.to_int, str: coerce.to_str, float: coerce.to_float}[kind]
    return convert(value, what)


def _line(node: Any, key: Any, ctx: DocContext, fallback: int) -> int:
    if isinstance(node, LineDict):
        return ctx.line(node.line_of(key, fallback))
    if isinstance(node, LineList) and isinstance(key, int):
        return ctx.line(node.line_of(key))
    return ctx.line(fallback)


def _items(node: Any, key: str) -> list[tuple[int, Any]]:
    value = node.get(key) if isinstance(node, dict) else None
    if not isinstance(value, list):
        return []
    return [(i, v) for i, v in enumerate(value[:MAX_ENTRIES]) if isinstance(v, dict)]


def _location(node: Any, ctx: DocContext) -> ir.Location:
    start = ctx.line(getattr(node, "line", 1) or 1)
    end = ctx.line(getattr(node, "end_line", 0) or start)
    return ir.Location(ctx.file, start, max(start, end))


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    from finlint.loaders.parallelcluster import hyperpod

    if hyperpod.claims(doc):
        return hyperpod.load(doc, ctx)
    result = ir.LoadResult()
    scheduling = doc.get("Scheduling")
    queues = scheduling.get("SlurmQueues")
    if not isinstance(queues, list):
        line = _line(scheduling, "SlurmQueues", ctx, 1)
        result.errors.append(ir.LoadError(ctx.file, line, "Scheduling.SlurmQueues must be a list"))
        return result
    settings = scheduling.get("SlurmSettings")
    idle = _idle(settings, ctx)
    mounts = _shared_mounts(doc, ctx)
    for position, queue in _items(scheduling, "SlurmQueues"):
        pools = _queue_pools(queue, position == 0, idle, ctx)
        result.records.extend(p.with_changes(shared_mounts=mounts) if mounts else p for p in pools)
    result.records.extend(_storage(doc, ctx))
    return result


#: ParallelCluster's ``ScaledownIdletime`` when unset (minutes)
DEFAULT_SCALEDOWN_MIN = 10


def _idle(settings: Any, ctx: DocContext) -> tuple[Any, int | None]:
    """``SlurmSettings.ScaledownIdletime`` (minutes) as seconds an idle dynamic node is kept, and
    its line (None: unset, the default of 10 minutes)."""
    if not isinstance(settings, dict) or "ScaledownIdletime" not in settings:
        return DEFAULT_SCALEDOWN_MIN * 60, None
    minutes = _value(settings.get("ScaledownIdletime"), int, "ScaledownIdletime")
    line = _line(settings, "ScaledownIdletime", ctx, getattr(settings, "line", 1))
    return (minutes * 60 if isinstance(minutes, int) else minutes), line


def _queue_time_limit(queue: Any, ctx: DocContext) -> tuple[Any, int] | None:
    """The queue's ``CustomSlurmSettings`` ``DefaultTime``, else ``MaxTime`` (Slurm partition
    parameters) in seconds (None: UNLIMITED), and its line; None when neither is set."""
    from finlint.loaders.slurm.options import time_seconds

    custom = queue.get("CustomSlurmSettings")
    if not isinstance(custom, dict):
        return None
    for key in ("DefaultTime", "MaxTime"):
        if key in custom:
            raw = _value(custom[key], str, f"CustomSlurmSettings.{key}")
            value = raw if isinstance(raw, ir.Unknown) else time_seconds(str(raw))
            return value, _line(custom, key, ctx, getattr(custom, "line", 1))
    return None


def _reservation(node: Any, ctx: DocContext) -> tuple[Any, int | None]:
    target = node.get("CapacityReservationTarget")
    if not isinstance(target, dict):
        return None, None
    line = _line(node, "CapacityReservationTarget", ctx, getattr(node, "line", 1))
    for key in ("CapacityReservationId", "CapacityReservationResourceGroupArn"):
        value = target.get(key)
        if isinstance(value, str) and value.strip():
            found = _value(value, str, f"CapacityReservationTarget.{key}")
            return (True if isinstance(found, str) else found), line
    return None, None


def _instance_types(resource: Any, ctx: DocContext) -> tuple[Any, int | None]:
    if "InstanceType" in resource:
        line = _line(resource, "InstanceType", ctx, resource.line)
        return (ir.plain_unknown(_value(resource["InstanceType"], str, "InstanceType")),), line
    listed = _items(resource, "Instances")
    if listed:
        line = _line(resource, "Instances", ctx, resource.line)
        types = tuple(
            ir.plain_unknown(_value(i.get("InstanceType"), str, "Instances[].InstanceType"))
            for _, i in listed
        )
        return types, line
    return None, None


def _queue_pools(queue: Any, first: bool, idle: tuple[Any, int | None], ctx: DocContext) -> list[ir.Record]:
    name = _value(queue.get("Name"), str, "SlurmQueues[].Name")
    queue_name = name if isinstance(name, str) else f"queue{ctx.doc_index}"
    capacity: Any = None
    capacity_line: int | None = None
    if "CapacityType" in queue:
        raw = _value(queue.get("CapacityType"), str, "CapacityType")
        mapped = _CAPACITY.get(raw.upper()) if isinstance(raw, str) else None
        capacity = (
            (mapped,)
            if mapped
            else (raw if isinstance(raw, ir.Unknown) else ir.Unknown(f"CapacityType {raw}"))
        )
        capacity_line = _line(queue, "CapacityType", ctx, queue.line)
    queue_reservation = _reservation(queue, ctx)
    time_limit = _queue_time_limit(queue, ctx)
    out: list[ir.Record] = []
    for _, resource in _items(queue, "ComputeResources"):
        lines: dict[str, int] = {}
        fields: dict[str, Any] = {}
        types, types_line = _instance_types(resource, ctx)
        fields["instance_types"] = types
        if types_line is not None:
            lines["instance_types"] = types_line
        for field_name, key in (("min_size", "MinCount"), ("max_size", "MaxCount")):
            if key in resource:
                fields[field_name] = _value(resource[key], int, key)
                lines[field_name] = _line(resource, key, ctx, resource.line)
        if capacity_line is not None:
            fields["capacity_types"], lines["capacity_types"] = capacity, capacity_line
        reserved, reserved_line = _reservation(resource, ctx)
        if reserved is None:
            reserved, reserved_line = queue_reservation
        if reserved_line is not None:
            fields["capacity_reservation"], lines["capacity_reservation"] = reserved, reserved_line
        cr_name = _value(resource.get("Name"), str, "ComputeResources[].Name")
        shown = cr_name if isinstance(cr_name, str) else "?"
        extra: dict[str, Any] = {"compute_resource": shown}
        fields["idle_release_s"] = idle[0]
        if idle[1] is not None:
            lines["idle_release_s"] = idle[1]
        if time_limit is not None:
            fields["partition_time_limit_s"], lines["partition_time_limit_s"] = time_limit
        out.append(
            ir.ComputePool(
                address=f"SlurmQueues/{queue_name}/ComputeResources/{shown}",
                location=_location(resource, ctx),
                source_format=FORMAT,
                attr_lines=lines,
                name=cr_name,
                pool_kind=POOL_KIND,
                partition=queue_name,
                default_partition=first,
                extra=extra,
                **fields,
            )
        )
    return out


def _shared_mounts(doc: Any, ctx: DocContext) -> tuple[ir.Mount, ...]:
    """Every ``SharedStorage`` entry's mount (created or existing file system), EFS or not by
    its ``StorageType``: the place a job of this cluster writes to when it names the path."""
    out: list[ir.Mount] = []
    for _, entry in _items(doc, "SharedStorage"):
        mount = _value(entry.get("MountDir"), str, "MountDir")
        kind = entry.get("StorageType")
        if not isinstance(mount, str) or not isinstance(kind, str):
            continue
        name = entry.get("Name")
        out.append(
            ir.Mount(
                volume=name if isinstance(name, str) else mount,
                mount_path=mount,
                line=_line(entry, "MountDir", ctx, getattr(entry, "line", 1)),
                is_efs=kind.lower() == "efs",
                via=(ctx.file,),
            )
        )
    return tuple(out)


def _storage(doc: Any, ctx: DocContext) -> list[ir.Record]:
    out: list[ir.Record] = []
    for _, entry in _items(doc, "SharedStorage"):
        kind = entry.get("StorageType")
        fs_type = _FS_TYPES.get(kind.lower()) if isinstance(kind, str) else None
        settings = entry.get("EfsSettings" if fs_type == "efs" else "FsxLustreSettings")
        settings = settings if isinstance(settings, dict) else {}
        if fs_type is None or settings.get("FileSystemId") is not None:
            continue  # another storage type, or an existing file system the cluster only mounts
        name = _value(entry.get("Name"), str, "SharedStorage[].Name")
        lines: dict[str, int] = {"fs_type": _line(entry, "StorageType", ctx, entry.line)}
        fields: dict[str, Any] = {}
        keys = (
            (
                ("throughput_mode", "ThroughputMode", str),
                ("provisioned_throughput_mibps", "ProvisionedThroughput", float),
            )
            if fs_type == "efs"
            else (
                ("size_gb", "StorageCapacity", float),
                ("deployment_type", "DeploymentType", str),
                ("per_unit_storage_throughput", "PerUnitStorageThroughput", int),
            )
        )
        for field_name, key, kind_of in keys:
            if key in settings:
                value = _value(settings[key], kind_of, key)
                fields[field_name] = (
                    value.lower() if field_name == "throughput_mode" and isinstance(value, str) else value
                )
                lines[field_name] = _line(settings, key, ctx, entry.line)
        if fs_type == "fsx-lustre":
            fields["data_repository"] = any(
                k in settings for k in ("ImportPath", "ExportPath", "AutoImportPolicy")
            )
        mount = _value(entry.get("MountDir"), str, "MountDir")
        out.append(
            ir.FileSystem(
                address=f"SharedStorage/{name if isinstance(name, str) else '?'}",
                location=_location(entry, ctx),
                source_format=FORMAT,
                attr_lines=lines,
                name=name,
                fs_type=fs_type,
                extra={"mount_dir": mount},
                **fields,
            )
        )
    return out
