"""issue 10 / 13: every cost figure is finite and honest, in scan and in `finlint cost`, in every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.finding import Cost

SPOT_JOB = """
resource "aws_sagemaker_training_job" "big" {{
  training_job_name = "big"
  role_arn          = "arn:aws:iam::1:role/x"
  algorithm_specification {{
    training_image      = "x"
    training_input_mode = "File"
  }}
  resource_config {{
    instance_type     = "ml.p4d.24xlarge"
    instance_count    = {count}
    volume_size_in_gb = 100
  }}
  enable_managed_spot_training = true
  stopping_condition {{
    max_runtime_in_seconds   = 86400
    max_wait_time_in_seconds = 172800
  }}
  output_data_config {{
    s3_output_path = "s3://b/o"
  }}
}}
"""

NODE_GROUP = """
resource "aws_eks_node_group" "h100" {
  cluster_name    = "c"
  node_group_name = "h100"
  node_role_arn   = "arn"
  subnet_ids      = ["s"]
  instance_types  = ["p5.48xlarge"]
  scaling_config {
    min_size     = 1e308
    desired_size = 1e308
    max_size     = 1e308
  }
}
"""


def scan(tmp_path: Path, text: str, *args: str) -> tuple[int, str]:
    (tmp_path / "main.tf").write_text(text)
    res = CliRunner().invoke(main, [*args, str(tmp_path)])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res.exit_code, res.output


@pytest.mark.parametrize("count", ["4000", "1e6", "1e308"])
def test_big_spot_job_keeps_the_report(tmp_path: Path, count: str) -> None:
    code, out = scan(tmp_path, SPOT_JOB.format(count=count), "scan", "--format", "json")
    assert code in (0, 1), out
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    (fin201,) = [f for f in data["findings"] if f["rule_id"] == "FIN201"]
    cost = fin201["cost"]
    if count == "4000":  # priced, never above the capped run at On-Demand (4,000 x 24 h x $25.2513)
        assert cost["per_run_usd"] is not None and 0 <= cost["per_run_usd"] <= 4000 * 24 * 25.2513
    else:  # absurd: unknown with the reason, never a number
        assert cost["monthly_usd"] is None and "instance count" in cost["reason"]


def test_absurd_node_group_is_not_priced_in_any_format(tmp_path: Path) -> None:
    code, out = scan(tmp_path, NODE_GROUP, "scan", "--format", "json")
    data = json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    (f,) = [f for f in data["findings"] if f["rule_id"] == "FIN301"]
    assert f["cost"]["monthly_usd"] is None and f["cost"]["reason"]
    _, text = scan(tmp_path, NODE_GROUP, "scan")
    assert "inf" not in text.replace("info", "")
    _, breakdown = scan(tmp_path, NODE_GROUP, "cost")
    assert "not priced" in breakdown and "beyond any AWS quota" in breakdown and "$inf" not in breakdown
    _, as_json = scan(tmp_path, NODE_GROUP, "cost", "--format", "json")
    json.loads(as_json, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def test_cost_to_json_never_emits_nan_or_infinity() -> None:
    c = Cost(float("inf"), float("nan"), "risk", "b", {"hours": float("inf"), "n": [10**400, 1.5]})
    out = json.dumps(c.to_json(), allow_nan=False)
    assert json.loads(out) == {
        "monthly_usd": None,
        "per_run_usd": None,
        "kind": "risk",
        "basis": "b",
        "assumptions": {"hours": None, "n": [None, 1.5]},
    }


def test_efs_of_unknown_size_is_priced_at_the_stated_default_as_the_scan_does(tmp_path: Path) -> None:
    (tmp_path / "efs.tf").write_text(
        'resource "aws_efs_file_system" "ckpt" {\n  throughput_mode = "elastic"\n'
        '  tags = { Name = "checkpoints" }\n}\n'
    )
    res = CliRunner().invoke(main, ["cost", str(tmp_path)])
    line = next(ln for ln in res.output.splitlines() if "aws_efs_file_system.ckpt" in ln)
    assert "$360.00" in line  # 1,200 GB (the stated default FIN401 and FIN403 use) x $0.30
    detail = res.output.splitlines()[res.output.splitlines().index(line) + 1]
    assert "stated default checkpoint_storage_gb" in detail
    usage = tmp_path / "u.yml"
    usage.write_text("resources:\n  aws_efs_file_system.ckpt:\n    checkpoint_storage_gb: 500\n")
    res = CliRunner().invoke(main, ["cost", str(tmp_path), "--usage-file", str(usage)])
    assert "$150.00" in res.output  # 500 GB x $0.30


def test_absurd_sizes_in_the_cost_breakdown_are_not_priced(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'resource "aws_sagemaker_notebook_instance" "nb" {\n  name = "nb"\n  role_arn = "r"\n'
        '  instance_type = "ml.g5.xlarge"\n  volume_size = 1e308\n}\n'
        'resource "aws_fsx_lustre_file_system" "fs" {\n  storage_capacity = 1e308\n'
        '  subnet_ids = ["s"]\n  deployment_type = "SCRATCH_2"\n}\n'
    )
    res = CliRunner().invoke(main, ["cost", str(tmp_path), "--format", "json"])
    data = json.loads(res.output, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    items = {i["resource"]: i for i in data["resources"]}
    for name in ("aws_sagemaker_notebook_instance.nb", "aws_fsx_lustre_file_system.fs"):
        assert items[name]["monthly_usd"] is None and items[name]["reason"], items[name]
