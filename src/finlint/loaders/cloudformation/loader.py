"""CloudFormation templates (YAML and JSON) -> IR records: the loader entry.

This module claims a template, builds a :class:`~finlint.loaders.cloudformation.resources.Resource`
for every resource of a supported type (location, ``Properties``, ``Metadata`` suppressions, and
its ``Condition``, which is deploy-time, so a conditional resource still loads, recorded in
``extra["condition"]``) and dispatches it through the type -> handler table. The rest lives in:

- :mod:`~finlint.loaders.cloudformation.values`: the value model and intrinsic-function
  evaluator (``!Ref`` to a Parameter's ``Default``, ``!Sub``, ``!Join``, ``!FindInMap``, ``!If``;
  anything decided at deploy time is an :class:`~finlint.ir.Unknown` naming why);
- :mod:`~finlint.loaders.cloudformation.resources`: the handlers, one per resource type;
- :mod:`~finlint.loaders.cloudformation.sfn`: Step Functions definitions -> ASL ->
  :func:`finlint.loaders.sagemaker_api.training_jobs_from_asl`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext, no_finalize
from finlint.loaders.cloudformation.batch import batch_job_definition, batch_job_queue
from finlint.loaders.cloudformation.ml_storage import fsx_file_system, notebook_instance, studio_domain
from finlint.loaders.cloudformation.resources import (
    Resource,
    autoscaling_group,
    batch_compute_environment,
    bucket,
    ec2_instance,
    efs_access_point,
    efs_file_system,
    efs_mount_target,
    eks_nodegroup,
    hyperpod,
    launch_template,
)
from finlint.loaders.cloudformation.sfn import state_machine
from finlint.loaders.cloudformation.values import (
    MAX_STEPS,
    MAX_TEXT,
    NO_VALUE,
    Obj,
    Template,
    unknown_functions,
)
from finlint.loaders.common.yamlload import LineDict, LineList

FORMAT = "cloudformation"
finalize = no_finalize  # no whole-scan pass


def claims(doc: Any) -> bool:
    """A mapping with ``AWSTemplateFormatVersion``, or ``Resources`` typed ``AWS::...``."""
    if not isinstance(doc, dict):
        return False
    if "AWSTemplateFormatVersion" in doc:
        return True
    resources = doc.get("Resources")
    if not isinstance(resources, dict):
        return False
    return any(
        isinstance(body, dict) and isinstance(body.get("Type"), str) and body["Type"].startswith("AWS::")
        for body in resources.values()
    )


_HANDLERS: dict[str, Callable[[Resource], Any]] = {
    "AWS::SageMaker::NotebookInstance": notebook_instance,
    "AWS::SageMaker::Domain": studio_domain,
    "AWS::SageMaker::Cluster": hyperpod,
    "AWS::EFS::FileSystem": efs_file_system,
    "AWS::EFS::AccessPoint": efs_access_point,
    "AWS::EFS::MountTarget": efs_mount_target,
    "AWS::FSx::FileSystem": fsx_file_system,
    "AWS::StepFunctions::StateMachine": state_machine,
    "AWS::Serverless::StateMachine": state_machine,
    "AWS::EC2::Instance": ec2_instance,
    "AWS::EC2::LaunchTemplate": launch_template,
    "AWS::AutoScaling::AutoScalingGroup": autoscaling_group,
    "AWS::EKS::Nodegroup": eks_nodegroup,
    "AWS::Batch::ComputeEnvironment": batch_compute_environment,
    "AWS::Batch::JobDefinition": batch_job_definition,
    "AWS::Batch::JobQueue": batch_job_queue,
    "AWS::S3::Bucket": bucket,
}


def _suppressions(tpl: Template, body: Mapping[str, Any]) -> tuple[ir.Suppression, ...]:
    """``Metadata: {finlint: {ignore: [{id: FIN301, reason: ...}]}}`` (plain ids are accepted too)."""
    metadata = body.get("Metadata")
    config = metadata.get("finlint") if isinstance(metadata, dict) else None
    ignores = config.get("ignore") if isinstance(config, dict) else None
    if not isinstance(ignores, list):
        return ()
    out: list[ir.Suppression] = []
    for index, entry in enumerate(ignores):
        line = tpl.line(ignores.line_of(index)) if isinstance(ignores, LineList) else tpl.line(1)
        if isinstance(entry, str):
            out.append(ir.Suppression(rule=entry, reason="", line=line))
        elif isinstance(entry, dict):
            rule, reason = entry.get("id", entry.get("rule")), entry.get("reason")
            if isinstance(rule, str):
                out.append(ir.Suppression(rule, reason if isinstance(reason, str) else "", line))
    return ir.distinct_suppressions(out)


def _resources(doc: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    resources = doc.get("Resources")
    if not isinstance(resources, dict):
        return
    for logical_id, body in resources.items():
        if isinstance(logical_id, str) and isinstance(body, dict) and isinstance(body.get("Type"), str):
            yield logical_id, body


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    result = ir.LoadResult()
    if not isinstance(doc, dict):
        return result
    resources = doc.get("Resources")
    if resources is not None and not isinstance(resources, dict):
        line = doc.line_of("Resources") if isinstance(doc, LineDict) else 1
        result.errors.append(ir.LoadError(ctx.file, ctx.line(line), "Resources must be a mapping"))
        return result
    result.notices.extend(unknown_functions(doc, ctx))
    tpl = Template(doc, ctx)
    said_budget = False
    for logical_id, body in _resources(doc):
        handler = _HANDLERS.get(body["Type"])
        if handler is None:
            continue
        try:
            loaded = handler(_make_resource(tpl, logical_id, body, resources))
            if tpl.over_budget and not said_budget:  # once per file: the rest says the same
                said_budget = True
                line = ctx.line(resources.line_of(logical_id)) if isinstance(resources, LineDict) else 1
                result.notices.append(
                    ir.Notice(
                        ctx.file,
                        line,
                        f"resource {logical_id}: an intrinsic function is too large to evaluate "
                        f"(over {MAX_STEPS:,} functions or {MAX_TEXT:,} characters); its values are unknown",
                    )
                )
        except Exception as exc:  # a bug must not stop the scan: report it as this file's error
            line = ctx.line(resources.line_of(logical_id)) if isinstance(resources, LineDict) else ctx.line(1)
            result.errors.append(
                ir.LoadError(ctx.file, line, f"resource {logical_id} could not be read: {exc}")
            )
            continue
        if isinstance(loaded, ir.LoadResult):
            result.extend(loaded)
        else:
            result.records.extend(loaded)
    return result


def _make_resource(tpl: Template, logical_id: str, body: Mapping[str, Any], resources: Any) -> Resource:
    tpl.used_parameters = []
    tpl.steps, tpl.over_budget = 0, False
    start = resources.line_of(logical_id) if isinstance(resources, LineDict) else getattr(body, "line", 1)
    end = getattr(body, "end_line", 0) or start
    location = ir.Location(tpl.ctx.file, tpl.line(start), tpl.line(max(start, end)))
    raw_props = body.get("Properties")
    props_value = tpl.resolve(raw_props) if raw_props is not None else {}
    props_line = (
        tpl.line(body.line_of("Properties"))
        if isinstance(body, LineDict) and raw_props is not None
        else (location.line)
    )
    if props_value is NO_VALUE or props_value is None:
        props_value = {}
    if not isinstance(props_value, (dict, ir.Unknown)):
        props_value = ir.Unknown("Properties is not a mapping")
    props_value = ir.plain_unknown(props_value)  # a mapping: never one option's scalar
    props = Obj(tpl, props_value, props_line, "Properties")
    extra: dict[str, Any] = {"resource_type": body["Type"]}
    condition = body.get("Condition")
    if isinstance(condition, str):
        extra["condition"] = condition
    return Resource(
        tpl=tpl,
        logical_id=logical_id,
        resource_type=body["Type"],
        body=body,
        props=props,
        location=location,
        address=f"{tpl.ctx.address_prefix}{logical_id}",
        suppressions=_suppressions(tpl, body),
        source_format=FORMAT,
        extra=extra,
    )


__all__ = ["FORMAT", "NO_VALUE", "claims", "load"]
