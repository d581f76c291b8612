"""FIN403 efs-provisioned-throughput-for-training: EFS in provisioned throughput mode serving
training data or checkpoints.

The policy is ``policies/FIN403-efs-provisioned-throughput-for-training.yaml``; this module
holds its facts and its price.

Price (efs-provisioned-throughput, savings: up to the fixed charge): monthly = max(0, provisioned
MiB/s - the baseline the stored data includes, 50 KiB/s per GiB) x EFS provisioned throughput
$/MiB/s-month (pricing.md: $6.00, us-east-1), billed every hour whether the throughput is used or
not (``cost.efs.provisioned_charge``; the stored size as FIN401 and ``finlint cost`` take it).
Elastic throughput bills per GB transferred instead ($0.03/GB read, $0.06/GB written), so the
saving depends on the traffic: the figure is the fixed charge at risk.
"""

from __future__ import annotations

import re
from typing import Any

from finlint.cost import bounds
from finlint.cost.common import CostContext, brief_text, price_note, quote_json, unpriced, usd
from finlint.cost.efs import checkpoint_volume, provisioned_charge
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding
from finlint.ir import FileSystem, Record, is_unknown
from finlint.rules.base import Rule
from finlint.rules.storage.names import named


def efs_provisioned_for_training(record: Record, pattern: str) -> Any:
    """Evidence that an EFS file system in provisioned throughput mode serves training."""
    if not isinstance(record, FileSystem) or record.fs_type != "efs":
        return None
    mode = record.throughput_mode
    if not isinstance(mode, str):
        return mode if is_unknown(mode) else None
    if mode.lower() != "provisioned":
        return None
    if record.mounted_by:
        why = f"mounted by {', '.join(record.mounted_by[:3])}"
    else:
        hit = named(record, re.compile(pattern))
        if hit is None:
            return None
        why = f"named for training ('{hit[1]}')"
    mibps = record.provisioned_throughput_mibps
    amount = f"{mibps:,.0f} MiB/s " if isinstance(mibps, (int, float)) else ""
    line = record.line_of("throughput_mode") or record.location.line
    return Evidence(f"provisions {amount}of throughput and is {why}", line)


def price_provisioned_throughput(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    if not isinstance(rec, FileSystem):
        return unpriced("savings", "efs-provisioned-throughput prices EFS file systems only")
    mibps, why = bounds.quantity(rec.provisioned_throughput_mibps, "provisioned throughput")
    if mibps is None:
        return unpriced("savings", why or "provisioned throughput unresolved")
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    quote = pricing.efs("provisioned_throughput_mibps_month")
    if quote is None:
        return unpriced("savings", pricing.missing("EFS provisioned throughput"), region=pricing.region)
    pricing.used(quote)
    stored, stored_how = checkpoint_volume(rec, ctx, params)
    charge = provisioned_charge(mibps, stored, quote)
    monthly = charge.usd
    basis = (
        f"Provisioned throughput bills only above the baseline the stored data includes: "
        f"{charge.text(quote)}/month (stored size: {stored_how}), billed whether the throughput is used "
        f"or not; elastic throughput bills per GB transferred instead, so the saving depends on the "
        f"traffic. {price_note(quote)}"
    )
    brief = brief_text(
        f"fixed charge up to {usd(monthly)}/month: {charge.billed_mibps:,.0f} of {mibps:,.0f} MiB/s "
        f"above {stored:,.0f} GB's baseline x {quote.rate()}"
    )
    assumptions: dict[str, Any] = {
        "provisioned_mibps": mibps,
        "stored_gb": stored,
        "stored_gb_source": stored_how,
        "baseline_mibps": charge.baseline_mibps,
        "billed_mibps": charge.billed_mibps,
        "usd_per_mibps_month": quote.usd,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    return Cost(monthly, None, "savings", basis, assumptions, brief=brief)


RULE = Rule(
    "FIN403",
    facts=(efs_provisioned_for_training,),
    cost_model="efs-provisioned-throughput",
    price=price_provisioned_throughput,
)
