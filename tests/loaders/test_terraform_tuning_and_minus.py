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
