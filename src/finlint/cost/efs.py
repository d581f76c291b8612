"""Checkpoint storage on EFS and S3, shared by FIN401's price (``rules/storage/fin401_...``):
the checkpoint volume and write stream. FIN401 compares both sides:

EFS          = V x EFS Standard/GB-month
               + W x elastic write $/GB            (Elastic throughput: declared, or assumed when the
                                                   file system is not linked; none in bursting/provisioned)
               + billed MiB/s x $/MiB/s-month      (provisioned mode: only the MiB/s above the
                                                   baseline the stored data includes)
alternative  = F x FSx for Lustre PERSISTENT_2 at the tier's $/GB-month (field guide: 250 MB/s/TiB)
               + S3: V x S3 Standard + W x 1,024 / part MB / 1,000 x PUT $ per 1,000 requests
                 (or Standard-IA when cheaper, billing every GB written for its 30-day minimum)
saving       = max(0, EFS - alternative)

W, the checkpoint stream in GB/month = checkpoint size x writers x 60 / interval minutes x training
hours per month (usage file), or checkpoint_write_gb_per_month. Without it the EFS side is
"storage only — a lower bound". V: usage checkpoint_storage_gb first; a PVC's requested size is a
weak hint (the EFS CSI driver ignores capacity); else the stated default (1,200 GB). The same
volume is what ``finlint cost`` bills the file system, and what FIN403's baseline is taken from.

Provisioned throughput is billed only above what the stored data includes: the bursting baseline
of 50 KiB/s per GiB of Standard storage (50 MiB/s per TiB). Sources: AWS Knowledge Center, "Which
throughput mode is right for my EFS file system" (efs-choosing-correct-throughput-mode, updated
2022-06-20: "The baseline performance per GiB of file system storage is 50 KiB/s"); AWS re:Post on
provisioned billing, after the EFS pricing page's example 3: billed "based on the average
throughput provisioned in excess of what your EFS Standard storage allows".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from finlint.cost.common import CostContext, num, usd
from finlint.cost.pricing import PriceQuote
from finlint.cost.usage import HOURS_PER_MONTH
from finlint.ir import Record

KIND = "savings"
#: Days a Standard-IA object is billed at least (S3 storage classes); a month is 730 h = 30.42 days.
IA_MINIMUM_DAYS = 30.0
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0
#: EFS bursting baseline included with storage: 50 KiB/s per GiB stored (module doc for the source).
BASELINE_KIB_S_PER_GIB = 50.0
GIB_PER_GB = 1e9 / 2**30
#: the stated EFS size when neither the usage file nor a claim says (field guide: a 1.2 TB hot tier)
DEFAULT_STORED_GB = 1200.0


@dataclass(frozen=True)
class ProvisionedCharge:
    """Provisioned throughput as billed: the MiB/s above the baseline the stored data includes."""

    provisioned_mibps: float
    stored_gb: float
    baseline_mibps: float
    billed_mibps: float
    usd: float

    def text(self, quote: PriceQuote) -> str:
        """``(256 - 54.57 baseline of 1,200 GB stored) MiB/s x $6.00/MiB/s-month = $1,208.58``."""
        return (
            f"({num(self.provisioned_mibps)} MiB/s provisioned - {num(round(self.baseline_mibps, 2))} MiB/s "
            f"included with {num(self.stored_gb)} GB stored at 50 KiB/s per GiB) = "
            f"{num(round(self.billed_mibps, 2))} MiB/s billed x {quote.rate()} = {usd(self.usd)}"
        )


def baseline_mibps(stored_gb: float) -> float:
    """The throughput the stored data includes: 50 KiB/s per GiB of Standard storage, in MiB/s."""
    return max(0.0, stored_gb) * GIB_PER_GB * BASELINE_KIB_S_PER_GIB / 1024.0


def provisioned_charge(mibps: float, stored_gb: float, quote: PriceQuote) -> ProvisionedCharge:
    """What provisioned throughput bills a month: max(0, provisioned - baseline) x $/MiB/s-month."""
    base = baseline_mibps(stored_gb)
    billed = max(0.0, mibps - base)
    return ProvisionedCharge(mibps, stored_gb, base, billed, billed * quote.usd)


def checkpoint_volume(
    rec: Record, ctx: CostContext, params: Mapping[str, Any], line: int | None = None
) -> tuple[float, str]:
    """V: the usage file first, a PVC's requested size as a weak hint, else the stated default."""
    if ctx.usage.source_of("checkpoint_storage_gb", rec.address, rec.name) == "usage file":
        return float(params["checkpoint_storage_gb"]), "usage checkpoint_storage_gb"
    size, how = ctx.index.claim_size(rec, line)
    if size is not None and 0 <= size <= 1e8:
        return size, f"{how}, a weak hint: the EFS CSI driver ignores capacity; set checkpoint_storage_gb"
    return (
        float(params.get("checkpoint_storage_gb", DEFAULT_STORED_GB)),
        "stated default checkpoint_storage_gb (1.2 TB)",
    )


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
