"""FIN301 oversized-p5: p5-class (H100/H200) capacity where it is not justified.

The policy is ``policies/FIN301-oversized-p5.yaml``; this module holds its facts and its price.

Price (oversized-p5): the price difference to a named alternative for the hours the resource runs.

saving per p5 instance-hour = p5 price - alternative price x relative runtime   (both from one region)
job:          x instances x runtime hours x jobs per run (tuner, loop) = per run; x runs per month
notebook:     x hours in service per month (usage hours_per_month, default 730)
static pool:  x always-on nodes x hours_per_month (kind savings), the pool model of `finlint cost`
elastic pool: a risk ceiling, not a saving: it bills nothing until it scales, then each node it adds
              bills up to the dearest priced admitted type's node-month (cost.pools, as `finlint cost`)
limits that do not cap: a risk ceiling of N x node-month, N the nodes of the largest admitted type
              the pool's spec.limits admit (cost.pools.limit_ceiling)
The alternative and the relative-runtime factor come from the policy params (or the usage file);
a relative runtime of 1.0 is an assumption the basis states.
"""

from __future__ import annotations

from typing import Any, Mapping

from finlint.cost import bounds
from finlint.cost.common import (
    CostContext,
    brief_text,
    checked_cap,
    checked_instance_count,
    jobs_per_run,
    known,
    num,
    price_note,
    quote_json,
    spot_rate,
    unpriced,
    usd,
)
from finlint.cost.pools import always_on, limit_ceiling, pool_prices, pool_types
from finlint.cost.pricing import PriceQuote, Pricing
from finlint.cost.usage import ACTIVE_HOURS_PER_MONTH, HOURS_PER_MONTH
from finlint.domain import catalog
from finlint.domain.karpenter import _need_text, admitted_types, nodes_within_limits
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding
from finlint.ir import (
    ComputePool,
    Notebook,
    Record,
    TrainingJob,
    Unknown,
    is_unknown,
)
from finlint.rules.base import Rule
from finlint.rules.compute.gpu_pools import PoolTypes, largest_spec


def _karpenter_exposure(pool: ComputePool, families: list[str], max_nodes: int | None) -> Any:
    types = admitted_types(pool, families)
    if is_unknown(types):
        return types
    if not types:
        return None
    req_line = pool.line_of("requirements") or pool.location.line
    limits = pool.limits
    if isinstance(limits, Unknown):
        return limits
    if isinstance(pool.min_size, int) and pool.min_size >= 1:
        return Evidence(
            f"keeps {pool.min_size} node(s) running (static replicas) and admits {', '.join(types)}",
            pool.line_of("min_size") or req_line,
            PoolTypes(tuple(types), "admitted by the pool's requirements", always_on=pool.min_size),
        )
    from finlint.domain.karpenter import nodes_within_limits

    specs = [s for s in (catalog.lookup(t) for t in types) if s is not None]
    fits = [nodes_within_limits(limits, s) for s in specs]
    unknown = next((f for f in fits if is_unknown(f)), None)
    if unknown is not None:
        return unknown
    if any(f is None for f in fits):
        why = "has no spec.limits" if not limits else "its spec.limits do not bound cpu, memory or GPUs"
        return Evidence(
            f"admits {', '.join(types)} and {why}, so it can add such nodes without bound",
            req_line,
            PoolTypes(tuple(types), "admitted by the pool's requirements", unbounded=True),
        )
    # Finite limits: limits smaller than one instance exclude the type; limits that still admit
    # more than max_nodes of the largest type do not really cap the pool.
    if max_nodes is None:
        return None
    return limit_exposure(pool, types, max_nodes)


