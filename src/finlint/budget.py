"""``--max-monthly-usd``: the budget check every report states (issue 10).

A budget is a finite, non-negative number of dollars per month; the check compares it with the
active findings' avoidable spend (savings + expected waste, :mod:`finlint.cost.totals`; for
``finlint diff``: the new findings'); exposures are conditional and never gated on. When it is
exceeded the run exits 1, and every format says why: a text line, ``summary.budget`` in JSON,
a SARIF tool notification, a line in the Markdown comment, a GitHub error annotation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


def parse_budget(value: Any) -> float:
    """A budget in dollars per month; ``ValueError`` for nan, infinities, negatives and non-numbers."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number of dollars, got {value!r}")
    amount = float(value)
    if not math.isfinite(amount) or amount < 0:
        raise ValueError(f"expected a finite, non-negative number of dollars per month, got {value!r}")
    return amount


@dataclass(frozen=True)
class BudgetStatus:
    """The active findings' monthly total against ``--max-monthly-usd``."""

    limit: float
    total: float

    @property
    def exceeded(self) -> bool:
        return self.total > self.limit

    def message(self) -> str:
        if self.exceeded:
            return (
                f"monthly budget exceeded: the findings' avoidable spend ${self.total:,.2f}/month "
                f"is above --max-monthly-usd ${self.limit:,.2f}"
            )
        return (
            f"within the monthly budget: avoidable ${self.total:,.2f}/month of ${self.limit:,.2f} "
            "(--max-monthly-usd)"
        )

    def to_json(self) -> dict[str, Any]:
        return {"max_monthly_usd": self.limit, "monthly_usd": round(self.total, 2), "exceeded": self.exceeded}


def budget_status(result: Any, context: Any) -> BudgetStatus | None:
    """The budget check of a run, or None when no ``--max-monthly-usd`` is set."""
    limit = getattr(context, "max_monthly_usd", None)
    if limit is None:
        return None
    return BudgetStatus(float(limit), float(result.monthly_usd()))
