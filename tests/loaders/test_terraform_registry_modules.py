"""Issue 12, Terraform: modelled registry modules, downloaded modules, TF_VAR_, .tf.json.

Hand-written configurations shaped like GPU-cluster roots that call the public modules.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import scan_paths

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders.terraform import loader as tf
from finlint.loaders.terraform import registry_modules


def load(tmp_path: Path, files: dict[str, str], **options: Any) -> ir.LoadResult:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    tf_files = sorted([*tmp_path.glob("*.tf"), *tmp_path.glob("*.tf.json")])
    return tf.load_directory(tmp_path, tf_files, lambda p: p.relative_to(tmp_path).as_posix(), options)


def pools(result: ir.LoadResult) -> dict[str, ir.ComputePool]:
    return {
        r.address: r
        for r in result.records
        if isinstance(r, ir.ComputePool) and r.pool_kind != "launch-template"
    }


# --- the table ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("terraform-aws-modules/eks/aws", "terraform-aws-modules/eks/aws"),
        ("registry.terraform.io/terraform-aws-modules/eks/aws", "terraform-aws-modules/eks/aws"),
        (
            "terraform-aws-modules/eks/aws//modules/self-managed-node-group",
            "terraform-aws-modules/eks/aws//modules/self-managed-node-group",
        ),
        (
            "git::https://github.com/terraform-aws-modules/terraform-aws-eks.git//modules/karpenter?ref=v20.8.5",
            "terraform-aws-modules/eks/aws//modules/karpenter",
        ),
        ("aws-ia/eks-blueprints-addons/aws", "aws-ia/eks-blueprints-addons/aws"),
        ("terraform-aws-modules/efs/aws", "terraform-aws-modules/efs/aws"),
        ("terraform-aws-modules/autoscaling/aws", "terraform-aws-modules/autoscaling/aws"),
        ("terraform-aws-modules/vpc/aws", None),
        ("./modules/eks", None),
    ],
)
def test_lookup_of_modelled_modules(source: str, expected: str | None) -> None:
    found = registry_modules.lookup(source)
    assert (found.source if found else None) == expected


def test_every_modelled_module_is_listed_in_the_docs() -> None:
    docs = (Path(__file__).resolve().parents[2] / "docs" / "terraform.md").read_text()
    for entry in registry_modules.REGISTRY_MODULES:
        assert f"`{entry.source}`" in docs, entry.source


# --- terraform-aws-modules/eks ------------------------------------------------------------------


EKS_ROOT = """
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "~> 20.0"

  eks_managed_node_group_defaults = {
    capacity_type = "ON_DEMAND"
    min_size      = "0"
  }

  eks_managed_node_groups = {
    h100 = {
      instance_types = ["p5.48xlarge", "p5e.48xlarge"]
      min_size       = "2"
      max_size       = 4
      desired_size   = "2"
    }
    spot = {
      instance_types = ["g5.12xlarge"]
      capacity_type  = "SPOT"
    }
  }

  self_managed_node_groups = {
    a100 = {
      instance_type = "p4d.24xlarge"
      max_size      = 2
    }
  }
}
"""


def test_eks_module_groups_defaults_lists_and_string_sizes(tmp_path: Path) -> None:
    found = pools(load(tmp_path, {"main.tf": EKS_ROOT}))
    h100 = found['module.eks.module.eks_managed_node_group["h100"].aws_eks_node_group.this']
    assert h100.instance_types == ("p5.48xlarge", "p5e.48xlarge")
    assert (h100.min_size, h100.max_size, h100.desired_size) == (2, 4, 2)  # strings or numbers
    assert h100.capacity_types == ("on-demand",)  # from eks_managed_node_group_defaults
    assert h100.attr_lines["min_size"] == 13
    spot = found['module.eks.module.eks_managed_node_group["spot"].aws_eks_node_group.this']
    assert spot.capacity_types == ("spot",) and spot.min_size == 0  # the defaults map's min_size
    assert (spot.max_size, spot.desired_size) == (3, 1)  # the module's own defaults
    a100 = found['module.eks.module.self_managed_node_group["a100"].aws_autoscaling_group.this']
    assert a100.instance_types == ("p4d.24xlarge",)
    assert a100.min_size == 0  # v20: self-managed groups default to min 0
    assert a100.finding_note == "; module defaults: min_size 0, desired_size 1 (not set in the group)"


def test_eks_module_default_min_size_depends_on_the_version(tmp_path: Path) -> None:
    code = EKS_ROOT.replace('version = "~> 20.0"', 'version = "21.3.1"')
    a100 = pools(load(tmp_path / "v21", {"main.tf": code}))[
        'module.eks.module.self_managed_node_group["a100"].aws_autoscaling_group.this'
    ]
    assert a100.min_size == 1
    unpinned = EKS_ROOT.replace('  version = "~> 20.0"\n', "")
    a100 = pools(load(tmp_path / "none", {"main.tf": unpinned}))[
        'module.eks.module.self_managed_node_group["a100"].aws_autoscaling_group.this'
    ]
    assert isinstance(a100.min_size, Unknown) and "pin `version`" in (a100.min_size.reason or "")


def test_eks_module_group_left_at_module_defaults_is_always_on_p5(tmp_path: Path) -> None:
    code = """
    module "eks" {
      source  = "terraform-aws-modules/eks/aws"
      version = "~> 21.0"
      eks_managed_node_groups = {
        train = { instance_types = ["p5.48xlarge"] }
      }
    }
    """
    for name, text in {"main.tf": code}.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    result = scan_paths([tmp_path], ("FIN301",))
    (finding,) = result.findings
    assert "module defaults: min_size 1, max_size 3, desired_size 1" in finding.message


def test_eks_sub_modules(tmp_path: Path) -> None:
    files = {
        "main.tf": """
        module "gpu" {
          source         = "terraform-aws-modules/eks/aws//modules/eks-managed-node-group"
          version        = "20.8.5"
          instance_types = ["p5.48xlarge"]
          capacity_type  = "CAPACITY_BLOCK"
          min_size       = 1
        }
        module "cpu" {
          source        = "terraform-aws-modules/eks/aws//modules/self-managed-node-group"
          version       = "20.8.5"
          instance_type = "m7i.large"
        }
        module "karpenter" {
          source       = "terraform-aws-modules/eks/aws//modules/karpenter"
          cluster_name = "ml"
        }
        """
    }
    result = load(tmp_path, files)
    found = pools(result)
    gpu = found["module.gpu.aws_eks_node_group.this"]
    assert gpu.capacity_types == ("capacity-block",) and gpu.min_size == 1
    cpu = found["module.cpu.aws_autoscaling_group.this"]
    assert cpu.min_size == 0 and cpu.instance_types == ("m7i.large",)  # v20 sub-module: min 0
    assert result.notices == []  # the karpenter sub-module is modelled (no capacity), not "not downloaded"


def test_self_managed_group_with_a_mixed_instances_policy(tmp_path: Path) -> None:
    files = {
        "main.tf": """
        module "eks" {
          source  = "terraform-aws-modules/eks/aws"
          version = "21.0.0"
          self_managed_node_groups = {
            mixed = {
              min_size                   = 0
              use_mixed_instances_policy = true
              mixed_instances_policy = {
                instances_distribution = { on_demand_percentage_above_base_capacity = 0 }
                launch_template = {
                  override = [{ instance_type = "p5.48xlarge" }, { instance_type = "p4d.24xlarge" }]
                }
              }
            }
          }
        }
        """
    }
    pool = pools(load(tmp_path, files))[
        'module.eks.module.self_managed_node_group["mixed"].aws_autoscaling_group.this'
    ]
    assert pool.instance_types == ("p5.48xlarge", "p4d.24xlarge")
    assert pool.capacity_types == ("spot",)


# --- other modelled modules ---------------------------------------------------------------------


def test_autoscaling_module_mixed_instances_policy_only_when_enabled(tmp_path: Path) -> None:
    code = """
    module "asg" {
      source   = "terraform-aws-modules/autoscaling/aws"
      name     = "trainers"
      min_size = 2
      max_size = 8
      desired_capacity = 2
      instance_type = "p4d.24xlarge"
      use_mixed_instances_policy = %s
      mixed_instances_policy = {
        instances_distribution = { on_demand_base_capacity = 1, on_demand_percentage_above_base_capacity = 0 }
        override = [{ instance_type = "p5.48xlarge" }]
      }
    }
    """
    on = pools(load(tmp_path / "on", {"main.tf": code % "true"}))["module.asg.aws_autoscaling_group.this[0]"]
    assert on.instance_types == ("p5.48xlarge",) and on.capacity_types == ("on-demand", "spot")
    assert (on.min_size, on.desired_size, on.max_size) == (2, 2, 8)
    off = pools(load(tmp_path / "off", {"main.tf": code % "false"}))[
        "module.asg.aws_autoscaling_group.this[0]"
    ]
    assert off.instance_types == ("p4d.24xlarge",)  # the policy is ignored, as the module does


def test_efs_module_file_system_and_access_points(tmp_path: Path) -> None:
    code = """
    module "efs" {
      source          = "terraform-aws-modules/efs/aws"
      name            = "checkpoints"
      throughput_mode = "elastic"
      access_points = {
        ckpt = {
          root_directory = { path = "/checkpoints" }
        }
      }
    }
    """
    records = {r.address: r for r in load(tmp_path, {"main.tf": code}).records}
    fs = records["module.efs.aws_efs_file_system.this[0]"]
    assert isinstance(fs, ir.FileSystem) and fs.fs_type == "efs" and fs.throughput_mode == "elastic"
    assert fs.tags["Name"] == "checkpoints"
    ap = records['module.efs.aws_efs_access_point.this["ckpt"]']
    assert isinstance(ap, ir.Volume) and ap.root_path == "/checkpoints"
    assert ap.file_system_ref == "module.efs.aws_efs_file_system.this[0]"
    assert ap.location.line == 6


def test_blueprints_addons_karpenter_is_a_controller_not_capacity(tmp_path: Path) -> None:
    code = """
    module "addons" {
      source           = "aws-ia/eks-blueprints-addons/aws"
      enable_karpenter = true
      karpenter = { values = [yamlencode({ replicas = 2 })] }
    }
    """
    result = load(tmp_path, {"main.tf": code})
    assert result.records == []
    (notice,) = result.notices
    assert "installs the Karpenter controller" in notice.message and "terraform init" not in notice.message


def test_downloaded_module_is_scanned_with_the_callers_inputs(tmp_path: Path) -> None:
    files = {
        "main.tf": """
        module "trainer" {
          source = "app.terraform.io/acme/trainer/aws"
          type   = "ml.p5.48xlarge"
        }
        """,
        ".terraform/modules/trainer/main.tf": """
        variable "type" {}
        resource "aws_sagemaker_training_job" "this" {
          resource_config {
            instance_type  = var.type
            instance_count = 1
          }
        }
        """,
        ".terraform/modules/modules.json": (
            '{"Modules":[{"Key":"trainer","Source":"x","Dir":".terraform/modules/trainer"}]}'
        ),
    }
    job = {r.address: r for r in load(tmp_path, files).records}[
        "module.trainer.aws_sagemaker_training_job.this"
    ]
    assert isinstance(job, ir.TrainingJob) and job.instance_type == "ml.p5.48xlarge"


# --- variables and JSON syntax ------------------------------------------------------------------

NOTEBOOK = """
variable "nb_type" {}
resource "aws_sagemaker_notebook_instance" "nb" {
  instance_type = var.nb_type
  name          = "research"
  role_arn      = "arn:aws:iam::111122223333:role/x"
}
"""


def test_tf_var_environment_variables_and_their_precedence(tmp_path: Path) -> None:
    env = {"TF_VAR_nb_type": "ml.p5.48xlarge", "PATH": "/bin"}
    nb = load(tmp_path / "a", {"main.tf": NOTEBOOK}, environ=env).records[0]
    assert nb.instance_type == "ml.p5.48xlarge"  # type: ignore[attr-defined]
    files = {"main.tf": NOTEBOOK, "gpu.auto.tfvars": 'nb_type = "ml.g5.xlarge"\n'}
    nb = load(tmp_path / "b", files, environ=env).records[0]
    assert nb.instance_type == "ml.g5.xlarge"  # type: ignore[attr-defined]  # files win over TF_VAR_
    files = {"main.tf": NOTEBOOK, "gpu.auto.tfvars.json": '{"nb_type": "ml.g6.xlarge"}'}
    nb = load(tmp_path / "c", files, environ=env).records[0]
    assert nb.instance_type == "ml.g6.xlarge"  # type: ignore[attr-defined]


def test_tf_var_from_the_process_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_VAR_nb_type", "ml.p4d.24xlarge")
    nb = load(tmp_path, {"main.tf": NOTEBOOK}).records[0]
    assert nb.instance_type == "ml.p4d.24xlarge"  # type: ignore[attr-defined]


TF_JSON = """\
{
  "variable": {
    "job_type": {"default": "ml.p5.48xlarge"}
  },
  "resource": {
    "aws_sagemaker_training_job": {
      "pretrain": {
        "training_job_name": "pretrain-${var.job_type}",
        "resource_config": {
          "instance_type": "${var.job_type}",
          "instance_count": 2
        }
      }
    }
  }
}
"""


def test_tf_json_file_reads_like_native_syntax_at_its_own_lines(tmp_path: Path) -> None:
    result = load(tmp_path, {"main.tf.json": TF_JSON})
    (job,) = result.records
    assert isinstance(job, ir.TrainingJob)
    assert job.instance_type == "ml.p5.48xlarge" and job.instance_count == 2
    assert job.location.file == "main.tf.json" and job.location.line == 7
    assert job.attr_lines["instance_type"] == 9  # the resource_config key's line


def test_tf_json_is_scanned_as_part_of_the_directory(tmp_path: Path) -> None:
    (tmp_path / "main.tf.json").write_text(TF_JSON)
    (tmp_path / "vars.tf").write_text('variable "unused" {}\n')
    result = scan_paths([tmp_path], ("FIN101",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("main.tf.json", 7)]


def test_broken_tf_json_is_a_parse_error_not_a_crash(tmp_path: Path) -> None:
    result = load(tmp_path, {"main.tf.json": '{"resource": {'})
    assert result.records == [] and len(result.errors) == 1


def test_a_local_module_called_from_tf_json_is_not_scanned_standalone(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "main.tf.json").write_text(
        '{"module": {"nb": {"source": "../nb", "type": "ml.p5.48xlarge"}}}\n', encoding="utf-8"
    )
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "main.tf").write_text(NOTEBOOK.replace("nb_type", "type"), encoding="utf-8")
    assert tf.module_directories([root, tmp_path / "nb"]) == {tmp_path / "nb"}
    result = scan_paths([tmp_path], ("FIN301",))
    assert [f.resource for f in result.findings] == ["module.nb.aws_sagemaker_notebook_instance.nb"]