def pool_family_exposure(record: Record, families: list[str], max_nodes: int | None = None) -> Any:
    """How a pool exposes the account to ``families`` capacity, as Evidence, or None.

    ``max_nodes``: a Karpenter pool whose finite limits admit more of the largest admitted type
    than this is exposed too (:func:`limit_exposure`).
    """
    if not isinstance(record, ComputePool):
        return None
    if record.pool_kind in ("karpenter-nodepool", "karpenter-provisioner"):
        return _karpenter_exposure(record, families, max_nodes)
    types = record.instance_types
    if types is None or isinstance(types, Unknown):
        return types
    matching = [t for t in types if isinstance(t, str) and catalog.family_of(t) in families]
    if not matching:
        unresolved = next((t for t in types if isinstance(t, Unknown)), None)
        return Unknown(f"instance type: {unresolved.reason}") if unresolved is not None else None
    if record.pool_kind == "launch-template":
        return None  # launches nothing by itself; the group that uses it is checked
    running: Any
    if record.pool_kind == "ec2-instance":
        running = 1 if record.min_size is None else record.min_size
    else:
        sizes = [record.min_size, record.desired_size]
        unresolved = next((s for s in sizes if isinstance(s, Unknown)), None)
        if unresolved is not None:
            known = [s for s in sizes if isinstance(s, int)]
            if not known or max(known) < 1:
                return Unknown(f"pool size: {unresolved.reason}")
        running = max((s for s in sizes if isinstance(s, int)), default=0)
    if running < 1:
        return None
    line = record.line_of("instance_types") or record.location.line
    which = "min_size" if record.min_size == running else "desired_size"
    return Evidence(
        f"keeps {running} {', '.join(matching)} instance(s) running ({which}={running})",
        line,
        PoolTypes(tuple(matching), "declared", always_on=running),
    )


def limit_exposure(pool: ComputePool, types: list[str], max_nodes: int) -> Any:
    """Evidence that finite limits still admit more than ``max_nodes`` of the largest type, or None.

    Types the limits cannot fit even once are dropped (they never launch); of the rest, the
    largest (vCPU, memory, accelerators) is counted.
    """
    specs = [s for s in (catalog.lookup(t) for t in types) if s is not None]
    fitting: list[tuple[catalog.InstanceSpec, tuple[int, str, Any] | None]] = []
    for spec in specs:
        fit = nodes_within_limits(pool.limits, spec)
        if is_unknown(fit):
            return fit
        if fit is None or fit[0] >= 1:
            fitting.append((spec, fit))
    if not fitting:
        return None
    top = largest_spec(s for s, _ in fitting)
    fit = dict((s.name, f) for s, f in fitting)[top.name]
    if fit is None:
        return None  # no capping limit: the unbounded case, reported by the caller
    count, resource, raw = fit
    if count <= max_nodes:
        return None
    line = pool.line_of(f"limits.{resource}") or pool.line_of("limits") or pool.location.line
    return Evidence(
        f"admits {', '.join(types)} and its limits admit up to {count:,} {top.name} "
        f"({resource} {raw} / {_need_text(top, resource)}), more than {max_nodes}",
        line,
        PoolTypes(
            tuple(s.name for s, f in fitting if f is not None),
            f"the types its limits admit ({resource} {raw}; the largest, {top.name}, {count:,} times)",
            limit_nodes=count,
            limit_resource=resource,
            limit_counts=tuple((s.name, f[0]) for s, f in fitting if f is not None),
        ),
    )


KIND = "savings"


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


def _factor(fparams: Mapping[str, Any], usage: Mapping[str, Any], assumption: str = "") -> tuple[float, str]:
    """The alternative's runtime relative to p5, and where it came from. Jobs default to
    :data:`JOB_RELATIVE_RUNTIME` (stated); notebooks and pools bill by the hour (1.0, stated)."""
    for v, how in (
        (usage.get("relative_runtime"), "usage file"),
        (fparams.get("relative_runtime"), "policy param"),
        (fparams.get("runtime_factor"), "policy param"),
    ):
        if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v <= 100:
            if assumption and float(v) == 1.0:
                return 1.0, f"{how}; {assumption}"
            return float(v), how
    if assumption:
        return 1.0, f"default; {assumption}"
    return JOB_RELATIVE_RUNTIME, f"default; {RUNTIME_ASSUMPTION}"


