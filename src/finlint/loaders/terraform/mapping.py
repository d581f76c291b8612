"""Terraform resource values -> IR records, shared by the HCL loader and the plan loader.

Both loaders hand over the same shape: a resource's arguments as a ``LineDict`` (nested blocks
as lists of dicts, exactly as ``terraform show -json`` writes them), with the line of every
key, plus ``refs``: which other resource an argument points at (``launch_template.id`` ->
``aws_launch_template.gpu``). Values may be :class:`~finlint.ir.Unknown` anywhere.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from finlint import coerce, ir
from finlint.ir import Unknown
from finlint.yamlload import LineDict, LineList

DEFAULT_NOTE = "SageMaker's default of 1 day when stopping_condition is absent"


@dataclass
class Item:
    """One Terraform resource (or one for_each instance of it), ready for mapping."""

    rtype: str
    address: str
    values: dict[str, Any]
    location: ir.Location
    source_format: str = "terraform"
    multiplier: Any = 1  # count / number of instances; Unknown when count is not known
    refs: dict[str, str] = field(default_factory=dict)  # "launch_template.id" -> address
    extra: dict[str, Any] = field(default_factory=dict)


# --- value access ----------------------------------------------------------------------------


def get(values: Any, path: str) -> tuple[Any, int | None]:
    """``(value, line)`` at a dotted path; blocks (lists) step into their first element.

    Absent -> ``(None, None)``; an unknown step -> ``(Unknown, line)``.
    """
    node = values
    line: int | None = getattr(values, "line", None)
    for part in path.split("."):
        if isinstance(node, list):
            if not node:
                return None, line
            node = node[0]
        if isinstance(node, Unknown):
            return node, line
        if not isinstance(node, dict) or part not in node:
            return None, None
        key_lines = getattr(node, "key_lines", None) or {}
        line = key_lines.get(part, line)
        node = node[part]
    if isinstance(node, list) and node and isinstance(node[0], dict) and not isinstance(node, str):
        return node, line
    return node, line


def as_int(value: Any) -> Any:
    return coerce.to_int(value)


def as_float(value: Any) -> Any:
    return coerce.to_float(value)


def as_str(value: Any) -> Any:
    return coerce.to_str(value)


def as_bool(value: Any) -> Any:
    return coerce.to_bool(value)


def as_str_tuple(value: Any) -> Any:
    if value is None or isinstance(value, Unknown):
        return value
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(as_str(v) for v in value)
    return Unknown("not a list of strings")


def times(value: Any, multiplier: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, Unknown):
        return value
    if isinstance(multiplier, Unknown):
        return Unknown(f"count/for_each: {multiplier.reason}")
    return value * multiplier


def tags_of(values: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    tags, _ = get(values, "tags")
    if isinstance(tags, Unknown):
        return {}, Unknown(f"tags: {tags.reason}")
    if not isinstance(tags, dict):
        return {}, None
    return dict(tags), as_str(tags.get("Name"))


class _Lines:
    """Collects ``attr_lines`` while fields are read."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values
        self.lines: dict[str, int] = {}

    def read(self, field_name: str, path: str) -> Any:
        value, line = get(self.values, path)
        if line is not None and value is not None:
            self.lines[field_name] = line
        return value


def _common(item: Item, lines: _Lines, name: Any = None) -> dict[str, Any]:
    extra = dict(item.extra)
    extra["tf_address"] = item.address
    extra["tf_type"] = item.rtype
    if item.multiplier != 1:
        extra["count"] = item.multiplier
    return {
        "address": item.address,
        "location": item.location,
        "source_format": item.source_format,
        "attr_lines": lines.lines,
        "name": name,
        "extra": extra,
    }


# --- resources -------------------------------------------------------------------------------


