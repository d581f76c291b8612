"""FIN402 checkpoint-bucket-without-lifecycle: A checkpoint bucket with no lifecycle rule that
transitions or expires objects.

The policy is ``policies/FIN402-checkpoint-bucket-without-lifecycle.yaml``; this module holds
its facts and its price."""

from __future__ import annotations

import re
from typing import Any

from finlint.cost.common import CostContext, brief_text, num, price_note, quote_json, unpriced, usd
from finlint.cost.efs import checkpoint_volume
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding
from finlint.ir import Bucket, Record, Unknown
from finlint.rules.base import Rule
from finlint.rules.storage.names import first_match


def _effective_rules(rules: Any) -> Any:
    """Enabled rules that transition or expire objects; Unknown when the rules are unresolved."""
    if rules is None:
        return []
    if isinstance(rules, Unknown):
        return rules
    return [r for r in rules if r.enabled and (r.transitions or r.expiration_days is not None)]


def checkpoint_bucket_without_lifecycle(record: Record, pattern: str) -> Any:
    """Evidence that a bucket holding checkpoints has no rule that transitions or expires objects."""
    if not isinstance(record, Bucket):
        return None
    rx = re.compile(pattern)
    hit = first_match(
        rx,
        [
            ("bucket_name", record.bucket_name),
            ("name", record.name),
            ("address", record.address.rsplit(".", 1)[-1]),
        ],
    )
    why: str
    if record.checkpoint_jobs:
        jobs = ", ".join(record.checkpoint_jobs[:3])
        why = f"is the checkpoint bucket of {jobs}"
    elif hit is not None:
        why = f"is named for checkpoints ('{hit[1]}')"
    else:
        return None  # an unresolved or unrelated name says nothing about checkpoints
    effective = _effective_rules(record.lifecycle_rules)
    if isinstance(effective, Unknown):
        return effective
    if effective:
        return None
    what = (
        "no lifecycle configuration"
        if not record.lifecycle_rules
        else "no enabled lifecycle rule that transitions or expires objects"
    )
    line = record.line_of("lifecycle_rules") or record.line_of("bucket_name") or record.location.line
    return Evidence(f"{why} and has {what}", line)


def price_bucket_lifecycle(finding: Finding, ctx: CostContext) -> Cost:
    """FIN402: V GB kept in S3 Standard instead of Glacier Instant Retrieval after 30 days.

    monthly saving = V x (S3 Standard - S3 Glacier IR) $/GB-month; V = usage checkpoint_storage_gb
    (default 1,200 GB, the field guide's checkpoint tier): the GB of checkpoints older than 30 days.
    Without a lifecycle rule V only grows, so the figure is a floor for one month's accumulation.
    """
    rec = finding.record
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    if rec is None:
        return unpriced("savings", "no record to price")
    gb, _ = checkpoint_volume(rec, ctx, params)  # the volume `finlint cost` bills the bucket
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
    brief = brief_text(
        f"saves moving {num(gb)} GB older than 30 days to Glacier IR: {std.rate()} -> {cold.rate()}"
    )
    return Cost(saving, None, "savings", basis, assumptions, brief=brief)


RULE = Rule(
    "FIN402",
    facts=(checkpoint_bucket_without_lifecycle,),
    cost_model="checkpoint-bucket-lifecycle",
    price=price_bucket_lifecycle,
)
