"""Every cost model is total: inputs are bounded, formulas saturate, figures are finite.

A value far beyond anything AWS sells (``instance_count = 1e308``, ``min_size = 4e9``, a
200-year runtime cap) is a typo or a placeholder, not a fleet: it is *unknown*, with the reason,
never multiplied into a figure. Formulas that can overflow (``e^(L*T)``) saturate to ``inf`` and
the model treats that as "beyond the cap". A figure that still comes out non-finite or absurd is
turned into "not priced" with the reason by :func:`finite_cost`, the last guard before a report.
"""

from __future__ import annotations

import math
from typing import Any

from finlint.finding import Cost

#: More instances than any single job or pool can have: SageMaker training jobs and node groups
#: are limited by account quotas in the hundreds to low thousands; 100,000 leaves ample room.
MAX_INSTANCES = 100_000
#: SageMaker's MaxRuntimeInSeconds maximum: 28 days (AWS API reference, StoppingCondition).
MAX_RUNTIME_S = 28 * 24 * 3600
#: 100 PB: far beyond any single EFS / FSx checkpoint volume.
MAX_GB = 1e8
#: A monthly figure above this is a modelling error, not a bill (a trillion dollars).
MAX_USD = 1e12
#: math.expm1 overflows just above 709.78; e^700 is already ~1e304 hours.
MAX_EXPONENT = 700.0


def expm1_sat(x: float) -> float:
    """e^x - 1 that saturates to ``inf`` instead of raising OverflowError."""
    if not math.isfinite(x) or x > MAX_EXPONENT:
        return math.inf
    return math.expm1(x)


def count(value: Any, what: str, limit: int = MAX_INSTANCES) -> tuple[int | None, str | None]:
    """A count (instances, nodes, jobs) within 0..limit, else None and the reason."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"{what} unresolved"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{what} is not a finite number ({value!r})"
    if value < 0:
        return None, f"{what} is negative ({value!r})"
    if value > limit:
        return None, f"{what} {_big(value)} is beyond any AWS quota (over {limit:,}); treated as unknown"
    return int(value), None


def quantity(value: Any, what: str, limit: float = MAX_GB) -> tuple[float | None, str | None]:
    """A non-negative finite quantity (GB, hours, MiB/s) within limit, else None and the reason."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"{what} unresolved"
    if isinstance(value, float) and not math.isfinite(value):
        return None, f"{what} is not a finite number"
    if value < 0:
        return None, f"{what} is negative ({value!r})"
    if value > limit:
        over = f"over {limit:,.0f}"
        return None, f"{what} {_big(value)} is beyond any plausible size ({over}); treated as unknown"
    return float(value), None


def _big(value: Any) -> str:
    try:
        v = float(value)
    except OverflowError:
        return "(a number with more than 300 digits)"
    return f"{v:,.0f}" if v < 1e15 else f"{v:.3g}"


def finite_cost(cost: Cost) -> Cost:
    """The cost unchanged when its figures are finite and plausible, else 'not priced' with why."""
    for name in ("monthly_usd", "per_run_usd"):
        v = getattr(cost, name)
        if v is None:
            continue
        if not math.isfinite(v) or v < 0:
            return _unknown(cost, f"the {name.replace('_usd', '')} figure is not a finite amount")
        if v > MAX_USD:
            what = name.replace("_usd", "")
            return _unknown(cost, f"the {what} figure exceeds $1 trillion: an input is absurd")
    return cost


def _unknown(cost: Cost, reason: str) -> Cost:
    return Cost(None, None, cost.kind, f"Not priced: {reason}.", {}, reason=reason)
