"""Cost calculator: a dollar figure with its basis on every finding that can be priced.

The scan calls :func:`price_findings` after the rules ran; each policy names its cost model
(``cost_model``), and that rule module's ``price`` sets ``finding.cost``. Nothing here touches the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable, Iterable

from finlint.cost.alternatives import on_branches, price_alternatives
from finlint.cost.bounds import finite_cost
from finlint.cost.common import CostContext, CostSettings, brief_text, per_launch_note, unpriced_brief
from finlint.cost.pricing import PricingError
from finlint.cost.usage import UsageFileError
from finlint.finding import Cost, CountedOnce, Finding
from finlint.ir import Notice, Record

ModelFn = Callable[[Finding, CostContext], Cost]


def price_findings(
    findings: Iterable[Finding],
    records: Iterable[Record],
    settings: Any,
    models: Mapping[str, ModelFn],
) -> list[Notice]:
    """Set ``finding.cost`` for every finding whose policy names a cost model.

    ``models``: cost model name -> price function (the rule modules', from
    :attr:`finlint.rules.Registry.cost_models`; this package imports no rule code).

    ``settings``: a :class:`CostSettings`, a mapping or any object with ``region``,
    ``pricing_file`` and ``usage_file`` attributes. Raises :class:`UsageFileError` /
    :class:`PricingError` for a bad usage or pricing file or a region without prices (the CLI
    exits 2). Returns the run's notices: one naming the prices that fell back to another region.
    """
    ctx = CostContext.build(settings, list(records))
    for f in findings:
        if not f.cost_model:
            continue
        model = models.get(f.cost_model)
        if model is None:
            f.cost = Cost(None, None, "exposure", "", {}, reason=f"unknown cost model {f.cost_model!r}")
            continue
        f.cost = _total(model, f, ctx)
        _per_launch(f)
        if f.cost.monthly_usd is None and f.cost.reason:  # every unpriced figure says why, briefly
            f.cost.brief = unpriced_brief(f.cost.reason)
    _count_storage_once(findings)
    where = str(ctx.pricing_file) if ctx.pricing_file else "finlint:pricing"
    return [Notice(where, 1, f"cost: {text}") for text in ctx.notices()]


def _total(model: ModelFn, finding: Finding, ctx: CostContext) -> Cost:
    """Every model is total: an arithmetic blow-up or an absurd figure is 'not priced', with why.
    A record with alternatives is priced at its cheapest alternative (a lower bound, said so)."""
    finding = on_branches(finding)  # a finding on some branches only: priced on those
    cost = price_alternatives(finding, lambda variant: _one(model, variant, ctx))
    return cost if cost is not None else _one(model, finding, ctx)


def _per_launch(finding: Finding) -> None:
    """A job-counting figure (its model multiplied by ``jobs_per_run``) for a launch in a loop of
    unknown trip count is per launch: the basis says so. Stuck-run figures are per job anyway."""
    cost = finding.cost
    if cost is None or cost.monthly_usd is None or "jobs_per_run" not in cost.assumptions:
        return
    note = per_launch_note(finding.record)
    if note:
        cost.basis += note
        cost.brief = brief_text(f"per launch (loop count unknown): {cost.brief}")
        cost.assumptions["launches"] = "unknown"


def _one(model: ModelFn, finding: Finding, ctx: CostContext) -> Cost:
    try:
        cost = model(finding, ctx)
    except (OverflowError, ZeroDivisionError, ValueError) as exc:
        reason = f"the inputs are out of range for the {finding.cost_model} model ({exc})"
        return Cost(None, None, "exposure", f"Not priced: {reason}.", {}, reason=reason)
    return finite_cost(cost)


def _count_storage_once(findings: Iterable[Finding]) -> None:
    """A PVC and the workload that mounts it describe one EFS bill: count it once, on the first.

    The other findings keep their basis, with a zero monthly figure that says where it is counted,
    so the total is not inflated.
    """
    counted: dict[CountedOnce, Finding] = {}
    for f in sorted(findings, key=lambda f: (f.file, f.line)):
        cost = f.cost
        if cost is None or cost.monthly_usd is None or not f.active:
            continue
        # one EFS bill seen through a claim and the workload that mounts it (rules of different
        # kinds on one resource are de-duplicated by finlint.cost.totals instead)
        key = cost.counted_once
        if key is None:
            continue
        # the first finding counts it, unless a later one is on the resource the bill belongs to
        if key not in counted or (counted[key].resource != key.resource and f.resource == key.resource):
            if key in counted:
                _zero(counted[key], f)
            counted[key] = f
        else:
            _zero(f, counted[key])


def _zero(finding: Finding, owner: Finding) -> None:
    cost = finding.cost
    assert cost is not None
    cost.assumptions["counted_in"] = owner.resource
    cost.basis += f" Counted once, in the finding for {owner.resource}: $0.00/month here."
    cost.brief = brief_text(f"$0 here: the same bill is counted once, on {owner.resource}")
    cost.monthly_usd = 0.0


def total_monthly_usd(findings: Iterable[Finding]) -> float:
    """The sum of active (not suppressed, not baselined) findings' monthly dollars."""
    return sum(f.cost.monthly_usd for f in findings if f.active and f.cost and f.cost.monthly_usd is not None)


__all__ = [
    "CostContext",
    "CostSettings",
    "PricingError",
    "UsageFileError",
    "price_findings",
    "total_monthly_usd",
]
