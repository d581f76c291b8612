"""``finlint cost``: what the declared AI-training resources cost, line by line.

Unlike findings (what a setting wastes or risks), this prices what is declared: training jobs per
run and per month, notebooks, node pools and file systems, with unit prices and quantities, so a
reviewer sees the bill a change brings before it is deployed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable

from finlint.cost import bounds
from finlint.cost.common import (
    CostContext,
    checked_cap,
    checked_instance_count,
    jobs_per_run,
    known,
    num,
    spot_rate,
    usd,
    warm_pool_hours,
)
from finlint.cost.efs import checkpoint_volume, provisioned_charge
from finlint.cost.pools import KARPENTER, always_on, limit_ceiling, pool_prices, pool_types
from finlint.cost.pricing import PriceQuote
from finlint.cost.spot import spot_run
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.domain import catalog
from finlint.ir import Bucket, ComputePool, FileSystem, Notebook, Record, TrainingJob, Volume


@dataclass
class LineItem:
    """One priced (or unpriceable) resource."""

    resource: str
    kind: str
    file: str
    line: int
    description: str
    quantity: str = ""
    unit_price: PriceQuote | None = None
    per_run_usd: float | None = None
    monthly_usd: float | None = None
    reason: str | None = None
    extra_prices: list[PriceQuote] = field(default_factory=list)
    estimate: str = "expected"  # "ceiling": priced at a runtime cap, the most it can cost
    ceiling_per_node_month_usd: float | None = None  # an elastic pool: what each node it adds may bill
    warm_pool_hours: float | None = None  # a job's keep-alive after each job, billed (FIN501's hours)
    p_interrupted: float | None = None  # a spot job: the chance of an interruption over the run

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "resource": self.resource,
            "kind": self.kind,
            "file": self.file,
            "line": self.line,
            "description": self.description,
            "quantity": self.quantity,
            "unit_price": self.unit_price.to_json() if self.unit_price else None,
            "per_run_usd": None if self.per_run_usd is None else round(self.per_run_usd, 2),
            "monthly_usd": None if self.monthly_usd is None else round(self.monthly_usd, 2),
            "estimate": self.estimate,
        }
        if self.warm_pool_hours is not None:
            out["warm_pool_hours"] = round(self.warm_pool_hours, 4)
        if self.p_interrupted is not None:
            out["p_interrupted"] = round(self.p_interrupted, 6)
        if self.ceiling_per_node_month_usd is not None:
            out["ceiling_per_node_month_usd"] = round(self.ceiling_per_node_month_usd, 2)
        if self.extra_prices:
            out["other_prices"] = [q.to_json() for q in self.extra_prices]
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class Breakdown:
    """`finlint cost`: every priced resource of a scan in one region, with the usage file used."""

    region: str
    items: list[LineItem]
    usage_file: str | None = None
    notices: list[str] = field(default_factory=list)

    @property
    def total_monthly_usd(self) -> float:
        return sum(i.monthly_usd for i in self.items if i.monthly_usd is not None)

    @property
    def priced(self) -> int:
        """How many resources the total covers (the others are not priced, each with its reason)."""
        return sum(1 for i in self.items if i.monthly_usd is not None)

    def coverage(self) -> str:
        """``for 3 of 5 resources`` when some are not priced, else ``""``: a total never hides a gap."""
        if self.priced == len(self.items):
            return ""
        return f"for {self.priced} of {len(self.items)} resources"

    def to_json(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "usage_file": self.usage_file,
            "resources": [i.to_json() for i in self.items],
            "total_monthly_usd": round(self.total_monthly_usd, 2),
            "unpriced": sum(1 for i in self.items if i.monthly_usd is None),
            "priced": self.priced,
            "notices": self.notices,
        }


def _job(rec: TrainingJob, ctx: CostContext) -> LineItem:
    item = LineItem(rec.address, "training_job", rec.location.file, rec.location.line, "training job")
    if not known(rec.instance_type):
        item.reason = "instance type unknown or unresolved"
        return item
    itype = str(rec.instance_type)
    n, n_why = checked_instance_count(rec)
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    item.description = f"{itype} training job"
    if n is None:
        item.reason = n_why or "instance count unresolved"
        return item
    if quote is None:
        item.reason = pricing.missing(itype)
        return item
    cap_h, _, cap_why = checked_cap(rec)
    expected = params.get("expected_runtime_hours")
    if expected is not None:
        hours, how = float(expected), "expected runtime"
    elif cap_h is not None:
        hours, how = cap_h, "runtime cap"
    else:
        item.reason = f"no runtime known ({cap_why}): set expected_runtime_hours in the usage file"
        return item
    hourly = quote.usd
    if rec.spot is True:
        hourly, discount = spot_rate(quote.usd, params)
        run = spot_run(rec, n, params)  # the interruption model FIN201/FIN202/FIN204 price with
        chance = f"; {run.p_text()}" if not isinstance(run, str) else ""
        item.p_interrupted = None if isinstance(run, str) else run.p_run
        item.description += f", managed spot (-{discount:.0%} assumed{chance})"
    jobs, jobs_how = jobs_per_run(rec)
    runs = float(params.get("runs_per_month", 1))
    item.unit_price = quote
    item.estimate = "ceiling" if how == "runtime cap" else "expected"
    per_run_text = f" x {jobs_how}" if jobs > 1 else ""
    item.quantity = f"{n} x {num(hours)} h ({how}) per job{per_run_text}; {num(runs)} run(s) per month"
    item.per_run_usd = hourly * n * hours * jobs
    warm_h = warm_pool_hours(rec)
    if warm_h is not None:
        item.warm_pool_hours = warm_h
        # a warm pool bills the job's instances On-Demand for the keep-alive after each job (FIN501)
        item.per_run_usd += quote.usd * n * warm_h * jobs
        item.quantity += (
            f"; + warm pool {num(round(warm_h * 60, 2))} min after each job (KeepAlivePeriodInSeconds) "
            f"x {n} at {quote.rate()} = {usd(quote.usd * n * warm_h)} per job"
        )
    item.monthly_usd = item.per_run_usd * runs
    return item


def _notebook(rec: Notebook, ctx: CostContext) -> LineItem:
    item = LineItem(rec.address, "notebook", rec.location.file, rec.location.line, "notebook instance")
    if not known(rec.instance_type):
        item.reason = "instance type unknown or unresolved"
        return item
    itype = str(rec.instance_type)
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    item.description = f"{itype} notebook"
    if quote is None:
        item.reason = pricing.missing(itype)
        return item
    hpm = float(params.get("hours_per_month", HOURS_PER_MONTH))
    item.unit_price, item.quantity = quote, f"{num(hpm)} h per month"
    item.monthly_usd = quote.usd * hpm
    storage = pricing.sagemaker_storage("notebook_ml_storage_gb_month")
    gb_or_none, why = bounds.quantity(rec.volume_size_gb, "ML storage volume")
    if known(rec.volume_size_gb) and gb_or_none is None:
        item.monthly_usd, item.reason = None, why
        return item
    if gb_or_none is not None and storage is not None:
        gb = gb_or_none
        item.monthly_usd += gb * storage.usd
        item.quantity += f" + {num(gb)} GB ML storage"
        item.extra_prices.append(storage)
    return item


def _pool(rec: ComputePool, ctx: CostContext) -> LineItem:
    """Priced by cost.pools, the model FIN301 uses for the same pool."""
    item = LineItem(rec.address, "node_pool", rec.location.file, rec.location.line, rec.pool_kind)
    types = pool_types(rec)
    if types is None:
        item.reason = "instance types unresolved"
        return item
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    hpm = float(params.get("hours_per_month", HOURS_PER_MONTH))
    prices = pool_prices(pricing, types, hpm)
    first, last = prices.cheapest, prices.dearest
    if first is None or last is None:
        if rec.pool_kind in KARPENTER and not types:
            item.description += " (admits no accelerated type)"
            item.monthly_usd, item.quantity = 0.0, "0 accelerated nodes"
            return item
        item.reason = pricing.missing(" or ".join(types) or "its instance types")
        return item
    running, why = always_on(rec)
    if running is None:
        item.reason = why
        return item
    item.unit_price = first
    item.description += f"; {prices.range_text()}{prices.gap_note()}"
    item.extra_prices = list(prices.quotes[1:])
    item.quantity = f"{running} always-on node(s) x {num(hpm)} h"
    if running == 0:
        item.ceiling_per_node_month_usd = prices.node_month(last)
        item.quantity += (
            f"; elastic: bills nothing until it scales, then up to {usd(prices.node_month(last))} "
            f"per node-month it adds ({last.key}, a ceiling per node)"
        )
        item.quantity += _limit_note(rec, prices, last.key)
    item.monthly_usd = first.usd * running * hpm
    return item


def _limit_note(rec: ComputePool, prices: Any, node_type: str) -> str:
    """'; its limits admit up to N of them: $X/month if it scales to them' (FIN301's limit ceiling)."""
    if rec.pool_kind not in KARPENTER:
        return ""
    from finlint.domain.karpenter import nodes_within_limits

    spec = catalog.lookup(node_type)
    fit = nodes_within_limits(rec.limits, spec) if spec is not None else None
    if not isinstance(fit, tuple) or fit[0] < 1:
        return ""
    monthly, text = limit_ceiling(prices, node_type, fit[0])
    return f"; its limits ({fit[1]} {fit[2]}) admit {text}" if monthly is not None else ""


def _file_system(rec: FileSystem, ctx: CostContext) -> LineItem:
    item = LineItem(rec.address, "file_system", rec.location.file, rec.location.line, rec.fs_type)
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    if rec.fs_type == "fsx-lustre":
        dt = rec.deployment_type if isinstance(rec.deployment_type, str) else None
        thr = rec.per_unit_storage_throughput if isinstance(rec.per_unit_storage_throughput, int) else None
        if dt is None or not known(rec.size_gb):
            item.reason = "deployment type or storage capacity unresolved"
            return item
        quote = pricing.fsx_lustre(dt, thr)
        item.description = f"FSx for Lustre {dt}" + (f" {thr} MB/s/TiB" if thr else "")
        if quote is None:
            item.reason = pricing.missing(item.description)
            return item
        gb, why = bounds.quantity(rec.size_gb, "storage capacity")
        if gb is None:
            item.reason = why
            return item
        item.unit_price, item.quantity, item.monthly_usd = quote, f"{num(gb)} GB", gb * quote.usd
        return item
    std = pricing.efs("standard_gb_month")
    item.description = f"EFS ({rec.throughput_mode if isinstance(rec.throughput_mode, str) else 'bursting'})"
    item.unit_price = std
    if std is None:
        item.reason = pricing.missing("EFS Standard storage")
        return item
    # the size FIN401/FIN403 price: the usage file, a claim's size, else the stated default
    gb, how = checkpoint_volume(rec, ctx, params)
    parts = [f"{num(gb)} GB stored ({how})"]
    extra = 0.0
    if rec.throughput_mode == "provisioned" and known(rec.provisioned_throughput_mibps):
        thr_q = pricing.efs("provisioned_throughput_mibps_month")
        mibps, _ = bounds.quantity(rec.provisioned_throughput_mibps, "provisioned throughput")
        if thr_q is not None and mibps is not None:
            charge = provisioned_charge(mibps, gb, thr_q)
            extra = charge.usd
            parts.append(
                f"{num(round(charge.billed_mibps, 2))} of {num(mibps)} MiB/s provisioned billed above the "
                f"baseline of the stored data ({usd(extra)})"
            )
            item.extra_prices.append(thr_q)
    item.quantity = ", ".join(parts)
    item.monthly_usd = gb * std.usd + extra
    return item


def _bucket(rec: Bucket, ctx: CostContext) -> LineItem:
    """An S3 bucket at S3 Standard for the volume FIN402 prices (usage, else the stated default)."""
    item = LineItem(rec.address, "bucket", rec.location.file, rec.location.line, "S3 bucket (Standard)")
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    std = pricing.s3("STANDARD")
    if std is None:
        item.reason = pricing.missing("S3 Standard")
        return item
    gb, how = checkpoint_volume(rec, ctx, params)
    item.unit_price, item.quantity, item.monthly_usd = std, f"{num(gb)} GB stored ({how})", gb * std.usd
    return item


def _volume(rec: Volume, ctx: CostContext) -> LineItem | None:
    if rec.volume_kind != "pvc" or rec.is_efs is not True or not known(rec.capacity_gb):
        return None
    params = ctx.params(rec)
    std = ctx.pricing_for(params).efs("standard_gb_month")
    item = LineItem(rec.address, "volume", rec.location.file, rec.location.line, "EFS-backed PVC")
    gb, why = bounds.quantity(rec.capacity_gb, "requested size")
    if gb is None:
        item.reason = why
        return item
    if ctx.usage.source_of("checkpoint_storage_gb", rec.address, rec.name) == "usage file":
        gb = float(params["checkpoint_storage_gb"])
        item.quantity = f"{num(gb)} GB stored (usage checkpoint_storage_gb)"
    else:
        item.quantity = f"{num(gb)} GB requested (a weak hint: EFS bills what is stored)"
    if std is None:
        item.reason = "no EFS price"
        return item
    item.unit_price, item.monthly_usd = std, gb * std.usd
    return item


def _finite(item: LineItem) -> LineItem:
    """A line whose figure is non-finite or absurd is 'not priced' with the reason, never $inf."""
    for value in (item.monthly_usd, item.per_run_usd):
        if value is not None and not (0 <= value <= bounds.MAX_USD):
            item.monthly_usd = item.per_run_usd = None
            item.reason = "a quantity is absurd or not finite (the figure would exceed $1 trillion)"
            break
    return item


def build_breakdown(records: Iterable[Record], settings: Any = None) -> Breakdown:
    """Price every declared training job, notebook, node pool, file system and EFS claim."""
    recs = list(records)
    ctx = CostContext.build(settings, recs)
    items: list[LineItem] = []
    for rec in recs:
        item: LineItem | None = None
        if isinstance(rec, TrainingJob):
            item = _job(rec, ctx)
        elif isinstance(rec, Notebook):
            item = _notebook(rec, ctx)
        elif isinstance(rec, ComputePool) and rec.pool_kind != "launch-template":
            item = _pool(rec, ctx)
        elif isinstance(rec, FileSystem):
            item = _file_system(rec, ctx)
        elif isinstance(rec, Volume):
            item = _volume(rec, ctx)
        elif isinstance(rec, Bucket):
            item = _bucket(rec, ctx)
        if item is not None:
            items.append(_finite(item))
    items.sort(key=lambda i: (-(i.monthly_usd or 0.0), i.file, i.line))
    region = ctx.region or str(ctx.usage.defaults.get("region") or "us-east-1")
    return Breakdown(region, items, ctx.usage.file, ctx.notices())


def render_json(b: Breakdown) -> str:
    return json.dumps(b.to_json(), indent=2) + "\n"


def render_text(b: Breakdown) -> str:
    """Largest first: monthly and per-run dollars, then the resource and how it was priced."""
    lines = [
        f"{'Monthly':>12}  {'Per run':>11}  Resource",
        f"{'':>12}  {'':>11}    what: quantity at unit price",
    ]
    lines.append("-" * 100)
    for i in b.items:
        monthly = usd(i.monthly_usd) if i.monthly_usd is not None else "not priced"
        per_run = usd(i.per_run_usd) if i.per_run_usd is not None else "-"
        lines.append(f"{monthly:>12}  {per_run:>11}  {i.resource} ({i.file}:{i.line})")
        detail = f"{i.description}: {i.quantity or '-'}"
        if i.unit_price:
            detail += f" at {i.unit_price.rate()}"
        if i.monthly_usd is None and i.reason:
            detail += f" (not priced: {i.reason})"
        lines.append(f"{'':>12}  {'':>11}    {detail}")
    usage = f", usage file {b.usage_file}" if b.usage_file else ", default usage assumptions"
    lines.append("")
    covers = f" {b.coverage()}" if b.coverage() else ""
    lines.append(f"Total: {usd(b.total_monthly_usd)}/month{covers} (region {b.region}{usage}).")
    unpriced = sum(1 for i in b.items if i.monthly_usd is None)
    if unpriced:
        lines.append(f"{unpriced} resource(s) not priced (see the reason on each line).")
    lines.extend(f"notice: {n}" for n in b.notices)
    if not b.items:
        lines = ["No AI-training resources found."]
    return "\n".join(lines) + "\n"
