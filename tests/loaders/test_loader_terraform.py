"""Terraform HCL loader: resolution features, resource kinds, lines and Unknowns."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.samples import P5_NODEPOOL_YAML

from finlint import ir
from finlint.loaders.terraform import hcl as terraform_hcl
from finlint.loaders.terraform import loader as tf

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "terraform" / "gpu_platform"


def load(tmp_path: Path, files: dict[str, str], **options: Any) -> ir.LoadResult:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    tf_files = sorted(tmp_path.glob("*.tf"))
    return tf.load_directory(tmp_path, tf_files, lambda p: p.relative_to(tmp_path).as_posix(), options)


def by_address(result: ir.LoadResult) -> dict[str, ir.Record]:
    return {r.address: r for r in result.records}


# --- the fixture configuration ----------------------------------------------------------------


@pytest.fixture(scope="module")
def platform() -> dict[str, ir.Record]:
    result = tf.load_directory(
        FIXTURE, sorted(FIXTURE.glob("*.tf")), lambda p: p.relative_to(FIXTURE).as_posix(), {}
    )
    assert result.errors == [] and result.notices == []
    return by_address(result)


def test_fixture_training_job_from_tfvars(platform: dict[str, ir.Record]) -> None:
    job = platform["aws_sagemaker_training_job.pretrain"]
    assert isinstance(job, ir.TrainingJob)
    assert job.instance_type == "ml.p4d.24xlarge"  # terraform.tfvars, not the .example
    assert job.name == "llm-research-pretrain"  # tfvars env through a local
    assert job.max_runtime_s is None and job.max_runtime_default_s == 86400
    assert str(job.default_note).startswith("SageMaker's default of 1 day")
    assert (job.location.file, job.location.line, job.location.end_line) == ("training.tf", 2, 20)
    assert job.attr_lines["instance_type"] == 12 and job.attr_lines["instance_count"] == 13
    assert job.launcher == "terraform" and job.source_format == "terraform"


def test_fixture_spot_job_arithmetic_on_locals(platform: dict[str, ir.Record]) -> None:
    job = platform["aws_sagemaker_training_job.finetune_spot"]
    assert isinstance(job, ir.TrainingJob)
    assert job.spot is True and job.attr_lines["spot"] == 26
    assert job.max_runtime_s == 172800 and job.max_wait_s == 259200
    assert job.checkpoint_s3_uri is None


def test_fixture_unbound_variable_is_unknown(platform: dict[str, ir.Record]) -> None:
    job = platform["aws_sagemaker_training_job.sweep"]
    assert isinstance(job, ir.TrainingJob)
    assert isinstance(job.instance_type, ir.Unknown)
    assert "sweep_instance_type" in job.instance_type.reason


def test_fixture_notebook_from_variable_default(platform: dict[str, ir.Record]) -> None:
    nb = platform["aws_sagemaker_notebook_instance.research"]
    assert isinstance(nb, ir.Notebook)
    assert nb.instance_type == "ml.p5.48xlarge" and nb.attr_lines["instance_type"] == 62


def test_fixture_eks_module_node_groups(platform: dict[str, ir.Record]) -> None:
    h100 = platform['module.eks.module.eks_managed_node_group["h100"].aws_eks_node_group.this']
    assert isinstance(h100, ir.ComputePool)
    assert h100.pool_kind == "eks-nodegroup"
    assert h100.instance_types == ("p5.48xlarge",)  # object variable default, through the map
    assert (h100.min_size, h100.desired_size, h100.max_size) == (1, 1, 4)
    assert (h100.location.file, h100.location.line) == ("eks.tf", 23)
    assert h100.attr_lines["instance_types"] == 24 and h100.attr_lines["min_size"] == 25
    block = platform['module.eks.module.eks_managed_node_group["h100_block"].aws_eks_node_group.this']
    assert isinstance(block, ir.ComputePool)
    assert block.capacity_types == ("capacity-block",) and block.capacity_reservation is True


def test_fixture_local_module_inputs_and_address(platform: dict[str, ir.Record]) -> None:
    pool = platform["module.gpu_pool.aws_eks_node_group.this"]
    assert isinstance(pool, ir.ComputePool)
    assert pool.instance_types == ("p5.48xlarge",)
    assert pool.min_size == 1 and pool.desired_size == 1 and pool.max_size == 8
    assert pool.name == "llm-research-p5-ondemand"
    assert (pool.location.file, pool.location.line) == ("modules/gpu_pool/main.tf", 20)
    assert pool.attr_lines["min_size"] == 29


def test_fixture_efs_and_bucket(platform: dict[str, ir.Record]) -> None:
    efs = platform["aws_efs_file_system.checkpoints"]
    assert isinstance(efs, ir.FileSystem)
    assert efs.name == "llm-research-checkpoints"  # merge() of locals and a literal
    assert efs.tags["Team"] == "ml-platform"
    assert efs.creation_token == "llm-research-ckpt" and efs.throughput_mode == "elastic"
    assert efs.ref_ids == ("aws_efs_file_system.checkpoints",)
    assert efs.attr_lines["name"] == 8
    ap = platform["aws_efs_access_point.checkpoints"]
    assert isinstance(ap, ir.Volume)
    assert ap.volume_kind == "efs-access-point" and ap.is_efs is True
    assert ap.file_system_ref == "aws_efs_file_system.checkpoints" and ap.root_path == "/checkpoints"
    bucket = platform["aws_s3_bucket.artifacts"]
    assert isinstance(bucket, ir.Bucket)
    assert bucket.lifecycle_rules is not None and not isinstance(bucket.lifecycle_rules, ir.Unknown)
    (rule,) = bucket.lifecycle_rules
    assert rule.prefix == "checkpoints/" and rule.transitions == ((30, "STANDARD_IA"),)
    assert rule.expiration_days == 180


def test_fixture_karpenter_heredoc_lines(platform: dict[str, ir.Record]) -> None:
    pool = platform["kubectl_manifest.gpu_nodepool/NodePool/gpu-research"]
    assert isinstance(pool, ir.ComputePool)
    assert pool.pool_kind == "karpenter-nodepool"
    assert pool.name == "gpu-research"  # ${var.env} interpolated in the heredoc
    assert pool.location.file == "karpenter.tf" and pool.location.line == 5
    assert [(r.key.rsplit("/", 1)[-1], r.line) for r in pool.requirements] == [
        ("instance-category", 17),
        ("instance-generation", 20),
        ("capacity-type", 23),
    ]


def test_module_directories_skips_called_modules() -> None:
    called = tf.module_directories([FIXTURE, FIXTURE / "modules" / "gpu_pool"])
    assert called == {FIXTURE / "modules" / "gpu_pool"}


# --- resolution features ---------------------------------------------------------------------


def test_var_precedence_tfvars_auto_varfile_cli(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            variable "a" { default = "from-default" }
            variable "b" { default = "from-default" }
            variable "c" { default = "from-default" }
            variable "d" { default = "from-default" }
            variable "n" { type = number }
            resource "aws_sagemaker_notebook_instance" "x" {
              name          = "${var.a}/${var.b}/${var.c}/${var.d}"
              instance_type = "ml.t3.medium"
              volume_size   = var.n * 2
            }
        """,
        "terraform.tfvars": 'b = "tfvars"\nc = "tfvars"\nd = "tfvars"\n',
        "x.auto.tfvars": 'c = "auto"\nd = "auto"\n',
        "extra.tfvars": 'd = "var-file"\n',
    }
    result = load(tmp_path, files, tf_var_files=[str(tmp_path / "extra.tfvars")], tf_vars={"n": "50"})
    nb = by_address(result)["aws_sagemaker_notebook_instance.x"]
    assert nb.name == "from-default/tfvars/auto/var-file"
    assert isinstance(nb, ir.Notebook) and nb.volume_size_gb == 100


