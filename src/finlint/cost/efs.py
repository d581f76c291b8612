"""FIN401 checkpoints on EFS against FSx for Lustre PERSISTENT_2 plus S3, both sides costed.

EFS          = V x EFS Standard/GB-month
               + W x elastic write $/GB            (Elastic throughput: declared, or assumed when the
                                                   file system is not linked; none in bursting/provisioned)
               + provisioned MiB/s x $/MiB/s-month (when declared)
alternative  = F x FSx for Lustre PERSISTENT_2 at the tier's $/GB-month (field guide: 250 MB/s/TiB)
               + S3: V x S3 Standard + W x 1,024 / part MB / 1,000 x PUT $ per 1,000 requests
                 (or Standard-IA when cheaper, billing every GB written for its 30-day minimum)
saving       = max(0, EFS - alternative)

W, the checkpoint stream in GB/month = checkpoint size x writers x 60 / interval minutes x training
hours per month (usage file), or checkpoint_write_gb_per_month. Without it the EFS side is
"storage only — a lower bound". V: usage checkpoint_storage_gb first; a PVC's requested size is a
weak hint (the EFS CSI driver ignores capacity); else the stated default (1,200 GB).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from finlint.cost.common import CostContext, known, num, price_note, quote_json, unpriced, usd
from finlint.cost.pricing import PriceQuote
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.finding import Cost, Finding
from finlint.ir import Record

KIND = "savings"
#: Days a Standard-IA object is billed at least (S3 storage classes); a month is 730 h = 30.42 days.
IA_MINIMUM_DAYS = 30.0
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0


def checkpoint_volume(rec: Record, ctx: CostContext, params: Mapping[str, Any]) -> tuple[float, str]:
    """V: the usage file first, a PVC's requested size as a weak hint, else the stated default."""
    if ctx.usage.source_of("checkpoint_storage_gb", rec.address, rec.name) == "usage file":
        return float(params["checkpoint_storage_gb"]), "usage checkpoint_storage_gb"
    size, how = ctx.index.claim_size(rec)
    if size is not None and 0 <= size <= 1e8:
        return size, f"{how}, a weak hint: the EFS CSI driver ignores capacity; set checkpoint_storage_gb"
    return float(params.get("checkpoint_storage_gb", 1200)), "stated default checkpoint_storage_gb (1.2 TB)"


@dataclass
class Stream:
    """The checkpoint write stream, GB per month, and how it was obtained (None when unknown)."""

    gb_per_month: float | None
    how: str
    facts: dict[str, Any] = field(default_factory=dict)


def checkpoint_stream(params: Mapping[str, Any]) -> Stream:
    direct = params.get("checkpoint_write_gb_per_month")
    if direct is not None:
        return Stream(float(direct), f"{num(float(direct))} GB written per month (usage)")
    size = params.get("checkpoint_size_gb")
    if size is None:
        return Stream(None, "")
    writers = params.get("checkpoint_writers")
    writers_how = "usage" if writers is not None else "1 writer assumed: set checkpoint_writers"
    writers = float(writers if writers is not None else 1)
    interval = float(params.get("checkpoint_interval_minutes", 15))
    hours = params.get("training_hours_per_month")
    hours_how = "usage training_hours_per_month"
    if hours is None:
        hours, hours_how = (
            params.get("hours_per_month", HOURS_PER_MONTH),
            "hours_per_month: written all month",
        )
    hours = float(hours)
    gb = float(size) * writers * (60.0 / interval) * hours
    how = (
        f"{num(float(size))} GB x {num(writers)} writer(s) ({writers_how}) x 60/{num(interval)} min x "
        f"{num(hours)} h ({hours_how}) = {num(round(gb, 2))} GB written per month"
    )
    facts = {"checkpoint_size_gb": size, "writers": writers, "interval_minutes": interval, "hours": hours}
    return Stream(gb, how, facts)


