"""Regressions from field-testing the Kubernetes/Karpenter and Terraform loaders on public code.

Every fixture here is a hand-written reduction of a pattern seen in the field (see
docs/field-test-k8s-terraform.md); none is copied from a public repository.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

from tests.conftest import tf_load
from tests.samples import P5_NODEPOOL_YAML

from finlint.engine import EngineConfig
from finlint.ir import ComputePool, LoadResult, Requirement, Volume
from finlint.loaders import DocContext
from finlint.loaders import kubernetes as k8s
from finlint.loaders.common.yamlload import load_all
from finlint.scan import ScanOptions, lint


def k8s_load(text: str) -> LoadResult:
    text = textwrap.dedent(text)
    return k8s.load_documents(load_all(text), DocContext(file="t.yaml", lines=text.splitlines()))


def fin301(path: Path) -> list[int]:
    result = lint(ScanOptions(paths=[path], engine=EngineConfig(select=("FIN301",))))
    return [f.line for f in result.findings if f.rule_id == "FIN301"]


# --- Karpenter v1alpha5: the AWS webhook's default instance requirements -----------------------

PROVISIONER_NO_TYPES = """\
    apiVersion: karpenter.sh/v1alpha5
    kind: Provisioner
    metadata:
      name: bigger-than-small
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-cpu
          operator: Gt
          values: ["7"]
      providerRef:
        name: default
    """


def test_provisioner_without_type_requirements_gets_the_webhook_defaults() -> None:
    pool = k8s_load(PROVISIONER_NO_TYPES).records[0]
    assert isinstance(pool, ComputePool)
    assert Requirement("karpenter.k8s.aws/instance-category", "In", ("c", "m", "r")) in pool.requirements
    assert Requirement("karpenter.k8s.aws/instance-generation", "Gt", ("2",)) in pool.requirements
    assert "defaulted_requirements" in pool.extra


def test_provisioner_without_type_requirements_is_not_a_p5_pool(tmp_path: Path) -> None:
    (tmp_path / "provisioner.yaml").write_text(textwrap.dedent(PROVISIONER_NO_TYPES))
    assert fin301(tmp_path) == []


def test_provisioner_with_a_family_requirement_keeps_its_own_choice() -> None:
    pool = k8s_load(
        """\
        apiVersion: karpenter.sh/v1alpha5
        kind: Provisioner
        metadata:
          name: h100
        spec:
          requirements:
            - key: karpenter.k8s.aws/instance-family
              operator: In
              values: ["p5"]
        """
    ).records[0]
    assert [r.key for r in pool.requirements] == ["karpenter.k8s.aws/instance-family"]


def test_nodepool_without_type_requirements_gets_no_default(tmp_path: Path) -> None:
    # v1beta1/v1 NodePools have no such webhook: an unconstrained, unlimited pool admits p5.
    (tmp_path / "pool.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: karpenter.sh/v1
            kind: NodePool
            metadata:
              name: anything
            spec:
              template:
                spec:
                  requirements:
                    - key: kubernetes.io/arch
                      operator: In
                      values: ["amd64"]
                  nodeClassRef:
                    group: karpenter.k8s.aws
                    kind: EC2NodeClass
                    name: default
            """
        )
    )
    assert fin301(tmp_path) == [8]


# --- Terraform: manifests read from other files point at the argument --------------------------


def test_kubernetes_manifest_from_yamldecode_file_points_at_the_argument(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": """
                resource "kubernetes_manifest" "pool" {
                  manifest = yamldecode(file("${path.module}/pool.yaml"))
                }
            """,
            "pool.yaml": P5_NODEPOOL_YAML.replace("${zone}", "us-east-1a"),
        },
    )
    (pool,) = [r for r in result.records if isinstance(r, ComputePool)]
    assert pool.address == "kubernetes_manifest.pool/NodePool/h100"
    assert pool.location.file == "main.tf" and pool.location.line == 2
    assert {r.line for r in pool.requirements} == {2}


def test_kubectl_manifest_from_file_points_at_the_argument(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": """
                # a comment

                resource "kubectl_manifest" "pool" {
                  yaml_body = file("${path.module}/pool.yaml")
                }
            """,
            "pool.yaml": P5_NODEPOOL_YAML.replace("${zone}", "us-east-1a"),
        },
    )
    (pool,) = [r for r in result.records if isinstance(r, ComputePool)]
    assert pool.location.line == 4
    assert {r.line for r in pool.requirements} == {4}


def test_scan_reports_the_tf_argument_line_for_a_file_manifest(tmp_path: Path) -> None:
    # the manifest is outside the scanned directory (in the same checkout): the Terraform copy
    # is the only one
    (tmp_path / ".git").mkdir()
    tf_dir = tmp_path / "infra"
    tf_load(
        tf_dir,
        {
            "main.tf": """
                resource "kubernetes_manifest" "pool" {
                  manifest = yamldecode(file("${path.module}/../manifests/pool.yaml"))
                }
            """,
        },
    )
    (tmp_path / "manifests").mkdir()
    (tmp_path / "manifests" / "pool.yaml").write_text(
        textwrap.dedent(P5_NODEPOOL_YAML).replace("${zone}", "us-east-1a")
    )
    result = lint(ScanOptions(paths=[tf_dir], engine=EngineConfig(select=("FIN301",))))
    findings = [(f.file, f.line) for f in result.findings]
    assert findings and all(file.endswith("main.tf") and line == 2 for file, line in findings)


def test_templatefile_with_unknown_variables_is_still_read(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": """
                resource "aws_subnet" "a" {
                  availability_zone = "us-east-1a"
                }

                resource "kubectl_manifest" "pool" {
                  yaml_body = templatefile("${path.module}/pool.yaml", {
                    zone = aws_subnet.a.availability_zone_id
                  })
                }
            """,
            "pool.yaml": P5_NODEPOOL_YAML,
        },
    )
    assert [n.message for n in result.notices if "not static" in n.message] == []
    (pool,) = [r for r in result.records if isinstance(r, ComputePool)]
    assert pool.location.line == 6
    types = [r for r in pool.requirements if r.key == "node.kubernetes.io/instance-type"]
    assert types[0].values == ("p5.48xlarge",)


def test_templatefile_pv_keeps_its_storage_facts(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": """
                resource "aws_efs_file_system" "shared" {}

                resource "kubectl_manifest" "pv" {
                  yaml_body = templatefile("${path.module}/pv.yaml", {
                    fs_id = aws_efs_file_system.shared.id
                  })
                }
            """,
            "pv.yaml": """
                apiVersion: v1
                kind: PersistentVolume
                metadata:
                  name: shared
                spec:
                  capacity:
                    storage: 100Gi
                  storageClassName: efs
                  csi:
                    driver: efs.csi.aws.com
                    volumeHandle: ${fs_id}
            """,
        },
    )
    (pv,) = [r for r in result.records if isinstance(r, Volume) and r.volume_kind == "pv"]
    assert pv.is_efs is True and pv.capacity_gb == 100.0


def test_yaml_error_in_a_file_manifest_is_reported_at_the_argument(tmp_path: Path) -> None:
    result = tf_load(
        tmp_path,
        {
            "main.tf": """
                resource "kubectl_manifest" "broken" {
                  yaml_body = file("${path.module}/broken.yaml")
                }
            """,
            "broken.yaml": "kind: NodePool\nspec: [unclosed\n",
        },
    )
    (error,) = result.errors
    assert error.file == "main.tf" and error.line == 2
    assert "rendered text" in error.message