def test_cli_var_overrides_everything(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            variable "t" { default = "ml.t3.medium" }
            resource "aws_sagemaker_notebook_instance" "x" { instance_type = var.t }
        """,
        "terraform.tfvars": 't = "ml.g5.xlarge"\n',
    }
    nb = by_address(load(tmp_path, files, tf_vars={"t": "ml.p5.48xlarge"}))[
        "aws_sagemaker_notebook_instance.x"
    ]
    assert isinstance(nb, ir.Notebook) and nb.instance_type == "ml.p5.48xlarge"


def test_conditionals_functions_and_unknowns(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            variable "big" { default = true }
            variable "unset" {}
            locals {
              sizes = { small = "ml.g5.xlarge", large = "ml.p5.48xlarge" }
              picked = lookup(local.sizes, var.big ? "large" : "small", "ml.t3.medium")
              merged = merge({ a = 1 }, { b = 2 }, { a = 3 })
              listed = concat(["x"], tolist(["y"]), [for s in ["z"] : upper(s)])
              first  = coalesce("", null, "c")
              safe   = try(local.sizes.missing, "fallback")
              unsure = var.unset ? "ml.p5.48xlarge" : "ml.g5.xlarge"
              same   = var.unset ? "ml.g5.xlarge" : "ml.g5.xlarge"
              data   = data.aws_ssm_parameter.type.value
            }
            resource "aws_sagemaker_notebook_instance" "picked" { instance_type = local.picked }
            resource "aws_sagemaker_notebook_instance" "unsure" { instance_type = local.unsure }
            resource "aws_sagemaker_notebook_instance" "same" { instance_type = local.same }
            resource "aws_sagemaker_notebook_instance" "data" { instance_type = local.data }
            resource "aws_sagemaker_notebook_instance" "misc" {
              instance_type = "${local.first}-${local.safe}-${local.merged.a}-${join(",", local.listed)}"
              volume_size   = jsonencode(local.merged) == "{\\"a\\":3,\\"b\\":2}" ? 10 : 20
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    assert records["aws_sagemaker_notebook_instance.picked"].instance_type == "ml.p5.48xlarge"  # type: ignore[attr-defined]
    assert isinstance(records["aws_sagemaker_notebook_instance.unsure"].instance_type, ir.Unknown)  # type: ignore[attr-defined]
    assert records["aws_sagemaker_notebook_instance.same"].instance_type == "ml.g5.xlarge"  # type: ignore[attr-defined]
    assert isinstance(records["aws_sagemaker_notebook_instance.data"].instance_type, ir.Unknown)  # type: ignore[attr-defined]
    misc = records["aws_sagemaker_notebook_instance.misc"]
    assert isinstance(misc, ir.Notebook)
    assert misc.instance_type == "c-fallback-3-x,y,Z"
    assert misc.volume_size_gb == 10


def test_count_and_for_each(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            variable "enabled" { default = false }
            variable "n" {}
            resource "aws_instance" "gpu" {
              count         = 3
              instance_type = "p5.48xlarge"
            }
            resource "aws_instance" "off" {
              count         = var.enabled ? 1 : 0
              instance_type = "p5.48xlarge"
            }
            resource "aws_instance" "unknown_count" {
              count         = var.n
              instance_type = "p5.48xlarge"
            }
            resource "aws_sagemaker_notebook_instance" "nb" {
              for_each      = { alice = "ml.g5.xlarge", bob = "ml.p5.48xlarge" }
              name          = "nb-${each.key}"
              instance_type = each.value
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    gpu = records["aws_instance.gpu"]
    assert isinstance(gpu, ir.ComputePool) and gpu.pool_kind == "ec2-instance"
    assert (gpu.min_size, gpu.desired_size, gpu.max_size) == (3, 3, 3)
    assert "aws_instance.off" not in records
    unknown = records["aws_instance.unknown_count"]
    assert isinstance(unknown, ir.ComputePool) and isinstance(unknown.min_size, ir.Unknown)
    assert records['aws_sagemaker_notebook_instance.nb["bob"]'].instance_type == "ml.p5.48xlarge"  # type: ignore[attr-defined]
    assert records['aws_sagemaker_notebook_instance.nb["alice"]'].name == "nb-alice"


def test_resource_reference_to_literal_and_launch_template(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            resource "aws_launch_template" "gpu" {
              name          = "gpu"
              instance_type = "p5.48xlarge"
              instance_market_options {
                market_type = "capacity-block"
              }
              capacity_reservation_specification {
                capacity_reservation_target {
                  capacity_reservation_id = "cr-0123456789abcdef0"
                }
              }
            }
            resource "aws_autoscaling_group" "gpu" {
              name             = aws_launch_template.gpu.name
              min_size         = 2
              max_size         = 2
              desired_capacity = 2
              launch_template {
                id      = aws_launch_template.gpu.id
                version = "$Latest"
              }
            }
            resource "aws_instance" "plain" {
              instance_type = "p5.48xlarge"
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    asg = records["aws_autoscaling_group.gpu"]
    assert isinstance(asg, ir.ComputePool) and asg.pool_kind == "autoscaling-group"
    assert asg.instance_types == ("p5.48xlarge",)
    assert asg.capacity_types == ("capacity-block",) and asg.capacity_reservation is True
    assert asg.desired_size == 2 and asg.attr_lines["desired_size"] == 17
    lt = records["aws_launch_template.gpu"]
    assert isinstance(lt, ir.ComputePool) and lt.pool_kind == "launch-template" and lt.min_size is None
    plain = records["aws_instance.plain"]
    assert isinstance(plain, ir.ComputePool) and plain.capacity_reservation is None


def test_dynamic_block_with_unknown_for_each_is_unknown(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            variable "stop" {}
            resource "aws_sagemaker_training_job" "t" {
              resource_config {
                instance_type  = "ml.p5.48xlarge"
                instance_count = 1
              }
              dynamic "stopping_condition" {
                for_each = var.stop
                content {
                  max_runtime_in_seconds = stopping_condition.value
                }
              }
            }
            resource "aws_sagemaker_training_job" "known" {
              resource_config {
                instance_type = "ml.g5.xlarge"
              }
              dynamic "stopping_condition" {
                for_each = [7200]
                content {
                  max_runtime_in_seconds = stopping_condition.value
                }
              }
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    t = records["aws_sagemaker_training_job.t"]
    assert isinstance(t, ir.TrainingJob) and isinstance(t.max_runtime_s, ir.Unknown)
    assert t.attr_lines["max_runtime_s"] == 7
    known = records["aws_sagemaker_training_job.known"]
    assert isinstance(known, ir.TrainingJob) and known.max_runtime_s == 7200


def test_other_resource_kinds(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            resource "aws_eks_node_group" "spot" {
              cluster_name   = "c"
              instance_types = ["g5.12xlarge"]
              capacity_type  = "SPOT"
              scaling_config {
                min_size     = 0
                max_size     = 10
                desired_size = 0
              }
              taint {
                key    = "nvidia.com/gpu"
                value  = "true"
                effect = "NO_SCHEDULE"
              }
            }
            resource "aws_batch_compute_environment" "gpu" {
              compute_environment_name = "gpu"
              type                     = "MANAGED"
              compute_resources {
                type          = "EC2"
                instance_type = ["p5.48xlarge"]
                min_vcpus     = 192
                max_vcpus     = 768
              }
            }
            resource "aws_fsx_lustre_file_system" "scratch" {
              storage_capacity            = 2400
              deployment_type             = "PERSISTENT_2"
              per_unit_storage_throughput = 250
              subnet_ids                  = ["subnet-0a1b2c3d"]
            }
            resource "aws_efs_mount_target" "a" {
              file_system_id = "fs-0123456789abcdef0"
              subnet_id      = "subnet-0a1b2c3d"
            }
            resource "awscc_sagemaker_cluster" "hp" {
              cluster_name = "hp"
              instance_groups = [
                {
                  instance_group_name = "workers"
                  instance_type       = "ml.p5.48xlarge"
                  instance_count      = 4
                  execution_role      = "arn:aws:iam::111122223333:role/hp"
                },
              ]
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    spot = records["aws_eks_node_group.spot"]
    assert isinstance(spot, ir.ComputePool)
    assert spot.capacity_types == ("spot",) and spot.min_size == 0
    assert spot.taints == ("nvidia.com/gpu=true:NO_SCHEDULE",)
    batch = records["aws_batch_compute_environment.gpu"]
    assert isinstance(batch, ir.ComputePool) and batch.pool_kind == "batch-compute-environment"
    assert batch.capacity_types == ("on-demand",)
    assert (batch.min_size, batch.max_size) == (1, 4)  # vCPUs / 192 per p5.48xlarge
    assert batch.attr_lines["min_size"] == 22
    fsx = records["aws_fsx_lustre_file_system.scratch"]
    assert isinstance(fsx, ir.FileSystem) and fsx.fs_type == "fsx-lustre" and fsx.size_gb == 2400.0
    mt = records["aws_efs_mount_target.a"]
    assert isinstance(mt, ir.Volume) and mt.volume_kind == "efs-mount-target"
    assert mt.file_system_ref == "fs-0123456789abcdef0"
    hp = records['awscc_sagemaker_cluster.hp.instance_groups["workers"]']
    assert isinstance(hp, ir.ComputePool) and hp.pool_kind == "hyperpod-instance-group"
    assert hp.instance_types == ("ml.p5.48xlarge",) and hp.desired_size == 4
    assert hp.location.line == 39 and hp.attr_lines["instance_types"] == 41


def test_kubernetes_manifest_object_and_sfn_jsonencode(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            resource "kubernetes_manifest" "pool" {
              manifest = {
                apiVersion = "karpenter.sh/v1"
                kind       = "NodePool"
                metadata   = { name = "gpu" }
                spec = {
                  template = {
                    spec = {
                      nodeClassRef = { kind = "EC2NodeClass", name = "gpu" }
                      requirements = [
                        { key = "node.kubernetes.io/instance-type", operator = "In", values = ["p5.4xlarge"] }
                      ]
                    }
                  }
                }
              }
            }
            resource "aws_sfn_state_machine" "train" {
              name     = "train"
              role_arn = "arn:aws:iam::111122223333:role/sfn"
              definition = jsonencode({
                StartAt = "Train"
                States = {
                  Train = {
                    Type     = "Task"
                    Resource = "arn:aws:states:::sagemaker:createTrainingJob.sync"
                    Parameters = {
                      TrainingJobName = "nightly"
                      ResourceConfig  = { InstanceType = "ml.p4d.24xlarge", InstanceCount = 1 }
                    }
                    End = true
                  }
                }
              })
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    pool = records["kubernetes_manifest.pool/NodePool/gpu"]
    assert isinstance(pool, ir.ComputePool)
    assert [(r.values, r.line) for r in pool.requirements] == [(("p5.4xlarge",), 11)]
    jobs = [r for r in records.values() if isinstance(r, ir.TrainingJob)]
    assert len(jobs) == 1
    assert jobs[0].address.startswith("aws_sfn_state_machine.train/")
    assert jobs[0].instance_type == "ml.p4d.24xlarge" and jobs[0].max_runtime_s is None
    assert jobs[0].attr_lines["instance_type"] == 29


def test_heredoc_with_unknown_interpolation_stays_unknown(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            variable "types" {}
            resource "kubectl_manifest" "pool" {
              yaml_body = <<YAML
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
                      values: ["${var.types}"]
            YAML
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    pool = records["kubectl_manifest.pool/NodePool/gpu"]
    assert isinstance(pool, ir.ComputePool) and pool.location.line == 4
    (req,) = pool.requirements
    assert req.line == 12  # the "- key:" line inside the heredoc


# --- modules ---------------------------------------------------------------------------------


def test_remote_module_skipped_with_one_notice(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            module "vpc" {
              source = "terraform-aws-modules/vpc/aws"
            }
            module "vpc2" {
              source = "git::https://example.com/vpc.git"
            }
        """,
    }
    result = load(tmp_path, files)
    assert [(n.file, n.line) for n in result.notices] == [("main.tf", 1), ("main.tf", 4)]
    assert "terraform init" in result.notices[0].message
    assert result.records == []


