"""FIN403 efs-provisioned-throughput-for-training: EFS in provisioned throughput mode serving
training data or checkpoints.

The policy is ``policies/FIN403-efs-provisioned-throughput-for-training.yaml``; this module
holds its facts and its price.

Price (efs-provisioned-throughput): monthly = provisioned MiB/s x EFS provisioned throughput
$/MiB/s-month (pricing.md: $6.00, us-east-1), billed every hour whether the throughput is used
or not. Elastic throughput bills per GB transferred instead ($0.03/GB read, $0.06/GB written),
so the saving depends on the traffic: the figure is the fixed charge at risk, not a saving.
"""

from __future__ import annotations

import re
from typing import Any

from finlint.cost import bounds
from finlint.cost.common import CostContext, num, price_note, quote_json, unpriced, usd
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
    pricing = ctx.pricing_for(ctx.params(rec))
    quote = pricing.efs("provisioned_throughput_mibps_month")
    if quote is None:
        return unpriced("savings", pricing.missing("EFS provisioned throughput"), region=pricing.region)
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
    return Cost(monthly, None, "savings", basis, assumptions)


RULE = Rule(
    "FIN403",
    facts=(efs_provisioned_for_training,),
    cost_model="efs-provisioned-throughput",
    price=price_provisioned_throughput,
)