def training_job(item: Item) -> list[ir.Record]:
    r = _Lines(item.values)
    fields = {
        "instance_type": as_str(r.read("instance_type", "resource_config.instance_type")),
        "instance_count": as_int(r.read("instance_count", "resource_config.instance_count")),
        "volume_size_gb": as_int(r.read("volume_size_gb", "resource_config.volume_size_in_gb")),
        "keep_alive_s": as_int(r.read("keep_alive_s", "resource_config.keep_alive_period_in_seconds")),
        "spot": as_bool(r.read("spot", "enable_managed_spot_training")),
        "max_runtime_s": as_int(r.read("max_runtime_s", "stopping_condition.max_runtime_in_seconds")),
        "max_wait_s": as_int(r.read("max_wait_s", "stopping_condition.max_wait_time_in_seconds")),
        "checkpoint_s3_uri": as_str(r.read("checkpoint_s3_uri", "checkpoint_config.s3_uri")),
        "checkpoint_local_path": as_str(r.read("checkpoint_local_path", "checkpoint_config.local_path")),
    }
    # a whole block that is unknown (dynamic with unknown for_each) makes its fields unknown
    for block, names in (
        ("stopping_condition", ("max_runtime_s", "max_wait_s")),
        ("checkpoint_config", ("checkpoint_s3_uri", "checkpoint_local_path")),
    ):
        value, line = get(item.values, block)
        if isinstance(value, Unknown):
            for n in names:
                fields[n] = value
                if line:
                    r.lines.setdefault(n, line)
    for block, attr in (
        ("stopping_condition", "stopping_condition"),
        ("checkpoint_config", "checkpoint_config"),
    ):
        _, line = get(item.values, block)
        if line:
            r.lines.setdefault(attr, line)
    name = as_str(r.read("name", "training_job_name"))
    common = _common(item, r, name)
    common["extra"]["default_note"] = DEFAULT_NOTE
    return [
        ir.TrainingJob(
            launcher="terraform",
            max_runtime_default_s=86400,
            runs_multiplier=item.multiplier if not isinstance(item.multiplier, Unknown) else item.multiplier,
            **fields,
            **common,
        )
    ]


def notebook(item: Item) -> list[ir.Record]:
    r = _Lines(item.values)
    instance_type = as_str(r.read("instance_type", "instance_type"))
    volume = as_int(r.read("volume_size_gb", "volume_size"))
    name = as_str(r.read("name", "name"))
    return [ir.Notebook(instance_type=instance_type, volume_size_gb=volume, **_common(item, r, name))]


def _tagged(item: Item) -> tuple[_Lines, dict[str, Any], Any]:
    """Lines collector, tags and Name tag of a file system: the name's line is the tags' line."""
    r = _Lines(item.values)
    tags, name = tags_of(item.values)
    _, tag_line = get(item.values, "tags")
    if tag_line:
        r.lines["tags"] = r.lines["name"] = tag_line
    return r, tags, name


def efs(item: Item) -> list[ir.Record]:
    r, tags, name = _tagged(item)
    return [
        ir.FileSystem(
            fs_type="efs",
            tags=tags,
            creation_token=as_str(r.read("creation_token", "creation_token")),
            throughput_mode=as_str(r.read("throughput_mode", "throughput_mode")),
            provisioned_throughput_mibps=as_float(
                r.read("provisioned_throughput_mibps", "provisioned_throughput_in_mibps")
            ),
            ref_ids=(item.address,),
            **_common(item, r, name),
        )
    ]


def fsx_lustre(item: Item) -> list[ir.Record]:
    r, tags, name = _tagged(item)
    return [
        ir.FileSystem(
            fs_type="fsx-lustre",
            tags=tags,
            size_gb=as_float(r.read("size_gb", "storage_capacity")),
            deployment_type=as_str(r.read("deployment_type", "deployment_type")),
            per_unit_storage_throughput=as_int(
                r.read("per_unit_storage_throughput", "per_unit_storage_throughput")
            ),
            ref_ids=(item.address,),
            **_common(item, r, name),
        )
    ]