def test_remote_module_from_modules_json(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            module "nb" {
              source = "app.terraform.io/acme/notebook/aws"
              type   = "ml.p5.48xlarge"
            }
        """,
        ".terraform/modules/nb/main.tf": """
            variable "type" {}
            resource "aws_sagemaker_notebook_instance" "this" { instance_type = var.type }
        """,
        ".terraform/modules/modules.json": '{"Modules":[{"Key":"","Source":"","Dir":"."},'
        '{"Key":"nb","Source":"app.terraform.io/acme/notebook/aws","Dir":".terraform/modules/nb"}]}',
    }
    records = by_address(load(tmp_path, files))
    nb = records["module.nb.aws_sagemaker_notebook_instance.this"]
    assert nb.instance_type == "ml.p5.48xlarge"  # type: ignore[attr-defined]
    assert nb.location.file == ".terraform/modules/nb/main.tf"


def test_self_managed_node_group_and_capacity_reservation(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            module "eks" {
              source = "terraform-aws-modules/eks/aws"
              self_managed_node_groups = {
                p5 = {
                  instance_type = "p5.48xlarge"
                  min_size      = 1
                  max_size      = 1
                  desired_size  = 1
                  capacity_reservation_specification = {
                    capacity_reservation_target = { capacity_reservation_id = "cr-0123456789abcdef0" }
                  }
                }
              }
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    asg = records['module.eks.module.self_managed_node_group["p5"].aws_autoscaling_group.this']
    assert isinstance(asg, ir.ComputePool) and asg.pool_kind == "autoscaling-group"
    assert asg.instance_types == ("p5.48xlarge",) and asg.capacity_reservation is True
    assert asg.min_size == 1 and asg.location.line == 4


# --- bad input ---------------------------------------------------------------------------------


def test_malformed_hcl_is_a_load_error_with_line(tmp_path: Path) -> None:
    files = {
        "good.tf": 'resource "aws_sagemaker_notebook_instance" "x" { instance_type = "ml.p5.48xlarge" }\n',
        "bad.tf": 'resource "aws_instance" "x" {\n  instance_type = = "p5"\n}\n',
        "unclosed.tf": 'resource "aws_instance" "y" {\n  instance_type = "p5"\n',
    }
    result = load(tmp_path, files)
    errors = {e.file: e for e in result.errors}
    assert errors["bad.tf"].line == 2 and errors["bad.tf"].message.startswith("invalid HCL")
    assert "unclosed" in errors["unclosed.tf"].file and errors["unclosed.tf"].line >= 2
    assert "aws_sagemaker_notebook_instance.x" in by_address(result)  # the rest still loads


def test_binary_and_duplicate_attributes(tmp_path: Path) -> None:
    (tmp_path / "bin.tf").write_bytes(b"\x00\x01\x02\xff")
    files = {
        "dup.tf": """
            resource "aws_sagemaker_notebook_instance" "x" {
              instance_type = "ml.p5.48xlarge"
              instance_type = "ml.g5.xlarge"
            }
        """,
    }
    result = load(tmp_path, files)
    assert [e.file for e in result.errors] == ["bin.tf"]
    assert by_address(result)["aws_sagemaker_notebook_instance.x"].instance_type == "ml.g5.xlarge"  # type: ignore[attr-defined]
    assert [(n.file, n.line) for n in result.notices] == [("dup.tf", 3)]


def test_deeply_nested_and_self_referencing_locals(tmp_path: Path) -> None:
    deep = "[" * 3000 + "]" * 3000
    files = {
        "deep.tf": f"locals {{ x = {deep} }}\n",
        "loop.tf": """
            locals {
              a = local.b
              b = local.a
            }
            resource "aws_sagemaker_notebook_instance" "x" { instance_type = local.a }
        """,
    }
    result = load(tmp_path, files)
    assert [e.file for e in result.errors] == ["deep.tf"]
    assert isinstance(by_address(result)["aws_sagemaker_notebook_instance.x"].instance_type, ir.Unknown)  # type: ignore[attr-defined]


def test_parse_cache_by_content(tmp_path: Path) -> None:
    terraform_hcl.clear_cache()
    text = 'resource "aws_instance" "x" { instance_type = "m5.large" }\n'
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.tf").write_text(text)
    for name in ("a", "b"):
        tf.load_directory(tmp_path / name, [tmp_path / name / "main.tf"], str, {})
    assert terraform_hcl.parse_count() == 1


def test_checkov_fork_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import hcl2

    monkeypatch.setattr(hcl2, "__version__", "0.4.3")
    terraform_hcl.clear_cache()
    with pytest.raises(terraform_hcl.HclError, match="bc-python-hcl2"):
        terraform_hcl.parse_text('x = "fresh text for the cache"\n')
    terraform_hcl.clear_cache()


# --- manifests read with file() / templatefile(): one finding when the file is scanned too ------


def _fin301(paths: list[Path]) -> list[tuple[str, int]]:
    from finlint.engine import EngineConfig
    from finlint.scan import ScanOptions, lint

    result = lint(ScanOptions(paths=paths, engine=EngineConfig(select=("FIN301",))))
    return [(Path(f.file).name, f.line) for f in result.findings if f.rule_id == "FIN301"]


@pytest.mark.parametrize(
    "argument",
    [
        'yaml_body = file("${path.module}/manifests/pool.yaml")',
        'yaml_body = templatefile("${path.module}/manifests/pool.yaml", { zone = "us-east-1a" })',
        'manifest = yamldecode(file("${path.module}/manifests/pool.yaml"))',
    ],
)
def test_file_manifest_also_scanned_on_its_own_gives_one_finding_at_its_line(
    tmp_path: Path, argument: str
) -> None:
    rtype = "kubernetes_manifest" if argument.startswith("manifest") else "kubectl_manifest"
    (tmp_path / "main.tf").write_text(f'resource "{rtype}" "pool" {{\n  {argument}\n}}\n')
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "pool.yaml").write_text(P5_NODEPOOL_YAML.replace("${zone}", "us-east-1a"))
    findings = _fin301([tmp_path])
    assert len(findings) == 1 and findings[0][0] == "pool.yaml"
    assert findings == _fin301([tmp_path / "manifests" / "pool.yaml"])  # the YAML's own line


def test_file_manifest_outside_the_scan_keeps_the_terraform_copy(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # outside the scanned folder, inside its checkout
    infra = tmp_path / "infra"
    infra.mkdir()
    (infra / "main.tf").write_text(
        '# the pool\nresource "kubectl_manifest" "pool" {\n  yaml_body = file("../manifests/pool.yaml")\n}\n'
    )
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "pool.yaml").write_text(P5_NODEPOOL_YAML.replace("${zone}", "us-east-1a"))
    assert _fin301([infra]) == [("main.tf", 3)]
    result = tf.load_directory(infra, [infra / "main.tf"], lambda p: p.as_posix(), {})
    (pool,) = result.records
    assert pool.extra["tf_source_file"] == (tmp_path / "manifests" / "pool.yaml").as_posix()


def test_templatefile_copy_that_knows_more_than_the_file_wins(tmp_path: Path) -> None:
    # the file alone has a ${zone} placeholder (its pool is undetermined); Terraform fills it
    (tmp_path / "main.tf").write_text(
        'resource "kubectl_manifest" "pool" {\n'
        '  yaml_body = templatefile("${path.module}/pool.yaml", { zone = "us-east-1a" })\n'
        "}\n"
    )
    (tmp_path / "pool.yaml").write_text(P5_NODEPOOL_YAML)
    assert _fin301([tmp_path]) == [("main.tf", 2)]


# --- kubernetes provider resources: storage objects and workloads --------------------------------

K8S_STORAGE_TF = """\
resource "kubernetes_storage_class_v1" "shared" {
  metadata {
    name = "shared-sc"
  }
  storage_provisioner = "efs.csi.aws.com"
  parameters = {
    provisioningMode = "efs-ap"
  }
}

resource "kubernetes_persistent_volume_claim_v1" "checkpoints" {
  metadata {
    name      = "checkpoints"
    namespace = "training"
  }
  spec {
    access_modes       = ["ReadWriteMany"]
    storage_class_name = kubernetes_storage_class_v1.shared.metadata[0].name
    resources {
      requests = {
        storage = "500Gi"
      }
    }
  }
}

resource "kubernetes_job_v1" "train" {
  metadata {
    name      = "train"
    namespace = "training"
  }
  spec {
    template {
      metadata {}
      spec {
        container {
          name  = "trainer"
          image = "registry.example.com/trainer:1"
          volume_mount {
            name       = "ckpt"
            mount_path = "/checkpoints"
          }
        }
        volume {
          name = "ckpt"
          persistent_volume_claim {
            claim_name = kubernetes_persistent_volume_claim_v1.checkpoints.metadata[0].name
          }
        }
        restart_policy = "Never"
      }
    }
  }
}
"""


def test_kubernetes_provider_storage_and_job_records(tmp_path: Path) -> None:
    records = by_address(load(tmp_path, {"main.tf": K8S_STORAGE_TF}))
    sc = records["kubernetes_storage_class_v1.shared"]
    assert isinstance(sc, ir.Volume) and sc.volume_kind == "storage-class"
    assert (sc.name, sc.provisioner, sc.is_efs) == ("shared-sc", "efs.csi.aws.com", True)
    assert sc.attr_lines["provisioner"] == 5 and sc.attr_lines["name"] == 3
    assert sc.source_format == "terraform" and sc.extra["tf_type"] == "kubernetes_storage_class_v1"
    pvc = records["kubernetes_persistent_volume_claim_v1.checkpoints"]
    assert isinstance(pvc, ir.Volume) and pvc.volume_kind == "pvc"
    assert (pvc.name, pvc.namespace, pvc.storage_class, pvc.capacity_gb) == (
        "checkpoints",
        "training",
        "shared-sc",  # through the reference to the class's metadata block
        500.0,
    )
    assert (pvc.attr_lines["name"], pvc.attr_lines["storage_class"], pvc.attr_lines["capacity_gb"]) == (
        13,
        18,
        21,
    )
    job = records["kubernetes_job_v1.train"]
    assert isinstance(job, ir.Volume) and job.volume_kind == "workload"
    assert (job.location.line, job.namespace) == (27, "training")
    (mount,) = job.mounts
    assert (mount.volume, mount.mount_path, mount.claim_name, mount.line) == (
        "ckpt",
        "/checkpoints",
        "checkpoints",
        39,  # the volume_mount block, as a YAML volumeMounts item
    )


def _fin401(tmp_path: Path, text: str) -> list[tuple[str, int]]:
    from finlint.engine import EngineConfig
    from finlint.scan import ScanOptions, lint

    (tmp_path / "main.tf").write_text(text)
    result = lint(ScanOptions(paths=[tmp_path], engine=EngineConfig(select=("FIN401",))))
    return sorted((Path(f.file).name, f.line) for f in result.findings if f.rule_id == "FIN401")


def test_kubernetes_provider_checkpoints_on_efs_fire_fin401_through_linking(tmp_path: Path) -> None:
    # the claim (named for checkpoints, on an EFS class) and the job's mount of it
    assert _fin401(tmp_path, K8S_STORAGE_TF) == [("main.tf", 13), ("main.tf", 39)]


def test_kubernetes_provider_checkpoints_on_fsx_do_not_fire(tmp_path: Path) -> None:
    assert _fin401(tmp_path, K8S_STORAGE_TF.replace("efs.csi.aws.com", "fsx.csi.aws.com")) == []


def test_kubernetes_provider_persistent_volume_csi_source(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            resource "aws_efs_file_system" "ckpt" {}

            resource "kubernetes_persistent_volume" "ckpt" {
              metadata {
                name = "ckpt-pv"
              }
              spec {
                capacity = {
                  storage = "2Ti"
                }
                access_modes       = ["ReadWriteMany"]
                storage_class_name = ""
                persistent_volume_source {
                  csi {
                    driver        = "efs.csi.aws.com"
                    volume_handle = aws_efs_file_system.ckpt.id
                  }
                }
              }
            }
        """,
    }
    pv = by_address(load(tmp_path, files))["kubernetes_persistent_volume.ckpt"]
    assert isinstance(pv, ir.Volume) and pv.volume_kind == "pv"
    assert (pv.name, pv.provisioner, pv.is_efs, pv.capacity_gb) == (
        "ckpt-pv",
        "efs.csi.aws.com",
        True,
        2048.0,
    )
    assert pv.file_system_ref == "aws_efs_file_system.ckpt"
    assert (pv.attr_lines["provisioner"], pv.attr_lines["capacity_gb"]) == (15, 9)


