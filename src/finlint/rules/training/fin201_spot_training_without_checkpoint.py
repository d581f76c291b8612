"""FIN201 spot-training-without-checkpoint: Managed spot training without a checkpoint S3 URI.

The policy is ``policies/FIN201-spot-training-without-checkpoint.yaml``; this module holds its
facts and its price.

Price (spot-restart): ``cost.spot`` (the interruption model FIN201 and FIN202 share).
"""

from __future__ import annotations

from finlint.cost import spot
from finlint.rules.base import Rule

RULE = Rule("FIN201", facts=(), cost_model="spot-restart", price=spot.price)