#: A job on the slower alternative runs longer. No source measures H100 vs A100 for small jobs; the
#: field guide's only measured GPU-to-GPU runtime is A100 vs A10: 40 % faster measured (60 % on
#: paper), read as the slower GPU taking 1/(1 - 0.40) = 1.67x as long. That ratio is assumed for
#: the p5 -> alternative move (usage or policy ``relative_runtime`` overrides it).
JOB_RELATIVE_RUNTIME = 1.0 / (1.0 - 0.40)
RUNTIME_ASSUMPTION = (
    "assumed 1.67: the field guide's one measured GPU-to-GPU runtime (A100 vs A10, 40 % faster "
    "measured: the slower GPU takes 1/0.6 as long), applied to this move; set relative_runtime"
)


#: Notebooks and always-on nodes bill by the hour whatever the GPU's speed.
NOTEBOOK_ASSUMPTION = "1.0: an interactive session lasts as long on a smaller GPU"


POOL_ASSUMPTION = "1.0: always-on nodes bill every hour whatever their speed"


def _pair(pricing: Pricing, itype: str, alt: str) -> tuple[PriceQuote | None, PriceQuote | None]:
    """The p5 price and the alternative's from ONE region: their difference never mixes regions."""
    table = "sagemaker_hourly" if itype.startswith("ml.") else "ec2_hourly"
    alt_table = "sagemaker_hourly" if alt.startswith("ml.") else "ec2_hourly"
    quote, alt_quote = pricing.same_region((table, itype), (alt_table, alt))
    if quote is not None and alt_quote is not None:
        pricing.used(quote, alt_quote)
    return quote, alt_quote


