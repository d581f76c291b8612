"""FIN201 spot-training-without-checkpoint: spot training without a checkpoint.

The policy is ``policies/FIN201-spot-training-without-checkpoint.yaml``; this module holds its
facts and its price. Two cases: SageMaker managed spot (``spot``) without
``CheckpointConfig.S3Uri``, and spot capacity the launcher does not manage (``capacity_spot``:
a ParallelCluster SPOT queue, a Batch SPOT compute environment) with no checkpoint path at all.

Price (spot-restart): ``cost.spot`` (the interruption model FIN201 and FIN202 share).
"""

from __future__ import annotations

from typing import Any

from finlint.cost import spot
from finlint.ir import Record, TrainingJob
from finlint.rules.base import Rule

#: what the spot capacity is, by launcher (``capacity_spot`` jobs)
_SPOT_CAPACITY = {
    "slurm-sbatch": "runs on a spot Slurm queue (ParallelCluster CapacityType: SPOT) with no checkpoint path",
    "aws-batch": "runs on SPOT AWS Batch compute environments (its job queue's) with no checkpoint path",
}


def spot_without_checkpoint_text(record: Record) -> Any:
    """What FIN201's message says the job does: managed spot without an S3 URI, or spot capacity
    without any checkpoint path."""
    if not isinstance(record, TrainingJob):
        return None
    if record.spot is True:
        return "uses managed spot training without a checkpoint S3 URI"
    return _SPOT_CAPACITY.get(record.launcher, "runs on spot capacity with no checkpoint path")


RULE = Rule("FIN201", facts=(spot_without_checkpoint_text,), cost_model="spot-restart", price=spot.price)