def test_kubernetes_provider_stateful_set_claim_templates(tmp_path: Path) -> None:
    files = {
        "main.tf": """
            resource "kubernetes_stateful_set_v1" "trainer" {
              metadata {
                name = "trainer"
              }
              spec {
                service_name = "trainer"
                template {
                  metadata {}
                  spec {
                    container {
                      name  = "trainer"
                      image = "registry.example.com/trainer:1"
                      volume_mount {
                        name       = "ckpt"
                        mount_path = "/ckpt"
                      }
                    }
                  }
                }
                volume_claim_template {
                  metadata {
                    name = "ckpt"
                  }
                  spec {
                    access_modes       = ["ReadWriteOnce"]
                    storage_class_name = "gp3"
                    resources {
                      requests = {
                        storage = "100Gi"
                      }
                    }
                  }
                }
              }
            }
        """,
    }
    records = by_address(load(tmp_path, files))
    sts = records["kubernetes_stateful_set_v1.trainer"]
    assert isinstance(sts, ir.Volume) and [m.claim_name for m in sts.mounts] == ["ckpt"]
    claim = records["kubernetes_stateful_set_v1.trainer/claims/ckpt"]
    assert isinstance(claim, ir.Volume) and claim.volume_kind == "pvc"
    assert (claim.storage_class, claim.capacity_gb, claim.location.line) == ("gp3", 100.0, 20)


