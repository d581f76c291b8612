"""`finlint scan` and `finlint cost` agree on every resource of every fixture tree.

A finding's avoidable dollars (its savings or expected waste) never exceed what `finlint cost`
says that resource bills; on each resource the avoidable figures scan's headline counts (the
largest saving plus the wastes) stay within that bill too; and the headline itself never exceeds
the `finlint cost` total. Exposures are conditional (what a stuck job or a pool at its limits may
bill) and are checked apart: they are never part of the avoidable spend.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from tests.conftest import scan_paths

from finlint.cost.breakdown import build_breakdown
from finlint.cost.totals import resource_of, totals

REPO = Path(__file__).resolve().parents[2]
TREES = sorted(p for p in (REPO / "fixtures").iterdir() if p.is_dir())
#: findings whose resource `finlint cost` does not bill by itself: a bucket's storage (FIN402),
#: an EFS file system's provisioned throughput against its stored data (FIN403) and EFS
#: checkpoint storage (FIN401) are priced there as storage, not always under the same address
STORAGE_RULES = {"FIN401", "FIN402", "FIN403"}


@pytest.mark.parametrize("tree", TREES, ids=lambda p: p.name)
def test_avoidable_dollars_stay_within_each_resources_bill(tree: Path) -> None:
    result = scan_paths([tree])
    bill = build_breakdown(result.records)
    billed: dict[str, float] = defaultdict(float)
    for item in bill.items:
        if item.monthly_usd is not None:
            billed[item.resource] += item.monthly_usd
    per_resource: dict[str, list[object]] = defaultdict(list)
    for f in result.active():
        if f.cost is None or f.cost.monthly_usd is None or f.cost.kind == "exposure":
            continue
        if f.rule_id in STORAGE_RULES or resource_of(f) not in billed:
            continue
        assert f.cost.monthly_usd <= billed[resource_of(f)] + 0.01, (f.rule_id, f.resource, f.cost.basis)
        per_resource[resource_of(f)].append(f)
    for resource, findings in per_resource.items():
        counted = totals(findings)  # type: ignore[arg-type]
        assert counted.avoidable_usd <= billed[resource] + 0.01, resource
    assert result.totals().avoidable_usd <= bill.total_monthly_usd + 0.01 or not bill.items


def test_the_demos_headline_is_within_its_bill() -> None:
    result = scan_paths([REPO / "fixtures" / "demo"])
    bill = build_breakdown(result.records)
    assert 0 < result.monthly_usd() <= bill.total_monthly_usd