def _fs_ref(item: Item, r: _Lines) -> Any:
    value = r.read("file_system_ref", "file_system_id")
    ref = item.refs.get("file_system_id")
    if ref:
        return ref
    return as_str(value)


def efs_access_point(item: Item) -> list[ir.Record]:
    r = _Lines(item.values)
    tags, name = tags_of(item.values)
    _, tag_line = get(item.values, "tags")
    if tag_line:
        r.lines["name"] = tag_line
    common = _common(item, r, name)
    common["extra"]["tags"] = tags
    return [
        ir.Volume(
            volume_kind="efs-access-point",
            is_efs=True,
            file_system_ref=_fs_ref(item, r),
            root_path=as_str(r.read("root_path", "root_directory.path")),
            efs_target=item.refs.get("file_system_id"),
            **common,
        )
    ]


def efs_mount_target(item: Item) -> list[ir.Record]:
    r = _Lines(item.values)
    return [
        ir.Volume(
            volume_kind="efs-mount-target",
            is_efs=True,
            file_system_ref=_fs_ref(item, r),
            efs_target=item.refs.get("file_system_id"),
            **_common(item, r),
        )
    ]


# --- compute ---------------------------------------------------------------------------------

_MARKET = {"spot": "spot", "capacity-block": "capacity-block"}
_EKS_CAPACITY = {"ON_DEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}


def _market(values: Any, r: _Lines, prefix: str = "") -> tuple[Any, Any]:
    """(capacity_types, capacity_reservation) from EC2 launch arguments."""
    market = r.read("capacity_types", prefix + "instance_market_options.market_type")
    capacity: Any = None
    if isinstance(market, Unknown):
        capacity = market
    elif isinstance(market, str):
        capacity = (_MARKET.get(market, market),)
    else:
        opts, _ = get(values, prefix + "instance_market_options")
        if isinstance(opts, Unknown):
            capacity = opts
    reservation: Any = None
    spec, line = get(values, prefix + "capacity_reservation_specification")
    if isinstance(spec, Unknown):
        reservation = spec
    elif spec:
        target, tline = get(values, prefix + "capacity_reservation_specification.capacity_reservation_target")
        pref, pline = get(
            values, prefix + "capacity_reservation_specification.capacity_reservation_preference"
        )
        if isinstance(target, Unknown):
            reservation = target
        elif target or pref == "capacity-reservations-only":
            reservation = True
        elif isinstance(pref, Unknown):
            reservation = pref
        else:
            reservation = False
        r.lines["capacity_reservation"] = tline or pline or line or 0
    if capacity == ("capacity-block",):
        reservation = True
    return capacity, reservation


def _pool(item: Item, r: _Lines, kind: str, name: Any = None, **fields: Any) -> ir.ComputePool:
    return ir.ComputePool(pool_kind=kind, **fields, **_common(item, r, name))


def ec2_instance(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    r = _Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "instance_type"))
    capacity, reservation = _market(item.values, r)
    lt = templates.get(item.refs.get("launch_template.id", "") or item.refs.get("launch_template.name", ""))
    if lt is not None:
        types, capacity, reservation = _inherit(lt, types, capacity, reservation)
    n = times(1, item.multiplier)
    _, tags_name = tags_of(item.values)
    return [
        _pool(
            item,
            r,
            "ec2-instance",
            tags_name,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
            min_size=n,
            desired_size=n,
            max_size=n,
        )
    ]


def _inherit(lt: Item, types: Any, capacity: Any, reservation: Any) -> tuple[Any, Any, Any]:
    """Fill what a resource leaves to its launch template."""
    lr = _Lines(lt.values)
    if types is None:
        types = as_str_tuple(lr.read("instance_types", "instance_type"))
    lt_capacity, lt_reservation = _market(lt.values, lr)
    return (
        types,
        capacity if capacity is not None else lt_capacity,
        (reservation if reservation is not None else lt_reservation),
    )


