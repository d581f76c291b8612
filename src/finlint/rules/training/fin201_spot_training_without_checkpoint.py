"""FIN201 spot-training-without-checkpoint: spot training that restarts from zero.

The policy is ``policies/FIN201-spot-training-without-checkpoint.yaml``; this module holds its
facts and its price. Two ways to be on spot: SageMaker managed spot (``TrainingJob.spot``) with
no checkpoint S3 URI, and interruptible capacity outside SageMaker (``TrainingJob.capacity_spot``,
its source in ``capacity_spot_from``) with no checkpoint or resume in sight
(``checkpoint_in_sight``, set by ``linking.landing`` for Kubernetes workloads).

Price (spot-restart): ``cost.spot`` (the interruption model FIN201 and FIN202 share); on spot
capacity the basis starts with where "spot" was read, and says when a CronJob's schedule gave the
runs per month.

Managed spot set on one branch of a conditional (or by a flag the scan cannot resolve) with no
checkpoint on any: a restart from zero whenever that branch runs. FIN101 decides its branches by
the same rule (``engine.facts.on_a_branch``); the price is for the branch where spot is on.

Fix (unsafe, SageMaker managed spot only): ``checkpoint_s3_uri`` under the job's literal output path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from finlint.cost import spot
from finlint.cost.common import CostContext
from finlint.domain.branches import BOOLEAN
from finlint.engine.facts import Evidence, on_a_branch
from finlint.finding import Cost, Finding, Fix
from finlint.ir import Record, TrainingJob
from finlint.rules.base import Rule


def spot_on_a_branch(record: Record) -> Any:
    """Evidence that managed spot is on, on at least one branch (an unresolved flag may be on)."""
    return on_a_branch(record, "spot", lambda value: value is True, "spot is on", BOOLEAN)


def _on_capacity(record: Record) -> bool:
    return isinstance(record, TrainingJob) and record.spot is not True and record.capacity_spot is True


def spot_without_checkpoint_text(record: Record) -> Any:
    """What the finding is about, in the launcher's terms."""
    if isinstance(record, TrainingJob) and _on_capacity(record):
        source = record.capacity_spot_from or "its capacity"
        return (
            f"runs on spot capacity ({source}) with no checkpoint or resume in sight (no checkpoint "
            "path in its containers' env, flags or scripts, no checkpoint volume)"
        )
    on = spot_on_a_branch(record)
    where = on.text if isinstance(on, Evidence) else ""  # " (on a branch where spot is on: ...)"
    return f"uses managed spot training{where} without a checkpoint S3 URI"


def price(finding: Finding, ctx: CostContext) -> Cost:
    cost = spot.price(finding, ctx)
    record = finding.record
    if record is None or not _on_capacity(record) or not isinstance(record, TrainingJob):
        return cost
    source = record.capacity_spot_from or "its capacity"
    basis = f"Spot capacity: {source}. {cost.basis}"
    runs = record.scheduled_runs_per_month
    if runs is not None and cost.assumptions.get("runs_per_month") == round(runs, 2):
        basis += f" Runs per month: {round(runs, 2):g}, from the CronJob's schedule."
    return replace(cost, basis=basis, assumptions={**cost.assumptions, "spot_from": source})


CHECKPOINT_SUFFIX = "checkpoints"  # the prefix under the job's output_path the fix writes
DEFAULT_LOCAL_PATH = "/opt/ml/checkpoints"  # what SageMaker syncs when no local path is set


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """SDK estimators whose ``output_path`` (API requests, JSON or YAML, and Step Functions JSON:
    ``OutputDataConfig.S3OutputPath``, adding ``CheckpointConfig``; Terraform
    ``output_data_config { s3_output_path }``, adding ``checkpoint_config``) is a literal ``s3://`` URI,
    or a name the file binds once, at module level, to one (then ``f"{name}/checkpoints"``): unsafe, add
    ``checkpoint_s3_uri="<output_path>/checkpoints"`` (and the default
    ``checkpoint_local_path``, so FIN202 does not follow). Behaviour changes: SageMaker syncs the
    local checkpoint directory there and a restarted or later run of this launcher starts from
    what is in it, so the training script must resume from ``/opt/ml/checkpoints``. No fix when
    the output path is not a literal (a variable, an f-string): a guessed bucket is worse than
    none."""
    import ast

    from finlint.textedit import add_keywords, call_at

    job = finding.record
    if not isinstance(job, TrainingJob) or _on_capacity(job):  # spot capacity: no SageMaker checkpoint
        return None
    if (job.launcher, job.source_format) in _JSON_LAUNCHERS:
        return _json_fix(finding, job, text)
    if job.source_format in ("terraform", "terraform-plan") and finding.file.endswith(".tf"):
        return _terraform_fix(finding, job, text)
    if job.launcher != "sdk-estimator" or not finding.file.endswith(".py"):
        return None
    call = call_at(text, job.location.line)
    if call is None:
        return None
    output = next((k.value for k in call.keywords if k.arg == "output_path"), None)
    if isinstance(output, ast.Name):  # a name bound once, at module level, to a literal
        literal = _module_literal(text, output.id)
        uri = _checkpoint_uri(literal) if literal is not None else None
        source = f'checkpoint_s3_uri=f"{{{output.id}}}/{CHECKPOINT_SUFFIX}"'
        if literal is not None and literal.endswith("/"):
            source = f'checkpoint_s3_uri=f"{{{output.id}}}{CHECKPOINT_SUFFIX}"'
    elif isinstance(output, ast.Constant) and isinstance(output.value, str):
        uri = _checkpoint_uri(output.value)
        source = f'checkpoint_s3_uri="{uri}"'
    else:
        return None
    if uri is None:
        return None
    sources = [source]
    if not any(k.arg == "checkpoint_local_path" for k in call.keywords):
        sources.append(f'checkpoint_local_path="{DEFAULT_LOCAL_PATH}"')
    edit = add_keywords(finding.file, text, job.location.line, sources)
    if edit is None:
        return None
    return Fix(f"checkpoint to {uri} (under the job's output_path) so a spot restart resumes", False, (edit,))


