"""CloudFormation resource handlers: one function per supported ``AWS::...`` type -> IR records.

A handler gets a :class:`Resource` (the template, the logical id, its ``Properties`` as an
:class:`~finlint.loaders.cloudformation.values.Obj`, and the fields every record shares) and
returns records with ``attr_lines``. Launch templates are read here once for every pool that uses
one (EC2 instances, Auto Scaling groups, EKS node groups, Batch). Step Functions state machines
have their own module, :mod:`finlint.loaders.cloudformation.sfn`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from finlint import ir
from finlint.domain import catalog
from finlint.loaders import FieldCollector
from finlint.loaders.cloudformation.values import Obj, Template


@dataclass
class Resource:
    """What every handler gets: the template, the logical id, the body and shared record fields."""

    tpl: Template
    logical_id: str
    resource_type: str
    body: Mapping[str, Any]
    props: Obj
    location: ir.Location
    address: str
    suppressions: tuple[ir.Suppression, ...]
    source_format: str  # the loader's FORMAT, for every record
    extra: dict[str, Any] = field(default_factory=dict)

    def record(self, cls: type[ir.Record], fields: FieldCollector, **kwargs: Any) -> Any:
        extra = dict(self.extra)
        extra.update(kwargs.pop("extra", {}))
        if self.tpl.used_parameters:
            extra["parameter_defaults"] = sorted(set(self.tpl.used_parameters))
        base: dict[str, Any] = {
            "address": self.address,
            "location": self.location,
            "source_format": self.source_format,
            "attr_lines": dict(fields.lines),
            "suppressions": self.suppressions,
            "extra": extra,
        }
        base.update(kwargs)
        base.update(fields.values)
        return cls(**base)


def _tags(obj: Obj, key: str) -> tuple[dict[str, Any], int | None, int | None]:
    """``[{Key, Value}]`` tags -> (dict, line of the tags key, line of the Name tag)."""
    items, line = obj.objs(key)
    tags: dict[str, Any] = {}
    name_line: int | None = None
    if not isinstance(items, list):
        return tags, line, None
    for tag in items:
        tag_key, _ = tag.get("Key")
        if not isinstance(tag_key, str):
            continue
        value, value_line = tag.get("Value")
        tags[tag_key] = value
        if tag_key == "Name":
            name_line = value_line if value_line is not None else tag.line
    return tags, line, name_line


def _name_from_tags(
    fields: FieldCollector, tags: Mapping[str, Any], tags_line: int | None, name_line: int | None
) -> None:
    if tags_line is not None:
        fields.lines["tags"] = tags_line
    if "Name" in tags:
        fields.put("name", tags["Name"], name_line)


# --------------------------------------------------------------------------------------------
# Launch templates (shared by EC2 instances, Auto Scaling groups, EKS and Batch)
# --------------------------------------------------------------------------------------------


@dataclass
class _LaunchInfo:
    """What a launch template says about instances, each value with its line."""

    instance_type: tuple[Any, int | None] = (None, None)
    capacity_types: tuple[Any, int | None] = (None, None)
    capacity_reservation: tuple[Any, int | None] = (None, None)


def _capacity_reservation(spec: Obj | None) -> tuple[Any, int | None]:
    """CapacityReservationSpecification -> True (targeted / reservations only), False, Unknown."""
    if spec is None:
        return None, None
    if isinstance(spec.node, ir.Unknown):
        return ir.plain_unknown(spec.node), spec.line
    target, target_line = spec.raw("CapacityReservationTarget")
    if target_line is not None:
        # a boolean field: never a target's (or a preference's) options
        return (ir.plain_unknown(target) if isinstance(target, ir.Unknown) else True), target_line
    preference, pref_line = spec.get("CapacityReservationPreference")
    if isinstance(preference, str):
        return preference == "capacity-reservations-only", pref_line
    if isinstance(preference, ir.Unknown):
        return ir.plain_unknown(preference), pref_line
    return False, spec.line


def _market_type(value: Any) -> Any:
    if isinstance(value, ir.Unknown) or value is None:
        return ir.plain_unknown(value)  # a tuple field: never one option's string
    if value == "spot":
        return ("spot",)
    if value == "capacity-block":
        return ("capacity-block",)
    return ir.Unknown(f"unrecognised MarketType {value!r:.40}")


def _launch_template_info(tpl: Template, logical_id: str) -> _LaunchInfo:
    body = tpl.resources.get(logical_id)
    info = _LaunchInfo()
    if not isinstance(body, dict) or not isinstance(body.get("Properties"), dict):
        return info
    props = Obj(tpl, body["Properties"], tpl.line(getattr(body["Properties"], "line", 1) or 1), logical_id)
    data = props.obj("LaunchTemplateData")
    if data is None:
        return info
    itype, itype_line = data.get("InstanceType")
    if itype_line is not None:
        info.instance_type = (ir.plain_unknown(itype), itype_line)  # goes into tuple fields
    else:
        _req, req_line = data.raw("InstanceRequirements")
        if req_line is not None:
            info.instance_type = (
                ir.Unknown("attribute-based instance selection (InstanceRequirements)"),
                req_line,
            )
    market = data.obj("InstanceMarketOptions")
    if market is not None:
        mtype, mline = market.get("MarketType")
        if mline is not None:
            info.capacity_types = (_market_type(mtype), mline)
            if mtype == "capacity-block":
                info.capacity_reservation = (True, mline)
    reservation = _capacity_reservation(data.obj("CapacityReservationSpecification"))
    if reservation[1] is not None and info.capacity_reservation[1] is None:
        info.capacity_reservation = reservation
    return info


def _launch_template_ref(tpl: Template, spec: Obj | None) -> tuple[str | None, Any, int | None]:
    """A LaunchTemplateSpecification -> (logical id in this template, Unknown if external, line)."""
    if spec is None:
        return None, None, None
    if isinstance(spec.node, ir.Unknown):
        return None, ir.plain_unknown(spec.node), spec.line
    node = spec.node if isinstance(spec.node, dict) else {}
    # EC2, Auto Scaling and Batch say LaunchTemplateId/LaunchTemplateName; EKS says Id/Name.
    for key in ("LaunchTemplateId", "Id", "LaunchTemplateName", "Name"):
        raw = node.get(key)
        if raw is None:
            continue
        target = _referenced_resource(tpl, raw, "AWS::EC2::LaunchTemplate")
        if target:
            return target, None, spec.key_line(key)
        value = tpl.resolve(raw)
        if key in ("LaunchTemplateName", "Name") and isinstance(value, str):
            for lid, body in tpl.resources.items():
                if (
                    isinstance(body, dict)
                    and body.get("Type") == "AWS::EC2::LaunchTemplate"
                    and isinstance(body.get("Properties"), dict)
                    and tpl.resolve(body["Properties"].get("LaunchTemplateName")) == value
                ):
                    return str(lid), None, spec.key_line(key)
        return (
            None,
            ir.Unknown(
                f"launch template {value if isinstance(value, str) else '(unresolved)'} "
                "is defined outside this template"
            ),
            spec.key_line(key),
        )
    return None, None, None


def _referenced_resource(tpl: Template, raw: Any, rtype: str | None = None) -> str | None:
    """The logical id behind ``!Ref X`` / ``!GetAtt X.Attr`` when X is a resource (of ``rtype``)."""
    target: Any = None
    if isinstance(raw, dict) and len(raw) == 1:
        if "Ref" in raw:
            target = raw["Ref"]
        elif "Fn::GetAtt" in raw:
            arg = raw["Fn::GetAtt"]
            target = (
                arg[0]
                if isinstance(arg, list) and arg
                else (arg.split(".", 1)[0] if isinstance(arg, str) else None)
            )
    if not isinstance(target, str) or target not in tpl.resources:
        return None
    body = tpl.resources[target]
    if rtype is not None and not (isinstance(body, dict) and body.get("Type") == rtype):
        return None
    return target


# --------------------------------------------------------------------------------------------
# Resource handlers
# --------------------------------------------------------------------------------------------


def hyperpod(res: Resource) -> list[ir.Record]:
    cluster_name, _ = res.props.get("ClusterName")
    extra = {"cluster_name": cluster_name if isinstance(cluster_name, str) else None}
    groups, groups_line = res.props.objs("InstanceGroups")
    if groups_line is None:
        return []
    if isinstance(groups, ir.Unknown):
        fields = FieldCollector()
        for name in ("instance_types", "min_size", "desired_size", "max_size"):
            fields.put(name, groups, groups_line)
        return [res.record(ir.ComputePool, fields, pool_kind="hyperpod-instance-group", extra=extra)]
    out: list[ir.Record] = []
    for index, group in enumerate(groups):
        fields = FieldCollector()
        gname, gname_line = group.get("InstanceGroupName")
        fields.put("name", gname, gname_line)
        itype, itype_line = group.get("InstanceType")
        types = (ir.plain_unknown(itype),) if itype_line is not None else None  # a tuple field
        fields.put("instance_types", types, itype_line)
        count, count_line = group.get("InstanceCount", int)
        for name in ("min_size", "desired_size", "max_size"):
            fields.put(name, count, count_line)
        plan, plan_line = group.raw("TrainingPlanArn")
        if plan_line is not None:
            # a boolean field: never a plan's options
            reserved = ir.plain_unknown(plan) if isinstance(plan, ir.Unknown) else True
            fields.put("capacity_reservation", reserved, plan_line)
            extra_group = {**extra, "training_plan": plan if isinstance(plan, str) else None}
        else:
            extra_group = dict(extra)
        suffix = gname if isinstance(gname, str) else f"InstanceGroups[{index}]"
        location = ir.Location(res.location.file, group.line, group.end_line())
        out.append(
            res.record(
                ir.ComputePool,
                fields,
                pool_kind="hyperpod-instance-group",
                address=f"{res.address}/{suffix}",
                location=location,
                extra=extra_group,
            )
        )
    return out


def efs_file_system(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    tags, tags_line, name_line = _tags(res.props, "FileSystemTags")
    _name_from_tags(fields, tags, tags_line, name_line)
    fields.put("throughput_mode", *res.props.get("ThroughputMode"))
    fields.put("provisioned_throughput_mibps", *res.props.get("ProvisionedThroughputInMibps", float))
    performance, _ = res.props.get("PerformanceMode")
    return [
        res.record(
            ir.FileSystem,
            fields,
            fs_type="efs",
            tags=tags,
            ref_ids=(res.logical_id,),
            extra={"performance_mode": performance} if isinstance(performance, str) else {},
        )
    ]


def _file_system_ref(res: Resource) -> tuple[Any, int | None]:
    raw_node = res.props.node.get("FileSystemId") if isinstance(res.props.node, dict) else None
    line = res.props.key_line("FileSystemId") if raw_node is not None else None
    target = _referenced_resource(res.tpl, raw_node, "AWS::EFS::FileSystem")
    if target is not None:
        return target, line
    return res.props.get("FileSystemId")


def efs_access_point(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("file_system_ref", *_file_system_ref(res))
    root = res.props.obj("RootDirectory")
    if root is not None:
        fields.put("root_path", *root.get("Path"))
    tags, tags_line, name_line = _tags(res.props, "AccessPointTags")
    if "Name" in tags:
        fields.put("name", tags["Name"], name_line)
    return [res.record(ir.Volume, fields, volume_kind="efs-access-point", is_efs=True, extra={"tags": tags})]


def efs_mount_target(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("file_system_ref", *_file_system_ref(res))
    return [res.record(ir.Volume, fields, volume_kind="efs-mount-target", is_efs=True)]


def fsx(res: Resource) -> list[ir.Record]:
    fs_type, _ = res.props.get("FileSystemType")
    if not isinstance(fs_type, str) or fs_type.upper() != "LUSTRE":
        return []
    fields = FieldCollector()
    tags, tags_line, name_line = _tags(res.props, "Tags")
    _name_from_tags(fields, tags, tags_line, name_line)
    fields.put("size_gb", *res.props.get("StorageCapacity", float))
    lustre = res.props.obj("LustreConfiguration")
    if lustre is not None:
        fields.put("deployment_type", *lustre.get("DeploymentType"))
        fields.put("per_unit_storage_throughput", *lustre.get("PerUnitStorageThroughput", int))
    return [res.record(ir.FileSystem, fields, fs_type="fsx-lustre", tags=tags, ref_ids=(res.logical_id,))]


def _apply_launch_template(
    res: Resource, fields: FieldCollector, spec: Obj | None, types_from_lt: bool
) -> dict[str, Any]:
    """Fill instance types / capacity from the launch template a pool uses, when it is in this
    template; returns ``extra`` naming it."""
    lid, unknown, line = _launch_template_ref(res.tpl, spec)
    if lid is None:
        if unknown is not None and types_from_lt and "instance_types" not in fields.values:
            fields.put("instance_types", unknown, line)
        return {}
    info = _launch_template_info(res.tpl, lid)
    itype, itype_line = info.instance_type
    if types_from_lt and "instance_types" not in fields.values and itype_line is not None:
        fields.put("instance_types", itype if isinstance(itype, ir.Unknown) else (itype,), itype_line)
    if "capacity_types" not in fields.values and info.capacity_types[1] is not None:
        fields.put("capacity_types", *info.capacity_types)
    if "capacity_reservation" not in fields.values and info.capacity_reservation[1] is not None:
        fields.put("capacity_reservation", *info.capacity_reservation)
    return {"launch_template": lid}


def ec2_instance(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    itype, itype_line = res.props.get("InstanceType")
    if itype_line is not None:
        fields.put("instance_types", (ir.plain_unknown(itype),), itype_line)
    fields.put(
        "capacity_reservation", *_capacity_reservation(res.props.obj("CapacityReservationSpecification"))
    )
    extra = _apply_launch_template(res, fields, res.props.obj("LaunchTemplate"), types_from_lt=True)
    return [
        res.record(
            ir.ComputePool,
            fields,
            pool_kind="ec2-instance",
            min_size=1,
            desired_size=1,
            max_size=1,
            extra=extra,
        )
    ]


def launch_template(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    info = _launch_template_info(res.tpl, res.logical_id)
    itype, itype_line = info.instance_type
    fields.put("instance_types", itype if isinstance(itype, ir.Unknown) else (itype,), itype_line)
    fields.put("capacity_types", *info.capacity_types)
    fields.put("capacity_reservation", *info.capacity_reservation)
    fields.put("name", *res.props.get("LaunchTemplateName"))
    return [res.record(ir.ComputePool, fields, pool_kind="launch-template")]


def _distribution_capacity(dist: Obj) -> tuple[Any, int | None]:
    base, base_line = dist.get("OnDemandBaseCapacity", int)
    pct, pct_line = dist.get("OnDemandPercentageAboveBaseCapacity", int)
    line = pct_line or base_line or dist.line
    if isinstance(base, ir.Unknown) or isinstance(pct, ir.Unknown):
        return ir.Unknown("InstancesDistribution is not known"), line
    base = 0 if base is None else base
    pct = 100 if pct is None else pct
    types: list[str] = []
    if base > 0 or pct > 0:
        types.append("on-demand")
    if pct < 100:
        types.append("spot")
    return tuple(types), line


def autoscaling_group(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    extra: dict[str, Any] = {}
    fields.put("min_size", *res.props.get("MinSize", int))
    fields.put("desired_size", *res.props.get("DesiredCapacity", int))
    fields.put("max_size", *res.props.get("MaxSize", int))
    mixed = res.props.obj("MixedInstancesPolicy")
    if mixed is not None:
        lt = mixed.obj("LaunchTemplate")
        if lt is not None:
            overrides, overrides_line = lt.objs("Overrides")
            if isinstance(overrides, ir.Unknown):
                fields.put("instance_types", overrides, overrides_line)
            elif isinstance(overrides, list) and overrides:
                fields.put("instance_types", tuple(_override_type(res, o) for o in overrides), overrides_line)
            extra = _apply_launch_template(
                res, fields, lt.obj("LaunchTemplateSpecification"), types_from_lt=True
            )
        dist = mixed.obj("InstancesDistribution")
        if dist is not None:
            fields.put("capacity_types", *_distribution_capacity(dist))
    else:
        extra = _apply_launch_template(res, fields, res.props.obj("LaunchTemplate"), types_from_lt=True)
        config_raw = (
            res.props.node.get("LaunchConfigurationName") if isinstance(res.props.node, dict) else None
        )
        if config_raw is not None and "instance_types" not in fields.values:
            fields.put("instance_types", *_launch_configuration_type(res, config_raw))
    return [res.record(ir.ComputePool, fields, pool_kind="autoscaling-group", extra=extra)]


def _override_type(res: Resource, override: Obj) -> Any:
    itype, itype_line = override.get("InstanceType")
    if itype_line is not None:
        return ir.plain_unknown(itype)  # an element of a tuple field
    if override.raw("InstanceRequirements")[1] is not None:
        return ir.Unknown("attribute-based instance selection (InstanceRequirements)")
    lid, unknown, _ = _launch_template_ref(res.tpl, override.obj("LaunchTemplateSpecification"))
    if lid is not None:
        lt_type, lt_line = _launch_template_info(res.tpl, lid).instance_type
        if lt_line is not None:
            return lt_type
    return unknown if unknown is not None else ir.Unknown("override without an instance type")


def _launch_configuration_type(res: Resource, raw: Any) -> tuple[Any, int | None]:
    line = res.props.key_line("LaunchConfigurationName")
    lid = _referenced_resource(res.tpl, raw, "AWS::AutoScaling::LaunchConfiguration")
    if lid is None:
        return ir.Unknown("launch configuration is defined outside this template"), line
    body = res.tpl.resources[lid]
    props = body.get("Properties") if isinstance(body, dict) else None
    if not isinstance(props, dict):
        return None, None
    obj = Obj(res.tpl, props, line, lid)
    itype, itype_line = obj.get("InstanceType")
    if itype_line is None:
        return None, None
    return (ir.plain_unknown(itype) if isinstance(itype, ir.Unknown) else (itype,)), itype_line


_EKS_CAPACITY = {"ON_DEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}


def eks_nodegroup(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("name", *res.props.get("NodegroupName"))
    fields.put("instance_types", *res.props.str_list("InstanceTypes"))
    scaling = res.props.obj("ScalingConfig")
    if scaling is not None:
        fields.put("min_size", *scaling.get("MinSize", int))
        fields.put("desired_size", *scaling.get("DesiredSize", int))
        fields.put("max_size", *scaling.get("MaxSize", int))
    ctype, ctype_line = res.props.get("CapacityType")
    if ctype_line is not None:
        if isinstance(ctype, str):
            mapped = _EKS_CAPACITY.get(ctype.upper())
            fields.put(
                "capacity_types", (mapped,) if mapped else ir.Unknown(f"CapacityType {ctype}"), ctype_line
            )
            if mapped == "capacity-block":
                fields.put("capacity_reservation", True, ctype_line)
        else:
            fields.put("capacity_types", ir.plain_unknown(ctype), ctype_line)  # a tuple field
    extra = _apply_launch_template(res, fields, res.props.obj("LaunchTemplate"), types_from_lt=True)
    labels, labels_line = res.props.raw("Labels")
    labels_map = dict(labels) if isinstance(labels, dict) else {}
    if labels_line is not None:
        fields.lines["labels"] = labels_line
    taints = _taints(res.props)
    return [
        res.record(
            ir.ComputePool, fields, pool_kind="eks-nodegroup", labels=labels_map, taints=taints, extra=extra
        )
    ]


def _taints(props: Obj) -> tuple[str, ...]:
    items, _ = props.objs("Taints")
    if not isinstance(items, list):
        return ()
    out: list[str] = []
    for taint in items:
        key, _ = taint.get("Key")
        value, _ = taint.get("Value")
        effect, _ = taint.get("Effect")
        if isinstance(key, str):
            text = key + (f"={value}" if isinstance(value, str) else "")
            out.append(text + (f":{effect}" if isinstance(effect, str) else ""))
    return tuple(out)


_BATCH_CAPACITY = {"EC2": "on-demand", "SPOT": "spot"}


def _vcpus_to_instances(vcpus: Any, types: Any, key: str) -> Any:
    if vcpus is None or isinstance(vcpus, ir.Unknown):
        return ir.plain_unknown(vcpus)  # vCPUs are not instances: never the vCPU options
    if vcpus == 0:
        return 0
    if isinstance(types, ir.Unknown):
        return ir.Unknown(f"{key}: instance types are not known")
    if not isinstance(types, tuple) or len(types) != 1 or not isinstance(types[0], str):
        return ir.Unknown(f"{key} {vcpus} is spread over several (or unknown) instance types")
    spec = catalog.lookup(types[0])
    if spec is None or spec.vcpu <= 0:
        return ir.Unknown(f"{key}: vCPUs of {types[0]} are not in the catalog")
    return math.ceil(vcpus / spec.vcpu)


def batch_compute_environment(res: Resource) -> list[ir.Record]:
    env_type, _ = res.props.get("Type")
    compute = res.props.obj("ComputeResources")
    if compute is None or (isinstance(env_type, str) and env_type.upper() == "UNMANAGED"):
        return []
    ctype, ctype_line = compute.get("Type")
    if isinstance(ctype, str) and ctype.upper().startswith("FARGATE"):
        return []  # Fargate launches no EC2 instances
    fields = FieldCollector()
    fields.put("name", *res.props.get("ComputeEnvironmentName"))
    types, types_line = compute.str_list("InstanceTypes")
    fields.put("instance_types", types, types_line)
    if ctype_line is not None:
        mapped = _BATCH_CAPACITY.get(ctype.upper()) if isinstance(ctype, str) else None
        fields.put(
            "capacity_types",
            (mapped,) if mapped else ir.Unknown(f"ComputeResources.Type {ctype}"),
            ctype_line,
        )
    for name, key in (("min_size", "MinvCpus"), ("desired_size", "DesiredvCpus"), ("max_size", "MaxvCpus")):
        vcpus, line = compute.get(key, int)
        fields.put(name, _vcpus_to_instances(vcpus, types, key), line)
    extra = _apply_launch_template(res, fields, compute.obj("LaunchTemplate"), types_from_lt=False)
    return [res.record(ir.ComputePool, fields, pool_kind="batch-compute-environment", extra=extra)]


def _lifecycle_rule(rule: Obj) -> ir.LifecycleRule:
    rule_id, _ = rule.get("Id")
    status, _ = rule.get("Status")
    prefix, _ = rule.get("Prefix")
    expiration, _ = rule.get("ExpirationInDays", int)
    transitions: list[tuple[int, str]] = []
    listed, _ = rule.objs("Transitions")
    single = rule.obj("Transition")  # the legacy single-transition property
    for transition in (listed if isinstance(listed, list) else []) + ([single] if single else []):
        days, _ = transition.get("TransitionInDays", int)
        storage, _ = transition.get("StorageClass")
        if isinstance(days, int) and isinstance(storage, str):
            transitions.append((days, storage))
    return ir.LifecycleRule(
        rule_id=rule_id,
        # An unresolvable Status counts as enabled: a rule that looks for missing lifecycle must not fire.
        enabled=status != "Disabled",
        prefix=prefix,
        transitions=tuple(transitions),
        expiration_days=expiration,
    )


def bucket(res: Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("bucket_name", *res.props.get("BucketName"))
    lifecycle = res.props.obj("LifecycleConfiguration")
    if lifecycle is not None:
        rules, rules_line = lifecycle.objs("Rules")
        if isinstance(rules, ir.Unknown):
            fields.put("lifecycle_rules", rules, rules_line)
        elif isinstance(rules, list):
            fields.put("lifecycle_rules", tuple(_lifecycle_rule(rule) for rule in rules), rules_line)
    return [res.record(ir.Bucket, fields)]
