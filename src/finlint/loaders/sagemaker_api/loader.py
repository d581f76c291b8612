"""SageMaker API specs: CreateTrainingJob requests, Step Functions ASL, pipeline definitions, HyperPod,
CreateNotebookInstance requests.

All four shapes are detected from content. They share one reader of the CreateTrainingJob
request shape (:func:`training_job_from_request`), which the CloudFormation, Terraform and SDK
loaders reuse. The reader knows three value dialects: plain JSON, Step Functions JSONPath
(``Key.$`` is a run-time value) and JSONata (``{% ... %}``), plus pipeline functions
(``{"Get": "Parameters.X"}`` resolves to the parameter's default). Anything it cannot resolve
is an :class:`~finlint.ir.Unknown`, never a guess.

Heterogeneous clusters (``ResourceConfig.InstanceGroups``): the job takes the type and count
of the group with the most accelerators per instance (the group that drives GPU-hours and
cost); every group is listed in ``extra["instance_groups"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext, no_finalize
from finlint.loaders.sagemaker_api.asl import training_jobs_from_asl
from finlint.loaders.sagemaker_api.hyperpod import hyperpod_pools, stem
from finlint.loaders.sagemaker_api.notebook import is_notebook_request, notebook_from_request
from finlint.loaders.sagemaker_api.pipeline import pipeline_resolver, pipeline_steps, tuning_jobs
from finlint.loaders.sagemaker_api.reader import FORMAT, TEMPLATED, Reader

__all__ = ["FORMAT", "claims", "finalize", "load"]
from finlint.loaders.sagemaker_api.request import training_job_from_request

finalize = no_finalize  # no whole-scan pass


_FOREIGN_KEYS = ("Resources", "AWSTemplateFormatVersion", "apiVersion", "format_version", "terraform_version")


#: Step types of the pipeline definition schema ("Version" is optional there).
_PIPELINE_STEP_TYPES = frozenset(
    (
        "Training",
        "Tuning",
        "Processing",
        "Condition",
        "Transform",
        "RegisterModel",
        "Model",
        "Lambda",
        "Callback",
        "QualityCheck",
        "ClarifyCheck",
        "EMR",
        "Fail",
        "AutoML",
        "CreateModel",
    )
)


_REQUEST_MARKERS = ("TrainingJobName", "RoleArn", "StoppingCondition", "OutputDataConfig")
#: Keys a CreateTrainingJob request never has: a DescribeTrainingJob response has both, the
#: ``/opt/ml/input/config/trainingjobconfig.json`` SageMaker writes for a job has the ARN.
_RESPONSE_KEYS = frozenset({"TrainingJobArn", "TrainingJobStatus"})


def _kind(doc: Any) -> str | None:
    """Which of the four shapes ``doc`` is, or None."""
    if not isinstance(doc, Mapping) or any(k in doc for k in _FOREIGN_KEYS):
        return None
    if isinstance(doc.get("StartAt"), str) and isinstance(doc.get("States"), Mapping):
        return "asl"
    steps = doc.get("Steps")
    if (
        isinstance(steps, list)
        and steps
        and all(isinstance(s, Mapping) and "Type" in s and "Name" in s for s in steps)
        and ("Version" in doc or any(s["Type"] in _PIPELINE_STEP_TYPES for s in steps))
    ):
        return "pipeline"
    if (
        ("AlgorithmSpecification" in doc or "ResourceConfig" in doc)
        and any(k in doc for k in _REQUEST_MARKERS)
        and isinstance(doc.get("ResourceConfig", {}), Mapping)
    ):
        return "training-request"
    if "HyperParameterTuningJobConfig" in doc and (
        "TrainingJobDefinition" in doc or "TrainingJobDefinitions" in doc
    ):
        return "tuning-request"
    if is_notebook_request(doc):
        return "notebook-request"
    groups = doc.get("InstanceGroups")
    if (
        "ClusterName" in doc
        and isinstance(groups, list)
        and groups
        and all(isinstance(g, Mapping) and "InstanceType" in g and "InstanceCount" in g for g in groups)
    ):
        return "hyperpod-cluster"
    return None


def claims(doc: Any) -> bool:
    return _kind(doc) is not None


def _validate_blocks(doc: Mapping[str, Any], ctx: DocContext, result: ir.LoadResult) -> None:
    """Blocks of a request that must be objects: a wrong shape means the API rejects the file."""
    reader = Reader(ctx)
    line = reader.root_line(doc)
    for key in ("ResourceConfig", "StoppingCondition", "CheckpointConfig"):
        value = doc.get(key)
        if value is not None and not isinstance(value, Mapping):
            result.errors.append(
                ir.LoadError(ctx.file, reader.key_line(doc, key, line), f"{key} must be an object")
            )


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    result = ir.LoadResult()
    kind = _kind(doc)
    if kind == "training-request" and _RESPONSE_KEYS & set(doc):
        # a DescribeTrainingJob response (saved output, a test fixture), or the
        # trainingjobconfig.json SageMaker writes into a job's container (an ARN, no status):
        # a record of a job that already exists, not a launch; launch-cost rules do not apply
        line = Reader(ctx).root_line(doc)
        what = (
            "a DescribeTrainingJob response"
            if "TrainingJobStatus" in doc
            else "a created job's configuration (it has a TrainingJobArn)"
        )
        result.notices.append(ir.Notice(ctx.file, line, f"{what}, not a request: skipped"))
    elif kind == "training-request":
        _validate_blocks(doc, ctx, result)
        name = doc.get("TrainingJobName")
        plain = isinstance(name, str) and not TEMPLATED.search(name)
        address = f"{ctx.address_prefix}{name if plain else stem(ctx)}"
        result.records.append(
            training_job_from_request(doc, ctx, launcher="api-request", address=address, source_format=FORMAT)
        )
    elif kind == "tuning-request":
        reader = Reader(ctx)
        line = reader.root_line(doc)
        name = doc.get("HyperParameterTuningJobName")
        plain = isinstance(name, str) and not TEMPLATED.search(name)
        location = ir.Location(ctx.file, line, reader.end_line(doc, line))
        address = f"{ctx.address_prefix}{name if plain else stem(ctx)}"
        for job in tuning_jobs(reader, doc, line, address, location):
            result.records.append(job.with_changes(launcher="api-request", source_format=FORMAT))
    elif kind == "asl":
        result.records.extend(training_jobs_from_asl(doc, ctx, ctx.address_prefix))
    elif kind == "pipeline":
        base = Reader(ctx)
        line = base.root_line(doc)
        reader = Reader(
            ctx,
            resolve_function=pipeline_resolver(doc.get("Parameters"), lambda c, k: base.key_line(c, k, line)),
        )
        steps_line = reader.key_line(doc, "Steps", line)
        pipeline_steps(doc.get("Steps"), reader, ctx.address_prefix, steps_line, result)
    elif kind == "hyperpod-cluster":
        hyperpod_pools(doc, ctx, result)
    elif kind == "notebook-request":
        notebook_from_request(doc, ctx, result)
    return result
