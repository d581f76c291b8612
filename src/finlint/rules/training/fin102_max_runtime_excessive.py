"""FIN102 max-runtime-excessive: A max runtime at or near the 28-day maximum, or over 7 days on
accelerated instances.

The policy is ``policies/FIN102-max-runtime-excessive.yaml``; this module holds its facts and
its price.

Price (excess-runtime, exposure): per run = hourly x instances x (cap h - guard h), what a stuck
run bills beyond the guard the rule asks for (the policy's gpu_max_runtime_s, 7 days);
x stuck_runs_per_month. Prices are the snapshot's On-Demand figures.
"""

from __future__ import annotations

from typing import Any

from finlint.cost.common import (
    CostContext,
    brief_text,
    checked_cap,
    job_quote,
    num,
    price_note,
    quote_json,
    spot_rate,
    unpriced,
    usd,
)
from finlint.engine.facts import exact
from finlint.finding import Cost, Finding
from finlint.ir import Record, TrainingJob, map_options
from finlint.rules.base import Rule


@exact
def max_runtime_days(record: Record) -> Any:
    """The explicit max runtime in days (for messages)."""
    if not isinstance(record, TrainingJob):
        return None
    return map_options(record.max_runtime_s, _days)


def _days(value: Any) -> Any:
    if not isinstance(value, int):
        return value
    return float(value) / 86400.0


def price_excess_runtime(finding: Finding, ctx: CostContext) -> Cost:
    kind = "exposure"
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        return unpriced(kind, cap_why)
    guard_h = float(finding.params["gpu_max_runtime_s"]) / 3600.0  # the policy's param, defined there once
    excess_h = max(0.0, cap_h - guard_h)
    hourly, rate_text = quote.usd, f"{itype} {quote.rate()}"
    discount = None
    if job.spot is True:
        hourly, discount = spot_rate(quote.usd, params)
        rate_text = (
            f"managed spot {usd(hourly, exact=True)}/h ({itype} {quote.rate()} x (1 - {num(discount)}))"
        )
    per_run = hourly * n * excess_h
    stuck = float(params.get("stuck_runs_per_month", 1))
    monthly = per_run * stuck
    basis = (
        f"A stuck run bills up to the {num(round(cap_h, 4))} h cap ({cap_how}); a {num(round(guard_h, 4))} h "
        f"guard would stop it {num(round(excess_h, 4))} h earlier: {rate_text} x {n} instance(s) x "
        f"{num(round(excess_h, 4))} h = {usd(per_run)} per stuck run; x {num(stuck)} stuck run(s) per month "
        f"= {usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "billed_hourly_usd": hourly,
        "spot_discount": discount,
        "instances": n,
        "cap_hours": cap_h,
        "guard_hours": guard_h,
        "excess_hours": excess_h,
        "stuck_runs_per_month": stuck,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    brief = brief_text(
        f"if a run gets stuck: {num(round(excess_h, 2))} h past the {num(round(guard_h, 2))} h guard x {n} x "
        f"{itype} at {usd(hourly, exact=True)}/h"
    )
    return Cost(monthly, per_run, kind, basis, assumptions, brief=brief)


RULE = Rule("FIN102", facts=(max_runtime_days,), cost_model="excess-runtime", price=price_excess_runtime)
