"""The pool, notebook and storage cost models (FIN302, FIN304, FIN305, FIN402, FIN403), by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import scan_files

NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["g5.xlarge", "g5.12xlarge"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
{tail}"""


def only(tmp_path: Path, files: dict[str, str], rule: str):  # type: ignore[no-untyped-def]
    (finding,) = [f for f in scan_files(tmp_path, files, select=(rule,)).findings if f.rule_id == rule]
    assert finding.cost is not None
    return finding


def test_fin304_is_the_dearest_admitted_node_month(tmp_path: Path) -> None:
    f = only(tmp_path, {"np.yaml": NODEPOOL.format(tail="")}, "FIN304")
    # g5.12xlarge $5.672/h x 730 h (the dearer of the two admitted types)
    assert f.cost.kind == "exposure" and f.cost.monthly_usd == pytest.approx(5.672 * 730)
    assert f.cost.assumptions["instance_type"] == "g5.12xlarge"


def test_fin305_is_the_cheapest_idle_node_month(tmp_path: Path) -> None:
    tail = "  disruption:\n    consolidateAfter: Never\n  limits:\n    nvidia.com/gpu: 8\n"
    f = only(tmp_path, {"np.yaml": NODEPOOL.format(tail=tail)}, "FIN305")
    # g5.xlarge $1.006/h x 730 h
    assert f.cost.monthly_usd == pytest.approx(1.006 * 730) and f.line == 17  # consolidateAfter


def test_fin301_and_fin304_on_one_pool_are_one_exposure(tmp_path: Path) -> None:
    """Two exposures of one pool: each finding keeps its own figure, the run's exposure counts
    the pool once (the larger), and neither is avoidable spend."""
    text = NODEPOOL.format(tail="").replace('["g5.xlarge", "g5.12xlarge"]', '["p5.48xlarge"]')
    result = scan_files(tmp_path, {"np.yaml": text}, select=("FIN301", "FIN304"))
    by_rule = {f.rule_id: f for f in result.findings}
    assert by_rule["FIN301"].cost.monthly_usd == pytest.approx(55.04 * 730)  # type: ignore[union-attr]
    assert by_rule["FIN304"].cost.monthly_usd == pytest.approx(55.04 * 730)  # type: ignore[union-attr]
    assert result.totals().exposure_usd == pytest.approx(55.04 * 730)
    assert result.monthly_usd() == 0.0


def test_fin302_prices_the_idle_hours(tmp_path: Path) -> None:
    template = (
        'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  Nb:\n'
        "    Type: AWS::SageMaker::NotebookInstance\n"
        "    Properties:\n      InstanceType: ml.g5.xlarge\n      RoleArn: arn:aws:iam::111122223333:role/R\n"
    )
    f = only(tmp_path, {"t.yaml": template}, "FIN302")
    # ml.g5.xlarge $1.41/h x (730 - 176) idle hours
    assert f.cost.kind == "waste" and f.cost.monthly_usd == pytest.approx(1.41 * 554)
    assert f.cost.assumptions["idle_hours_per_month"] == 554


def test_fin403_is_the_provisioned_throughput_charge(tmp_path: Path) -> None:
    code = (
        'resource "aws_efs_file_system" "training" {\n  throughput_mode = "provisioned"\n'
        "  provisioned_throughput_in_mibps = 512\n}\n"
    )
    f = only(tmp_path, {"main.tf": code}, "FIN403")
    baseline = 1200 * 1e9 / 2**30 * 50 / 1024  # 54.57 MiB/s: what the default 1,200 GB stored include
    assert f.cost.monthly_usd == pytest.approx((512 - baseline) * 6.00) and f.line == 2  # $2,744.58


def test_fin402_is_standard_minus_glacier_ir_on_the_checkpoint_volume(tmp_path: Path) -> None:
    f = only(
        tmp_path, {"main.tf": 'resource "aws_s3_bucket" "ckpt" {\n  bucket = "team-ckpt"\n}\n'}, "FIN402"
    )
    # 1,200 GB (usage default) x ($0.023 - $0.004)
    assert f.cost.kind == "savings" and f.cost.monthly_usd == pytest.approx(1200 * 0.019)


def test_finlint_cost_states_the_limit_ceiling_fin301_reports(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from finlint.cli import main

    text = NODEPOOL.format(tail="  limits:\n    cpu: 5000\n").replace(
        '["g5.xlarge", "g5.12xlarge"]', '["p5.48xlarge"]'
    )
    (tmp_path / "np.yaml").write_text(text, encoding="utf-8")
    out = CliRunner().invoke(main, ["cost", str(tmp_path)]).output
    # the same N x node-month as FIN301's finding (cost.pools.limit_ceiling)
    assert "its limits (cpu 5000) admit 26 node(s) x p5.48xlarge $55.04/h x 730 h = $1,044,659.20" in out
    (finding,) = scan_files(tmp_path, {}, select=("FIN301",)).findings
    assert finding.cost is not None and finding.cost.monthly_usd == pytest.approx(1_044_659.20)
