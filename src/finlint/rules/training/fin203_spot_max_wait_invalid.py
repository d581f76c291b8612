"""FIN203 spot-max-wait-invalid: Managed spot training with no max wait, or a max wait below the
max runtime.

The policy is ``policies/FIN203-spot-max-wait-invalid.yaml``; this module holds its facts and
its price."""

from __future__ import annotations

from typing import Any

from finlint.engine.facts import Evidence, effective_max_runtime_s
from finlint.ir import Record, TrainingJob, is_unknown
from finlint.rules.base import Rule


def spot_max_wait_problem(record: Record) -> Any:
    """Why a managed-spot job's MaxWait makes the request invalid, as Evidence; None when it is fine.

    The API requires ``MaxWaitTimeInSeconds`` for managed spot and ``MaxWait >= MaxRuntime``
    (the runtime in force: explicit, else the launcher's default).
    """
    if not isinstance(record, TrainingJob) or record.spot is not True:
        return record.spot if isinstance(record, TrainingJob) and is_unknown(record.spot) else None
    wait = record.max_wait_s
    spot_line = record.line_of("spot")
    if wait is None:
        return Evidence("sets no max wait (MaxWaitTimeInSeconds is required for managed spot)", spot_line)
    if not isinstance(wait, int):
        return wait
    runtime = effective_max_runtime_s(record)
    if runtime is None or is_unknown(runtime):
        return runtime
    if wait < int(runtime):
        how = "MaxRuntimeInSeconds" if record.max_runtime_s is not None else "the default max runtime"
        return Evidence(
            f"sets a max wait of {wait:,} s, below {how} of {int(runtime):,} s "
            "(MaxWaitTimeInSeconds must be at least MaxRuntimeInSeconds)",
            record.line_of("max_wait_s") or spot_line,
        )
    return None


RULE = Rule("FIN203", facts=(spot_max_wait_problem,), cost_model=None, price=None)
