"""FIN301 oversized p5: the price difference to a named alternative for the hours the resource runs.

saving per p5 instance-hour = p5 price - alternative price x relative runtime
job:          x instances x runtime hours x runs per month (per run: without the runs)
notebook:     x hours in service per month (usage hours_per_month, default 730)
static pool:  x always-on nodes (min/desired size) x 730 h
elastic pool: x 730 h, "for each p5 node-month it may add" (Karpenter: the cheapest admitted p5-class type)
The alternative and the relative-runtime factor come from the policy params (or the usage file).
"""

from __future__ import annotations

from typing import Any, Mapping

from finlint import catalog
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
from finlint.cost.pricing import PriceQuote, Pricing
from finlint.finding import Cost, Finding
from finlint.ir import ComputePool, Notebook, TrainingJob

KIND = "savings"
KARPENTER = ("karpenter-nodepool", "karpenter-provisioner")


def _alternative(itype: str, fparams: Mapping[str, Any], usage: Mapping[str, Any]) -> tuple[str | None, str]:
    alt: Any = usage.get("alternative_instance_type")
    how = "usage file"
    if alt is None:
        alt = fparams.get("alternative", fparams.get("alternative_instance_type"))
        how = "policy param"
    if isinstance(alt, Mapping):
        alt = alt.get(itype, alt.get(catalog.ec2_twin(itype)))
    if not isinstance(alt, str):
        return None, how
    if itype.startswith("ml.") and not alt.startswith("ml."):
        alt = "ml." + alt
    elif not itype.startswith("ml.") and alt.startswith("ml."):
        alt = alt[3:]
    return alt, how


def _factor(fparams: Mapping[str, Any], usage: Mapping[str, Any]) -> float:
    for v in (usage.get("relative_runtime"), fparams.get("relative_runtime"), fparams.get("runtime_factor")):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            return float(v)
    return 1.0


def _cheapest(pricing: Pricing, types: list[str]) -> PriceQuote | None:
    quotes = [q for q in (pricing.hourly(t) for t in types) if q is not None]
    return min(quotes, key=lambda q: q.usd) if quotes else None


def price(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    hpm = float(params.get("hours_per_month", 730))
    per_run_hours: float | None = None
    types_note = ""
    if isinstance(rec, (TrainingJob, Notebook)):
        if not known(rec.instance_type):
            return unpriced(KIND, "instance type unknown or unresolved")
        itype = str(rec.instance_type)
        quote = pricing.hourly(itype)
        if quote is None:
            return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)
        if isinstance(rec, TrainingJob):
            n = instance_count(rec)
            if n is None:
                return unpriced(KIND, "instance count unresolved")
            runtime_s, how = cap_seconds(rec)
            expected = params.get("expected_runtime_hours")
            if expected is not None:
                run_h, run_how = float(expected), "expected runtime (usage)"
            elif runtime_s is not None:
                run_h, run_how = runtime_s / 3600.0, f"runs to its cap: {how}"
            else:
                return unpriced(KIND, "no runtime known: set expected_runtime_hours in the usage file")
            runs, runs_how = runs_per_month(rec, params)
            per_run_hours = n * run_h
            hours = per_run_hours * runs
            hours_text = (
                f"{n} instance(s) x {num(run_h)} h ({run_how}) x {runs_how} = {num(hours)} instance-hours"
            )
        else:
            hours = hpm
            hours_text = f"{num(hpm)} h in service per month (usage hours_per_month)"
    elif isinstance(rec, ComputePool):
        # What the rule established (facts.pool_family_exposure), for the families in its params.
        types = [t for t in finding.evidence.get("types", ()) if isinstance(t, str)]
        if not types:
            return unpriced(KIND, "the rule established no instance types for this pool")
        types_note = str(finding.evidence.get("types_how", "declared"))
        quote = _cheapest(pricing, types)
        if quote is None:
            return unpriced(KIND, pricing.missing(" or ".join(types)), region=pricing.region)
        itype = quote.key
        running = int(finding.evidence.get("always_on", 0))
        if running >= 1:
            hours = running * hpm
            hours_text = f"{running} always-on node(s) x {num(hpm)} h = {num(hours)} node-hours"
        else:
            hours = hpm
            hours_text = f"each node-month it may add: 1 node x {num(hpm)} h"
        if len(types) > 1:
            types_note = f"; {itype} is the cheapest priced of {', '.join(types)} ({types_note})"
        else:
            types_note = f"; {itype} {types_note}"
    else:
        return unpriced(KIND, "oversized-p5 prices jobs, notebooks and compute pools only")

    alt_params: Mapping[str, Any] = finding.params
    if isinstance(rec, Notebook) and finding.params.get("notebook_alternative"):
        # interactive work needs one modest GPU, not a training node
        alt_params = {"alternative": finding.params["notebook_alternative"]}
    alt, alt_how = _alternative(itype, alt_params, params)
    if alt is None:
        return unpriced(KIND, f"no alternative named for {itype} (policy param 'alternative')")
    alt_quote = pricing.hourly(alt)
    if alt_quote is None:
        return unpriced(KIND, pricing.missing(alt), instance_type=alt, region=pricing.region)
    factor = _factor(finding.params, params)
    saving_h = quote.usd - alt_quote.usd * factor
    monthly = max(0.0, saving_h * hours)
    per_run = None if per_run_hours is None else max(0.0, saving_h * per_run_hours)
    factor_text = f" x {num(factor)} relative runtime"
    none_text = " (no saving: the alternative costs as much or more)" if saving_h <= 0 else ""
    per_run_text = "" if per_run is None else f"{usd(per_run)} per run; "
    basis = (
        f"{itype} {quote.rate()} - {alt} {alt_quote.rate()} (alternative from the {alt_how}){factor_text} = "
        f"{usd(saving_h, exact=True)} per instance-hour{none_text}; x {hours_text} = {per_run_text}"
        f"{usd(monthly)}/month{types_note}. {price_note(quote, alt_quote)}"
    )
    assumptions: dict[str, Any] = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "alternative": alt,
        "alternative_source": alt_how,
        "alternative_hourly_usd": alt_quote.usd,
        "relative_runtime": factor,
        "saving_per_instance_hour_usd": saving_h,
        "instance_hours_per_month": hours,
        "region": quote.region,
        "prices": quote_json(quote, alt_quote),
    }
    if per_run_hours is not None:
        assumptions["instance_hours_per_run"] = per_run_hours
    return Cost(monthly, per_run, KIND, basis, assumptions)
