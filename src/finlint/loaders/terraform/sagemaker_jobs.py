"""SageMaker jobs in Terraform: ``aws_sagemaker_training_job`` and
``aws_sagemaker_hyper_parameter_tuning_job`` (AWS provider, hashicorp/terraform-provider-aws
#47138) -> :class:`~finlint.ir.TrainingJob`.

A tuning job runs up to ``config.resource_limits.max_number_of_training_jobs`` training jobs of
each definition (``training_job_definition``, or each of ``training_job_definitions``); that is
the record's ``runs_multiplier`` (x ``count``), so job-counting figures are per tuning run.
"""

from __future__ import annotations

from typing import Any

from finlint import ir
from finlint.ir import Unknown, plain_unknown
from finlint.loaders.terraform.items import Item, Lines, as_bool, as_int, as_str, common_fields, get

DEFAULT_NOTE = "SageMaker's default of 1 day when stopping_condition is absent"


def job_fields(values: dict[str, Any]) -> tuple[dict[str, Any], Lines]:
    """The training-job fields of a ``aws_sagemaker_training_job`` or of one training job
    definition of a tuning job (the same blocks), with their lines."""
    r = Lines(values)
    itype = r.read("instance_type", "resource_config.instance_type")
    if itype is None:  # a tuning job definition sizes its jobs here instead
        itype = r.read("instance_type", "hyper_parameter_tuning_resource_config.instance_type")
    count = r.read("instance_count", "resource_config.instance_count")
    if count is None:
        count = r.read("instance_count", "hyper_parameter_tuning_resource_config.instance_count")
    volume = r.read("volume_size_gb", "resource_config.volume_size_in_gb")
    if volume is None:
        volume = r.read("volume_size_gb", "hyper_parameter_tuning_resource_config.volume_size_in_gb")
    fields = {
        "instance_type": as_str(itype),
        "instance_count": as_int(count),
        "volume_size_gb": as_int(volume),
        "keep_alive_s": as_int(r.read("keep_alive_s", "resource_config.keep_alive_period_in_seconds")),
        "spot": as_bool(r.read("spot", "enable_managed_spot_training")),
        "max_runtime_s": as_int(r.read("max_runtime_s", "stopping_condition.max_runtime_in_seconds")),
        "max_wait_s": as_int(r.read("max_wait_s", "stopping_condition.max_wait_time_in_seconds")),
        "checkpoint_s3_uri": as_str(r.read("checkpoint_s3_uri", "checkpoint_config.s3_uri")),
        "checkpoint_local_path": as_str(r.read("checkpoint_local_path", "checkpoint_config.local_path")),
        "training_image": as_str(r.read("training_image", "algorithm_specification.training_image")),
    }
    # a whole block that is unknown (dynamic with unknown for_each) makes its fields unknown
    for block, names in (
        ("stopping_condition", ("max_runtime_s", "max_wait_s")),
        ("checkpoint_config", ("checkpoint_s3_uri", "checkpoint_local_path")),
    ):
        value, line = get(values, block)
        if isinstance(value, Unknown):
            for n in names:
                fields[n] = plain_unknown(value)
                if line:
                    r.lines.setdefault(n, line)
    for block, attr in (
        ("stopping_condition", "stopping_condition"),
        ("checkpoint_config", "checkpoint_config"),
    ):
        _, line = get(values, block)
        if line:
            r.lines.setdefault(attr, line)
    return fields, r


def training_job(item: Item) -> list[ir.Record]:
    fields, r = job_fields(item.values)
    name = as_str(r.read("name", "training_job_name"))
    common = common_fields(item, r, name)
    return [
        ir.TrainingJob(
            launcher="terraform",
            max_runtime_default_s=86400,
            default_note=DEFAULT_NOTE,
            runs_multiplier=item.multiplier if not isinstance(item.multiplier, Unknown) else item.multiplier,
            **fields,
            **common,
        )
    ]


def tuning_job(item: Item) -> list[ir.Record]:
    """One record per training job definition, each run up to the tuning job's max jobs."""
    limits = Lines(item.values)
    max_jobs = as_int(limits.read("runs_multiplier", "config.resource_limits.max_number_of_training_jobs"))
    if max_jobs is None:
        max_jobs = Unknown("max_number_of_training_jobs is not set: the tuning strategy decides")
        _, line = get(item.values, "config.resource_limits")
        limits.lines["runs_multiplier"] = line or item.location.line
    runs = _times(plain_unknown(max_jobs), item.multiplier)
    name = as_str(limits.read("name", "name"))
    blocks: list[tuple[str | None, Any]] = []
    single, _ = get(item.values, "training_job_definition")
    if isinstance(single, list) and single:
        blocks.append((None, single[0]))
    many, _ = get(item.values, "training_job_definitions")
    if isinstance(many, list):
        for index, block in enumerate(many, 1):
            if isinstance(block, dict):
                label = as_str(get(block, "definition_name")[0])
                blocks.append((label if isinstance(label, str) else str(index), block))
    out: list[ir.Record] = []
    for label, block in blocks:
        if not isinstance(block, dict):
            continue
        fields, r = job_fields(block)
        r.lines.update({k: v for k, v in limits.lines.items() if k not in r.lines})
        common = common_fields(item, r, name)
        if label is not None:
            common["address"] = f"{item.address}/{label}"
        out.append(
            ir.TrainingJob(
                launcher="terraform",
                max_runtime_default_s=86400,
                default_note=DEFAULT_NOTE,
                runs_multiplier=runs,
                **fields,
                **common,
            )
        )
    return out


def _times(max_jobs: Any, count: Any) -> Any:
    if isinstance(max_jobs, Unknown):
        return max_jobs
    if isinstance(count, Unknown):
        return Unknown(f"count/for_each: {count.reason}")
    return max_jobs * count if isinstance(count, int) else max_jobs
