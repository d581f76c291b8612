"""Pricing a finding whose record holds alternatives (a value set differently on each branch).

A rule fires on alternatives only when it holds for every option, so every combination of the
options is a run the finding is about. The figure is the **cheapest** combination's: a lower
bound, said so in the basis (combinations are taken independently, so some may never run
together, which can only lower the minimum). When any combination cannot be priced, or there are
too many, the finding is not priced: never a figure for a branch that may not run.

A finding that holds on some branches only (:class:`~finlint.domain.branches.OnBranches`: spot
on one branch, no checkpoint on any) is priced on those branches: :func:`on_branches` first.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any, Callable

from finlint.cost.common import brief_text
from finlint.domain.branches import OnBranches
from finlint.finding import Cost, Finding
from finlint.ir import Alternatives

#: More combinations than this are not priced (each is one run of the cost model).
MAX_COMBINATIONS = 16

Pricer = Callable[[Finding], Cost]


def on_branches(finding: Finding) -> Finding:
    """The finding with its record restricted to the branches it holds on (one value: that
    value; several: alternatives of them); unchanged when it holds on every branch."""
    record = finding.record
    restricted: dict[str, object] = {}
    for branch in finding.evidence:
        if isinstance(branch, OnBranches) and branch.options:
            options = branch.options
            restricted[branch.field] = (
                options[0] if len(options) == 1 else Alternatives(branch.reason, options)
            )
    if record is None or not restricted:
        return finding
    return replace(finding, record=record.with_changes(**restricted))


def price_alternatives(finding: Finding, price: Pricer) -> Cost | None:
    """The lower-bound cost over the record's alternatives; None when it holds none."""
    record = finding.record
    if record is None:
        return None
    # the record's fields (``vars``: a fifth of ``attributes()``'s cost, paid for every finding)
    fields = {k: v for k, v in vars(record).items() if isinstance(v, Alternatives)}
    if not fields:
        return None
    shown = "; ".join(f"{name} {value.shown()}" for name, value in fields.items())
    product = itertools.product(*(v.options for v in fields.values()))
    combos = list(itertools.islice(product, MAX_COMBINATIONS + 1))
    kind = "exposure"
    if len(combos) > MAX_COMBINATIONS:
        reason = f"depends on which branch runs ({shown}): more than {MAX_COMBINATIONS} combinations"
        return Cost(None, None, kind, f"Not priced: {reason}.", {}, reason=reason)
    priced: list[tuple[Cost, dict[str, Any]]] = []
    for combo in combos:
        chosen = dict(zip(fields, combo, strict=True))
        cost = price(replace(finding, record=record.with_changes(**chosen)))
        kind = cost.kind
        if cost.monthly_usd is None:
            which = ", ".join(f"{k} {v!r}" for k, v in chosen.items())
            reason = f"depends on which branch runs ({shown}); with {which}: {cost.reason or 'not priced'}"
            return Cost(None, None, kind, f"Not priced: {reason}.", {}, reason=reason)
        priced.append((cost, chosen))
    figures = {(c.monthly_usd, c.per_run_usd) for c, _ in priced}
    if len(figures) == 1:  # the alternatives do not change the figure
        return priced[0][0]
    cheapest, chosen = min(priced, key=lambda item: (item[0].monthly_usd or 0.0, item[0].per_run_usd or 0.0))
    which = ", ".join(f"{k} {v!r}" for k, v in chosen.items())
    basis = (
        f"Lower bound: the cheapest of {len(priced)} alternatives ({shown}), priced with {which}; "
        f"another branch may cost more. {cheapest.basis}"
    )
    assumptions = {
        **cheapest.assumptions,
        "lower_bound": True,
        "alternatives": {k: list(v.options) for k, v in fields.items()},
        "priced_alternative": chosen,
    }
    return Cost(
        cheapest.monthly_usd,
        cheapest.per_run_usd,
        cheapest.kind,
        basis,
        assumptions,
        counted_once=cheapest.counted_once,
        brief=brief_text(f"at least (cheapest branch): {cheapest.brief}"),
    )
