"""FIN201 spot-training-without-checkpoint: Managed spot training without a checkpoint S3 URI.

The policy is ``policies/FIN201-spot-training-without-checkpoint.yaml``; this module holds its
facts and its price.

Price (spot-restart): ``cost.spot`` (the interruption model FIN201 and FIN202 share).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint.cost import spot
from finlint.finding import Finding, Fix
from finlint.ir import TrainingJob
from finlint.rules.base import Rule

CHECKPOINT_SUFFIX = "checkpoints"  # the prefix under the job's output_path the fix writes
DEFAULT_LOCAL_PATH = "/opt/ml/checkpoints"  # what SageMaker syncs when no local path is set


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """SDK estimators whose ``output_path`` (API and Step Functions JSON:
    ``OutputDataConfig.S3OutputPath``, adding ``CheckpointConfig``) is a literal ``s3://`` URI: unsafe, add
    ``checkpoint_s3_uri="<output_path>/checkpoints"`` (and the default
    ``checkpoint_local_path``, so FIN202 does not follow). Behaviour changes: SageMaker syncs the
    local checkpoint directory there and a restarted or later run of this launcher starts from
    what is in it, so the training script must resume from ``/opt/ml/checkpoints``. No fix when
    the output path is not a literal (a variable, an f-string): a guessed bucket is worse than
    none."""
    import ast

    from finlint.textedit import add_keywords, call_at

    job = finding.record
    if not isinstance(job, TrainingJob):
        return None
    if (job.launcher, job.source_format) in _JSON_LAUNCHERS:
        return _json_fix(finding, job, text)
    if job.launcher != "sdk-estimator" or not finding.file.endswith(".py"):
        return None
    call = call_at(text, job.location.line)
    if call is None:
        return None
    output = next((k.value for k in call.keywords if k.arg == "output_path"), None)
    if not isinstance(output, ast.Constant) or not isinstance(output.value, str):
        return None
    uri = _checkpoint_uri(output.value)
    if uri is None:
        return None
    sources = [f'checkpoint_s3_uri="{uri}"']
    if not any(k.arg == "checkpoint_local_path" for k in call.keywords):
        sources.append(f'checkpoint_local_path="{DEFAULT_LOCAL_PATH}"')
    edit = add_keywords(finding.file, text, job.location.line, sources)
    if edit is None:
        return None
    return Fix(f"checkpoint to {uri} (under the job's output_path) so a spot restart resumes", False, (edit,))


#: the JSON launchers whose request takes ``CheckpointConfig`` (launcher, source format)
_JSON_LAUNCHERS = (("api-request", "sagemaker-api"), ("step-functions", "step-functions"))


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

    from finlint.textedit_json import json_add_key, json_object_at

    line = job.location.line
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


RULE = Rule("FIN201", facts=(), cost_model="spot-restart", price=spot.price, fix=fix, fix_safety="unsafe")
