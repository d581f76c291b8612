"""The spot interruption model every spot figure shares: FIN201/FIN202 (restart from zero), FIN204
(multi-node overhead with checkpoints) and ``finlint cost`` (the interruption probability it prints).

**Rate.** Interruptions are Poisson. The default per-instance rate is the Spot Instance Advisor band
read literally: the band is the share ``s`` of Spot capacity AWS reclaimed over the trailing month
(pricing.md §4a, S16/S17), so an instance that runs all month is interrupted at the hazard

    lambda = -ln(1 - s) / 730 h         ('>20%' read as s = 25 %: 0.000394 per instance-hour)

which a reviewer can trace to the published band definition. A single g5 in the '>20%' band then has
a 0.94 % chance of an interruption over 24 h. The field guide's multi-node case (8 nodes, 15-minute
checkpoints, +35 % wall-clock) implies a far higher rate, 0.133 per instance-hour with R = 10 min
(:data:`GUIDE_CASE_RATE`, solved from that +35 %): one data point, so it is a test under its own
stated assumptions and a value to put in ``spot_interruption_rate``, never the default.

**Waste.** The job rate is L = instances x lambda; each interruption costs the work since the last
checkpoint plus a restart overhead R (re-acquire, start, reload). The expected wall time to finish
t hours of work that restarts from the beginning of the stretch is

    E(t) = (1/L + R) x (e^(L*t) - 1)

From zero, E0 = E(T); with a checkpoint every c hours, Ec = (T/c) x E(c). Billed time is capped
by MaxRuntime (never MaxWait, which also counts waiting for capacity). Expected waste:

    checkpointed  Wc = Ec - T                   when Ec <= cap, else cap x (1 - T/Ec)
    from zero     W0 = E0 - T                   when E0 <= cap (it finishes inside the cap),
                  W0 = P x cap                  else: the whole capped run is lost when at least one
                                                interruption hits, P = 1 - e^(-L*T) (1 when T > cap)
    per job  = max(0, W0 - Wc) x instances x spot price     (never above cap x instances x On-Demand)
    per run  = per job x jobs per run (a tuner's max_jobs);  per month = per run x runs_per_month

FIN202 (checkpoints synced from a local path the script may not write to) uses the same expected
figure, as an exposure: if the script writes elsewhere, SageMaker uploads nothing and every restart
begins from zero. Every basis prints P, the chance of at least one interruption over the run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from finlint.cost.bounds import expm1_sat
from finlint.cost.common import (
    CostContext,
    brief_text,
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
from finlint.cost.usage import DEFAULT_SPOT_BAND, HOURS_PER_MONTH, SPOT_BANDS
from finlint.finding import Cost, Finding
from finlint.ir import TrainingJob

KIND = "waste"  # expected: interruption probability x lost hours
#: the per-instance rate the field guide's 8-node, 15-minute-checkpoint, +35 % case implies with
#: R = 10 min: (1/L + R)(e^(L*c) - 1)/c = 1.35 at L = 8 x 0.133/h, c = 0.25 h (a test, not a default)
GUIDE_CASE_RATE = 0.133
DEFAULT_RESTART_MINUTES = 10.0  # field guide: 10-minute cold starts for SageMaker jobs
DEFAULT_INTERVAL_MINUTES = 15.0  # field guide: checkpoints every 15 minutes


def band_rate(band: str) -> float:
    """Interruptions per instance-hour for a Spot Advisor band, read literally: -ln(1 - s)/730."""
    return -math.log(1.0 - SPOT_BANDS[band]) / HOURS_PER_MONTH


def interruption_rate(params: Mapping[str, Any]) -> tuple[float, str]:
    """Per-instance interruptions per hour, and how it was obtained (for the basis)."""
    rate = params.get("spot_interruption_rate")
    if rate is not None:
        return float(rate), f"{rate:g} per instance-hour (usage)"
    band = str(params.get("spot_interruption_band", DEFAULT_SPOT_BAND))
    share = SPOT_BANDS[band]
    return band_rate(band), (
        f"{band_rate(band):.3g} per instance-hour (Spot Advisor band '{band}' read literally: "
        f"-ln(1 - {share:g})/730 h)"
    )


def p_interrupted(rate: float, work_h: float) -> float:
    """The chance of at least one interruption in ``work_h`` hours at job rate ``rate``."""
    return -math.expm1(-rate * work_h) if rate > 0 else 0.0


def percent(p: float) -> str:
    """A probability for a terminal: ``7.3 %``, ``0.94 %``, ``100 %``."""
    pct = p * 100.0
    return f"{pct:.3g} %" if pct < 99.95 else "100 %"


@dataclass(frozen=True)
class SpotRun:
    """What every spot figure of one job shares: rates, overhead, interval, work and cap."""

    instances: int
    per_instance: float
    rate_how: str
    restart_h: float
    interval_h: float
    work_h: float
    work_how: str
    cap_h: float
    cap_how: str

    @property
    def rate(self) -> float:
        """L = instances x per-instance rate."""
        return self.instances * self.per_instance

    @property
    def p_run(self) -> float:
        """The chance of at least one interruption over the run's T hours of work."""
        return p_interrupted(self.rate, self.work_h)

    def p_text(self) -> str:
        """``P(interrupted in 48 h) = 7.29 %``."""
        return f"P(interrupted in {num(round(self.work_h, 2))} h) = {percent(self.p_run)}"


