"""FIN201/FIN202 spot restarts: the expected extra billed time of restarting from zero.

Interruptions are Poisson with rate L = instances x per-instance rate. A job needing T hours of
uninterrupted work that restarts from zero takes E0 = (e^(L*T) - 1)/L hours on average; with a
checkpoint every c hours it takes Ec = (T/c) x (e^(L*c) - 1)/L. When the usage file gives the
expected runtime, both are capped by max wait (else the runtime cap); when T defaults to the
runtime cap, they are not (capping would end both runs together).
Per run = (min(E0, cap) - min(Ec, cap)) x instances x spot price, where spot price = On-Demand x
(1 - spot discount). Per month = per run x runs per month.

FIN202 (checkpoints synced from a local path the script may not write to) uses the same figure:
if the script writes elsewhere, SageMaker uploads nothing and every restart begins from zero.
"""

from __future__ import annotations

import math

from finlint.cost.common import (
    CostContext,
    cap_seconds,
    instance_count,
    known,
    num,
    price_note,
    quote_json,
    runs_per_month,
    unpriced,
    usd,
)
from finlint.cost.usage import hourly_interruption_rate
from finlint.finding import Cost, Finding
from finlint.ir import TrainingJob

KIND = "risk"


def expected_hours_from_zero(rate: float, work_h: float) -> float:
    """(e^(L*T) - 1)/L: expected wall time to finish T hours of work that restarts from zero."""
    return math.expm1(rate * work_h) / rate


def expected_hours_checkpointed(rate: float, work_h: float, interval_h: float) -> float:
    """(T/c) x (e^(L*c) - 1)/L: the same work resuming from a checkpoint every c hours."""
    return (work_h / interval_h) * math.expm1(rate * interval_h) / rate


def price(finding: Finding, ctx: CostContext) -> Cost:
    return _price(finding, ctx, local_path=False)


def price_local_path(finding: Finding, ctx: CostContext) -> Cost:
    return _price(finding, ctx, local_path=True)


def _price(finding: Finding, ctx: CostContext, local_path: bool) -> Cost:
    job = finding.record
    if not isinstance(job, TrainingJob):
        return unpriced(KIND, "spot-restart prices training jobs only")
    if not known(job.instance_type):
        return unpriced(KIND, "instance type unknown or unresolved")
    itype = str(job.instance_type)
    n = instance_count(job)
    if n is None or n < 1:
        return unpriced(KIND, "instance count unresolved")
    params = ctx.params(job)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)

    runtime_s, runtime_how = cap_seconds(job)
    expected = params.get("expected_runtime_hours")
    if expected is not None:
        work_h, work_how = float(expected), "expected runtime (usage)"
    elif runtime_s is not None:
        work_h, work_how = runtime_s / 3600.0, f"the job runs to its cap: {runtime_how}"
    else:
        return unpriced(KIND, "no expected runtime: set expected_runtime_hours in the usage file")
    if expected is None:
        # T is the cap itself: capping would end both runs together and hide the difference.
        cap_h, cap_how = math.inf, "uncapped because T is assumed to be the runtime cap"
    elif known(job.max_wait_s):
        cap_h, cap_how = int(job.max_wait_s) / 3600.0, "MaxWaitTimeInSeconds"  # type: ignore[arg-type]
    elif runtime_s is not None:
        cap_h, cap_how = runtime_s / 3600.0, "the runtime cap (no max wait known)"
    else:
        cap_h, cap_how = math.inf, "no cap known"

    per_instance, rate_how = hourly_interruption_rate(params)
    rate = n * per_instance
    interval_h = float(params.get("checkpoint_interval_minutes", 15)) / 60.0
    discount = float(params.get("spot_discount", 0.60))
    spot_hourly = quote.usd * (1.0 - discount)

    e0 = expected_hours_from_zero(rate, work_h)
    ec = expected_hours_checkpointed(rate, work_h, interval_h)
    b0, bc = min(e0, cap_h), min(ec, cap_h)
    extra_h = max(0.0, b0 - bc)
    per_run = extra_h * n * spot_hourly
    runs, runs_how = runs_per_month(job, params)
    monthly = per_run * runs

    cap_text = cap_how if math.isinf(cap_h) else f"capped at {num(round(cap_h, 4))} h ({cap_how})"
    over = " (exceeds the cap: the run likely ends unfinished)" if e0 > cap_h else ""
    lead = (
        "If the script writes checkpoints outside the synced local path, restarts begin from zero. "
        if local_path
        else "Without checkpoints a spot interruption restarts the job from zero. "
    )
    basis = (
        f"{lead}Interruption rate L = {n} instance(s) x {rate_how} = {rate:.6g}/h; work T = {num(work_h)} h "
        f"({work_how}). From zero: (e^(L*T) - 1)/L = {e0:.4f} h{over}; checkpoint every "
        f"{num(interval_h * 60)} min: (T/c)(e^(L*c) - 1)/L = {ec:.4f} h; {cap_text}. Extra "
        f"{extra_h:.4f} h x {n} instance(s) x spot {usd(spot_hourly, exact=True)}/h "
        f"({itype} {quote.rate()} x (1 - {num(discount)} spot discount)) = {usd(per_run)} per run; "
        f"x {runs_how} = {usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "on_demand_hourly_usd": quote.usd,
        "spot_discount": discount,
        "spot_hourly_usd": spot_hourly,
        "instances": n,
        "interruptions_per_instance_hour": per_instance,
        "job_interruption_rate_per_hour": rate,
        "work_hours": work_h,
        "checkpoint_interval_minutes": interval_h * 60,
        "cap_hours": None if math.isinf(cap_h) else cap_h,
        "expected_hours_from_zero": e0,
        "expected_hours_checkpointed": ec,
        "extra_hours_per_run": extra_h,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    if local_path:
        assumptions["condition"] = "the training script writes checkpoints outside the synced local path"
    return Cost(monthly, per_run, KIND, basis, assumptions)
