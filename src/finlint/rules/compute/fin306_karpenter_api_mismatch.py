"""FIN306 karpenter-api-mismatch: A field or value of another Karpenter API version in a NodePool.

The policy is ``policies/FIN306-karpenter-api-mismatch.yaml``; this module holds its facts and
its price."""

from __future__ import annotations

from typing import Any

from finlint.engine.facts import Evidence
from finlint.ir import ComputePool, Record, is_unknown
from finlint.rules.base import Rule

#: (api version suffix, disruption path, value or None for any) -> why it is wrong there.
_MISMATCHES: tuple[tuple[str, str, str | None, str], ...] = (
    (
        "karpenter.sh/v1",
        "spec.disruption.consolidationPolicy",
        "WhenUnderutilized",
        "consolidationPolicy WhenUnderutilized is a v1beta1 value; karpenter.sh/v1 accepts WhenEmpty or "
        "WhenEmptyOrUnderutilized and rejects the pool",
    ),
    (
        "karpenter.sh/v1",
        "spec.disruption.expireAfter",
        None,
        "expireAfter under spec.disruption is v1beta1; karpenter.sh/v1 reads it from "
        "spec.template.spec.expireAfter, so node expiry is not what it says",
    ),
    (
        "karpenter.sh/v1beta1",
        "spec.disruption.consolidationPolicy",
        "WhenEmptyOrUnderutilized",
        "consolidationPolicy WhenEmptyOrUnderutilized is a karpenter.sh/v1 value; v1beta1 accepts "
        "WhenEmpty or WhenUnderutilized and rejects the pool",
    ),
    (
        "karpenter.sh/v1beta1",
        "spec.template.spec.expireAfter",
        None,
        "spec.template.spec.expireAfter is karpenter.sh/v1; v1beta1 reads expireAfter from "
        "spec.disruption, so node expiry is not what it says",
    ),
)


def karpenter_api_mismatch(record: Record) -> Any:
    """Evidence of a field or value of one Karpenter API version written in a pool of another."""
    if not isinstance(record, ComputePool) or record.pool_kind != "karpenter-nodepool":
        return None
    version = record.api_version
    if not isinstance(version, str):
        return version if is_unknown(version) else None
    found: list[tuple[int, str]] = []
    for api, path, value, why in _MISMATCHES:
        if version != api or path not in record.disruption_paths.values():
            continue
        key = next(k for k, p in record.disruption_paths.items() if p == path)
        actual = record.disruption.get(key)
        if value is not None and actual != value:
            continue
        line = record.line_of(f"disruption.{key}") or record.line_of("disruption") or record.location.line
        found.append((line, why))
    if not found:
        return None
    found.sort()
    return Evidence("; ".join(why for _, why in found), found[0][0])


RULE = Rule("FIN306", facts=(karpenter_api_mismatch,), cost_model=None, price=None)
