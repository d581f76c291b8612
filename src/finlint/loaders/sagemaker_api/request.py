"""A CreateTrainingJob request (or the Parameters of a task or pipeline step) -> a TrainingJob record."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint import ir
from finlint.domain import catalog
from finlint.loaders.base import DocContext, FieldCollector
from finlint.loaders.sagemaker_api.reader import DEFAULT_MAX_RUNTIME_S, DEFAULT_NOTE, Reader


def _dominant_group(groups: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The instance group with the most accelerators per instance (first one on ties)."""
    best: dict[str, Any] | None = None
    best_acc = -1
    for group in groups:
        itype = group["instance_type"]
        if not isinstance(itype, str):
            return None  # an unknown type might be the biggest: do not pick
        spec = catalog.lookup(itype)
        acc = spec.accelerators if spec else 0
        if acc > best_acc:
            best, best_acc = group, acc
    return best


def _read_resources(
    reader: Reader, request: Any, line: int, out: FieldCollector, extra: dict[str, Any]
) -> None:
    rc, rc_line = reader.block(request, "ResourceConfig", line)
    for field_name, key, kind in (
        ("instance_type", "InstanceType", str),
        ("instance_count", "InstanceCount", int),
        ("volume_size_gb", "VolumeSizeInGB", int),
        ("keep_alive_s", "KeepAlivePeriodInSeconds", int),
        ("training_plan", "TrainingPlanArn", str),
    ):
        value, vline = reader.scalar(rc, key, rc_line, kind, field_name)
        out.put(field_name, value, vline)
    groups, groups_line = reader.items(rc, "InstanceGroups", rc_line)
    if groups is None or "instance_type" in out.values:
        return
    if isinstance(groups, ir.Unknown):
        out.put("instance_type", groups, groups_line)
        out.put("instance_count", groups, groups_line)
        return
    parsed: list[dict[str, Any]] = []
    for index, group in enumerate(groups):
        gline = reader.key_line(groups, index, groups_line)
        itype, tline = reader.scalar(group, "InstanceType", gline, str)
        count, cline = reader.scalar(group, "InstanceCount", gline, int)
        gname, _ = reader.scalar(group, "InstanceGroupName", gline, str)
        parsed.append(
            {
                "name": gname if isinstance(gname, str) else None,
                "instance_type": itype if itype is not None else ir.Unknown("group without InstanceType"),
                "instance_count": count,
                "type_line": tline or gline,
                "count_line": cline or gline,
            }
        )
    extra["instance_groups"] = [
        {
            "name": g["name"],
            "instance_type": g["instance_type"] if isinstance(g["instance_type"], str) else None,
            "instance_count": g["instance_count"] if isinstance(g["instance_count"], int) else None,
        }
        for g in parsed
    ]
    if not parsed:
        return
    chosen = _dominant_group(parsed)
    if chosen is None:
        out.put("instance_type", ir.Unknown("an instance group's type is not known"), groups_line)
        out.put("instance_count", ir.Unknown("an instance group's type is not known"), groups_line)
        return
    out.put("instance_type", chosen["instance_type"], chosen["type_line"])
    out.put("instance_count", chosen["instance_count"], chosen["count_line"])


def _read_mounts(reader: Reader, request: Any, line: int, out: FieldCollector) -> None:
    channels, ch_line = reader.items(request, "InputDataConfig", line)
    if not isinstance(channels, list):
        return
    mounts: list[ir.Mount] = []
    for index, channel in enumerate(channels):
        cline = reader.key_line(channels, index, ch_line)
        source, sline = reader.block(channel, "DataSource", cline)
        fsds, fline = reader.block(source, "FileSystemDataSource", sline)
        if fsds is None or fline is None:
            continue
        fs_type, _ = reader.scalar(fsds, "FileSystemType", fline, str)
        fs_id, _ = reader.scalar(fsds, "FileSystemId", fline, str)
        channel_name, _ = reader.scalar(channel, "ChannelName", cline, str)
        mount_path: ir.Maybe[str] = (
            f"/opt/ml/input/data/{channel_name}"
            if isinstance(channel_name, str)
            else ir.Unknown("channel name is not known")
        )
        is_efs: ir.Maybe[bool] = (
            fs_type.upper() == "EFS" if isinstance(fs_type, str) else ir.plain_unknown(fs_type)
        )
        mounts.append(
            ir.Mount(
                volume=fs_type if isinstance(fs_type, str) else "unknown",
                mount_path=mount_path,
                file_system_ref=fs_id,
                line=fline,
                is_efs=is_efs,
            )
        )
    if mounts:
        out.put("file_system_mounts", tuple(mounts), mounts[0].line)


