"""FIN403 EFS provisioned throughput and FIN302 GPU notebooks that never stop.

efs-provisioned-throughput (FIN403):
    monthly = provisioned MiB/s x EFS provisioned throughput $/MiB/s-month (pricing.md: $6.00,
    us-east-1), billed every hour whether the throughput is used or not. Elastic throughput bills
    per GB transferred instead ($0.03/GB read, $0.06/GB written), so the saving depends on the
    traffic: the figure is the fixed charge at risk, not a saving.
notebook-always-on (FIN302):
    monthly = notebook hourly x (hours_per_month - active_hours_per_month), the hours a notebook
    with nothing to stop it stays in service unused. hours_per_month defaults to 730 (usage file);
    active_hours_per_month is the policy param (default 176: 8 h x 22 working days, a stated
    assumption, not a measured figure).
"""

from __future__ import annotations

from typing import Any

from finlint.cost import bounds
from finlint.cost.common import CostContext, known, num, price_note, quote_json, unpriced, usd
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.finding import Cost, CountedOnce, Finding
from finlint.ir import FileSystem, Notebook


def price_provisioned_throughput(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    if not isinstance(rec, FileSystem):
        return unpriced("risk", "efs-provisioned-throughput prices EFS file systems only")
    mibps, why = bounds.quantity(rec.provisioned_throughput_mibps, "provisioned throughput")
    if mibps is None:
        return unpriced("risk", why or "provisioned throughput unresolved")
    pricing = ctx.pricing_for(ctx.params(rec))
    quote = pricing.efs("provisioned_throughput_mibps_month")
    if quote is None:
        return unpriced("risk", pricing.missing("EFS provisioned throughput"), region=pricing.region)
    pricing.used(quote)
    monthly = mibps * quote.usd
    basis = (
        f"{num(mibps)} MiB/s provisioned x {quote.rate()} = {usd(monthly)}/month, billed whether the "
        f"throughput is used or not; elastic throughput bills per GB transferred instead, so the "
        f"saving depends on the traffic. {price_note(quote)}"
    )
    assumptions: dict[str, Any] = {
        "provisioned_mibps": mibps,
        "usd_per_mibps_month": quote.usd,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    return Cost(monthly, None, "risk", basis, assumptions)


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
    active, why2 = bounds.quantity(finding.params.get("active_hours_per_month", 176), "active hours", 744.0)
    if hpm is None or active is None:
        return unpriced("waste", why or why2 or "hours unresolved")
    idle = max(0.0, hpm - active)
    monthly = quote.usd * idle
    basis = (
        f"{itype} {quote.rate()} x ({num(hpm)} h in service - {num(active)} active h, policy param "
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
        "once": f"notebook:{finding.resource}",  # FIN301 prices the same notebook's hours
    }
    return Cost(
        monthly, None, "waste", basis, assumptions, counted_once=CountedOnce("notebook", finding.resource)
    )


def price_bucket_lifecycle(finding: Finding, ctx: CostContext) -> Cost:
    """FIN402: V GB kept in S3 Standard instead of Glacier Instant Retrieval after 30 days.

    monthly saving = V x (S3 Standard - S3 Glacier IR) $/GB-month; V = usage checkpoint_storage_gb
    (default 1,200 GB, the field guide's checkpoint tier): the GB of checkpoints older than 30 days.
    Without a lifecycle rule V only grows, so the figure is a floor for one month's accumulation.
    """
    rec = finding.record
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    gb, why = bounds.quantity(params.get("checkpoint_storage_gb", 1200), "checkpoint_storage_gb")
    if gb is None:
        return unpriced("savings", why or "checkpoint volume unresolved")
    std, cold = pricing.same_region(("s3", "STANDARD"), ("s3", "GLACIER_IR"))
    if std is None or cold is None:
        return unpriced("savings", pricing.missing("S3 Standard and Glacier Instant Retrieval"))
    pricing.used(std, cold)
    saving = gb * (std.usd - cold.usd)
    basis = (
        f"{num(gb)} GB of checkpoints older than 30 days (usage checkpoint_storage_gb; default: the field "
        f"guide's 1,200 GB checkpoint tier) x (S3 Standard {std.rate()} - Glacier Instant Retrieval "
        f"{cold.rate()}) = {usd(saving)}/month; with no rule nothing is ever deleted, so the stored volume "
        f"and this figure grow every month. {price_note(std, cold)}"
    )
    assumptions: dict[str, Any] = {
        "checkpoint_gb": gb,
        "standard_usd_gb_month": std.usd,
        "glacier_ir_usd_gb_month": cold.usd,
        "region": std.region,
        "prices": quote_json(std, cold),
    }
    return Cost(saving, None, "savings", basis, assumptions)