def launch_template(item: Item) -> list[ir.Record]:
    r = _Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "instance_type"))
    capacity, reservation = _market(item.values, r)
    name = as_str(r.read("name", "name"))
    return [
        _pool(
            item,
            r,
            "launch-template",
            name,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
        )
    ]


def autoscaling_group(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    r = _Lines(item.values)
    types: Any = None
    overrides, oline = get(item.values, "mixed_instances_policy.launch_template.override")
    if isinstance(overrides, Unknown):
        types = overrides
    elif isinstance(overrides, list) and overrides:
        types = tuple(
            as_str(o.get("instance_type")) if isinstance(o, dict) else Unknown("override") for o in overrides
        )
        if oline:
            r.lines["instance_types"] = oline
    lt = None
    for key in (
        "launch_template.id",
        "launch_template.name",
        "mixed_instances_policy.launch_template.launch_template_specification.launch_template_id",
        "mixed_instances_policy.launch_template.launch_template_specification.launch_template_name",
    ):
        if item.refs.get(key) in templates:
            lt = templates[item.refs[key]]
            break
    capacity: Any = None
    reservation: Any = None
    if lt is not None:
        types, capacity, reservation = _inherit(lt, types, None, None)
        if "instance_types" not in r.lines:
            r.lines["instance_types"] = lt.location.line
    elif types is None and (
        get(item.values, "launch_template")[0] or get(item.values, "mixed_instances_policy")[0]
    ):
        types = Unknown("launch template not found in the configuration")
    dist, _ = get(item.values, "mixed_instances_policy.instances_distribution")
    if isinstance(dist, list) and dist and isinstance(dist[0], dict):
        pct = dist[0].get("on_demand_percentage_above_base_capacity")
        if isinstance(pct, (int, float)) and pct < 100:
            capacity = ("on-demand", "spot") if (dist[0].get("on_demand_base_capacity") or 0) else ("spot",)
    return [
        _pool(
            item,
            r,
            "autoscaling-group",
            None,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
            min_size=times(as_int(r.read("min_size", "min_size")), item.multiplier),
            desired_size=times(as_int(r.read("desired_size", "desired_capacity")), item.multiplier),
            max_size=times(as_int(r.read("max_size", "max_size")), item.multiplier),
        )
    ]


def eks_node_group(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    r = _Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "instance_types"))
    if types == ():
        types = None
    ct = r.read("capacity_types", "capacity_type")
    capacity: Any = (
        ct
        if isinstance(ct, Unknown)
        else ((_EKS_CAPACITY.get(ct, ct.lower()),) if isinstance(ct, str) else None)
    )
    market, reservation = _market(item.values, r)  # the EKS module's launch-template inputs
    if capacity is None and market is not None:
        capacity = market
    if capacity == ("capacity-block",):
        reservation = True
    lt = templates.get(item.refs.get("launch_template.id", "") or item.refs.get("launch_template.name", ""))
    if lt is not None:
        types, lt_cap, reservation = _inherit(lt, types, None, reservation)
        if capacity is None and lt_cap == ("capacity-block",):
            capacity = lt_cap
        r.lines.setdefault("instance_types", lt.location.line)
    labels, _ = get(item.values, "labels")
    taints, _ = get(item.values, "taint")
    taint_list = (
        tuple(f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in taints if isinstance(t, dict))
        if isinstance(taints, list)
        else ()
    )
    name = as_str(r.read("name", "node_group_name"))
    return [
        _pool(
            item,
            r,
            "eks-nodegroup",
            name,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
            min_size=times(as_int(r.read("min_size", "scaling_config.min_size")), item.multiplier),
            desired_size=times(
                as_int(r.read("desired_size", "scaling_config.desired_size")), item.multiplier
            ),
            max_size=times(as_int(r.read("max_size", "scaling_config.max_size")), item.multiplier),
            labels=dict(labels) if isinstance(labels, dict) else {},
            taints=taint_list,
        )
    ]