def build_job(
    reader: Reader,
    request: Any,
    *,
    launcher: str,
    address: str,
    source_format: str,
    location: ir.Location,
    runs_multiplier: tuple[Any, int | None] = (1, None),
    extra: dict[str, Any] | None = None,
) -> ir.TrainingJob:
    line = reader.node_line(request, location.line)
    out = FieldCollector()
    extra = dict(extra or {})
    name, name_line = reader.scalar(request, "TrainingJobName", line, str)
    out.put("name", name, name_line)
    _read_resources(reader, request, line, out, extra)
    spot, spot_line = reader.scalar(request, "EnableManagedSpotTraining", line, bool, "spot")
    out.put("spot", spot, spot_line)
    stop, stop_line = reader.block(request, "StoppingCondition", line)
    for field_name, key in (("max_runtime_s", "MaxRuntimeInSeconds"), ("max_wait_s", "MaxWaitTimeInSeconds")):
        value, vline = reader.scalar(stop, key, stop_line, int, field_name)
        out.put(field_name, value, vline)
    ckpt, ckpt_line = reader.block(request, "CheckpointConfig", line)
    for field_name, key in (("checkpoint_s3_uri", "S3Uri"), ("checkpoint_local_path", "LocalPath")):
        value, vline = reader.scalar(ckpt, key, ckpt_line, str, field_name)
        out.put(field_name, value, vline)
    algo, algo_line = reader.block(request, "AlgorithmSpecification", line)
    image, image_line = reader.scalar(algo, "TrainingImage", algo_line, str, "training_image")
    out.put("training_image", image, image_line)
    _read_mounts(reader, request, line, out)
    multiplier, multiplier_line = runs_multiplier
    out.values["runs_multiplier"] = multiplier
    if multiplier_line is not None:
        out.lines["runs_multiplier"] = multiplier_line
    if reader.resolved:
        extra["resolved_from"] = dict(reader.resolved)
    return ir.TrainingJob(
        address=address,
        location=location,
        source_format=source_format,
        attr_lines=dict(out.lines),
        launcher=launcher,
        max_runtime_default_s=DEFAULT_MAX_RUNTIME_S,
        default_note=DEFAULT_NOTE,
        extra=extra,
        **out.values,
    )


def training_job_from_request(
    request: Mapping[str, Any],
    ctx: DocContext,
    *,
    launcher: str,
    address: str,
    source_format: str,
    fallback_line: int | None = None,
) -> ir.TrainingJob:
    """A TrainingJob from a CreateTrainingJob-shaped mapping (API request, boto3 kwargs).

    ``request`` may be a LineDict (lines are taken from it, shifted by ``ctx.line``) or a
    plain dict, whose fields all get ``fallback_line`` (a line in file coordinates; 1 when
    None). ``ir.Unknown`` values already in the mapping stay Unknown; templated strings
    (``{{ }}``, ``${...}``) and intrinsic-like objects become Unknown.
    """
    reader = Reader(ctx, fallback_line)
    start = reader.root_line(request)
    location = ir.Location(ctx.file, start, reader.end_line(request, start))
    return build_job(
        reader, request, launcher=launcher, address=address, source_format=source_format, location=location
    )


def tuning_multiplier(reader: Reader, request: Any, line: int) -> tuple[Any, int | None]:
    config, config_line = reader.block(request, "HyperParameterTuningJobConfig", line)
    limits, limits_line = reader.block(config, "ResourceLimits", config_line)
    value, vline = reader.scalar(limits, "MaxNumberOfTrainingJobs", limits_line, int, "runs_multiplier")
    if vline is None:
        return 1, None
    return value, vline