def test_kubernetes_provider_resources_in_a_plan(tmp_path: Path) -> None:
    import json

    def res(rtype: str, name: str, values: dict[str, Any]) -> dict[str, Any]:
        return {
            "address": f"{rtype}.{name}",
            "mode": "managed",
            "type": rtype,
            "name": name,
            "values": values,
        }

    pod = {
        "init_container": [],
        "container": [
            {"name": "t", "volume_mount": [{"name": "c", "mount_path": "/ckpt", "read_only": False}]}
        ],
        "volume": [{"name": "c", "persistent_volume_claim": [{"claim_name": "scratch"}], "empty_dir": []}],
    }
    resources = [
        res(
            "kubernetes_storage_class_v1",
            "efs",
            {"metadata": [{"name": "efs"}], "storage_provisioner": "efs.csi.aws.com"},
        ),
        res(
            "kubernetes_persistent_volume_claim_v1",
            "scratch",
            {"metadata": [{"name": "scratch"}], "spec": [{"storage_class_name": "efs", "volume_name": None}]},
        ),
        res(
            "kubernetes_job_v1",
            "train",
            {"metadata": [{"name": "train"}], "spec": [{"template": [{"spec": [pod]}]}]},
        ),
    ]
    plan = {"format_version": "1.2", "planned_values": {"root_module": {"resources": resources}}}
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=1))
    findings = _fin401(tmp_path, "")
    assert [f for f in findings if f[0] == "plan.json"] and all(f[0] == "plan.json" for f in findings)