#: the JSON launchers whose request takes ``CheckpointConfig`` (launcher, source format)
_JSON_LAUNCHERS = (("api-request", "sagemaker-api"), ("step-functions", "step-functions"))


def _module_literal(text: str, name: str) -> str | None:
    """The string ``name`` is bound to when the file binds it exactly once, at module level, to
    a string literal (anything else: None, no fix)."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    binds = [
        n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store)
    ]
    others = any(
        (isinstance(n, ast.arg) and n.arg == name)
        or (isinstance(n, ast.alias) and (n.asname or n.name) == name)
        or (isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names)
        for n in ast.walk(tree)
    )
    top = [
        a for a in tree.body if isinstance(a, ast.Assign) and len(a.targets) == 1 and a.targets[0] in binds
    ]
    if others or len(binds) != 1 or len(top) != 1:
        return None
    value = top[0].value
    return value.value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def _checkpoint_uri(output: str) -> str | None:
    """``<output>/checkpoints`` for a plain literal ``s3://bucket/...`` (None: anything else)."""
    base = output.rstrip("/")
    if not base.startswith("s3://") or len(base) <= 5 or any(c in base for c in '"{}$\\\n'):
        return None
    return f"{base}/{CHECKPOINT_SUFFIX}"


def _json_fix(finding: Finding, job: TrainingJob, text: str) -> Fix | None:
    """``CheckpointConfig`` in a CreateTrainingJob request or a Step Functions task's
    ``Parameters``, under the request's literal ``OutputDataConfig.S3OutputPath``."""
    import json

    from finlint.textedit.json_members import json_add_key, json_object_at

    line = job.location.line
    if job.launcher == "api-request" and not text.lstrip().startswith("{"):
        return _yaml_fix(finding, text, line)
    path: tuple[str, ...] = ("Parameters",) if job.launcher == "step-functions" else ()
    request = json_object_at(text, line, path)
    output = request.get("OutputDataConfig") if request is not None else None
    target = output.get("S3OutputPath") if output is not None else None
    if request is None or target is None or request.get("CheckpointConfig") is not None:
        return None
    value = json.loads(text[target.start : target.end])
    uri = _checkpoint_uri(value) if isinstance(value, str) else None
    if uri is None:
        return None
    config = json.dumps({"S3Uri": uri, "LocalPath": DEFAULT_LOCAL_PATH})
    edit = json_add_key(finding.file, text, line, path, "CheckpointConfig", config, len(path))
    if edit is None:
        return None
    return Fix(
        f"checkpoint to {uri} (under the job's S3OutputPath) so a spot restart resumes", False, (edit,)
    )


def _yaml_fix(finding: Finding, text: str, line: int) -> Fix | None:
    """``CheckpointConfig`` in a YAML request (``--cli-input-yaml``) under its literal
    ``OutputDataConfig.S3OutputPath``."""
    from finlint.textedit import yaml_add_key, yaml_scalar

    output = yaml_scalar(text, line, ("OutputDataConfig", "S3OutputPath"))
    uri = _checkpoint_uri(output) if output is not None else None
    if uri is None:
        return None
    block = f'S3Uri: "{uri}"\nLocalPath: {DEFAULT_LOCAL_PATH}'
    edit = yaml_add_key(finding.file, text, line, (), "CheckpointConfig", block, 0)
    if edit is None:
        return None
    return Fix(
        f"checkpoint to {uri} (under the job's S3OutputPath) so a spot restart resumes", False, (edit,)
    )


_TF_JOB = re.compile(r'\s*resource\s+"aws_sagemaker_training_job"\s+"[^"]+"\s*\{\s*$')


def _terraform_fix(finding: Finding, job: TrainingJob, text: str) -> Fix | None:
    """``checkpoint_config { s3_uri, local_path }`` on an ``aws_sagemaker_training_job`` whose
    ``output_data_config.s3_output_path`` is a plain literal."""
    from finlint.textedit.hcl import hcl_add, hcl_literal

    line = job.location.line
    lines = text.splitlines()
    if not 1 <= line <= len(lines) or not _TF_JOB.match(lines[line - 1]):
        return None
    output = hcl_literal(text, line, ("output_data_config",), "s3_output_path")
    uri = _checkpoint_uri(output) if output is not None else None
    if uri is None:
        return None
    local = ("local_path", f'"{DEFAULT_LOCAL_PATH}"')
    edit = hcl_add(finding.file, text, line, ("checkpoint_config",), "s3_uri", f'"{uri}"', (local,))
    if edit is None:
        return None
    return Fix(
        f"checkpoint to {uri} (under the job's s3_output_path) so a spot restart resumes", False, (edit,)
    )


RULE = Rule(
    "FIN201",
    facts=(spot_on_a_branch, spot_without_checkpoint_text),
    cost_model="spot-restart",
    price=price,
    fix=fix,
    fix_safety="unsafe",
)
