"""Regressions from the third field test of the infrastructure loaders on public code.

Every fixture here is a hand-written reduction of a pattern seen in the field (see
docs/field-test-round3-infra.md); none is copied from a public repository.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.conftest import tf_load

from finlint.engine import EngineConfig
from finlint.ir import ComputePool, LoadResult, Notebook, Unknown
from finlint.loaders import DocContext
from finlint.loaders import kubernetes as k8s
from finlint.loaders.common.yamlload import load_all
from finlint.loaders.terraform import heredocs
from finlint.scan import ScanOptions, lint


def k8s_load(text: str) -> LoadResult:
    text = textwrap.dedent(text)
    return k8s.load_documents(load_all(text), DocContext(file="t.yaml", lines=text.splitlines()))


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


# --- a function call Terraform rejects costs its value, not the configuration -----------------

# cf2tf output: `Fn::Split` translated with the delimiter split into two strings (3 arguments).
CF2TF_SPLIT = """
    variable "subnet_ids" {
      type    = string
      default = "subnet-1,subnet-2"
    }

    resource "aws_sagemaker_notebook_instance" "nb" {
      name          = "research"
      instance_type = "ml.g5.xlarge"
      role_arn      = "arn:aws:iam::111122223333:role/nb"
    }

    resource "aws_sagemaker_domain" "studio" {
      domain_name = "studio"
      auth_mode   = "IAM"
      vpc_id      = "vpc-1"
      subnet_ids  = split("","", var.subnet_ids)
      default_user_settings {
        execution_role = "arn:aws:iam::111122223333:role/studio"
        jupyter_lab_app_settings {
          default_resource_spec {
            instance_type = "ml.g5.2xlarge"
          }
        }
      }
    }
    """


def test_function_with_too_many_arguments_is_unknown_not_an_internal_error(tmp_path: Path) -> None:
    result = tf_load(tmp_path, {"main.tf": CF2TF_SPLIT})
    assert not result.errors
    notebooks = {r.address: r for r in result.records if isinstance(r, Notebook)}
    assert notebooks["aws_sagemaker_notebook_instance.nb"].instance_type == "ml.g5.xlarge"
    assert notebooks["aws_sagemaker_domain.studio"].instance_type == "ml.g5.2xlarge"


def test_function_argument_error_reads_as_an_invalid_expression(tmp_path: Path) -> None:
    files = {
        "main.tf": """
        locals {
          wrong_arity = split("","", "a,b")
          wrong_type  = join(",", 5)
        }

        resource "aws_instance" "box" {
          instance_type = local.wrong_arity
          ami           = local.wrong_type
        }
        """
    }
    result = tf_load(tmp_path, files)
    assert not result.errors
    (pool,) = [r for r in result.records if isinstance(r, ComputePool)]
    assert isinstance(pool.instance_types, Unknown)
    assert "split()" in pool.instance_types.reason


def test_scan_of_the_directory_reports_no_internal_error(tmp_path: Path) -> None:
    write(tmp_path, "main.tf", CF2TF_SPLIT)
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    assert not [e for e in result.errors if "internal error" in e.message]


# --- heredoc delimiters that start with an underscore (valid HCL) ------------------------------

UNDERSCORE_HEREDOC = """
    resource "aws_instance" "gpu_box" {
      ami           = "ami-123"
      instance_type = "g5.12xlarge"
      user_data     = <<_DATA
    #!/bin/bash
    cat <<_EOF > /etc/motd
    training box
    _EOF
    echo ${var.name}
    _DATA
    }

    variable "name" {
      default = "box"
    }
    """


def test_underscore_heredoc_delimiter_parses(tmp_path: Path) -> None:
    result = tf_load(tmp_path, {"main.tf": UNDERSCORE_HEREDOC})
    assert not result.errors
    (pool,) = [r for r in result.records if isinstance(r, ComputePool)]
    assert pool.instance_types == ("g5.12xlarge",)
    assert pool.line_of("instance_types") == 3


def test_letter_delimiters_keeps_lines_and_inner_text() -> None:
    text = 'a = <<_DATA\ncat <<_EOF\n_EOF\n_DATA\nb = <<-_X\n  y\n  _X\nc = "<<_no"\n'
    renamed = heredocs.letter_delimiters(text)
    assert renamed is not None
    assert renamed.splitlines()[0] == "a = <<ZDATA"
    assert renamed.splitlines()[1:3] == ["cat <<_EOF", "_EOF"]  # the body is left as written
    assert renamed.splitlines()[3] == "ZDATA"
    assert renamed.splitlines()[4:7] == ["b = <<-ZX", "  y", "  ZX"]
    assert len(renamed) == len(text) and renamed.count("\n") == text.count("\n")


def test_letter_delimiters_avoids_a_name_already_in_the_text() -> None:
    text = "a = <<_DATA\nZDATA\n_DATA\n"
    renamed = heredocs.letter_delimiters(text)
    assert renamed == "a = <<QDATA\nZDATA\nQDATA\n"


def test_letter_delimiters_leaves_letter_delimiters_alone() -> None:
    assert heredocs.letter_delimiters("a = <<EOT\ncat <<_EOF\n_EOF\nEOT\n") is None


def test_invalid_hcl_is_still_reported(tmp_path: Path) -> None:
    result = tf_load(tmp_path, {"main.tf": 'a = <<_DATA\nnever closed\nb = "x"\n'})
    assert [e.line for e in result.errors] == [1]


# --- SageMaker HyperPod autoscaling: NodePools on a HyperpodNodeClass ----------------------------

HYPERPOD_NODEPOOL = """\
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: hyperpod-gpu
    spec:
      limits:
        nvidia.com/gpu: 8
      template:
        spec:
          nodeClassRef:
            group: karpenter.sagemaker.amazonaws.com
            kind: HyperpodNodeClass
            name: gpu-groups
          requirements:
            - key: node.kubernetes.io/instance-type
              operator: Exists
    ---
    apiVersion: karpenter.sagemaker.amazonaws.com/v1
    kind: HyperpodNodeClass
    metadata:
      name: gpu-groups
    spec:
      instanceGroups:
        - gpu-workers
    """

HYPERPOD_NODEPOOL_ML_TYPES = """\
    apiVersion: karpenter.sh/v1
    kind: NodePool
    metadata:
      name: hyperpod-g5
    spec:
      template:
        spec:
          nodeClassRef:
            group: karpenter.sagemaker.amazonaws.com
            kind: HyperpodNodeClass
            name: g5-groups
          requirements:
            - key: node.kubernetes.io/instance-type
              operator: In
              values: ["ml.g5.8xlarge"]
    """

EC2_NODEPOOL_ML_TYPES = HYPERPOD_NODEPOOL_ML_TYPES.replace(
    "karpenter.sagemaker.amazonaws.com", "karpenter.k8s.aws"
).replace("HyperpodNodeClass", "EC2NodeClass")


def test_hyperpod_node_class_pool_types_are_unknown() -> None:
    (pool,) = [r for r in k8s_load(HYPERPOD_NODEPOOL).records if isinstance(r, ComputePool)]
    assert isinstance(pool.instance_types, Unknown)
    assert "HyperpodNodeClass 'gpu-groups'" in pool.instance_types.reason
    assert pool.line_of("instance_types") == 10  # the nodeClassRef a person edits
    assert pool.line_of("requirements") == 14


def test_hyperpod_node_class_pool_is_undetermined_not_an_ec2_catalog_finding(tmp_path: Path) -> None:
    write(tmp_path, "nodepool.yaml", HYPERPOD_NODEPOOL)
    result = lint(ScanOptions(paths=[tmp_path], engine=EngineConfig(select=("FIN301", "FIN304", "FIN305"))))
    assert result.findings == []
    assert sorted(u.rule_id for u in result.undetermined) == ["FIN301", "FIN304", "FIN305"]
    assert all("HyperpodNodeClass" in " ".join(u.reasons) for u in result.undetermined)


def test_hyperpod_node_class_pool_may_name_ml_types(tmp_path: Path) -> None:
    write(tmp_path, "hyperpod/nodepool.yaml", HYPERPOD_NODEPOOL_ML_TYPES)
    write(tmp_path, "ec2/nodepool.yaml", EC2_NODEPOOL_ML_TYPES)
    result = lint(
        ScanOptions(paths=[tmp_path], display_root=tmp_path, engine=EngineConfig(select=("FIN303",)))
    )
    assert [(f.file, f.line) for f in result.findings] == [("ec2/nodepool.yaml", 13)]
