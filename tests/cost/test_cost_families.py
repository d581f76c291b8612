"""`finlint cost` and the pool rules count the same accelerated families (issue 25: g6f/gr6f,
fractional L4 GPUs, counted by the scan's facts and not by the cost breakdown)."""

from __future__ import annotations

from pathlib import Path

from finlint.cost.breakdown import build_breakdown
from finlint.domain import catalog
from finlint.domain.karpenter import admitted_types
from finlint.ir import ComputePool
from finlint.scan import ScanOptions, lint

G6F_POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: fractional
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g6f"]
"""


def test_fractional_gpu_families_are_accelerated_everywhere(tmp_path: Path) -> None:
    assert "g6f" in catalog.accelerated_families()
    (tmp_path / "pool.yaml").write_text(G6F_POOL)
    result = lint(ScanOptions(paths=[tmp_path]))
    (pool,) = [r for r in result.records if isinstance(r, ComputePool)]
    admitted = admitted_types(pool, catalog.accelerated_families())
    assert admitted and all(t.startswith("g6f.") for t in admitted)
    (item,) = build_breakdown(result.records).items
    assert "admits no accelerated type" not in item.description  # was: priced as 0 accelerated nodes
