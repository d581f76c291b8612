"""Terraform: subtraction without spaces (python-hcl2 8.x lexes ``-128`` as a literal) and
``aws_sagemaker_hyper_parameter_tuning_job`` (AWS provider, hashicorp/terraform-provider-aws#47138)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from finlint import ir
from finlint.loaders.terraform import loader as tf
from finlint.loaders.terraform import minus


def load(tmp_path: Path, text: str) -> ir.LoadResult:
    (tmp_path / "main.tf").write_text(textwrap.dedent(text).lstrip("\n"))
    files = sorted(tmp_path.glob("*.tf"))
    return tf.load_directory(tmp_path, files, lambda p: p.relative_to(tmp_path).as_posix(), {})


def by_address(result: ir.LoadResult) -> dict[str, Any]:
    return {r.address: r for r in result.records}


def test_subtraction_without_spaces_parses_and_evaluates(tmp_path: Path) -> None:
    result = load(
        tmp_path,
        """
        locals {
          reserved = 128
          size     = 2*(1024-128)
        }
        resource "aws_sagemaker_training_job" "t" {
          training_job_name = "t"
          resource_config {
            instance_type     = "ml.p4d.24xlarge"
            instance_count    = 3-1
            volume_size_in_gb = local.size
          }
          stopping_condition {
            max_runtime_in_seconds = 86400-3600*(2)-local.reserved
          }
        }
        """,
    )
    assert result.errors == []
    job = by_address(result)["aws_sagemaker_training_job.t"]
    assert (job.volume_size_gb, job.instance_count) == (1792, 2)
    assert (job.max_runtime_s, job.attr_lines["max_runtime_s"]) == (86400 - 7200 - 128, 13)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x = 1024-128\n", "x = 1024- 128\n"),
        ("x = a[0]-12\n", "x = a[0]- 12\n"),
        ("x = (1)  -12\n", "x = (1)  - 12\n"),
    ],
)
def test_split_minus_only_after_an_operand(text: str, expected: str) -> None:
    import hcl2
    from lark.exceptions import UnexpectedInput

    with pytest.raises(UnexpectedInput) as info:
        hcl2.parses_to_tree(text)
    assert minus.split_minus(text, info.value) == expected


def test_negative_literals_and_real_errors_stay_as_they_were(tmp_path: Path) -> None:
    import hcl2
    from lark.exceptions import UnexpectedInput

    assert hcl2.parses_to_tree("x = -128\ny = [1, -12]\n") is not None  # no workaround needed
    with pytest.raises(UnexpectedInput) as info:
        hcl2.parses_to_tree("x = = -12\n")
    assert minus.split_minus("x = = -12\n", info.value) is None  # after '=': a sign, a real error
    result = load(tmp_path, 'resource "aws_efs_file_system" "x" {\n  a = = -12\n}\n')
    assert [(e.line, e.message) for e in result.errors] == [(2, "invalid HCL: unexpected '= -12\\n}'")]


TUNING = """
resource "aws_sagemaker_hyper_parameter_tuning_job" "hpo" {
  name = "hpo"
  config {
    strategy = "Bayesian"
    resource_limits {
      max_number_of_training_jobs = 20
      max_parallel_training_jobs  = 4
    }
  }
  training_job_definitions {
    definition_name              = "big"
    enable_managed_spot_training = true
    role_arn                     = "arn:aws:iam::123456789012:role/r"
    algorithm_specification {
      training_image      = "123.dkr.ecr.us-east-1.amazonaws.com/train:1"
      training_input_mode = "File"
    }
    output_data_config {
      s3_output_path = "s3://b/out/"
    }
    hyper_parameter_tuning_resource_config {
      instance_type  = "ml.p4d.24xlarge"
      instance_count = 2
    }
    stopping_condition {
      max_runtime_in_seconds   = 7200
      max_wait_time_in_seconds = 10800
    }
  }
  training_job_definitions {
    role_arn = "arn:aws:iam::123456789012:role/r"
    algorithm_specification {
      training_image      = "123.dkr.ecr.us-east-1.amazonaws.com/train:1"
      training_input_mode = "File"
    }
    output_data_config {
      s3_output_path = "s3://b/out/"
    }
    resource_config {
      instance_type  = "ml.g5.2xlarge"
      instance_count = 1
    }
    stopping_condition {
      max_runtime_in_seconds = 3600
    }
  }
}
"""


def test_tuning_job_definitions_run_max_jobs_times(tmp_path: Path) -> None:
    jobs = by_address(load(tmp_path, TUNING))
    big = jobs["aws_sagemaker_hyper_parameter_tuning_job.hpo/big"]
    small = jobs["aws_sagemaker_hyper_parameter_tuning_job.hpo/2"]
    assert (big.instance_type, big.instance_count, big.spot) == ("ml.p4d.24xlarge", 2, True)
    assert (big.attr_lines["instance_type"], big.attr_lines["spot"]) == (22, 12)
    assert (big.runs_multiplier, big.attr_lines["runs_multiplier"]) == (20, 6)
    assert (small.instance_type, small.spot, small.max_runtime_s, small.runs_multiplier) == (
        "ml.g5.2xlarge",
        None,
        3600,
        20,
    )


def test_tuning_job_spot_without_checkpoint_is_fin201_per_tuning_run(tmp_path: Path) -> None:
    from tests.conftest import scan_files

    result = scan_files(tmp_path, {"main.tf": textwrap.dedent(TUNING).lstrip("\n")}, ("FIN201",))
    (finding,) = result.findings
    assert (finding.rule_id, finding.line) == ("FIN201", 12)
    assert finding.cost is not None and "x 20 jobs per tuning run" in finding.cost.basis


def test_tuning_job_without_max_jobs_is_unknown_and_count_multiplies(tmp_path: Path) -> None:
    text = TUNING.replace("max_number_of_training_jobs = 20", "").replace(
        '  name = "hpo"', '  name  = "hpo"\n  count = 1'
    )
    jobs = by_address(load(tmp_path, text))
    (big,) = [j for a, j in jobs.items() if a.endswith("/big")]
    assert isinstance(big.runs_multiplier, ir.Unknown)
    assert "max_number_of_training_jobs is not set" in big.runs_multiplier.reason
