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

from finlint.cost.common import CostContext, known, num
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.ir import FileSystem, Record, TrainingJob, Volume

KIND = "savings"
#: Days a Standard-IA object is billed at least (S3 storage classes); a month is 730 h = 30.42 days.
IA_MINIMUM_DAYS = 30.0
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0


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


def checkpoint_volume(rec: Record, ctx: CostContext, params: Mapping[str, Any]) -> tuple[float, str]:
    """V: the usage file first, a PVC's requested size as a weak hint, else the stated default."""
    if ctx.usage.source_of("checkpoint_storage_gb", rec.address, rec.name) == "usage file":
        return float(params["checkpoint_storage_gb"]), "usage checkpoint_storage_gb"
    size, how = _claim_size(rec, ctx.records)
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
