"""FIN204 multi-node-spot-sync-training: Managed spot training on more than one instance
(synchronous training stalls on any interruption).

The policy is ``policies/FIN204-multi-node-spot-sync-training.yaml``; this module holds its
facts and its price.

Price (multi-node-spot, waste): per job = Wc x instances x spot hourly, Wc = the expected
wall-clock overhead of a checkpointed spot run (``cost.spot``'s Poisson model at the Spot
Advisor band's rate; the field guide's +35 % for 8 nodes is reproduced at the rate it implies,
``spot.GUIDE_CASE_RATE``, set in the usage file); x jobs per run x runs_per_month. The
restart-from-zero extra of a job without checkpoints is FIN201's, not counted here.
"""

from __future__ import annotations

from finlint.cost.common import (
    CostContext,
    brief_text,
    job_quote,
    jobs_per_run,
    num,
    price_note,
    quote_json,
    spot_rate,
    unpriced,
    usd,
)
from finlint.cost.spot import hours, hours_short, spot_run, waste
from finlint.finding import Cost, Finding
from finlint.rules.base import Rule


def price_multi_node_spot(finding: Finding, ctx: CostContext) -> Cost:
    kind = "waste"  # the expected overhead of interruptions
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    run = spot_run(job, n, params)
    if isinstance(run, str):
        return unpriced(kind, run)
    cap_h, work_h, work_how = run.cap_h, run.work_h, run.work_how
    rate_how, rate, interval_h, restart_h = run.rate_how, run.rate, run.interval_h, run.restart_h
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
        f"instance(s) x {rate_how} = {rate:.6g}/h, so {run.p_text()}; restart overhead "
        f"R = {num(restart_h * 60)} min; work "
        f"T = {num(round(work_h, 4))} h ({work_how}); even with a checkpoint every "
        f"{num(interval_h * 60)} min, "
        f"Ec = (T/c)(1/L + R)(e^(L*c) - 1) = {hours(w.ec)} (+{overhead * 100:.3g} % wall-clock), "
        f"{billed} x {n} instance(s) x spot {usd(spot_hourly, exact=True)}/h "
        f"({itype} {quote.rate()} x (1 - {num(discount)} spot discount)) = {usd(per_job)} per job"
        f"{jobs_text}; "
        f"x {num(runs)} run(s) per month = {usd(monthly)}/month. Without checkpoints the restart-from-zero "
        f"extra is FIN201's figure, not counted here. {price_note(quote)}"
    )
    brief = brief_text(
        f"{run.p_text()} on {n} nodes: +{overhead * 100:.2g} % wall-clock with {num(interval_h * 60)}-min "
        f"checkpoints, {hours_short(w.wc)} x {n} x spot"
    )
    assumptions = {
        "instance_type": itype,
        "on_demand_hourly_usd": quote.usd,
        "spot_hourly_usd": spot_hourly,
        "spot_discount": discount,
        "instances": n,
        "job_interruption_rate_per_hour": rate,
        "p_interrupted_over_run": run.p_run,
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
    return Cost(monthly, per_run, kind, basis, assumptions, brief=brief)


RULE = Rule("FIN204", facts=(), cost_model="multi-node-spot", price=price_multi_node_spot)
