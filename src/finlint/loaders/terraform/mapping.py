"""Terraform resource values -> IR records, shared by the HCL loader and the plan loader.

Both loaders hand over the same shape: a resource's arguments as a ``LineDict`` (nested blocks
as lists of dicts, exactly as ``terraform show -json`` writes them), with the line of every
key, plus ``refs``: which other resource an argument points at (``launch_template.id`` ->
``aws_launch_template.gpu``). Values may be :class:`~finlint.ir.Unknown` anywhere.
"""

from __future__ import annotations

from typing import Any

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders.terraform.items import (
    Item,
    Lines,
    as_float,
    as_int,
    as_str,
    common_fields,
    get,
    tags_of,
)

__all__ = ["DEFAULT_NOTE", "MAPPED_TYPES", "Item", "get", "map_items"]
from finlint.loaders.terraform import ml_storage
from finlint.loaders.terraform.batch import batch_job_definition, batch_job_queue
from finlint.loaders.terraform.kubernetes_provider import K8S_TYPES, kubernetes_resource
from finlint.loaders.terraform.pools import (
    autoscaling_group,
    batch_compute_environment,
    ec2_instance,
    eks_node_group,
    hyperpod_cluster,
    launch_template,
)
from finlint.loaders.terraform.sagemaker_jobs import DEFAULT_NOTE, training_job, tuning_job


def notebook(item: Item) -> list[ir.Record]:
    r = Lines(item.values)
    instance_type = as_str(r.read("instance_type", "instance_type"))
    volume = as_int(r.read("volume_size_gb", "volume_size"))
    name = as_str(r.read("name", "name"))
    return [ir.Notebook(instance_type=instance_type, volume_size_gb=volume, **common_fields(item, r, name))]


def _tagged(item: Item) -> tuple[Lines, dict[str, Any], Any]:
    """Lines collector, tags and Name tag of a file system: the name's line is the tags' line."""
    r = Lines(item.values)
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
            **common_fields(item, r, name),
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
            **common_fields(item, r, name),
        )
    ]


def _fs_ref(item: Item, r: Lines) -> Any:
    value = r.read("file_system_ref", "file_system_id")
    ref = item.refs.get("file_system_id")
    if ref:
        return ref
    return as_str(value)


def efs_access_point(item: Item) -> list[ir.Record]:
    r = Lines(item.values)
    tags, name = tags_of(item.values)
    _, tag_line = get(item.values, "tags")
    if tag_line:
        r.lines["name"] = tag_line
    common = common_fields(item, r, name)
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
    r = Lines(item.values)
    return [
        ir.Volume(
            volume_kind="efs-mount-target",
            is_efs=True,
            file_system_ref=_fs_ref(item, r),
            efs_target=item.refs.get("file_system_id"),
            **common_fields(item, r),
        )
    ]


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
        r = Lines(item.values)
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
        common = common_fields(item, r, name)
        if cfg is not None:
            common["extra"]["lifecycle_address"] = cfg.address
        out.append(ir.Bucket(bucket_name=name, lifecycle_rules=rules, **common))
    return out


SIMPLE = {
    "aws_sagemaker_training_job": training_job,
    "aws_sagemaker_notebook_instance": notebook,
    "aws_efs_file_system": efs,
    "aws_efs_access_point": efs_access_point,
    "aws_efs_mount_target": efs_mount_target,
    "aws_fsx_lustre_file_system": fsx_lustre,
    "aws_launch_template": launch_template,
    "awscc_sagemaker_cluster": hyperpod_cluster,
    "aws_batch_job_definition": batch_job_definition,
    "aws_batch_job_queue": batch_job_queue,
    "aws_sagemaker_hyper_parameter_tuning_job": tuning_job,
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
    | ml_storage.TYPES
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
    return ml_storage.link(items, out)