def spot_run(job: TrainingJob, instances: int, params: Mapping[str, Any]) -> SpotRun | str:
    """The shared inputs of a spot job, or why it has none (no runtime cap known)."""
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        return cap_why
    expected = params.get("expected_runtime_hours")
    if expected is not None:
        work_h, work_how = float(expected), "expected runtime (usage)"
    else:
        work_h, work_how = cap_h, "no expected_runtime_hours: the job is assumed to run to its cap"
    per_instance, rate_how = interruption_rate(params)
    return SpotRun(
        instances,
        per_instance,
        rate_how,
        float(params.get("restart_overhead_minutes", DEFAULT_RESTART_MINUTES)) / 60.0,
        float(params.get("checkpoint_interval_minutes", DEFAULT_INTERVAL_MINUTES)) / 60.0,
        work_h,
        work_how,
        cap_h,
        cap_how,
    )


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


def hours_short(x: float) -> str:
    """Hours for a brief: ``3.48 h``."""
    return f"{x:.3g} h" if x < 1e6 else "> 1e6 h"


def price(finding: Finding, ctx: CostContext) -> Cost:
    return _price(finding, ctx, local_path=False)


def price_local_path(finding: Finding, ctx: CostContext) -> Cost:
    return _price(finding, ctx, local_path=True)


def _price(finding: Finding, ctx: CostContext, local_path: bool) -> Cost:
    got = job_quote(finding, ctx, KIND)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    run = spot_run(job, n, params)
    if isinstance(run, str):
        return unpriced(KIND, run)
    cap_h, cap_how, work_h, work_how = run.cap_h, run.cap_how, run.work_h, run.work_how
    per_instance, rate_how, rate = run.per_instance, run.rate_how, run.rate
    interval_h, restart_h = run.interval_h, run.restart_h
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
        f"{lead}Interruption rate L = {n} instance(s) x {rate_how} = {rate:.6g}/h, so "
        f"{run.p_text()}; restart overhead "
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
        "p_interrupted_over_run": run.p_run,
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
    lost = f"a hit loses the {num(round(cap_h, 2))} h run" if w.lost_run else "a hit restarts it from zero"
    brief = brief_text(
        ("if it writes elsewhere: " if local_path else "")
        + f"{run.p_text()}, {lost}: {hours_short(w.extra_h)} x {n} x {itype} spot"
    )
    if local_path:
        # conditional on the script writing outside the synced path, which the scan cannot see:
        # what it loses if it does, not an expected loss
        assumptions["condition"] = "the training script writes checkpoints outside the synced local path"
        return Cost(monthly, per_run, "exposure", basis, assumptions, brief=brief)
    return Cost(monthly, per_run, KIND, basis, assumptions, brief=brief)
