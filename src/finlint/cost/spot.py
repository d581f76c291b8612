"""FIN201/FIN202 spot restarts: what interruptions cost a job that restarts from zero.

Interruptions are Poisson with job rate L = instances x per-instance rate; each one costs the
work since the last checkpoint plus a restart overhead R (re-acquire, start, reload). The expected
wall time to finish t hours of work that restarts from the beginning of the stretch is

    E(t) = (1/L + R) x (e^(L*t) - 1)

From zero, E0 = E(T); with a checkpoint every c hours, Ec = (T/c) x E(c). Billed time is capped
by MaxRuntime (never MaxWait, which also counts waiting for capacity). Expected waste:

    checkpointed  Wc = Ec - T                   when Ec <= cap, else cap x (1 - T/Ec)
    from zero     W0 = E0 - T                   when E0 <= cap (it finishes inside the cap),
                  W0 = P x cap                  else: the whole capped run is lost when at least one
                                                interruption hits, P = 1 - e^(-L*T) (1 when T > cap)
    per job  = max(0, W0 - Wc) x instances x spot price     (never above cap x instances x On-Demand)
    per run  = per job x jobs per run (a tuner's max_jobs);  per month = per run x runs_per_month

FIN202 (checkpoints synced from a local path the script may not write to) uses the same figure:
if the script writes elsewhere, SageMaker uploads nothing and every restart begins from zero.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from finlint.cost.bounds import expm1_sat
from finlint.cost.common import (
    CostContext,
    checked_cap,
    job_quote,
    jobs_per_run,
    num,
    price_note,
    quote_json,
    spot_rate,
    unpriced,
    usd,
)
from finlint.cost.usage import hourly_interruption_rate
from finlint.finding import Cost, Finding

KIND = "waste"  # expected: interruption probability x lost hours


def expected_hours(rate: float, work_h: float, restart_h: float = 0.0) -> float:
    """(1/L + R)(e^(L*t) - 1): expected wall time for t hours of work that restarts on interruption.

    Saturates to ``inf`` (never raises) when e^(L*t) is beyond a float.
    """
    if rate <= 0:
        return work_h
    grow = expm1_sat(rate * work_h)
    return math.inf if math.isinf(grow) else (1.0 / rate + restart_h) * grow


def expected_hours_from_zero(rate: float, work_h: float, restart_h: float = 0.0) -> float:
    """E0 = (1/L + R)(e^(L*T) - 1)."""
    return expected_hours(rate, work_h, restart_h)


def expected_hours_checkpointed(
    rate: float, work_h: float, interval_h: float, restart_h: float = 0.0
) -> float:
    """Ec = (T/c) x (1/L + R)(e^(L*c) - 1); E0 when the interval is not shorter than the work."""
    if interval_h >= work_h:
        return expected_hours(rate, work_h, restart_h)
    return (work_h / interval_h) * expected_hours(rate, interval_h, restart_h)


@dataclass(frozen=True)
class SpotWaste:
    """Expected wasted billed hours per job, from zero and checkpointed, and how each was reached."""

    e0: float
    ec: float
    w0: float
    wc: float
    lost_run: bool  # the from-zero run cannot finish inside its cap on average
    p_interrupted: float  # chance of at least one interruption in the T hours of work

    @property
    def extra_h(self) -> float:
        return max(0.0, self.w0 - self.wc)


def waste(rate: float, work_h: float, interval_h: float, restart_h: float, cap_h: float) -> SpotWaste:
    """The capped expected waste of a from-zero run and of a checkpointed one (see the module doc)."""
    e0 = expected_hours_from_zero(rate, work_h, restart_h)
    ec = expected_hours_checkpointed(rate, work_h, interval_h, restart_h)
    p = 1.0 if work_h > cap_h else -math.expm1(-rate * work_h)
    lost = e0 > cap_h
    w0 = p * cap_h if lost else e0 - work_h
    if interval_h >= work_h:  # no checkpoint falls inside the work: the same run, the same waste
        return SpotWaste(e0, ec, w0, w0, lost, p)
    wc = ec - work_h if ec <= cap_h else cap_h * (1.0 - work_h / ec if math.isfinite(ec) else 1.0)
    return SpotWaste(e0, ec, w0, wc, lost, p)


def hours(x: float) -> str:
    """Hours for a basis: ``24.8870 h``; beyond a million hours, say so instead of printing 1e30."""
    return f"{x:.4f} h" if x < 1e6 else "more than 1,000,000 h"


def price(finding: Finding, ctx: CostContext) -> Cost:
    return _price(finding, ctx, local_path=False)


def price_local_path(finding: Finding, ctx: CostContext) -> Cost:
    return _price(finding, ctx, local_path=True)


def _price(finding: Finding, ctx: CostContext, local_path: bool) -> Cost:
    got = job_quote(finding, ctx, KIND)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        return unpriced(KIND, cap_why)

    expected = params.get("expected_runtime_hours")
    if expected is not None:
        work_h, work_how = float(expected), "expected runtime (usage)"
    else:
        work_h, work_how = cap_h, "no expected_runtime_hours: the job is assumed to run to its cap"

    per_instance, rate_how = hourly_interruption_rate(params)
    rate = n * per_instance
    interval_h = float(params.get("checkpoint_interval_minutes", 15)) / 60.0
    restart_h = float(params.get("restart_overhead_minutes", 10)) / 60.0
    spot_hourly, discount = spot_rate(quote.usd, params)

    w = waste(rate, work_h, interval_h, restart_h, cap_h)
    ceiling = cap_h * n * quote.usd  # the capped run at On-Demand: nothing can bill more
    per_job = min(w.extra_h * n * spot_hourly, ceiling)
    jobs, jobs_how = jobs_per_run(job)
    per_run = per_job * jobs
    runs = float(params.get("runs_per_month", 1))
    monthly = per_run * runs

    lead = (
        "If the script writes checkpoints outside the synced local path, restarts begin from zero. "
        if local_path
        else "Without checkpoints a spot interruption restarts the job from zero. "
    )
    if w.lost_run:
        why = "T exceeds the cap" if work_h > cap_h else f"E0 {hours(w.e0)} > cap"
        zero_text = (
            f"From zero: E0 = (1/L + R)(e^(L*T) - 1) = {hours(w.e0)}: the run cannot finish inside its "
            f"{num(round(cap_h, 4))} h cap ({why}), so the whole capped run is lost when at least one "
            f"interruption hits: P = {'1' if work_h > cap_h else '1 - e^(-L*T)'} = {w.p_interrupted:.4f}, "
            f"waste W0 = P x cap = {hours(w.w0)}"
        )
    else:
        zero_text = (
            f"From zero: E0 = (1/L + R)(e^(L*T) - 1) = {hours(w.e0)} "
            f"(inside the {num(round(cap_h, 4))} h cap), "
            f"waste W0 = E0 - T = {hours(w.w0)}"
        )
    ck_fits = w.ec <= cap_h
    ck_text = (
        f"checkpoint every {num(interval_h * 60)} min: Ec = (T/c)(1/L + R)(e^(L*c) - 1) = {hours(w.ec)}, "
        + (
            f"waste Wc = Ec - T = {hours(w.wc)}"
            if ck_fits
            else f"past the cap, waste Wc = cap x (1 - T/Ec) = {hours(w.wc)}"
        )
    )
    if interval_h >= work_h:
        ck_text = (
            f"a checkpoint every {num(interval_h * 60)} min never falls inside {num(round(work_h, 4))} h "
            "of work, so checkpoints would save nothing here"
        )
    elif not ck_fits and w.wc > 0.99 * cap_h:
        ck_text += " (at this interruption rate the checkpointed run makes almost no progress either)"
    jobs_text = f" x {jobs_how} = {usd(per_run)} per run" if jobs > 1 else ""
    capped = " (capped at the run's On-Demand cost)" if per_job >= ceiling and w.extra_h > 0 else ""
    basis = (
        f"{lead}Interruption rate L = {n} instance(s) x {rate_how} = {rate:.6g}/h; restart overhead "
        f"R = {num(restart_h * 60)} min per interruption; work T = {num(round(work_h, 4))} h ({work_how}); "
        f"billed time capped by MaxRuntime, {num(round(cap_h, 4))} h ({cap_how}). {zero_text}; {ck_text}. "
        f"Extra {hours(w.extra_h)} x {n} instance(s) x spot {usd(spot_hourly, exact=True)}/h "
        f"({itype} {quote.rate()} x (1 - {num(discount)} spot discount)) = {usd(per_job)} per job{capped}"
        f"{jobs_text}; x {num(runs)} run(s) per month = {usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "on_demand_hourly_usd": quote.usd,
        "spot_discount": discount,
        "spot_hourly_usd": spot_hourly,
        "instances": n,
        "interruptions_per_instance_hour": per_instance,
        "job_interruption_rate_per_hour": rate,
        "restart_overhead_hours": restart_h,
        "work_hours": work_h,
        "checkpoint_interval_minutes": interval_h * 60,
        "cap_hours": cap_h,
        "expected_hours_from_zero": w.e0,
        "expected_hours_checkpointed": w.ec,
        "waste_hours_from_zero": w.w0,
        "waste_hours_checkpointed": w.wc,
        "lost_run": w.lost_run,
        "p_at_least_one_interruption": w.p_interrupted,
        "extra_hours_per_job": w.extra_h,
        "jobs_per_run": jobs,
        "runs_per_month": runs,
        "ceiling_per_job_usd": ceiling,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    if local_path:
        # conditional on the script writing outside the synced path, which the scan cannot see:
        # what it loses if it does, not an expected loss
        assumptions["condition"] = "the training script writes checkpoints outside the synced local path"
        return Cost(monthly, per_run, "exposure", basis, assumptions)
    return Cost(monthly, per_run, KIND, basis, assumptions)
