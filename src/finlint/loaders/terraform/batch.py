"""``aws_batch_job_definition`` (HCL and plan): a GPU job definition is a training job
(``launcher="aws-batch"``) whose runtime limit is ``timeout { attempt_duration_seconds }``;
``container_properties``/``node_properties`` are JSON strings (``jsonencode(...)``, a heredoc),
read by ``loaders.common.batch`` at the line of their attribute. Compute environments are in
``pools``."""

from __future__ import annotations

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
