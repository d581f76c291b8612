"""FIN202 spot-checkpoint-local-path-implicit: Managed spot training relies on the default
checkpoint local path.

The policy is ``policies/FIN202-spot-checkpoint-local-path-implicit.yaml``; this module holds
its facts and its price.

Price (spot-restart-local-path): ``cost.spot`` (the interruption model FIN201 and FIN202 share).
"""

from __future__ import annotations

from finlint.cost import spot
from finlint.rules.base import Rule

RULE = Rule("FIN202", facts=(), cost_model="spot-restart-local-path", price=spot.price_local_path)
