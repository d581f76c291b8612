"""FIN101 runaway runtime: what a stuck job bills before its runtime cap stops it.

per run  = hourly price x instances x (cap hours - expected runtime hours, when the usage file gives one)
per month = per run x stuck runs per month (usage, default 1)
"""

from __future__ import annotations

from finlint.cost.common import (
    CostContext,
    cap_seconds,
    instance_count,
    known,
    num,
    price_note,
    quote_json,
    unpriced,
    usd,
)
from finlint.finding import Cost, Finding
from finlint.ir import TrainingJob

KIND = "risk"


def price(finding: Finding, ctx: CostContext) -> Cost:
    job = finding.record
    if not isinstance(job, TrainingJob):
        return unpriced(KIND, "runaway-runtime prices training jobs only")
    if not known(job.instance_type):
        return unpriced(KIND, "instance type unknown or unresolved")
    itype = str(job.instance_type)
    n = instance_count(job)
    if n is None:
        return unpriced(KIND, "instance count unresolved")
    cap_s, cap_how = cap_seconds(job)
    if cap_s is None:
        return unpriced(KIND, "no runtime cap applies (a request without StoppingCondition is invalid)")
    params = ctx.params(job)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)

    cap_h = cap_s / 3600.0
    expected = params.get("expected_runtime_hours")
    billed_h = max(0.0, cap_h - float(expected)) if expected is not None else cap_h
    per_run = quote.usd * n * billed_h
    stuck = float(params.get("stuck_runs_per_month", 1))
    monthly = per_run * stuck

    hours_text = f"{num(cap_h)} h cap"
    if expected is not None:
        hours_text = f"({num(cap_h)} h cap - {num(float(expected))} h expected runtime)"
    basis = (
        f"A stuck run bills until the {num(cap_h)} h cap stops it ({cap_how}, {num(cap_s)} s): "
        f"{itype} {quote.rate()} x {n} instance(s) x {hours_text} = {usd(per_run)} per run; "
        f"x {num(stuck)} stuck run(s) per month = {usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "instances": n,
        "cap_hours": cap_h,
        "cap_source": cap_how,
        "expected_runtime_hours": expected,
        "billed_hours_per_run": billed_h,
        "stuck_runs_per_month": stuck,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    return Cost(monthly, per_run, KIND, basis, assumptions)
