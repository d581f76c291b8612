"""``AWS::Batch::JobDefinition``: a GPU job definition is a training job (``launcher="aws-batch"``)
whose runtime limit is ``Timeout.AttemptDurationSeconds`` (``loaders.common.batch`` reads it the
same way for Terraform and the API). Compute environments are in ``resources``."""

from __future__ import annotations

from finlint import ir
from finlint.loaders import FieldCollector
from finlint.loaders.cloudformation.resources import Resource
from finlint.loaders.common import batch


def batch_job_definition(res: Resource) -> list[ir.Record]:
    found = batch.read_job_definition(res.props)
    values = batch.job_fields(found)
    if values is None:
        return []
    fields = FieldCollector()
    fields.put("name", *res.props.get("JobDefinitionName"))
    record: ir.TrainingJob = res.record(ir.TrainingJob, fields, extra=batch.job_extra(found), **values)
    return [record.with_changes(attr_lines={**record.attr_lines, **found.lines})]
