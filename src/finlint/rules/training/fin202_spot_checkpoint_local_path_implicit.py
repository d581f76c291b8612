"""FIN202 spot-checkpoint-local-path-implicit: Managed spot training relies on the default
checkpoint local path.

The policy is ``policies/FIN202-spot-checkpoint-local-path-implicit.yaml``; this module holds
its facts and its price.

Price (spot-restart-local-path): ``cost.spot`` (the interruption model FIN201 and FIN202 share).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint.cost import spot
from finlint.finding import Finding, Fix
from finlint.ir import TrainingJob
from finlint.rules.base import Rule

DEFAULT_LOCAL_PATH = "/opt/ml/checkpoints"  # what SageMaker syncs when no local path is set


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """SDK estimators: write down the default local path (safe: the same directory is synced)."""
    from finlint.textedit import add_keyword, call_at

    job = finding.record
    if (
        not isinstance(job, TrainingJob)
        or job.launcher != "sdk-estimator"
        or not finding.file.endswith(".py")
    ):
        return None
    call = call_at(text, job.location.line)
    edit = call and add_keyword(finding.file, text, call, f'checkpoint_local_path="{DEFAULT_LOCAL_PATH}"')
    if not edit:
        return None
    return Fix(f"write down the default checkpoint_local_path {DEFAULT_LOCAL_PATH!r}", True, (edit,))


RULE = Rule(
    "FIN202",
    facts=(),
    cost_model="spot-restart-local-path",
    price=spot.price_local_path,
    fix=fix,
    fix_safety="safe",
)