def price(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    if rec is None:
        return unpriced(KIND, "no record to price")
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    size, size_how = checkpoint_volume(rec, ctx, params)
    fsx_gb = float(params.get("fsx_lustre_gb", 1200))
    tier = int(params.get("fsx_throughput_mb_s_per_tib", 250))

    # One region for every price: the saving subtracts them, and never across regions.
    std, lustre, s3_std, w_q, thr_q, s3_put, ia, ia_put = pricing.same_region(
        ("efs", "standard_gb_month"),
        ("fsx_lustre", f"PERSISTENT_2/{tier}"),
        ("s3", "STANDARD"),
        ("efs", "elastic_write_gb"),
        ("efs", "provisioned_throughput_mibps_month"),
        ("s3", "STANDARD/put_per_1000_requests"),
        ("s3", "STANDARD_IA"),
        ("s3", "STANDARD_IA/put_per_1000_requests"),
    )
    for q, what in (
        (std, "EFS Standard storage"),
        (lustre, f"FSx for Lustre PERSISTENT_2 at {tier} MB/s/TiB"),
        (s3_std, "S3 Standard"),
    ):
        if q is None:
            return unpriced(KIND, pricing.missing(what), region=pricing.region)
    assert std and lustre and s3_std
    quotes: list[PriceQuote] = [std]

    fs = ctx.index.efs_file_system(rec)
    mode = fs.throughput_mode if fs is not None and isinstance(fs.throughput_mode, str) else None
    stream = checkpoint_stream(params)
    assumptions: dict[str, Any] = {"checkpoint_gb": size, "checkpoint_gb_source": size_how}

    efs_parts = [f"{num(size)} GB stored x {std.rate()} = {usd(size * std.usd)}"]
    efs_total = size * std.usd
    if (
        mode == "provisioned"
        and fs is not None
        and known(fs.provisioned_throughput_mibps)
        and thr_q is not None
    ):
        mibps = float(fs.provisioned_throughput_mibps)  # type: ignore[arg-type]
        efs_total += mibps * thr_q.usd
        efs_parts.append(f"{num(mibps)} MiB/s provisioned x {thr_q.rate()} = {usd(mibps * thr_q.usd)}")
        quotes.append(thr_q)
        assumptions["provisioned_mibps"] = mibps
    lower_bound = ""
    if stream.gb_per_month is None:
        lower_bound = (
            "EFS storage only — a lower bound: the checkpoint write traffic is not counted "
            "(set checkpoint_size_gb, checkpoint_writers and training_hours_per_month in the usage file). "
        )
    elif mode in (None, "elastic"):
        if w_q is not None:
            w = stream.gb_per_month
            assumed = "" if mode == "elastic" else ", Elastic throughput assumed (file system not linked)"
            efs_total += w * w_q.usd
            efs_parts.append(f"{num(round(w, 2))} GB written x {w_q.rate()} = {usd(w * w_q.usd)}{assumed}")
            quotes.append(w_q)
    else:
        efs_parts.append(f"no per-GB write charge in {mode} throughput mode")
    if stream.gb_per_month is not None:
        assumptions["checkpoint_write_gb_per_month"] = stream.gb_per_month
        assumptions.update(stream.facts)

    part_mb = float(params.get("s3_part_size_mb", 8))
    s3_total, s3_text, s3_quotes = _s3_side((s3_std, s3_put, ia, ia_put), size, stream, part_mb)
    alt_total = fsx_gb * lustre.usd + s3_total
    saving = max(0.0, efs_total - alt_total)
    quotes += [lustre, *s3_quotes]
    pricing.used(*quotes)
    stream_text = f"Checkpoint stream: {stream.how}. " if stream.gb_per_month is not None else ""
    none_text = " (no saving at this size)" if efs_total <= alt_total else ""
    total_text = f" = {usd(efs_total)}" if len(efs_parts) > 1 else ""
    basis = (
        f"{lower_bound}{stream_text}Checkpoints on EFS: {' + '.join(efs_parts)}{total_text}/month "
        f"(checkpoint volume: {size_how}). Alternative: FSx for Lustre PERSISTENT_2 at {tier} MB/s/TiB, "
        f"{num(fsx_gb)} GB x {lustre.rate()} = {usd(fsx_gb * lustre.usd)} + {s3_text}; total "
        f"{usd(alt_total)}/month. Saving {usd(efs_total)} - {usd(alt_total)} = {usd(saving)}/month"
        f"{none_text}. {price_note(*quotes)}"
    )
    assumptions.update(
        storage=ctx.index.storage_key(rec),
        lower_bound=stream.gb_per_month is None,
        throughput_mode=mode or "not linked (Elastic assumed)",
        fsx_lustre_gb=fsx_gb,
        fsx_throughput_mb_s_per_tib=tier,
        efs_monthly_usd=efs_total,
        alternative_monthly_usd=alt_total,
        region=std.region,
        prices=quote_json(*quotes),
    )
    return Cost(saving, None, KIND, basis, assumptions)


def _s3_side(
    quotes: tuple[PriceQuote, PriceQuote | None, PriceQuote | None, PriceQuote | None],
    size: float,
    stream: Stream,
    part_mb: float,
) -> tuple[float, str, list[PriceQuote]]:
    """S3 for the checkpoint copies: Standard, or Standard-IA when cheaper despite its 30-day minimum."""
    std, std_put, ia, ia_put = quotes
    if stream.gb_per_month is None or std_put is None:
        text = (
            f"{num(size)} GB on S3 Standard x {std.rate()} = {usd(size * std.usd)} (no minimum storage "
            "duration; request charges not counted without the checkpoint stream)"
        )
        return size * std.usd, text, [std]
    w = stream.gb_per_month
    puts = w * 1024.0 / part_mb
    std_total = size * std.usd + puts / 1000.0 * std_put.usd
    std_text = (
        f"S3 Standard {num(size)} GB x {std.rate()} = {usd(size * std.usd)} + {num(round(puts))} PUTs "
        f"({num(round(w, 2))} GB in {num(part_mb)} MB parts) x {std_put.rate()} = "
        f"{usd(puts / 1000.0 * std_put.usd)}"
    )
    if ia is not None and ia_put is not None:
        billed = max(size, w * IA_MINIMUM_DAYS / DAYS_PER_MONTH)
        ia_total = billed * ia.usd + puts / 1000.0 * ia_put.usd
        if ia_total < std_total:
            text = (
                f"S3 Standard-IA {num(round(billed, 2))} GB-month (every GB written billed for its "
                f"{num(IA_MINIMUM_DAYS)}-day minimum) x {ia.rate()} + {num(round(puts))} PUTs x "
                f"{ia_put.rate()} = {usd(ia_total)} (S3 Standard would be {usd(std_total)})"
            )
            return ia_total, text, [ia, ia_put]
        std_text += (
            f" (Standard-IA would be {usd(ia_total)}: checkpoints replaced within 30 days are billed "
            f"for 30 days each)"
        )
    return std_total, std_text, [std, std_put]
