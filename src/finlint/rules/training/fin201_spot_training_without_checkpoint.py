"""FIN201 spot-training-without-checkpoint: spot training that restarts from zero.

The policy is ``policies/FIN201-spot-training-without-checkpoint.yaml``; this module holds its
facts and its price. Two ways to be on spot: SageMaker managed spot (``TrainingJob.spot``) with
no checkpoint S3 URI, and interruptible capacity outside SageMaker (``TrainingJob.capacity_spot``,
its source in ``capacity_spot_from``) with no checkpoint or resume in sight
(``checkpoint_in_sight``, set by ``linking.landing`` for Kubernetes workloads).

Price (spot-restart): ``cost.spot`` (the interruption model FIN201 and FIN202 share); on spot
capacity the basis starts with where "spot" was read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from finlint.cost import spot
from finlint.cost.common import CostContext
from finlint.finding import Cost, Finding
from finlint.ir import Record, TrainingJob
from finlint.rules.base import Rule


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
    return "uses managed spot training without a checkpoint S3 URI"


def price(finding: Finding, ctx: CostContext) -> Cost:
    cost = spot.price(finding, ctx)
    record = finding.record
    if record is None or not _on_capacity(record) or not isinstance(record, TrainingJob):
        return cost
    source = record.capacity_spot_from or "its capacity"
    return replace(
        cost,
        basis=f"Spot capacity: {source}. {cost.basis}",
        assumptions={**cost.assumptions, "spot_from": source},
    )


RULE = Rule("FIN201", facts=(spot_without_checkpoint_text,), cost_model="spot-restart", price=price)
