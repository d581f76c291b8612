"""Checkpoint storage on EFS and S3, shared by FIN401's price (``rules/storage/fin401_...``):
the checkpoint volume and write stream. FIN401 compares both sides:

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

from finlint.cost.common import CostContext, num
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.ir import Record

KIND = "savings"
#: Days a Standard-IA object is billed at least (S3 storage classes); a month is 730 h = 30.42 days.
IA_MINIMUM_DAYS = 30.0
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0


def checkpoint_volume(
    rec: Record, ctx: CostContext, params: Mapping[str, Any], line: int | None = None
) -> tuple[float, str]:
    """V: the usage file first, a PVC's requested size as a weak hint, else the stated default."""
    if ctx.usage.source_of("checkpoint_storage_gb", rec.address, rec.name) == "usage file":
        return float(params["checkpoint_storage_gb"]), "usage checkpoint_storage_gb"
    size, how = ctx.index.claim_size(rec, line)
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
