"""FIN302 gpu-notebook-without-auto-stop: A GPU notebook with nothing that stops it when idle.

The policy is ``policies/FIN302-gpu-notebook-without-auto-stop.yaml``; this module holds its
facts and its price.

Price (notebook-always-on): monthly = notebook hourly x (hours_per_month - active_hours_per_month),
the hours a notebook with nothing to stop it stays in service unused. hours_per_month defaults
to 730 (usage file); active_hours_per_month is the usage file's (default 176: 8 h x 22 working
days, a stated assumption, not a measured figure).
"""

from __future__ import annotations

from typing import Any

from finlint.cost import bounds
from finlint.cost.common import CostContext, brief_text, known, num, price_note, quote_json, unpriced, usd
from finlint.cost.usage import ACTIVE_HOURS_PER_MONTH, HOURS_PER_MONTH
from finlint.domain import catalog
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding
from finlint.ir import Notebook, Record, Unknown, is_unknown
from finlint.rules.base import Rule


def gpu_notebook_without_auto_stop(record: Record) -> Any:
    """Evidence that an accelerated notebook (or Studio default) has nothing that stops it when idle."""
    if not isinstance(record, Notebook):
        return None
    itype = record.instance_type
    if itype is None or is_unknown(itype):
        return itype
    spec = catalog.lookup(str(itype))
    if spec is None:
        return Unknown(f"{itype} is not in the instance catalog") if str(itype).startswith("ml.") else None
    if not (spec.accelerators or spec.gpu_name):
        return None
    idle = record.idle_shutdown
    if idle is None or idle is True:
        return None
    if isinstance(idle, Unknown):
        return idle
    line = record.line_of("idle_shutdown") or record.line_of("instance_type") or record.location.line
    if record.notebook_kind == "studio-domain":
        text = f"Studio domain defaults JupyterLab to {itype} with no idle shutdown (AppLifecycleManagement)"
    elif isinstance(record.lifecycle_config, str):
        config = record.lifecycle_config
        text = f"{itype} notebook's lifecycle configuration {config} has no idle check that stops it"
    else:
        text = f"{itype} notebook has no lifecycle configuration that stops it when idle"
    return Evidence(text, line)


def price_notebook_always_on(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    if not isinstance(rec, Notebook) or not known(rec.instance_type):
        return unpriced("waste", "notebook instance type unknown or unresolved")
    itype = str(rec.instance_type)
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype if itype.startswith("ml.") else "ml." + itype)
    if quote is None:
        return unpriced("waste", pricing.missing(itype), instance_type=itype, region=pricing.region)
    pricing.used(quote)
    hpm, why = bounds.quantity(params.get("hours_per_month", HOURS_PER_MONTH), "hours_per_month", 744.0)
    active, why2 = bounds.quantity(
        params.get("active_hours_per_month", ACTIVE_HOURS_PER_MONTH), "active_hours_per_month", 744.0
    )
    if hpm is None or active is None:
        return unpriced("waste", why or why2 or "hours unresolved")
    idle = max(0.0, hpm - active)
    monthly = quote.usd * idle
    basis = (
        f"{itype} {quote.rate()} x ({num(hpm)} h in service - {num(active)} active h, usage "
        f"active_hours_per_month, an assumption: 8 h x 22 working days) = {num(idle)} idle h = "
        f"{usd(monthly)}/month with nothing to stop it when idle. {price_note(quote)}"
    )
    assumptions: dict[str, Any] = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "hours_per_month": hpm,
        "active_hours_per_month": active,
        "idle_hours_per_month": idle,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    brief = brief_text(
        f"{num(idle)} idle h/month with no auto-stop ({num(hpm)} h - {num(active)} active h assumed) x "
        f"{itype} {quote.rate()}"
    )
    return Cost(monthly, None, "waste", basis, assumptions, brief=brief)


RULE = Rule(
    "FIN302",
    facts=(gpu_notebook_without_auto_stop,),
    cost_model="notebook-always-on",
    price=price_notebook_always_on,
)
