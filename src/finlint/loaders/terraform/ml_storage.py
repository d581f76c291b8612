"""Terraform: notebook lifecycle configs, Studio idle shutdown and FSx links to S3.

Cross-resource facts of one configuration (or plan), joined after :func:`mapping.map_items` built
the records: a notebook instance's ``lifecycle_config_name`` is followed to the
``aws_sagemaker_notebook_instance_lifecycle_configuration`` it references (or names) and its
``on_start``/``on_create`` script (base64, as the API takes it) is read for an idle / auto-stop
check; an ``aws_fsx_lustre_file_system`` is linked to S3 by ``import_path``/``export_path``/
``auto_import_policy`` or by an ``aws_fsx_data_repository_association`` whose ``file_system_id``
references it. ``aws_sagemaker_domain`` becomes a Studio :class:`~finlint.ir.Notebook`.
"""

from __future__ import annotations

from typing import Any

from finlint import ir
from finlint.ir import Unknown, plain_unknown
from finlint.loaders.common.lifecycle_scripts import stops_when_idle
from finlint.loaders.terraform.items import Item, Lines, as_str, common_fields, get

LIFECYCLE = "aws_sagemaker_notebook_instance_lifecycle_configuration"
DRA = "aws_fsx_data_repository_association"
DOMAIN = "aws_sagemaker_domain"
TYPES = frozenset({LIFECYCLE, DRA, DOMAIN})


def _idle_check(config: Item) -> Any:
    unknown: Any = None
    for key in ("on_start", "on_create"):
        value, _ = get(config.values, key)
        if isinstance(value, Unknown):
            unknown = Unknown(f"{config.address}.{key}: {value.reason}")
        elif isinstance(value, str) and stops_when_idle(value):
            return True
    return unknown if unknown is not None else False


def _notebook(record: ir.Notebook, item: Item, configs: dict[str, Item]) -> ir.Notebook:
    value, line = get(item.values, "lifecycle_config_name")
    lines = dict(record.attr_lines)
    if line is None or value is None:  # absent (a plan lists it as null)
        lines["idle_shutdown"] = lines.get("instance_type", item.location.line)
        return record.with_changes(idle_shutdown=False, attr_lines=lines)
    lines["idle_shutdown"] = lines["lifecycle_config"] = line
    target = item.refs.get("lifecycle_config_name")
    config = configs.get(target) if target else None
    if config is None and isinstance(value, str):
        config = next((c for c in configs.values() if get(c.values, "name")[0] == value), None)
    if config is None:
        name = value if isinstance(value, str) else target or "the lifecycle configuration"
        missing = Unknown(f"{name} is not in the scanned configuration; its script cannot be read")
        return record.with_changes(lifecycle_config=as_str(value), idle_shutdown=missing, attr_lines=lines)
    idle = _idle_check(config)
    return record.with_changes(lifecycle_config=config.address, idle_shutdown=idle, attr_lines=lines)


def _fsx(record: ir.FileSystem, item: Item, associations: list[Item]) -> ir.FileSystem:
    lines = dict(record.attr_lines)
    linked: Any = False
    for key in ("export_path", "import_path", "auto_import_policy"):
        value, line = get(item.values, key)
        if line is None or value is None or value == "NONE":
            continue
        linked = True if isinstance(value, str) else plain_unknown(value)  # a path is not a bool
        lines["data_repository"] = line
        break
    if linked is False:
        hit = next((a for a in associations if a.refs.get("file_system_id") == item.address), None)
        if hit is not None:
            linked = True
            lines["data_repository"] = item.location.line
    lines.setdefault("data_repository", lines.get("deployment_type", item.location.line))
    return record.with_changes(data_repository=linked, attr_lines=lines)


def studio_domain(item: Item) -> list[ir.Record]:
    lab, lab_line = get(item.values, "default_user_settings.jupyter_lab_app_settings")
    if lab is None:
        return []
    r = Lines(item.values)
    base = "default_user_settings.jupyter_lab_app_settings."
    instance_type = as_str(r.read("instance_type", base + "default_resource_spec.instance_type"))
    state, line = get(item.values, base + "app_lifecycle_management.idle_settings.lifecycle_management")
    idle: Any
    if line is None:
        idle = False
        r.lines["idle_shutdown"] = lab_line or item.location.line
    else:
        idle = (
            plain_unknown(state) if isinstance(state, Unknown) else str(state).upper() == "ENABLED"
        )  # a boolean field: never the setting's text options
        r.lines["idle_shutdown"] = line
    name = as_str(r.read("name", "domain_name"))
    return [
        ir.Notebook(
            notebook_kind="studio-domain",
            instance_type=instance_type,
            idle_shutdown=idle,
            **common_fields(item, r, name),
        )
    ]


def _job_mounts(record: ir.TrainingJob, item: Item) -> ir.TrainingJob:
    """``input_data_config`` channels backed by ``file_system_data_source`` -> file system mounts."""
    channels = item.values.get("input_data_config")
    if record.file_system_mounts or not isinstance(channels, list):
        return record
    mounts: list[ir.Mount] = []
    for index, channel in enumerate(channels):
        if not isinstance(channel, dict):
            continue
        fs_type, line = get(channel, "data_source.file_system_data_source.file_system_type")
        if line is None:
            continue
        fs_id, _ = get(channel, "data_source.file_system_data_source.file_system_id")
        ref = item.refs.get("input_data_config.data_source.file_system_data_source.file_system_id")
        if index > 0 or not ref:
            ref = fs_id if isinstance(fs_id, str) else None
        name, _ = get(channel, "channel_name")
        mounts.append(
            ir.Mount(
                volume=fs_type if isinstance(fs_type, str) else "unknown",
                mount_path=f"/opt/ml/input/data/{name}" if isinstance(name, str) else Unknown("channel name"),
                file_system_ref=ref if ref is not None else as_str(fs_id),
                line=line,
                is_efs=fs_type.upper() == "EFS"
                if isinstance(fs_type, str)
                else (plain_unknown(fs_type) if isinstance(fs_type, Unknown) else None),
            )
        )
    if not mounts:
        return record
    return record.with_changes(file_system_mounts=tuple(mounts))


def link(items: list[Item], records: list[ir.Record]) -> list[ir.Record]:
    """Notebooks get their lifecycle facts, FSx file systems their S3 links; Studio domains added."""
    by_address = {i.address: i for i in items}
    configs = {i.address: i for i in items if i.rtype == LIFECYCLE}
    associations = [i for i in items if i.rtype == DRA]
    out: list[ir.Record] = []
    for record in records:
        item = by_address.get(record.address)
        if (
            isinstance(record, ir.TrainingJob)
            and item is not None
            and item.rtype == "aws_sagemaker_training_job"
        ):
            record = _job_mounts(record, item)
        elif isinstance(record, ir.Notebook) and item is not None:
            record = _notebook(record, item, configs)
        elif isinstance(record, ir.FileSystem) and record.fs_type == "fsx-lustre" and item is not None:
            record = _fsx(record, item, associations)
        out.append(record)
    for item in items:
        if item.rtype == DOMAIN:
            out.extend(studio_domain(item))
    return out
