"""FIN205 long-spot-job: Managed spot training with a runtime cap over 24 hours.

The policy is ``policies/FIN205-long-spot-job.yaml``; this module holds its facts and its price."""

from __future__ import annotations

from typing import Any

from finlint.engine.facts import effective_max_runtime_s
from finlint.ir import Record, is_unknown
from finlint.rules.base import Rule


def effective_max_runtime_hours(record: Record) -> Any:
    """The runtime cap in force (explicit, else the launcher's default) in hours."""
    value = effective_max_runtime_s(record)
    if value is None or is_unknown(value):
        return value
    return float(value) / 3600.0


RULE = Rule("FIN205", facts=(effective_max_runtime_hours,), cost_model=None, price=None)
