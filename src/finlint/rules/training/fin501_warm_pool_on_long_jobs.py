"""FIN501 warm-pool-on-long-jobs: A SageMaker warm pool (keep-alive period) on jobs that run for
hours.

The policy is ``policies/FIN501-warm-pool-on-long-jobs.yaml``; this module holds its facts and
its price.

Price (warm-pool, waste): per run = hourly x instances x keep-alive h (the pool bills
wall-clock until a matching job claims it or the period ends); x jobs per run x runs_per_month.
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
    runs_per_month,
    unpriced,
    usd,
    warm_pool_hours,
)
from finlint.finding import Cost, Finding
from finlint.rules.base import Rule


def price_warm_pool(finding: Finding, ctx: CostContext) -> Cost:
    kind = "waste"
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    keep_h = warm_pool_hours(job)  # the API's range is 0-3,600 s
    if keep_h is None:
        return unpriced(kind, "keep-alive period unknown")
    per_job = quote.usd * n * keep_h
    jobs, jobs_how = jobs_per_run(job)
    per_run = per_job * jobs
    runs, runs_how = runs_per_month(job, params)
    monthly = per_job * runs
    basis = (
        f"A warm pool bills its instances wall-clock for the keep-alive period after each job unless a "
        f"matching job claims it: {itype} {quote.rate()} x {n} instance(s) x {num(keep_h * 3600)} s "
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
    brief = brief_text(
        f"up to {num(round(keep_h * 60, 2))} min warm after each job: {n} x {itype} at {quote.rate()}"
        + (f", {jobs} jobs per run" if jobs > 1 else "")
    )
    return Cost(monthly, per_run, kind, basis, assumptions, brief=brief)


RULE = Rule("FIN501", facts=(), cost_model="warm-pool", price=price_warm_pool)
