"""Cost models of the training-job rules FIN102, FIN204, FIN501 and FIN502.

    excess-runtime (FIN102, risk)      per run = hourly x instances x (cap h - guard h)
                                       what a stuck run bills beyond the guard the rule asks for
                                       (FIN102's gpu_max_runtime_s, 7 days); x stuck_runs_per_month
    multi-node-spot (FIN204, risk)     per job = Wc x instances x spot hourly, Wc = the expected
                                       wall-clock overhead of a checkpointed spot run (spot.py's
                                       Poisson model, the field-calibrated +35 % for 8 nodes);
                                       x jobs per run x runs_per_month. The restart-from-zero extra
                                       of a job without checkpoints is FIN201's, not counted here.
    warm-pool (FIN501, waste)          per run = hourly x instances x keep-alive h (the pool bills
                                       wall-clock until a matching job claims it or the period ends);
                                       x jobs per run x runs_per_month
    trainium (FIN502, savings)         per run = hourly x instances x hours x trainium_saving
                                       (field figure: 40 % lower cost per token on Trainium than A100);
                                       hours = expected_runtime_hours, else the cap; x runs_per_month

All prices are the snapshot's On-Demand figures; a figure never exceeds the capped run at
On-Demand prices (bounds.finite_cost and the explicit ceilings below).
"""

from __future__ import annotations

from finlint.cost.common import (
    CostContext,
    checked_cap,
    job_quote,
    jobs_per_run,
    num,
    price_note,
    quote_json,
    runs_per_month,
    spot_rate,
    unpriced,
    usd,
)
from finlint.cost.spot import hours, waste
from finlint.cost.usage import hourly_interruption_rate
from finlint.finding import Cost, Finding

#: FIN502's field figure: Trainium's cost per token of training throughput vs A100 (field guide).
TRAINIUM_SAVING = 0.40


def price_excess_runtime(finding: Finding, ctx: CostContext) -> Cost:
    kind = "risk"
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
    return Cost(monthly, per_run, kind, basis, assumptions)


