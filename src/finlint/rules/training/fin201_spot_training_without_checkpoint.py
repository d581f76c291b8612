"""FIN201 spot-training-without-checkpoint: Managed spot training without a checkpoint S3 URI.

The policy is ``policies/FIN201-spot-training-without-checkpoint.yaml``; this module holds its
facts and its price.

Spot set on one branch of a conditional (or by a flag the scan cannot resolve) with no
checkpoint on any: a restart from zero whenever that branch runs. FIN101 decides its branches by
the same rule (``engine.facts.on_a_branch``).

Price (spot-restart): ``cost.spot`` (the interruption model FIN201 and FIN202 share), for the
branch where spot is on.
"""

from __future__ import annotations

from typing import Any

from finlint.cost import spot
from finlint.domain.branches import BOOLEAN
from finlint.engine.facts import on_a_branch
from finlint.ir import Record
from finlint.rules.base import Rule


def spot_on_a_branch(record: Record) -> Any:
    """Evidence that managed spot is on, on at least one branch (an unresolved flag may be on)."""
    return on_a_branch(record, "spot", lambda value: value is True, "spot is on", BOOLEAN)


RULE = Rule("FIN201", facts=(spot_on_a_branch,), cost_model="spot-restart", price=spot.price)
