"""FIN401 checkpoints on EFS: EFS for the checkpoint volume against S3 Standard-IA plus a small FSx scratch.

EFS       = V x EFS Standard/GB-month [+ provisioned MiB/s x $/MiB/s-month] [+ elastic writes GB x $/GB]
alternative = V x S3 Standard-IA/GB-month + F x FSx SCRATCH_2/GB-month (hot checkpoints)
saving per month = max(0, EFS - alternative)
V: the PVC's requested size when known, else the usage file's checkpoint_storage_gb (default 1,200 GB);
F: usage fsx_scratch_gb (default 1,200 GB, the smallest SCRATCH_2 file system).
"""

from __future__ import annotations

from typing import Any

from finlint.cost.common import CostContext, known, num, price_note, quote_json, unpriced, usd
from finlint.finding import Cost, Finding
from finlint.ir import FileSystem, Record, TrainingJob, Volume

KIND = "savings"


def _find_fs(rec: Record, records: list[Record]) -> FileSystem | None:
    """The EFS FileSystem record behind a finding's record, when linking found one."""
    if isinstance(rec, FileSystem):
        return rec
    refs: list[str] = []
    if isinstance(rec, Volume):
        refs += [v for v in (rec.efs_target, rec.file_system_ref) if isinstance(v, str)]
        refs += [m.file_system_ref for m in rec.mounts if isinstance(m.file_system_ref, str)]
    if isinstance(rec, TrainingJob):
        refs += [m.file_system_ref for m in rec.file_system_mounts if isinstance(m.file_system_ref, str)]
    for other in records:
        if isinstance(other, FileSystem) and other.fs_type == "efs":
            ids = {other.address, *other.ref_ids}
            if any(r in ids for r in refs):
                return other
    return None


def storage_key(rec: Record, records: list[Record]) -> str:
    """The storage object a finding's money is really about (a workload's claim, else itself)."""
    if isinstance(rec, Volume) and rec.volume_kind == "workload":
        claims = {m.claim_name for m in rec.mounts if isinstance(m.claim_name, str) and m.is_efs is True}
        pvcs = [r for r in records if isinstance(r, Volume) and r.volume_kind == "pvc" and r.name in claims]
        for pvc in pvcs:
            if pvc.namespace == rec.namespace or not known(rec.namespace):
                return pvc.address
    return rec.address


def _claim_size(rec: Record, records: list[Record]) -> tuple[float | None, str]:
    """The checkpoint volume's requested size: the PVC itself, or the claim a workload mounts."""
    if isinstance(rec, Volume) and rec.volume_kind in ("pvc", "pv") and known(rec.capacity_gb):
        return float(rec.capacity_gb), f"the {rec.volume_kind.upper()}'s requested size"  # type: ignore[arg-type]
    if isinstance(rec, Volume) and rec.volume_kind == "workload":
        claims = {m.claim_name for m in rec.mounts if isinstance(m.claim_name, str)}
        for other in records:
            if (
                isinstance(other, Volume)
                and other.volume_kind == "pvc"
                and other.name in claims
                and known(other.capacity_gb)
                and (other.namespace == rec.namespace or not known(rec.namespace))
            ):
                return float(other.capacity_gb), f"claim '{other.name}' requested size"  # type: ignore[arg-type]
    return None, ""


def price(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    if rec is None:
        return unpriced(KIND, "no record to price")
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    size, size_how = _claim_size(rec, ctx.records)
    if size is None:
        size = float(params.get("checkpoint_storage_gb", 1200))
        src = ctx.usage.source_of("checkpoint_storage_gb", rec.address, rec.name)
        size_how = (
            "usage checkpoint_storage_gb" if src == "usage file" else "stated default checkpoint_storage_gb"
        )
    fsx_gb = float(params.get("fsx_scratch_gb", 1200))

    std = pricing.efs("standard_gb_month")
    ia = pricing.s3("STANDARD_IA")
    scratch = pricing.fsx_lustre("SCRATCH_2")
    for q, what in (
        (std, "EFS Standard storage"),
        (ia, "S3 Standard-IA"),
        (scratch, "FSx for Lustre SCRATCH_2"),
    ):
        if q is None:
            return unpriced(KIND, pricing.missing(what), region=pricing.region)
    assert std and ia and scratch

    fs = _find_fs(rec, ctx.records)
    efs_parts = [f"{num(size)} GB x {std.rate()} = {usd(size * std.usd)}"]
    efs_total = size * std.usd
    quotes: list[Any] = [std]
    assumptions: dict[str, Any] = {
        "checkpoint_gb": size,
        "checkpoint_gb_source": size_how,
        "fsx_scratch_gb": fsx_gb,
    }
    if fs is not None and fs.throughput_mode == "provisioned" and known(fs.provisioned_throughput_mibps):
        thr_q = pricing.efs("provisioned_throughput_mibps_month")
        if thr_q is not None:
            mibps = float(fs.provisioned_throughput_mibps)  # type: ignore[arg-type]
            efs_total += mibps * thr_q.usd
            efs_parts.append(f"{num(mibps)} MiB/s provisioned x {thr_q.rate()} = {usd(mibps * thr_q.usd)}")
            quotes.append(thr_q)
            assumptions["provisioned_mibps"] = mibps
    writes = params.get("checkpoint_write_gb_per_month")
    elastic = fs is not None and fs.throughput_mode == "elastic"
    if writes is not None and elastic:
        w_q = pricing.efs("elastic_write_gb")
        if w_q is not None:
            efs_total += float(writes) * w_q.usd
            efs_parts.append(
                f"{num(float(writes))} GB written x {w_q.rate()} = {usd(float(writes) * w_q.usd)}"
            )
            quotes.append(w_q)
            assumptions["elastic_write_gb_per_month"] = writes
    alt_total = size * ia.usd + fsx_gb * scratch.usd
    saving = max(0.0, efs_total - alt_total)
    total_text = f" = {usd(efs_total)}" if len(efs_parts) > 1 else ""
    none_text = " (no saving at this size)" if efs_total <= alt_total else ""
    basis = (
        f"Checkpoints on EFS: {' + '.join(efs_parts)}{total_text}/month "
        f"(checkpoint volume: {size_how}). Alternative: {num(size)} GB on S3 Standard-IA x {ia.rate()} = "
        f"{usd(size * ia.usd)} + {num(fsx_gb)} GB FSx for Lustre SCRATCH_2 for hot checkpoints x "
        f"{scratch.rate()} = {usd(fsx_gb * scratch.usd)}; "
        f"total {usd(alt_total)}/month. Saving {usd(efs_total)} - {usd(alt_total)} = {usd(saving)}/month"
        f"{none_text}. {price_note(*quotes, ia, scratch)}"
    )
    assumptions.update(
        storage=storage_key(rec, ctx.records),
        efs_monthly_usd=efs_total,
        alternative_monthly_usd=alt_total,
        region=std.region,
        prices=quote_json(*quotes, ia, scratch),
    )
    return Cost(saving, None, KIND, basis, assumptions)