def price(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    hpm = float(params.get("hours_per_month", HOURS_PER_MONTH))
    per_run_hours: float | None = None
    jobs = 1
    types_note = ""
    if isinstance(rec, (TrainingJob, Notebook)):
        if not known(rec.instance_type):
            return unpriced(KIND, "instance type unknown or unresolved")
        itype = str(rec.instance_type)
        quote = pricing.hourly(itype)
        if quote is None:
            return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)
        if isinstance(rec, TrainingJob):
            n, n_why = checked_instance_count(rec)
            if n is None:
                return unpriced(KIND, n_why or "instance count unresolved")
            cap_h, how, cap_why = checked_cap(rec)
            expected = params.get("expected_runtime_hours")
            if expected is not None:
                run_h, run_how = float(expected), "expected runtime (usage)"
            elif cap_h is not None:
                run_h, run_how = cap_h, f"runs to its cap: {how}"
            else:
                return unpriced(KIND, f"no runtime known ({cap_why}): set expected_runtime_hours")
            jobs, jobs_how = jobs_per_run(rec)
            runs = float(params.get("runs_per_month", 1))
            per_run_hours = n * run_h * jobs
            hours = per_run_hours * runs
            jobs_text = f" x {jobs_how}" if jobs > 1 else ""
            hours_text = (
                f"{n} instance(s) x {num(run_h)} h ({run_how}){jobs_text} = {num(per_run_hours)} "
                f"instance-hours per run x {num(runs)} run(s) per month = {num(hours)} instance-hours"
            )
        else:
            # a notebook is priced at its active hours: the idle rest is FIN302's waste (with an
            # auto-stop it is not billed at all), so the two figures never count an hour twice
            active, active_why = bounds.quantity(
                params.get("active_hours_per_month", ACTIVE_HOURS_PER_MONTH), "active_hours_per_month", 744.0
            )
            if active is None:
                return unpriced(KIND, active_why or "active hours unresolved")
            active = min(active, hpm)  # never more than the hours it is in service
            hours = active
            hours_text = (
                f"{num(active)} active h per month (usage active_hours_per_month, an assumption: "
                "8 h x 22 working days; idle hours are FIN302's)"
            )
    elif isinstance(rec, ComputePool):
        # What the rule established (facts.pool_family_exposure), priced by the pool model that
        # `finlint cost` uses for the same pool (cost.pools).
        found = finding.evidence_of(PoolTypes)
        if found is None or not found.types:
            return unpriced(KIND, "the rule established no instance types for this pool")
        types, types_how = list(found.types), found.how
        prices = pool_prices(pricing, types, hpm)
        if prices.cheapest is None:
            return unpriced(KIND, pricing.missing(" or ".join(types)), region=pricing.region)
        running, why = always_on(rec)
        if found.always_on is not None and running is not None:
            running = max(running, found.always_on)
        if running is None:
            return unpriced(KIND, why)
        if running == 0:
            # the pool's ceiling is the pool's, whichever rule reports it: the dearest priced
            # accelerated type it admits (cost.pools.pool_types), as FIN304 and `finlint cost` say
            admitted = pool_types(rec) or types
            return _ceiling(finding, found, pool_prices(pricing, admitted, hpm), prices)
        quote = prices.cheapest
        itype = quote.key
        hours = running * hpm
        hours_text = f"{running} always-on node(s) x {num(hpm)} h = {num(hours)} node-hours"
        if len(types) > 1:
            types_note = f"; {itype} is the cheapest priced of {', '.join(types)} ({types_how})"
        else:
            types_note = f"; {itype} {types_how}"
        types_note += prices.gap_note()
    else:
        return unpriced(KIND, "oversized-p5 prices jobs, notebooks and compute pools only")

    alt_params: Mapping[str, Any] = finding.params
    if isinstance(rec, Notebook) and finding.params.get("notebook_alternative"):
        # interactive work needs one modest GPU, not a training node
        alt_params = {"alternative": finding.params["notebook_alternative"]}
    alt, alt_how = _alternative(itype, alt_params, params)
    if alt is None:
        return unpriced(KIND, f"no alternative named for {itype} (policy param 'alternative')")
    quote_1, alt_quote = _pair(pricing, itype, alt)
    if alt_quote is None or quote_1 is None:
        return unpriced(KIND, pricing.missing(f"{itype} and {alt} in one region"), region=pricing.region)
    quote = quote_1
    assumption = {Notebook: NOTEBOOK_ASSUMPTION, ComputePool: POOL_ASSUMPTION}.get(type(rec), "")
    factor, factor_how = _factor(finding.params, params, assumption)
    saving_h = quote.usd - alt_quote.usd * factor
    spot_text = ""
    if isinstance(rec, TrainingJob) and rec.spot is True:
        # a managed-spot job bills spot prices (as `finlint cost` bills it): so does its saving
        _, discount = spot_rate(quote.usd, params)
        spot_text = f" x (1 - {num(discount)} spot discount, the job runs on managed spot)"
        saving_h *= 1.0 - discount
    monthly = max(0.0, saving_h * hours)
    per_run = None if per_run_hours is None else max(0.0, saving_h * per_run_hours)
    factor_text = f" x {num(factor)} relative runtime ({factor_how})"
    none_text = " (no saving: the alternative costs as much or more)" if saving_h <= 0 else ""
    per_run_text = "" if per_run is None else f"{usd(per_run)} per run; "
    basis = (
        f"{itype} {quote.rate()} - {alt} {alt_quote.rate()} (alternative from the {alt_how}){factor_text}"
        f"{spot_text} = "
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
        "relative_runtime_source": factor_how,
        "saving_per_instance_hour_usd": saving_h,
        "instance_hours_per_month": hours,
        "region": quote.region,
        "prices": quote_json(quote, alt_quote),
    }
    if per_run_hours is not None:
        assumptions["instance_hours_per_run"] = per_run_hours
        assumptions["jobs_per_run"] = jobs
    where = {TrainingJob: "job", Notebook: "notebook"}.get(type(rec), "node")
    brief = brief_text(
        f"saves {itype} -> {alt} for {num(round(hours, 2))} {where} h/month"
        + (f" (x {num(round(factor, 2))} runtime)" if factor != 1.0 else "")
        + (" on spot" if spot_text else "")
    )
    return Cost(monthly, per_run, KIND, basis, assumptions, brief=brief)


