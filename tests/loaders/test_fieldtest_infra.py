"""Regressions from field-testing the infrastructure loaders on public code (2026-12).

Every fixture here is a hand-written reduction of a pattern seen in the field (see
docs/field-test-infra-2026-12.md); none is copied from a public repository.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import tf_load

from finlint.engine import EngineConfig
from finlint.ir import ComputePool, LoadResult, Unknown
from finlint.scan import ScanOptions, lint


def pools(result: LoadResult) -> list[ComputePool]:
    return [r for r in result.records if isinstance(r, ComputePool)]


# --- typed variables: optional(...) object attributes ----------------------------------------

HYPERPOD_ROOT = """
    variable "instance_groups" {
      type = map(object({
        instance_type     = string
        instance_count    = number
        training_plan_arn = optional(string, "")
      }))
    }

    module "hyperpod" {
      source          = "./hyperpod"
      instance_groups = var.instance_groups
    }
    """

HYPERPOD_TFVARS = """
    instance_groups = {
      workers = {
        instance_type  = "ml.p5.48xlarge"
        instance_count = 8
      }
    }
    """

HYPERPOD_MODULE = """
    variable "instance_groups" {
      type = map(object({
        instance_type     = string
        instance_count    = number
        training_plan_arn = optional(string, "")
      }))
    }

    locals {
      groups = [
        for name, g in var.instance_groups : merge(
          {
            instance_group_name = name
            instance_type       = g.instance_type
            instance_count      = g.instance_count
          },
          g.training_plan_arn != "" ? { training_plan_arn = g.training_plan_arn } : {}
        )
      ]
    }

    resource "awscc_sagemaker_cluster" "this" {
      cluster_name    = "training"
      instance_groups = local.groups
    }
    """


def test_optional_attribute_left_out_gets_its_default(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": HYPERPOD_ROOT,
            "terraform.tfvars": HYPERPOD_TFVARS,
            "hyperpod/main.tf": HYPERPOD_MODULE,
        },
    )
    (pool,) = pools(result)
    assert pool.address.endswith('instance_groups["workers"]')
    assert pool.instance_types == ("ml.p5.48xlarge",)
    assert pool.desired_size == 8
    assert pool.capacity_reservation is None  # training_plan_arn defaulted to "": no plan


NODE_GROUP_ROOT = """
    module "cluster" {
      source = "./cluster"
      node_groups = {
        gpu = {
          instance_types = ["p5.48xlarge"]
          min_size       = 2
          max_size       = 4
          desired_size   = 2
        }
      }
    }
    """

NODE_GROUP_MODULE = """
    variable "node_groups" {
      type = map(object({
        instance_types = optional(list(string))
        capacity_type  = optional(string)
        min_size       = optional(number, 0)
        max_size       = optional(number, 3)
        desired_size   = optional(number, 1)
        labels         = optional(map(string))
      }))
      default = {}
    }

    variable "capacity_type" {
      type     = string
      default  = "ON_DEMAND"
      nullable = false
    }

    resource "aws_eks_node_group" "this" {
      for_each       = var.node_groups
      cluster_name   = "c"
      instance_types = each.value.instance_types
      capacity_type  = coalesce(each.value.capacity_type, var.capacity_type)
      labels         = each.value.labels
      scaling_config {
        min_size     = each.value.min_size
        max_size     = each.value.max_size
        desired_size = each.value.desired_size
      }
    }
    """


def test_node_group_without_optional_capacity_type_is_read(tmp_path: Path) -> None:
    result = tf_load(tmp_path, {"main.tf": NODE_GROUP_ROOT, "cluster/main.tf": NODE_GROUP_MODULE})
    (pool,) = pools(result)
    assert pool.instance_types == ("p5.48xlarge",)
    assert pool.min_size == 2
    assert pool.capacity_types == ("on-demand",)
    assert fin301_lines(tmp_path) == [("cluster/main.tf", 22)]  # always-on p5: now reported


def test_null_for_a_non_nullable_variable_takes_its_default(tmp_path: Path) -> None:
    module = NODE_GROUP_MODULE.replace(
        "coalesce(each.value.capacity_type, var.capacity_type)", "var.capacity_type"
    )
    root = NODE_GROUP_ROOT.replace('source = "./cluster"', 'source = "./cluster"\n  capacity_type = null')
    result = tf_load(tmp_path, {"main.tf": root, "cluster/main.tf": module})
    (pool,) = pools(result)
    assert pool.capacity_types == ("on-demand",)


def fin301_lines(path: Path) -> list[tuple[str, int]]:
    result = lint(ScanOptions(paths=[path], engine=EngineConfig(select=("FIN301",))))
    return [(Path(f.file).relative_to(path).as_posix(), f.line) for f in result.findings]


# --- HyperPod instance groups that cannot be listed ------------------------------------------


def test_hyperpod_cluster_with_unknown_groups_is_a_pool_not_nothing(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": """
                variable "groups" {}
                resource "awscc_sagemaker_cluster" "this" {
                  cluster_name    = "training"
                  instance_groups = var.groups
                }
                """
        },
    )
    (pool,) = pools(result)
    assert pool.pool_kind == "hyperpod-instance-group"
    assert pool.address == "awscc_sagemaker_cluster.this.instance_groups"
    assert isinstance(pool.instance_types, Unknown)
    assert "var.groups" in pool.instance_types.reason
    assert pool.location.line == 4


def test_a_module_shared_by_two_configurations_gives_its_notice_once(tmp_path: Path) -> None:
    """Both roots load the shared module, which calls a remote one: one notice, not one per root."""
    for root in ("a", "b"):
        (tmp_path / root).mkdir()
        (tmp_path / root / "main.tf").write_text('module "s" {\n  source = "../shared"\n}\n')
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "main.tf").write_text(
        'module "kms" {\n  source  = "terraform-aws-modules/kms/aws"\n  version = "2.0.0"\n}\n'
    )
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    remote = [n for n in result.notices if "not downloaded" in n.message]
    assert len(remote) == 1 and remote[0].file == "shared/main.tf"
