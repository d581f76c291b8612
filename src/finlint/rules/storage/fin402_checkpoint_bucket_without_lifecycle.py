"""FIN402 checkpoint-bucket-without-lifecycle: A checkpoint bucket with no lifecycle rule that
transitions or expires objects.

The policy is ``policies/FIN402-checkpoint-bucket-without-lifecycle.yaml``; this module holds
its facts and its price."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from finlint.cost.common import CostContext, brief_text, num, price_note, quote_json, unpriced, usd
from finlint.cost.efs import checkpoint_volume
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding, Fix
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


#: what an unsafe fix's lifecycle rule does: abort incomplete multipart uploads (checkpoint
#: shards of a killed job) and expire noncurrent versions after this many days, and expire the
#: checkpoints themselves after FIX_EXPIRATION_DAYS (a run resumes from its newest checkpoint,
#: written hours ago; the trained model is in the job's output path, not here)
FIX_ABORT_DAYS = 7
FIX_EXPIRATION_DAYS = 30
FIX_RULE_ID = "checkpoints-age-out"

_CFN_RULE = f"""Rules:
  - Id: {FIX_RULE_ID}
    Status: Enabled
    AbortIncompleteMultipartUpload:
      DaysAfterInitiation: {FIX_ABORT_DAYS}
    NoncurrentVersionExpiration:
      NoncurrentDays: {FIX_ABORT_DAYS}
    ExpirationInDays: {FIX_EXPIRATION_DAYS}"""

_CFN_JSON_RULE = {
    "Rules": [
        {
            "Id": FIX_RULE_ID,
            "Status": "Enabled",
            "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": FIX_ABORT_DAYS},
            "NoncurrentVersionExpiration": {"NoncurrentDays": FIX_ABORT_DAYS},
            "ExpirationInDays": FIX_EXPIRATION_DAYS,
        }
    ]
}

_TF_RULE = f"""resource "aws_s3_bucket_lifecycle_configuration" "{{name}}" {{{{
  bucket = aws_s3_bucket.{{name}}.id

  rule {{{{
    id     = "{FIX_RULE_ID}"
    status = "Enabled"
    filter {{{{}}}}

    abort_incomplete_multipart_upload {{{{
      days_after_initiation = {FIX_ABORT_DAYS}
    }}}}

    noncurrent_version_expiration {{{{
      noncurrent_days = {FIX_ABORT_DAYS}
    }}}}

    expiration {{{{
      days = {FIX_EXPIRATION_DAYS}
    }}}}
  }}}}
}}}}"""

_TF_BUCKET = re.compile(r'\s*resource\s+"aws_s3_bucket"\s+"([A-Za-z_][A-Za-z0-9_-]*)"\s*\{\s*$')


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """A bucket named for checkpoints with no lifecycle configuration at all: unsafe, a rule that
    aborts incomplete multipart uploads and expires noncurrent versions after 7 days and every
    object after 30 (CloudFormation YAML and JSON: ``LifecycleConfiguration`` on the ``AWS::S3::Bucket``;
    Terraform: an ``aws_s3_bucket_lifecycle_configuration`` after the bucket). Behaviour
    changes: objects older than 30 days are deleted. No fix for a bucket found only because jobs
    checkpoint into it (it holds more than checkpoints: a whole-bucket expiry would delete
    them), a bucket with rules (disabled, or not expiring: a person decides), ``count`` or
    ``for_each`` buckets and plans."""
    bucket = finding.record
    if not isinstance(bucket, Bucket) or bucket.lifecycle_rules is not None or bucket.checkpoint_jobs:
        return None
    days = f"expire objects after {FIX_EXPIRATION_DAYS} days, abort uploads after {FIX_ABORT_DAYS}"
    if bucket.source_format == "cloudformation" and text.lstrip().startswith("{"):
        import json

        from finlint.textedit.json_members import json_add_key

        path = ("Resources", bucket.address, "Properties")
        root = text[: len(text) - len(text.lstrip())].count("\n") + 1
        value = json.dumps(_CFN_JSON_RULE)
        edit = json_add_key(finding.file, text, root, path, "LifecycleConfiguration", value, 2, expand=True)
        return Fix(f"add LifecycleConfiguration ({days})", False, (edit,)) if edit else None
    if bucket.source_format == "cloudformation" and finding.file.endswith((".yaml", ".yml", ".template")):
        from finlint.textedit import yaml_add_key

        path = ("Resources", bucket.address, "Properties")
        edit = yaml_add_key(finding.file, text, finding.line, path, "LifecycleConfiguration", _CFN_RULE, 2)
        return Fix(f"add LifecycleConfiguration ({days})", False, (edit,)) if edit else None
    if bucket.source_format in ("terraform", "terraform-plan") and finding.file.endswith(".tf"):
        from finlint.textedit.hcl import hcl_append_after, hcl_block_attributes

        line = bucket.location.line
        lines = text.splitlines()
        match = _TF_BUCKET.match(lines[line - 1]) if 1 <= line <= len(lines) else None
        attrs = hcl_block_attributes(text, line)
        if match is None or attrs is None:
            return None
        name = match.group(1)
        taken = re.compile(rf'"aws_s3_bucket_lifecycle_configuration"\s+"{re.escape(name)}"')
        if taken.search(text) or attrs & {"count", "for_each"}:  # .id would name no one bucket
            return None
        edit = hcl_append_after(finding.file, text, line, _TF_RULE.format(name=name))
        return (
            Fix(f"add aws_s3_bucket_lifecycle_configuration.{name} ({days})", False, (edit,))
            if edit
            else None
        )
    return None


RULE = Rule(
    "FIN402",
    facts=(checkpoint_bucket_without_lifecycle,),
    cost_model="checkpoint-bucket-lifecycle",
    price=price_bucket_lifecycle,
    fix=fix,
    fix_safety="unsafe",
)
