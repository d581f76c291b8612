"""``AWS::Batch::JobDefinition``: a GPU job definition is a training job (``launcher="aws-batch"``)
whose runtime limit is ``Timeout.AttemptDurationSeconds`` (``loaders.common.batch`` reads it the
same way for Terraform and the API). ``AWS::Batch::JobQueue`` -> a ``JobQueue`` naming its compute
environments (a ``!Ref``/``!GetAtt`` to one in the template by its address). Compute environments
are in ``resources``."""

from __future__ import annotations

from finlint import ir
from finlint.loaders import FieldCollector
from finlint.loaders.cloudformation.resources import Resource, _referenced_resource
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


def batch_job_queue(res: Resource) -> list[ir.Record]:
    raw_props = res.body.get("Properties")
    raw_order = raw_props.get("ComputeEnvironmentOrder") if isinstance(raw_props, dict) else None
    order, order_line = res.props.objs("ComputeEnvironmentOrder")
    envs: list[ir.Maybe[str]] = []
    for index, entry in enumerate(order if isinstance(order, list) else []):
        raw = (
            raw_order[index].get("ComputeEnvironment")
            if isinstance(raw_order, list) and index < len(raw_order) and isinstance(raw_order[index], dict)
            else None
        )
        target = _referenced_resource(res.tpl, raw, "AWS::Batch::ComputeEnvironment")
        if target is not None:
            envs.append(f"{res.tpl.ctx.address_prefix}{target}")
            continue
        value, _ = entry.get("ComputeEnvironment")
        envs.append(ir.plain_unknown(value) if value is not None else ir.Unknown("no ComputeEnvironment"))
    fields = FieldCollector()
    fields.put("name", *res.props.get("JobQueueName"))
    if order_line is not None:
        fields.lines["compute_environments"] = order_line
    return [res.record(ir.JobQueue, fields, compute_environments=tuple(envs))]