def batch_compute_environment(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    from finlint import catalog

    r = _Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "compute_resources.instance_type"))
    ctype = r.read("capacity_types", "compute_resources.type")
    capacity: Any = (
        ctype
        if isinstance(ctype, Unknown)
        else ({"SPOT": ("spot",), "EC2": ("on-demand",)}.get(ctype) if isinstance(ctype, str) else None)
    )
    vcpus = None
    if isinstance(types, tuple) and types and all(isinstance(t, str) for t in types):
        specs = [_spec(catalog, t) for t in types]
        if all(s is not None for s in specs):
            vcpus = max(s.vcpu for s in specs if s is not None)

    def instances(field_name: str, path: str) -> Any:
        v = as_int(r.read(field_name, path))
        if v is None or isinstance(v, Unknown):
            return v
        if v == 0:
            return 0
        return times(math.ceil(v / vcpus) if vcpus else 1, item.multiplier)

    common_extra = {
        k: get(item.values, f"compute_resources.{k}")[0] for k in ("min_vcpus", "desired_vcpus", "max_vcpus")
    }
    pool = _pool(
        item,
        r,
        "batch-compute-environment",
        as_str(get(item.values, "compute_environment_name")[0]),
        instance_types=types,
        capacity_types=capacity,
        min_size=instances("min_size", "compute_resources.min_vcpus"),
        desired_size=instances("desired_size", "compute_resources.desired_vcpus"),
        max_size=instances("max_size", "compute_resources.max_vcpus"),
    )
    extra = dict(pool.extra)
    extra["vcpus"] = common_extra
    return [pool.with_changes(extra=extra)]


def _spec(catalog: Any, name: str) -> Any:
    try:
        return catalog.lookup(name)
    except Exception:  # noqa: BLE001 - the catalog API is owned elsewhere; a miss is a miss
        return None


def hyperpod_cluster(item: Item) -> list[ir.Record]:
    groups, line = get(item.values, "instance_groups")
    if isinstance(groups, Unknown) or not isinstance(groups, list):
        return []
    out: list[ir.Record] = []
    for i, group in enumerate(groups):
        if not isinstance(group, dict):
            continue
        r = _Lines(group)
        gname = as_str(r.read("name", "instance_group_name"))
        count = as_int(r.read("desired_size", "instance_count"))
        if "desired_size" in r.lines:
            r.lines["min_size"] = r.lines["desired_size"]
        plan = r.read("capacity_reservation", "training_plan_arn")
        suffix = gname if isinstance(gname, str) else str(i)
        sub = Item(
            item.rtype,
            f'{item.address}.instance_groups["{suffix}"]',
            group,
            ir.Location(
                item.location.file,
                getattr(group, "line", 0) or line or item.location.line,
                getattr(group, "end_line", 0) or item.location.end_line,
            ),
            item.source_format,
            item.multiplier,
            extra=item.extra,
        )
        out.append(
            _pool(
                sub,
                r,
                "hyperpod-instance-group",
                gname,
                instance_types=as_str_tuple(r.read("instance_types", "instance_type")),
                min_size=times(count, item.multiplier),
                desired_size=times(count, item.multiplier),
                max_size=times(count, item.multiplier),
                capacity_reservation=True
                if isinstance(plan, str) and plan
                else (plan if isinstance(plan, Unknown) else None),
            )
        )
    return out


# --- buckets ---------------------------------------------------------------------------------


