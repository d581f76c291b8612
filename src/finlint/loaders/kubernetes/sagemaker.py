"""SageMaker ``TrainingJob`` / ``HyperParameterTuningJob`` custom resources -> :class:`TrainingJob`.

Both controllers are read: ACK (``sagemaker.services.k8s.aws``) and the older operator
(``sagemaker.aws.amazon.com``). A tuning job gives one record per training job definition, with
``maxNumberOfTrainingJobs`` as its runs multiplier. A ``TrainingJob`` without SageMaker's fields
is another CRD reusing the name and is read as a workload.
"""

from __future__ import annotations

from typing import Any

from finlint.ir import Maybe, Record, TrainingJob, Unknown
from finlint.loaders.common.yamlload import LineDict
from finlint.loaders.kubernetes.object import FORMAT, Doc, Node, boolean, child, integer, items, mapping, text
from finlint.loaders.kubernetes.workloads import load_workload

SAGEMAKER_DEFAULT_MAX_RUNTIME_S = 86_400


def _training_job(
    d: Doc, definition: Node, address: str, runs: Maybe[int], run_line: int | None
) -> TrainingJob:
    lines: dict[str, int] = {}

    def field(node: Any, attr: str, *keys: str) -> Any:
        for key in keys:
            if isinstance(node, dict) and key in node:
                lines[attr] = d.line_at(node, key)
                return node[key]
        return None

    resources = mapping(definition, "resourceConfig")
    stopping = mapping(definition, "stoppingCondition")
    checkpoint = mapping(definition, "checkpointConfig")
    algorithm = mapping(definition, "algorithmSpecification")
    instance_type = text(field(resources, "instance_type", "instanceType"), "instanceType")
    if instance_type is None and isinstance(child(resources, "instanceGroups"), list):
        instance_type = Unknown("heterogeneous cluster (resourceConfig.instanceGroups)")
        lines["instance_type"] = d.line_at(resources, "instanceGroups")
    if run_line is not None:
        lines["runs_multiplier"] = run_line
    job_name = text(field(definition, "name", "trainingJobName"), "trainingJobName")
    if job_name is None and "name" in d.metadata:
        lines["name"] = d.line_at(d.metadata, "name")
    return TrainingJob(
        address=address,
        location=d.location(),
        source_format=FORMAT,
        attr_lines=lines,
        suppressions=d.suppressions(),
        name=job_name if job_name is not None else d.name,
        extra={
            "api_version": d.api_version,
            "kind": d.kind,
        },
        default_note="SageMaker stops a job after 86,400 s (1 day) when stoppingCondition is absent",
        launcher="kubernetes-crd",
        instance_type=instance_type,
        instance_count=integer(field(resources, "instance_count", "instanceCount"), "instanceCount"),
        volume_size_gb=integer(field(resources, "volume_size_gb", "volumeSizeInGB"), "volumeSizeInGB"),
        keep_alive_s=integer(
            field(resources, "keep_alive_s", "keepAlivePeriodInSeconds"), "keepAlivePeriodInSeconds"
        ),
        training_plan=text(
            field(resources, "training_plan", "trainingPlanARN", "trainingPlanArn"), "trainingPlan"
        ),
        spot=boolean(field(definition, "spot", "enableManagedSpotTraining"), "enableManagedSpotTraining"),
        max_runtime_s=integer(field(stopping, "max_runtime_s", "maxRuntimeInSeconds"), "maxRuntimeInSeconds"),
        max_runtime_default_s=SAGEMAKER_DEFAULT_MAX_RUNTIME_S,
        max_wait_s=integer(field(stopping, "max_wait_s", "maxWaitTimeInSeconds"), "maxWaitTimeInSeconds"),
        checkpoint_s3_uri=text(field(checkpoint, "checkpoint_s3_uri", "s3URI", "s3Uri", "S3Uri"), "s3URI"),
        checkpoint_local_path=text(field(checkpoint, "checkpoint_local_path", "localPath"), "localPath"),
        runs_multiplier=runs,
        training_image=text(field(algorithm, "training_image", "trainingImage"), "trainingImage"),
    )


_TRAINING_JOB_KEYS = ("resourceConfig", "stoppingCondition", "algorithmSpecification", "trainingJobName")


def load_sagemaker_job(d: Doc) -> list[Record]:
    spec = d.spec or LineDict()
    if d.kind == "TrainingJob":
        if not any(key in spec for key in _TRAINING_JOB_KEYS):
            return load_workload(d)  # another CRD that reuses the name (e.g. a HyperPod operator)
        return [_training_job(d, spec, d.address(), 1, None)]
    limits = mapping(mapping(spec, "hyperParameterTuningJobConfig"), "resourceLimits")
    runs = integer(child(limits, "maxNumberOfTrainingJobs"), "maxNumberOfTrainingJobs")
    run_line = d.line_at(limits, "maxNumberOfTrainingJobs") if runs is not None else None
    if runs is None:
        runs = Unknown("maxNumberOfTrainingJobs is not set")
    jobs: list[Record] = []
    definition = mapping(spec, "trainingJobDefinition")
    if definition is not None:
        jobs.append(_training_job(d, definition, d.address(), runs, run_line))
    for index, item, _line in items(spec, "trainingJobDefinitions"):
        if isinstance(item, dict):
            jobs.append(_training_job(d, item, d.address(str(index)), runs, run_line))
    return jobs
