"""``RegisterJobDefinition`` -> a TrainingJob (``launcher="aws-batch"``) when it requests GPUs, its
limit ``timeout.attemptDurationSeconds`` (read by ``loaders.common.batch``, as CloudFormation and
Terraform are); ``CreateComputeEnvironment`` -> a ``batch-compute-environment`` ComputePool, its
vCPU sizes in instances of its one instance type (``minvCpus > 0``: always-on capacity);
``CreateJobQueue`` -> a ``JobQueue`` naming its compute environments (names or ARNs)."""

from __future__ import annotations

import math
from typing import Any

from finlint import ir
from finlint.domain import catalog
from finlint.loaders.base import DocContext, no_finalize
from finlint.loaders.common import batch, coerce
from finlint.loaders.common.yamlload import LineDict

FORMAT = "aws-batch-api"
finalize = no_finalize

_JOB_KEYS = ("containerProperties", "nodeProperties", "eksProperties")
_CAPACITY = {"EC2": "on-demand", "SPOT": "spot"}


def claims(doc: Any) -> bool:
    if not isinstance(doc, dict):
        return False
    if "jobDefinitionName" in doc and any(k in doc for k in _JOB_KEYS):
        return True
    if "jobQueueName" in doc and isinstance(doc.get("computeEnvironmentOrder"), list):
        return True
    return "computeEnvironmentName" in doc and isinstance(doc.get("computeResources"), dict)


def _line(doc: Any, key: str, ctx: DocContext) -> int:
    return ctx.line(doc.line_of(key) if isinstance(doc, LineDict) else 1)


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    result = ir.LoadResult()
    if not isinstance(doc, dict):
        return result
    start = ctx.line(getattr(doc, "line", 1) or 1)
    end = ctx.line(getattr(doc, "end_line", 0) or start)
    location = ir.Location(ctx.file, start, max(start, end))
    if "jobDefinitionName" in doc:
        record = _job_definition(doc, ctx, location)
    elif "jobQueueName" in doc:
        record = _job_queue(doc, ctx, location)
    else:
        record = _compute_environment(doc, ctx, location)
    if record is not None:
        result.records.append(record)
    return result


def _shifted(lines: dict[str, int], ctx: DocContext) -> dict[str, int]:
    return {k: ctx.line(v) for k, v in lines.items()}


def _job_definition(doc: Any, ctx: DocContext, location: ir.Location) -> ir.Record | None:
    found = batch.read_job_definition(batch.Plain(doc, getattr(doc, "line", 1) or 1))
    values = batch.job_fields(found)
    if values is None:
        return None
    name = coerce.to_str(doc.get("jobDefinitionName"), "jobDefinitionName")
    lines = _shifted({**found.lines, "name": getattr(doc, "line_of", lambda k: 1)("jobDefinitionName")}, ctx)
    return ir.TrainingJob(
        address=f"JobDefinition/{name if isinstance(name, str) else ctx.doc_index}",
        location=location,
        source_format=FORMAT,
        attr_lines=lines,
        name=name,
        extra=batch.job_extra(found),
        **values,
    )


def _job_queue(doc: Any, ctx: DocContext, location: ir.Location) -> ir.Record:
    name = coerce.to_str(doc.get("jobQueueName"), "jobQueueName")
    order = doc.get("computeEnvironmentOrder")
    envs: list[Any] = []
    for entry in order if isinstance(order, list) else []:
        value = entry.get("computeEnvironment") if isinstance(entry, dict) else None
        envs.append(
            coerce.to_str(value, "computeEnvironment")
            if value is not None
            else ir.Unknown("no computeEnvironment")
        )
    return ir.JobQueue(
        address=f"JobQueue/{name if isinstance(name, str) else ctx.doc_index}",
        location=location,
        source_format=FORMAT,
        attr_lines={
            "name": _line(doc, "jobQueueName", ctx),
            "compute_environments": _line(doc, "computeEnvironmentOrder", ctx),
        },
        name=name,
        compute_environments=tuple(envs),
    )


def _compute_environment(doc: Any, ctx: DocContext, location: ir.Location) -> ir.Record | None:
    kind = doc.get("type")
    resources = batch.Plain(doc.get("computeResources"), _line(doc, "computeResources", ctx))
    ctype, ctype_line = resources.get("type")
    if isinstance(kind, str) and kind.upper() == "UNMANAGED":
        return None
    if isinstance(ctype, str) and ctype.upper().startswith("FARGATE"):
        return None  # Fargate launches no EC2 instances
    lines: dict[str, int] = {}
    types_raw, types_line = resources.find("instanceTypes")
    types: Any = None
    if isinstance(types_raw, list):
        types = tuple(ir.plain_unknown(coerce.to_str(t, "instanceTypes")) for t in types_raw)
        lines["instance_types"] = ctx.line(types_line or 1)
    fields: dict[str, Any] = {"instance_types": types}
    if ctype_line is not None:
        mapped: str | None = _CAPACITY.get(ctype.upper()) if isinstance(ctype, str) else None
        fields["capacity_types"] = (mapped,) if mapped else ir.Unknown(f"computeResources.type {ctype}")
        lines["capacity_types"] = ctx.line(ctype_line)
    for name, key in (("min_size", "minvCpus"), ("desired_size", "desiredvCpus"), ("max_size", "maxvCpus")):
        vcpus, line = resources.get(key, int)
        if line is not None:
            fields[name] = _instances(vcpus, types, key)
            lines[name] = ctx.line(line)
    env_name = coerce.to_str(doc.get("computeEnvironmentName"), "computeEnvironmentName")
    return ir.ComputePool(
        address=f"ComputeEnvironment/{env_name if isinstance(env_name, str) else ctx.doc_index}",
        location=location,
        source_format=FORMAT,
        attr_lines=lines,
        name=env_name,
        pool_kind="batch-compute-environment",
        **fields,
    )


def _instances(vcpus: Any, types: Any, key: str) -> Any:
    """vCPUs as instances of the one instance type (the same rule as CloudFormation's)."""
    if vcpus is None or isinstance(vcpus, ir.Unknown):
        return ir.plain_unknown(vcpus)
    if vcpus == 0:
        return 0
    if not isinstance(types, tuple) or len(types) != 1 or not isinstance(types[0], str):
        return ir.Unknown(f"{key} {vcpus} is spread over several (or unknown) instance types")
    spec = catalog.lookup(types[0])
    if spec is None or spec.vcpu <= 0:
        return ir.Unknown(f"{key}: vCPUs of {types[0]} are not in the catalog")
    return math.ceil(vcpus / spec.vcpu)