def _lifecycle_rules(rules: Any) -> Any:
    if isinstance(rules, Unknown):
        return rules
    out = []
    for rule in rules or []:
        if not isinstance(rule, dict):
            return Unknown("lifecycle rule")
        status = rule.get("status", "Enabled")
        enabled = rule.get("enabled", status == "Enabled")
        prefix, _ = get(rule, "filter.prefix")
        if prefix is None:
            prefix = rule.get("prefix")
        transitions = []
        for t in rule.get("transition") or []:
            if (
                isinstance(t, dict)
                and isinstance(t.get("days"), int)
                and isinstance(t.get("storage_class"), str)
            ):
                transitions.append((t["days"], t["storage_class"]))
        days, _ = get(rule, "expiration.days")
        out.append(
            ir.LifecycleRule(
                rule_id=as_str(rule.get("id")),
                enabled=bool(enabled) if isinstance(enabled, bool) else True,
                prefix=as_str(prefix),
                transitions=tuple(transitions),
                expiration_days=as_int(days),
            )
        )
    return tuple(out)


def buckets(items: list[Item]) -> list[ir.Record]:
    configs = [i for i in items if i.rtype == "aws_s3_bucket_lifecycle_configuration"]
    by_bucket: dict[str, Item] = {}
    unresolved = False
    for c in configs:
        ref = c.refs.get("bucket")
        if ref:
            by_bucket[ref] = c
        else:
            name, _ = get(c.values, "bucket")
            if isinstance(name, str):
                by_bucket["name:" + name] = c
            else:
                unresolved = True
    out: list[ir.Record] = []
    for item in items:
        if item.rtype != "aws_s3_bucket":
            continue
        r = _Lines(item.values)
        name = as_str(r.read("bucket_name", "bucket"))
        cfg = by_bucket.get(item.address) or (
            by_bucket.get("name:" + name) if isinstance(name, str) else None
        )
        rules: Any
        if cfg is not None:
            rules = _lifecycle_rules(get(cfg.values, "rule")[0] or [])
            r.lines["lifecycle_rules"] = cfg.location.line
        elif get(item.values, "lifecycle_rule")[0] is not None:
            rules = _lifecycle_rules(get(item.values, "lifecycle_rule")[0])
            r.lines["lifecycle_rules"] = get(item.values, "lifecycle_rule")[1] or item.location.line
        elif unresolved:
            rules = Unknown("a lifecycle configuration's bucket is not known")
        else:
            rules = None
        common = _common(item, r, name)
        if cfg is not None:
            common["extra"]["lifecycle_address"] = cfg.address
        out.append(ir.Bucket(bucket_name=name, lifecycle_rules=rules, **common))
    return out


# --- Kubernetes provider resources -----------------------------------------------------------

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
    return value


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


# --- dispatch --------------------------------------------------------------------------------

SIMPLE = {
    "aws_sagemaker_training_job": training_job,
    "aws_sagemaker_notebook_instance": notebook,
    "aws_efs_file_system": efs,
    "aws_efs_access_point": efs_access_point,
    "aws_efs_mount_target": efs_mount_target,
    "aws_fsx_lustre_file_system": fsx_lustre,
    "aws_launch_template": launch_template,
    "awscc_sagemaker_cluster": hyperpod_cluster,
}
WITH_TEMPLATES = {
    "aws_instance": ec2_instance,
    "aws_autoscaling_group": autoscaling_group,
    "aws_eks_node_group": eks_node_group,
    "aws_batch_compute_environment": batch_compute_environment,
}
MAPPED_TYPES = (
    frozenset(SIMPLE)
    | frozenset(WITH_TEMPLATES)
    | K8S_TYPES
    | {"aws_s3_bucket", "aws_s3_bucket_lifecycle_configuration"}
)


def map_items(items: list[Item]) -> list[ir.Record]:
    """All records of one configuration (or plan): cross-resource joins need the whole list."""
    templates = {
        i.address: i for i in items if i.rtype in ("aws_launch_template", "aws_launch_template_internal")
    }
    out: list[ir.Record] = []
    for item in items:
        if item.rtype in SIMPLE:
            out.extend(SIMPLE[item.rtype](item))
        elif item.rtype in WITH_TEMPLATES:
            out.extend(WITH_TEMPLATES[item.rtype](item, templates))
        elif item.rtype in K8S_TYPES:
            out.extend(kubernetes_resource(item))
    out.extend(buckets(items))
    return out
