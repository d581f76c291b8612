"""``aws_batch_job_definition`` (HCL and plan): a GPU job definition is a training job
(``launcher="aws-batch"``) whose runtime limit is ``timeout { attempt_duration_seconds }``;
``container_properties``/``node_properties`` are JSON strings (``jsonencode(...)``, a heredoc),
read by ``loaders.common.batch`` at the line of their attribute. ``aws_batch_job_queue`` -> a
``JobQueue``: its ``compute_environment_order { compute_environment }`` (or the older
``compute_environments`` list) by the address of a compute environment of the configuration, or
a literal name/ARN. Compute environments are in ``pools``."""

from __future__ import annotations

import re

from finlint import ir
from finlint.loaders.common import batch
from finlint.loaders.terraform.items import Item, Lines, as_str, common_fields


def batch_job_definition(item: Item) -> list[ir.Record]:
    line = item.location.line
    found = batch.read_job_definition(batch.Plain(item.values, line))
    values = batch.job_fields(found)
    if values is None:
        return []
    r = Lines(item.values)
    name = as_str(r.read("name", "name"))
    r.lines.update(found.lines)
    common = common_fields(item, r, name)
    common["extra"].update(batch.job_extra(found))
    if item.multiplier != 1:
        values["runs_multiplier"] = item.multiplier
    return [ir.TrainingJob(**values, **common)]


def batch_job_queue(item: Item) -> list[ir.Record]:
    r = Lines(item.values)
    name = as_str(r.read("name", "name"))
    blocks = item.values.get("compute_environment_order")
    if isinstance(blocks, list) and blocks:
        r.read("compute_environments", "compute_environment_order")
        first = item.refs.get("compute_environment_order.compute_environment")
        listed = [b.get("compute_environment") if isinstance(b, dict) else None for b in blocks]
    else:
        r.read("compute_environments", "compute_environments")
        first = item.refs.get("compute_environments")
        raw = item.values.get("compute_environments")
        listed = raw if isinstance(raw, list) else [raw] if raw is not None else []
    envs: list[ir.Maybe[str]] = [_environment(v) for v in listed]
    if first is not None and envs:
        envs[0] = first  # the first block's reference to a compute environment of the configuration
    return [ir.JobQueue(compute_environments=tuple(envs), **common_fields(item, r, name))]


def _environment(value: object) -> ir.Maybe[str]:
    """A compute environment as written: a name or ARN, or the address of the one a reference
    (``aws_batch_compute_environment.gpu.arn``) names, else Unknown."""
    if isinstance(value, str):
        return value
    if isinstance(value, ir.Unknown):  # "aws_batch_compute_environment.gpu.arn is known only after apply"
        for text in (value.template, value.reason):
            match = _REF.match(text) if isinstance(text, str) else None
            if match:
                return match.group(1)
    return ir.Unknown("compute environment unresolved")


_REF = re.compile(
    r"\$?\{?(aws_batch_compute_environment\.[A-Za-z0-9_-]+)\.(?:arn|id|compute_environment_name)\b"
)