def _ceiling(finding: Finding, found: PoolTypes, prices: Any, p5_prices: Any) -> Cost:
    """An elastic pool: a risk ceiling per node it adds, never a saving (as `finlint cost` shows it)."""
    if found.limit_nodes is not None:
        top5 = p5_prices.dearest
        return _limit_ceiling(finding, found, p5_prices, top5.key, found.limit_nodes)
    top = prices.dearest
    assert top is not None
    types, types_how = [q.key for q in prices.quotes] + list(prices.unpriced), "accelerated types it admits"
    node_month = prices.node_month(top)
    unbounded = found.unbounded
    bound = (
        "nothing limits how many it adds (no spec.limits that bound it)"
        if unbounded
        else "its limits bound how many it adds"
    )
    basis = (
        f"Exposure, not a saving: the pool keeps no node running, so it bills nothing until it "
        f"scales (finlint cost: $0.00/month); each node it adds bills up to {top.key} {top.rate()} x "
        f"{num(prices.hours_per_month)} h = {usd(node_month)} per node-month, the dearest priced of "
        f"{', '.join(types)} ({types_how}; the pool's ceiling, as FIN304 and finlint cost state it)"
        f"{prices.gap_note()}; {bound}. {price_note(top)}"
    )
    brief = brief_text(
        f"bills $0 until it scales, then up to {usd(node_month)} per node-month ({top.key}, "
        f"{num(prices.hours_per_month)} h)"
    )
    assumptions: dict[str, Any] = {
        "ceiling": True,
        "per": "node-month",
        "instance_type": top.key,
        "hourly_usd": top.usd,
        "hours_per_month": prices.hours_per_month,
        "always_on": 0,
        "unbounded": unbounded,
        "unpriced_types": list(prices.unpriced),
        "region": top.region,
        "prices": quote_json(top),
    }
    return Cost(node_month, None, "exposure", basis, assumptions, brief=brief)


def _limit_ceiling(finding: Finding, found: PoolTypes, prices: Any, node_type: str, nodes: int) -> Cost:
    """Finite limits that admit more than the policy's max nodes: the most any admitted, priced
    type may bill at the count the limits let in (N x node-month), an exposure."""
    best: tuple[float, str, int, str] | None = None
    for itype, count in found.limit_counts or ((node_type, nodes),):
        monthly_t, text_t = limit_ceiling(prices, itype, count)
        if monthly_t is not None and (best is None or monthly_t > best[0]):
            best = (monthly_t, text_t, count, itype)
    if best is None:
        return unpriced("exposure", limit_ceiling(prices, node_type, nodes)[1])
    monthly, text, nodes, node_type = best
    resource = found.limit_resource or "a limit"
    quote = next(q for q in prices.quotes if q.key == node_type)
    basis = (
        f"Exposure, not a saving: the pool keeps no node running, but its spec.limits "
        f"({resource}) admit {text}. {price_note(quote)}"
    )
    assumptions: dict[str, Any] = {
        "ceiling": True,
        "per": "month",
        "instance_type": node_type,
        "hourly_usd": quote.usd,
        "hours_per_month": prices.hours_per_month,
        "limit_nodes": nodes,
        "limit_resource": resource,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    brief = brief_text(
        f"its limits ({resource}) admit {nodes:,} x {node_type}: up to {usd(monthly)}/month "
        "if it scales to them"
    )
    return Cost(monthly, None, "exposure", basis, assumptions, brief=brief)


RULE = Rule("FIN301", facts=(pool_family_exposure,), cost_model="oversized-p5", price=price)