def price_multi_node_spot(finding: Finding, ctx: CostContext) -> Cost:
    kind = "risk"
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        return unpriced(kind, cap_why)
    expected = params.get("expected_runtime_hours")
    work_h = float(expected) if expected is not None else cap_h
    work_how = "expected runtime (usage)" if expected is not None else "the job is assumed to run to its cap"
    per_instance, rate_how = hourly_interruption_rate(params)
    rate = n * per_instance
    interval_h = float(params.get("checkpoint_interval_minutes", 15)) / 60.0
    restart_h = float(params.get("restart_overhead_minutes", 10)) / 60.0
    spot_hourly, discount = spot_rate(quote.usd, params)
    w = waste(rate, work_h, interval_h, restart_h, cap_h)
    overhead = w.ec / work_h - 1.0 if work_h > 0 else 0.0
    billed = (
        f"billed overhead Wc = Ec - T = {hours(w.wc)}"
        if w.ec <= cap_h
        else f"past the {num(round(cap_h, 4))} h cap, billed overhead Wc = cap x (1 - T/Ec) = {hours(w.wc)}"
    )
    ceiling = cap_h * n * quote.usd
    per_job = min(w.wc * n * spot_hourly, ceiling)
    jobs, jobs_how = jobs_per_run(job)
    per_run = per_job * jobs
    runs = float(params.get("runs_per_month", 1))
    monthly = per_run * runs
    jobs_text = f" x {jobs_how} = {usd(per_run)} per run" if jobs > 1 else ""
    basis = (
        f"Synchronous training stalls every instance on any interruption. Interruption rate L = {n} "
        f"instance(s) x {rate_how} = {rate:.6g}/h; restart overhead R = {num(restart_h * 60)} min; work "
        f"T = {num(round(work_h, 4))} h ({work_how}); even with a checkpoint every "
        f"{num(interval_h * 60)} min, "
        f"Ec = (T/c)(1/L + R)(e^(L*c) - 1) = {hours(w.ec)} (+{overhead * 100:.1f} % wall-clock), "
        f"{billed} x {n} instance(s) x spot {usd(spot_hourly, exact=True)}/h "
        f"({itype} {quote.rate()} x (1 - {num(discount)} spot discount)) = {usd(per_job)} per job"
        f"{jobs_text}; "
        f"x {num(runs)} run(s) per month = {usd(monthly)}/month. Without checkpoints the restart-from-zero "
        f"extra is FIN201's figure, not counted here. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "on_demand_hourly_usd": quote.usd,
        "spot_hourly_usd": spot_hourly,
        "spot_discount": discount,
        "instances": n,
        "job_interruption_rate_per_hour": rate,
        "checkpoint_interval_minutes": interval_h * 60,
        "restart_overhead_hours": restart_h,
        "work_hours": work_h,
        "cap_hours": cap_h,
        "expected_hours_checkpointed": w.ec,
        "overhead_hours": w.wc,
        "wall_clock_overhead_share": overhead,
        "jobs_per_run": jobs,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    return Cost(monthly, per_run, kind, basis, assumptions)


def price_warm_pool(finding: Finding, ctx: CostContext) -> Cost:
    kind = "waste"
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    keep = job.keep_alive_s
    if not isinstance(keep, int) or isinstance(keep, bool) or keep <= 0:
        return unpriced(kind, "keep-alive period unknown")
    keep_h = min(float(keep), 3600.0) / 3600.0  # the API's range is 0-3,600 s
    per_job = quote.usd * n * keep_h
    jobs, jobs_how = jobs_per_run(job)
    per_run = per_job * jobs
    runs, runs_how = runs_per_month(job, params)
    monthly = per_job * runs
    basis = (
        f"A warm pool bills its instances wall-clock for the keep-alive period after each job unless a "
        f"matching job claims it: {itype} {quote.rate()} x {n} instance(s) x {num(keep)} s "
        f"({num(round(keep_h, 4))} h) = {usd(per_job)} per job"
        + (f" x {jobs_how} = {usd(per_run)} per run" if jobs > 1 else "")
        + f"; x {runs_how} = {usd(monthly)}/month (an upper bound: a job that reuses the pool in time "
        f"pays for the idle minutes only). {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "instances": n,
        "keep_alive_hours": keep_h,
        "jobs_per_run": jobs,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    return Cost(monthly, per_run, kind, basis, assumptions)


def price_trainium(finding: Finding, ctx: CostContext) -> Cost:
    kind = "savings"
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        return unpriced(kind, cap_why)
    expected = params.get("expected_runtime_hours")
    run_h = min(float(expected), cap_h) if expected is not None else cap_h
    run_how = (
        "expected runtime (usage)" if expected is not None else f"the {cap_how}: a sustained job runs to it"
    )
    saving = float(finding.params.get("trainium_saving", TRAINIUM_SAVING))
    if not 0.0 <= saving <= 1.0:
        return unpriced(kind, f"trainium_saving {saving} is not a share between 0 and 1")
    per_job = quote.usd * n * run_h * saving
    jobs, jobs_how = jobs_per_run(job)
    per_run = per_job * jobs
    runs, runs_how = runs_per_month(job, params)
    monthly = per_job * runs
    trn = ctx.pricing_for(params).hourly("ml.trn1.32xlarge" if itype.startswith("ml.") else "trn1.32xlarge")
    trn_text = (
        f" For reference, {trn.key} lists {trn.rate()}: the saving is per token, not per hour." if trn else ""
    )
    basis = (
        f"{itype} {quote.rate()} x {n} instance(s) x {num(round(run_h, 4))} h ({run_how}) = "
        f"{usd(quote.usd * n * run_h)} per job on NVIDIA; Trainium trains the same tokens for "
        f"{num(saving * 100)} % less (field figure: cost per token 40 % below A100, '40-50 % less than "
        f"comparable NVIDIA offerings'): {usd(per_job)} per job"
        + (f" x {jobs_how} = {usd(per_run)} per run" if jobs > 1 else "")
        + f"; x {runs_how} = {usd(monthly)}/month, when the model is supported by the Neuron SDK."
        f"{trn_text} {price_note(quote, trn)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "instances": n,
        "run_hours": run_h,
        "trainium_saving": saving,
        "jobs_per_run": jobs,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote, trn),
    }
    return Cost(monthly, per_run, kind, basis, assumptions)
