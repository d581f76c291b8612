"""Kubernetes / Karpenter loader: every kind it reads, with exact lines and Unknowns."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from finlint.ir import (
    CheckpointPath,
    ComputePool,
    LoadResult,
    Mount,
    Record,
    Requirement,
    Suppression,
    TrainingJob,
    Unknown,
    Volume,
    is_unknown,
)
from finlint.loaders import DocContext, document_loader_for
from finlint.loaders import kubernetes as k8s
from finlint.loaders.common.yamlload import load_all

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures" / "kubernetes"


def load_text(text: str, file: str = "test.yaml", **ctx: Any) -> LoadResult:
    """Load every document of ``text`` the way the scan does (one DocContext per document)."""
    result = LoadResult()
    for index, doc in enumerate(load_all(textwrap.dedent(text))):
        if k8s.claims(doc):
            result.extend(k8s.load(doc, DocContext(file=file, doc_index=index, **ctx)))
    return result


def load_fixture(relative: str) -> LoadResult:
    path = FIXTURES / relative
    return load_text(path.read_text("utf-8"), file=f"fixtures/kubernetes/{relative}")


def only(result: LoadResult, cls: type[Record] = Record) -> Any:
    assert not result.errors, result.errors
    matching = [r for r in result.records if isinstance(r, cls)]
    assert len(matching) == 1, result.records
    return matching[0]


def by_address(result: LoadResult) -> dict[str, Any]:
    assert not result.errors, result.errors
    return {r.address: r for r in result.records}


# --------------------------------------------------------------------------- claims


def test_claims_kubernetes_objects_only() -> None:
    assert k8s.claims({"apiVersion": "v1", "kind": "Pod"})
    assert not k8s.claims({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {}})
    assert not k8s.claims({"apiVersion": "v1", "kind": 3})
    assert not k8s.claims(["apiVersion", "kind"])
    assert not k8s.claims({"kind": "Pod"})


def test_registry_routes_a_nodepool_here() -> None:
    doc = load_all("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\n")[0]
    assert document_loader_for(doc) is k8s


# --------------------------------------------------------------------------- Karpenter


def test_nodepool_v1_admitting_p_category() -> None:
    pool = only(load_fixture("bad/nodepool-v1-category-p.yaml"), ComputePool)
    assert pool.address == "NodePool/gpu-training"
    assert pool.pool_kind == "karpenter-nodepool"
    assert (pool.location.line, pool.location.end_line) == (4, 35)
    assert pool.requirements == (
        Requirement("karpenter.k8s.aws/instance-category", "In", ("p",), 19),
        Requirement("karpenter.k8s.aws/instance-generation", "Gt", ("4",), 22),
        Requirement("kubernetes.io/arch", "In", ("amd64",), 25),
    )
    assert pool.instance_types is None
    assert pool.capacity_types == ("on-demand",)  # Karpenter's default without a capacity-type requirement
    assert pool.limits is None
    assert pool.min_size == 0 and pool.desired_size is None
    assert pool.disruption == {
        "consolidationPolicy": "WhenEmpty",
        "consolidateAfter": "10m",
        "expireAfter": "720h",
    }
    assert pool.labels == {"workload": "training"}
    assert pool.taints == ("nvidia.com/gpu=true:NoSchedule",)
    assert pool.extra["node_class"] == "gpu"
    assert dict(pool.attr_lines) == {
        "name": 7,
        "labels": 11,
        "requirements": 18,
        "taints": 28,
        "disruption": 33,
        "disruption.expireAfter": 32,
        "disruption.consolidationPolicy": 34,
        "disruption.consolidateAfter": 35,
    }
    # where each disruption key was written, so a field of another API version shows (FIN306)
    assert pool.api_version == "karpenter.sh/v1"
    assert dict(pool.disruption_paths) == {
        "consolidationPolicy": "spec.disruption.consolidationPolicy",
        "consolidateAfter": "spec.disruption.consolidateAfter",
        "expireAfter": "spec.template.spec.expireAfter",
    }


def test_nodepool_v1beta1_keeps_expire_after_in_disruption() -> None:
    pool = only(load_fixture("bad/nodepool-v1beta1-cpu-only.yaml"), ComputePool)
    assert pool.extra["api_version"] == "karpenter.sh/v1beta1"
    assert pool.requirements[0] == Requirement("karpenter.k8s.aws/instance-cpu", "Gt", ("3",), 16)
    assert pool.capacity_types == ("on-demand", "spot")
    assert pool.line_of("capacity_types") == 19
    assert pool.disruption == {"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h"}
    assert pool.line_of("disruption") == 22
    assert pool.api_version == "karpenter.sh/v1beta1"
    assert pool.disruption_paths["expireAfter"] == "spec.disruption.expireAfter"


def test_provisioner_v1alpha5() -> None:
    pool = only(load_fixture("bad/provisioner-v1alpha5-p5.yaml"), ComputePool)
    assert pool.address == "Provisioner/llm-pretrain"
    assert pool.pool_kind == "karpenter-provisioner"
    assert pool.requirements[0] == Requirement(
        "node.kubernetes.io/instance-type", "In", ("p5.48xlarge", "p4d.24xlarge"), 10
    )
    assert pool.capacity_types == ("on-demand",)
    assert pool.limits is None
    assert pool.disruption == {"ttlSecondsAfterEmpty": 30, "ttlSecondsUntilExpired": 2592000}
    assert pool.labels == {"team": "research"}
    assert pool.taints == ("nvidia.com/gpu:NoSchedule",)
    assert pool.extra["node_class"] == "gpu-template"
    assert (pool.line_of("requirements"), pool.line_of("labels"), pool.line_of("disruption")) == (9, 16, 23)


def test_provisioner_limits_are_nested_under_resources() -> None:
    pool = only(
        load_text(
            """\
            apiVersion: karpenter.sh/v1alpha5
            kind: Provisioner
            metadata:
              name: capped
            spec:
              consolidation:
                enabled: true
              limits:
                resources:
                  cpu: "1000"
                  memory: 1000Gi
            """
        ),
        ComputePool,
    )
    assert pool.limits == {"cpu": "1000", "memory": "1000Gi"}
    assert (pool.line_of("limits"), pool.line_of("limits.cpu"), pool.line_of("limits.memory")) == (9, 10, 11)
    assert pool.disruption == {"consolidationEnabled": True}
    assert pool.line_of("disruption") == 6


def test_nodepool_limits_are_raw_quantities() -> None:
    pool = only(load_fixture("good/nodepool-p-with-limits.yaml"), ComputePool)
    assert pool.limits == {"cpu": 100, "memory": "200Gi"}
    assert (pool.line_of("limits"), pool.line_of("limits.cpu"), pool.line_of("limits.memory")) == (21, 22, 23)
    g5 = only(load_fixture("good/nodepool-g5.yaml"), ComputePool)
    assert g5.limits == {"cpu": "1k", "nvidia.com/gpu": "64"}
    assert g5.capacity_types == ("spot",)
    assert g5.extra["weight"] == 10


def test_empty_limits_are_no_limits() -> None:
    pool = only(
        load_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: a}\nspec:\n  limits: {}\n"),
        ComputePool,
    )
    assert pool.limits is None


NODEPOOL_WITH = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: p
spec:
{spec}
"""


def nodepool(spec: str) -> ComputePool:
    indented = textwrap.indent(textwrap.dedent(spec), "  ")
    return only(load_text(NODEPOOL_WITH.format(spec=indented)), ComputePool)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    ("requirement", "expected"),
    [
        ("{key: karpenter.sh/capacity-type, operator: In, values: [spot]}", ("spot",)),
        ("{key: karpenter.sh/capacity-type, operator: In, values: [reserved]}", ("reserved",)),
        ("{key: karpenter.sh/capacity-type, operator: NotIn, values: [spot]}", ("on-demand", "reserved")),
        ("{key: karpenter.sh/capacity-type, operator: Exists}", ("on-demand", "spot", "reserved")),
        ("{key: kubernetes.io/arch, operator: In, values: [arm64]}", ("on-demand",)),
    ],
)
def test_capacity_types_from_requirements(requirement: str, expected: tuple[str, ...]) -> None:
    pool = nodepool(f"template:\n  spec:\n    requirements:\n      - {requirement}\n")
    assert pool.capacity_types == expected


def test_static_replicas_keep_nodes_running() -> None:
    pool = nodepool("replicas: 2\ntemplate:\n  spec:\n    requirements: []\n")
    assert (pool.min_size, pool.desired_size) == (2, 2)
    assert pool.line_of("min_size") == pool.line_of("desired_size") == 6
    quoted = nodepool('replicas: "3"\n')
    assert quoted.min_size == 3
    templated = nodepool('replicas: "{{ .Values.replicas }}"\n')
    assert is_unknown(templated.min_size) and is_unknown(templated.desired_size)


def test_numeric_requirement_values_become_strings() -> None:
    pool = nodepool(
        """\
        template:
          spec:
            requirements:
              - key: karpenter.k8s.aws/instance-generation
                operator: Gt
                values: [4]
        """
    )
    assert pool.requirements == (Requirement("karpenter.k8s.aws/instance-generation", "Gt", ("4",), 9),)


def test_template_labels_on_well_known_keys_are_requirements() -> None:
    # Karpenter adds a NodePool's template labels to its requirements (`In [value]`).
    pool = nodepool(
        """\
        template:
          metadata:
            labels:
              team: ml
              karpenter.k8s.aws/instance-family: g6e
              karpenter.sh/capacity-type: spot
        """
    )
    assert pool.requirements == (
        Requirement("karpenter.k8s.aws/instance-family", "In", ("g6e",), 10),
        Requirement("karpenter.sh/capacity-type", "In", ("spot",), 11),
    )
    assert pool.capacity_types == ("spot",)
    assert pool.labels["team"] == "ml"


def test_helm_placeholders_are_unknown_never_guessed() -> None:
    result = load_fixture("good/helm-quoted-values.yaml")
    pool = only(result, ComputePool)
    assert is_unknown(pool.name)
    assert is_unknown(pool.instance_types)  # a NotIn over a placeholder could admit anything
    assert pool.line_of("instance_types") == 14
    assert is_unknown(pool.limits["cpu"])
    assert is_unknown(pool.extra["node_class"])
    job = only(result, TrainingJob)
    for attr in ("instance_type", "instance_count", "spot", "max_runtime_s", "checkpoint_s3_uri", "name"):
        assert is_unknown(getattr(job, attr)), attr
    assert job.volume_size_gb == 50
    assert job.checkpoint_local_path is None  # absent, not unknown


def test_templated_capacity_type_is_unknown() -> None:
    pool = nodepool(
        """\
        template:
          spec:
            requirements:
              - key: karpenter.sh/capacity-type
                operator: In
                values: ["${capacity_type}"]
        """
    )
    assert is_unknown(pool.capacity_types)
    # the capacity type is read on its own: its placeholder does not hide the instance types
    assert not is_unknown(pool.instance_types)


def test_placeholder_in_a_zone_requirement_leaves_instance_types_decidable() -> None:
    pool = nodepool(
        """\
        template:
          spec:
            requirements:
              - key: topology.kubernetes.io/zone
                operator: In
                values: ["${zone}"]
              - key: karpenter.k8s.aws/instance-family
                operator: In
                values: ["${family}"]
        """
    )
    assert is_unknown(pool.instance_types)  # the family placeholder decides
    zone_only = nodepool(
        """\
        template:
          spec:
            requirements:
              - key: topology.kubernetes.io/zone
                operator: In
                values: ["${zone}"]
        """
    )
    assert not is_unknown(zone_only.instance_types)


@pytest.mark.parametrize(
    ("spec", "line", "message"),
    [
        ("template:\n  spec:\n    requirements: not-a-list\n", 8, "must be a list"),
        ("template:\n  spec:\n    requirements:\n      - just-a-string\n", 9, "not a mapping"),
        ("template:\n  spec:\n    requirements:\n      - {operator: In}\n", 9, "string `key`"),
        (
            "template:\n  spec:\n    requirements:\n      - {key: a, operator: In, values: x}\n",
            9,
            "list of strings",
        ),
        ("template: [1, 2]\n", 6, "`template` must be a mapping"),
    ],
)
def test_malformed_pool_is_a_parse_error_not_an_open_pool(spec: str, line: int, message: str) -> None:
    text = NODEPOOL_WITH.format(spec=textwrap.indent(spec, "  "))
    result = load_text(text)
    assert result.records == []
    assert len(result.errors) == 1
    assert result.errors[0].line == line
    assert message in result.errors[0].message and "NodePool p" in result.errors[0].message


def test_spec_that_is_a_placeholder_is_reported() -> None:
    result = load_text(
        'apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: x}\nspec: "{{ .Values.spec }}"\n'
    )
    assert result.records == [] and result.errors[0].line == 4
    assert "template placeholder" in result.errors[0].message


# --------------------------------------------------------------------------- EC2NodeClass + finalize


def test_reserved_only_pool_on_reservation_node_class_is_reserved_capacity() -> None:
    loaded = load_fixture("good/nodepool-reserved.yaml")
    assert [type(r).__name__ for r in loaded.records] == ["Record", "ComputePool"]
    final = k8s.finalize(loaded.records)
    pool = only(LoadResult(records=final), ComputePool)
    assert len(final) == 1  # the EC2NodeClass carrier is gone
    assert pool.capacity_types == ("reserved",)
    assert pool.capacity_reservation is True
    assert pool.line_of("capacity_reservation") == 32
    assert pool.extra["capacity_reservation_from"] == "fixtures/kubernetes/good/nodepool-reserved.yaml:3"


RESERVING_CLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: {name}
spec:
  capacityReservationSelectorTerms:
    - tags: {{team: ml}}
"""


def reserved_pool(node_class: str, capacity_types: str) -> str:
    return f"""\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: {node_class}}}
      requirements:
        - {{key: karpenter.sh/capacity-type, operator: In, values: {capacity_types}}}
"""


def test_finalize_links_node_class_across_files() -> None:
    records = load_text(reserved_pool("odcr", "[reserved]"), file="pools.yaml").records
    records += load_text(RESERVING_CLASS.format(name="odcr"), file="classes/odcr.yaml").records
    pool = only(LoadResult(records=k8s.finalize(records)), ComputePool)
    assert pool.capacity_reservation is True


@pytest.mark.parametrize(
    ("node_class", "capacity_types"),
    [
        ("other", "[reserved]"),  # the pool uses a class without reservations
        ("odcr", "[reserved, on-demand]"),  # falls back to on-demand: not only bought capacity
    ],
)
def test_finalize_leaves_other_pools_alone(node_class: str, capacity_types: str) -> None:
    records = load_text(reserved_pool(node_class, capacity_types)).records
    records += load_text(RESERVING_CLASS.format(name="odcr")).records
    pool = only(LoadResult(records=k8s.finalize(records)), ComputePool)
    assert pool.capacity_reservation is None


def test_node_class_without_reservations_emits_nothing() -> None:
    assert load_fixture("bad/nodepool-v1-category-p.yaml").records[1:] == []


# --------------------------------------------------------------------------- storage


def test_efs_storage_class() -> None:
    sc = only(load_fixture("bad/efs-checkpoint-chain/storageclass-efs.yaml"), Volume)
    assert sc.address == "StorageClass/efs-sc"
    assert sc.volume_kind == "storage-class"
    assert (sc.provisioner, sc.is_efs) == ("efs.csi.aws.com", True)
    assert sc.file_system_ref == "fs-0a1b2c3d4e5f67890"
    assert sc.root_path == "/dynamic_provisioning"
    assert (sc.line_of("provisioner"), sc.line_of("file_system_ref"), sc.location.line) == (7, 10, 3)


def test_claim_is_left_for_linking() -> None:
    pvc = only(load_fixture("bad/efs-checkpoint-chain/pvc-checkpoints.yaml"), Volume)
    assert pvc.address == "PersistentVolumeClaim/training/checkpoints"
    assert (pvc.volume_kind, pvc.namespace, pvc.name) == ("pvc", "training", "checkpoints")
    assert pvc.storage_class == "efs-sc" and pvc.line_of("storage_class") == 10
    assert pvc.capacity_gb == 500.0 and pvc.line_of("capacity_gb") == 13
    assert pvc.is_efs is None


def test_fsx_persistent_volume_and_statically_bound_claim() -> None:
    found = by_address(load_fixture("good/fsx-checkpoint-pvc.yaml"))
    pv = found["PersistentVolume/fsx-checkpoints"]
    assert (pv.volume_kind, pv.provisioner, pv.is_efs) == ("pv", "fsx.csi.aws.com", False)
    assert pv.file_system_ref == "fs-0fedcba9876543210" and pv.line_of("file_system_ref") == 19
    assert pv.capacity_gb == 1200.0
    pvc = found["PersistentVolumeClaim/training/checkpoints"]
    assert pvc.storage_class == ""  # explicitly no class: static binding
    assert pvc.volume_name == "fsx-checkpoints" and pvc.line_of("volume_name") == 36


@pytest.mark.parametrize(
    ("source", "driver", "fs_ref", "root", "is_efs"),
    [
        (
            "csi: {driver: efs.csi.aws.com, volumeHandle: 'fs-1a2b::fsap-3c4d'}",
            "efs.csi.aws.com",
            "fs-1a2b",
            None,
            True,
        ),
        (
            "csi: {driver: efs.csi.aws.com, volumeHandle: 'fs-1a2b:/ckpt'}",
            "efs.csi.aws.com",
            "fs-1a2b",
            "/ckpt",
            True,
        ),
        ("csi: {driver: ebs.csi.aws.com, volumeHandle: vol-0abc}", "ebs.csi.aws.com", None, None, False),
        ("csi: {driver: example.com/nas, volumeHandle: share1}", "example.com/nas", None, None, None),
        (
            "nfs: {server: fs-0abc.efs.eu-west-1.amazonaws.com, path: /}",
            "kubernetes.io/nfs",
            "fs-0abc",
            "/",
            True,
        ),
        ("nfs: {server: 10.0.1.15, path: /exports}", "kubernetes.io/nfs", None, "/exports", None),
        ("hostPath: {path: /data}", "kubernetes.io/host-path", None, None, False),
    ],
)
def test_persistent_volume_sources(source: str, driver: str, fs_ref: Any, root: Any, is_efs: Any) -> None:
    text = f"apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: pv1}}\nspec:\n  {source}\n"
    pv = only(load_text(text), Volume)
    assert (pv.provisioner, pv.file_system_ref, pv.root_path, pv.is_efs) == (driver, fs_ref, root, is_efs)


def test_persistent_volume_templated_nfs_server_is_unknown() -> None:
    text = 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec:\n  nfs: {server: "${dns}"}\n'
    pv = only(load_text(text), Volume)
    assert is_unknown(pv.is_efs) and is_unknown(pv.file_system_ref)


def test_persistent_volume_claim_ref_and_capacity() -> None:
    pv = only(
        load_text(
            """\
            apiVersion: v1
            kind: PersistentVolume
            metadata:
              name: efs-pv
            spec:
              capacity:
                storage: 5Gi
              storageClassName: efs-static
              claimRef:
                namespace: training
                name: ckpt
              csi:
                driver: efs.csi.aws.com
                volumeHandle: fs-0123
            """
        ),
        Volume,
    )
    assert pv.capacity_gb == 5.0 and pv.line_of("capacity_gb") == 7
    assert pv.storage_class == "efs-static" and pv.line_of("storage_class") == 8
    assert pv.claim_ref == "ckpt" and pv.claim_ref_namespace == "training" and pv.line_of("claim_ref") == 11
    assert pv.line_of("is_efs") == 13


def test_claim_with_bad_size_and_legacy_class_annotation() -> None:
    pvc = only(
        load_text(
            """\
            apiVersion: v1
            kind: PersistentVolumeClaim
            metadata:
              name: data
              annotations:
                volume.beta.kubernetes.io/storage-class: efs-sc
            spec:
              resources:
                requests:
                  storage: lots
            """
        ),
        Volume,
    )
    assert pvc.storage_class == "efs-sc" and pvc.line_of("storage_class") == 6
    assert is_unknown(pvc.capacity_gb)
    assert pvc.namespace is None and pvc.address == "PersistentVolumeClaim/default/data"


# --------------------------------------------------------------------------- workloads


def test_pytorchjob_mounts_from_every_replica_spec() -> None:
    job = only(load_fixture("bad/efs-checkpoint-chain/pytorchjob.yaml"), Volume)
    assert job.address == "PyTorchJob/training/llama-finetune"
    assert (job.volume_kind, job.namespace) == ("workload", "training")
    assert job.mounts == (
        Mount("ckpt", "/checkpoints", claim_name="checkpoints", line=20),
        Mount("dshm", "/dev/shm", line=22, is_efs=False),
        Mount("ckpt", "/checkpoints", claim_name="checkpoints", line=43),
    )
    assert job.line_of("mounts") == 20
    assert job.checkpoint_paths == (
        CheckpointPath("/checkpoints/llama", 18, "args"),
        CheckpointPath("/checkpoints/llama", 41, "env CHECKPOINT_DIR"),
    )


def test_job_with_nfs_volume_on_an_efs_dns_name() -> None:
    job = only(load_fixture("bad/job-nfs-efs-checkpoints.yaml"), Volume)
    assert job.mounts == (
        Mount("shared-ckpt", "/mnt/ckpt", file_system_ref="fs-0123456789abcdef0", line=18, is_efs=True),
    )
    assert job.checkpoint_paths == (CheckpointPath("/mnt/ckpt/resnet", 16, "command"),)


def test_statefulset_claim_templates_and_ephemeral_volumes() -> None:
    result = load_text(
        """\
        apiVersion: apps/v1
        kind: StatefulSet
        metadata:
          name: trainer
          namespace: ml
        spec:
          serviceName: trainer
          template:
            spec:
              containers:
                - name: main
                  image: trainer:1
                  volumeMounts:
                    - name: ckpt
                      mountPath: /ckpt
                    - name: scratch
                      mountPath: /scratch
              volumes:
                - name: scratch
                  ephemeral:
                    volumeClaimTemplate:
                      spec:
                        storageClassName: gp3
                        resources: {requests: {storage: 100Gi}}
          volumeClaimTemplates:
            - metadata:
                name: ckpt
              spec:
                storageClassName: efs-sc
                accessModes: [ReadWriteMany]
                resources:
                  requests:
                    storage: 1Ti
        """
    )
    found = by_address(result)
    workload = found["StatefulSet/ml/trainer"]
    assert workload.mounts == (
        Mount("ckpt", "/ckpt", claim_name="ckpt", line=14),
        Mount("scratch", "/scratch", claim_name="scratch", line=16),
    )
    ckpt = found["StatefulSet/ml/trainer/claims/ckpt"]
    assert (ckpt.volume_kind, ckpt.name, ckpt.namespace, ckpt.storage_class) == (
        "pvc",
        "ckpt",
        "ml",
        "efs-sc",
    )
    assert ckpt.capacity_gb == 1024.0
    assert (ckpt.location.line, ckpt.line_of("name"), ckpt.line_of("storage_class")) == (26, 27, 29)
    assert ckpt.extra["owner"] == "StatefulSet/ml/trainer"
    scratch = found["StatefulSet/ml/trainer/claims/scratch"]
    assert (scratch.storage_class, scratch.capacity_gb) == ("gp3", 100.0)


@pytest.mark.parametrize(
    ("kind_header", "nesting"),
    [
        ("apiVersion: batch/v1\nkind: CronJob", "jobTemplate:\n  spec:\n    template:\n      spec:"),
        ("apiVersion: apps/v1\nkind: Deployment", "template:\n  spec:"),
        ("apiVersion: v1\nkind: Pod", ""),
        (
            "apiVersion: ray.io/v1\nkind: RayJob",
            "rayClusterSpec:\n  headGroupSpec:\n    template:\n      spec:",
        ),
        (
            "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet",
            "replicatedJobs:\n  - template:\n      spec:\n        template:\n          spec:",
        ),
        (
            "apiVersion: elastic.pytorch.org/v1alpha1\nkind: ElasticJob",
            "replicaSpecs:\n  Worker:\n    template:\n      spec:",
        ),
        (
            "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob",
            "mpiReplicaSpecs:\n  Launcher:\n    template:\n      spec:",
        ),
    ],
)
def test_pod_templates_are_found_in_every_workload_kind(kind_header: str, nesting: str) -> None:
    pod = """\
containers:
  - name: c
    image: x
    volumeMounts:
      - {name: efs, mountPath: /shared}
volumes:
  - name: efs
    csi:
      driver: efs.csi.aws.com
      volumeHandle: fs-0abc::fsap-1
"""
    depth = nesting.count("\n") + 1 if nesting else 0
    body = (nesting + "\n" if nesting else "") + textwrap.indent(pod, "  " * depth)
    text = f"{kind_header}\nmetadata:\n  name: w\nspec:\n" + textwrap.indent(body, "  ")
    workload = only(load_text(text), Volume)
    assert workload.mounts[0].file_system_ref == "fs-0abc"
    assert workload.mounts[0].is_efs is True
    assert workload.mounts[0].mount_path == "/shared"


def test_workload_without_mounts_emits_nothing() -> None:
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\n"
        "spec:\n  template:\n    spec:\n      containers: [{name: a, image: b}]\n"
    )
    assert load_text(text).records == []


def test_kind_list_is_unwrapped() -> None:
    result = load_text(
        """\
        apiVersion: v1
        kind: List
        items:
          - apiVersion: v1
            kind: PersistentVolumeClaim
            metadata: {name: a}
            spec: {storageClassName: efs-sc}
        """
    )
    assert only(result, Volume).address == "PersistentVolumeClaim/default/a"


# --------------------------------------------------------------------------- SageMaker CRs


def test_ack_training_job_with_spot_and_no_checkpoint() -> None:
    job = only(load_fixture("bad/ack-trainingjob-spot-no-checkpoint.yaml"), TrainingJob)
    assert job.address == "TrainingJob/ml-jobs/bert-finetune-spot"
    assert job.launcher == "kubernetes-crd"
    assert (job.instance_type, job.instance_count, job.volume_size_gb) == ("ml.g5.12xlarge", 2, 100)
    assert job.spot is True and job.line_of("spot") == 21
    assert (job.max_runtime_s, job.max_wait_s) == (86400, 172800)  # "86400" given as a string
    assert job.checkpoint_s3_uri is None and job.checkpoint_local_path is None
    assert job.max_runtime_default_s == 86400 and "86,400" in str(job.default_note)
    assert (job.location.line, job.line_of("instance_type"), job.line_of("max_runtime_s")) == (4, 19, 23)


def test_legacy_operator_training_job() -> None:
    job = only(load_fixture("bad/legacy-operator-no-stopping-condition.yaml"), TrainingJob)
    assert job.address == "TrainingJob/default/xgboost-mnist"
    assert job.max_runtime_s is None and "max_runtime_s" not in job.attr_lines
    assert job.checkpoint_s3_uri == "s3://my-bucket/xgboost/checkpoints/"  # legacy `s3Uri`
    assert job.line_of("checkpoint_s3_uri") == 21


def test_envsubst_placeholders_are_unknown() -> None:
    # As in the ACK controller's own e2e samples: `$TRAINING_JOB_NAME`, `s3://$BUCKET/...`.
    job = only(
        load_text(
            """\
            apiVersion: sagemaker.services.k8s.aws/v1alpha1
            kind: TrainingJob
            metadata:
              name: $TRAINING_JOB_NAME
            spec:
              trainingJobName: $TRAINING_JOB_NAME
              resourceConfig: {instanceCount: 1, instanceType: $INSTANCE_TYPE, volumeSizeInGB: 5}
              stoppingCondition: {maxRuntimeInSeconds: 3600}
            """
        ),
        TrainingJob,
    )
    assert is_unknown(job.instance_type) and is_unknown(job.name)
    assert job.max_runtime_s == 3600


def test_hyperparameter_tuning_job_multiplies_runs() -> None:
    result = load_text(
        """\
        apiVersion: sagemaker.services.k8s.aws/v1alpha1
        kind: HyperParameterTuningJob
        metadata:
          name: xgb-hpo
        spec:
          hyperParameterTuningJobName: xgb-hpo
          hyperParameterTuningJobConfig:
            strategy: Bayesian
            resourceLimits:
              maxNumberOfTrainingJobs: 20
              maxParallelTrainingJobs: 2
          trainingJobDefinition:
            resourceConfig:
              instanceType: ml.p5.48xlarge
              instanceCount: 1
              volumeSizeInGB: 25
            stoppingCondition:
              maxRuntimeInSeconds: 3600
        """
    )
    job = only(result, TrainingJob)
    assert job.address == "HyperParameterTuningJob/default/xgb-hpo"
    assert (job.runs_multiplier, job.line_of("runs_multiplier")) == (20, 10)
    assert (job.instance_type, job.max_runtime_s, job.line_of("instance_type")) == (
        "ml.p5.48xlarge",
        3600,
        14,
    )


def test_other_crd_named_training_job_is_not_a_sagemaker_job() -> None:
    result = load_text(
        """\
        apiVersion: sagemaker.aws.amazon.com/v1
        kind: TrainingJob
        metadata: {name: other}
        spec:
          replicaSpecs:
            - name: worker
              template:
                spec:
                  containers:
                    - name: c
                      volumeMounts: [{name: d, mountPath: /data}]
                  volumes: [{name: d, emptyDir: {}}]
        """
    )
    assert [type(r).__name__ for r in result.records] == ["Volume"]


# --------------------------------------------------------------------------- eksctl


def test_eksctl_node_groups() -> None:
    found = by_address(load_fixture("bad/eksctl-p5-always-on.yaml"))
    h100 = found["ClusterConfig/research/h100"]
    assert (h100.pool_kind, h100.instance_types, h100.capacity_types) == (
        "eksctl-nodegroup",
        ("p5.48xlarge",),
        ("on-demand",),
    )
    assert (h100.min_size, h100.desired_size, h100.max_size) == (1, 2, 4)
    assert (h100.location.line, h100.location.end_line, h100.line_of("instance_types")) == (9, 19, 10)
    assert h100.taints == ("nvidia.com/gpu=true:NoSchedule",)
    system = found["ClusterConfig/research/system"]
    assert system.instance_types == ("m6i.large", "m6a.large")
    assert system.capacity_types == ("spot",) and system.line_of("capacity_types") == 22


def test_eksctl_capacity_block_and_spot_distribution() -> None:
    found = by_address(load_fixture("good/eksctl-capacity-block.yaml"))
    block = found["ClusterConfig/research/p5-block"]
    assert (block.capacity_types, block.capacity_reservation) == (("capacity-block",), True)
    assert block.line_of("capacity_reservation") == 16
    mixed = found["ClusterConfig/research/g5-scale-to-zero"]
    assert mixed.instance_types == ("g5.2xlarge", "g5.4xlarge") and mixed.line_of("instance_types") == 25
    assert (mixed.capacity_types, mixed.min_size, mixed.max_size) == (("spot",), 0, 8)
    assert mixed.extra["managed"] is False


def test_eksctl_default_size_is_two_nodes() -> None:
    pool = only(
        load_text(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
            "managedNodeGroups:\n  - name: gpu\n    instanceType: p5.48xlarge\n"
        ),
        ComputePool,
    )
    assert (pool.min_size, pool.desired_size, pool.max_size) == (None, 2, None)
    assert "eksctl creates 2 nodes" in pool.extra["default_note"]


def test_eksctl_instance_selector_is_unknown() -> None:
    pool = only(
        load_text(
            "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata: {name: c}\n"
            "nodeGroups:\n  - name: gpu\n    minSize: 1\n    instanceSelector: {vCPUs: 192, gpus: 8}\n"
        ),
        ComputePool,
    )
    assert is_unknown(pool.instance_types) and pool.line_of("instance_types") == 7


# --------------------------------------------------------------------------- suppressions


def test_suppression_annotation_forms() -> None:
    pool = only(
        load_text(
            """\
            apiVersion: karpenter.sh/v1
            kind: NodePool
            metadata:
              name: p5-research
              annotations:
                team: research
                finlint.io/ignore: |
                  FIN301: quarterly pre-training run, approved by finance
                  FIN101, oversized-p5: shared reason; FIN401
            spec:
              template:
                spec: {}
            """
        ),
        ComputePool,
    )
    assert pool.suppressions == (
        Suppression("FIN301", "quarterly pre-training run, approved by finance", 7),
        Suppression("FIN101", "shared reason", 7),
        Suppression("oversized-p5", "shared reason", 7),
        Suppression("FIN401", "", 7),
    )


# --------------------------------------------------------------------------- embedding (Terraform)


def test_load_documents_applies_offset_and_prefix() -> None:
    docs = load_all(RESERVING_CLASS.format(name="odcr") + "---\n" + reserved_pool("odcr", "[reserved]"))
    ctx = DocContext(file="main.tf", line_offset=40, address_prefix="kubectl_manifest.gpu/")
    result = k8s.load_documents([*docs, {"not": "k8s"}], ctx)
    assert [r.address for r in result.records] == [
        "kubectl_manifest.gpu/EC2NodeClass/odcr",
        "kubectl_manifest.gpu/NodePool/pool",
    ]
    pool = result.records[1]
    assert isinstance(pool, ComputePool)
    assert pool.location.line == 49 and pool.requirements[0].line == 58


def test_plain_dicts_from_hcl_get_the_offset_line() -> None:
    manifest = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "tf"},
        "spec": {"limits": {"cpu": 64}},
    }
    result = k8s.load_documents([manifest], DocContext(file="main.tf", line_offset=11))
    pool = only(result, ComputePool)
    assert pool.location.line == 12 and pool.line_of("limits") == 12
    assert pool.limits == {"cpu": 64}


# --------------------------------------------------------------------------- robustness


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: [1]\nspec: [1, 2]\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [1, {volumeMounts: x}]}\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{volumeMounts: [{name: 3}]}]}\n",
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nnodeGroups: [1, {name: x, minSize: a}]\n",
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nprovisioner: [a]\nparameters: x\n",
        "apiVersion: sagemaker.services.k8s.aws/v1alpha1\nkind: TrainingJob\nspec: {resourceConfig: 5}\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
        "spec: {containers: [{volumeMounts: [{name: a, mountPath: [x]}]}],"
        " volumes: [{name: a, csi: {driver: efs.csi.aws.com, volumeHandle: [1]}}]}\n",
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: p}\n"
        "spec: {csi: {driver: 5, volumeHandle: {a: 1}}, capacity: {storage: [1]}}\n",
        "apiVersion: karpenter.sh/v1\nkind: NodePool\n"
        "metadata: {name: p, annotations: {finlint.io/ignore: 5}}\n"
        "spec: {template: {metadata: {labels: [1]}, spec: {taints: [1, {key: 2}], nodeClassRef: 5}},"
        " limits: [1], disruption: 3}\n",
    ],
)
def test_odd_shapes_are_handled_not_caught(text: str) -> None:
    """Wrong types yield Unknowns or nothing; the loader's last-resort catch must not be needed."""
    result = load_text(text)
    assert not any("cannot interpret" in error.message for error in result.errors), result.errors
    for record in result.records:
        assert record.location.line >= 1


def test_unknown_values_are_reported_with_reasons() -> None:
    pool = nodepool("replicas: true\n")
    assert isinstance(pool.min_size, Unknown) and "boolean" in pool.min_size.reason


def test_a_large_multi_document_file_loads_quickly() -> None:
    one = (FIXTURES / "bad/efs-checkpoint-chain/pytorchjob.yaml").read_text("utf-8")
    pool = (FIXTURES / "bad/nodepool-v1-category-p.yaml").read_text("utf-8")
    text = "\n---\n".join([one, pool] * 100)  # about 8,500 lines, 300 documents
    start = time.perf_counter()
    result = load_text(text)
    elapsed = time.perf_counter() - start
    assert len(result.records) == 300  # each PyTorchJob: its mounts and its TrainingJob
    assert elapsed < 1.0, elapsed


# --------------------------------------------------------------------------- end to end (finlint scan)


def _findings(paths: list[Path]) -> set[tuple[str, str, int]]:
    from conftest import scan_paths

    result = scan_paths(paths)
    assert result.errors == []
    return {(f.rule_id, Path(f.file).as_posix().split("fixtures/", 1)[-1], f.line) for f in result.findings}


def test_scan_bad_fixtures_fires_the_core_rules_at_the_cause() -> None:
    assert _findings([FIXTURES / "bad"]) == {
        ("FIN201", "kubernetes/bad/ack-trainingjob-spot-no-checkpoint.yaml", 21),
        ("FIN204", "kubernetes/bad/ack-trainingjob-spot-no-checkpoint.yaml", 18),  # spot on 2 nodes
        ("FIN203", "kubernetes/bad/legacy-operator-no-stopping-condition.yaml", 19),  # spot, no max wait
        ("FIN401", "kubernetes/bad/efs-checkpoint-chain/pvc-checkpoints.yaml", 5),  # the claim name
        ("FIN401", "kubernetes/bad/efs-checkpoint-chain/pytorchjob.yaml", 20),
        ("FIN301", "kubernetes/bad/eksctl-p5-always-on.yaml", 10),
        # no instance type, no deadline: priced at what the spot-only g5 pool it lands on admits
        ("FIN101", "kubernetes/bad/karpenter-landing/pytorchjob-bert.yaml", 3),
        ("FIN201", "kubernetes/bad/karpenter-landing/pytorchjob-bert.yaml", 15),  # its nodeSelector
        # a TrainJob on a runtime without a deadline: the runtime's replicated job is what to edit
        ("FIN101", "kubernetes/bad/trainer-runtime/cluster-training-runtime.yaml", 15),
        ("FIN307", "kubernetes/bad/raycluster-p5-workers-always-on.yaml", 17),  # no autoscaling
        ("FIN401", "kubernetes/bad/job-nfs-efs-checkpoints.yaml", 18),
        ("FIN101", "kubernetes/bad/legacy-operator-no-stopping-condition.yaml", 3),
        ("FIN202", "kubernetes/bad/legacy-operator-no-stopping-condition.yaml", 21),
        ("FIN301", "kubernetes/bad/nodepool-v1-category-p.yaml", 18),
        ("FIN301", "kubernetes/bad/nodepool-v1beta1-cpu-only.yaml", 15),
        ("FIN301", "kubernetes/bad/provisioner-v1alpha5-p5.yaml", 9),
        # the same unlimited pools admit GPUs: FIN304 (counted once with FIN301)
        ("FIN304", "kubernetes/bad/nodepool-v1-category-p.yaml", 18),
        ("FIN304", "kubernetes/bad/nodepool-v1beta1-cpu-only.yaml", 15),
        ("FIN304", "kubernetes/bad/provisioner-v1alpha5-p5.yaml", 9),
        # Kubernetes training launchers with no runtime limit (the object, or its runPolicy)
        ("FIN101", "kubernetes/bad/efs-checkpoint-chain/pytorchjob.yaml", 3),
        ("FIN101", "kubernetes/bad/pytorchjob-fsdp-no-deadline.yaml", 3),
        ("FIN101", "kubernetes/bad/mpijob-launcher-and-workers.yaml", 8),
        ("FIN101", "kubernetes/bad/hyperpod-pytorchjob-no-limit.yaml", 2),
        ("FIN101", "kubernetes/bad/rayjob-gpu-cluster-kept.yaml", 3),
        ("FIN307", "kubernetes/bad/rayjob-gpu-cluster-kept.yaml", 3),
        ("FIN301", "kubernetes/bad/raycluster-p5-workers-always-on.yaml", 24),  # always-on Ray workers
    }


def test_scan_good_fixtures_only_carry_training_advisories() -> None:
    # The complete ACK job is clean for the core rules; it runs spot on several nodes for 48 h+,
    # which the training-job advisories name (FIN204 info: it checkpoints; FIN205 low).
    assert _findings([FIXTURES / "good"]) == {
        ("FIN204", "kubernetes/good/ack-trainingjob-complete.yaml", 18),
        ("FIN205", "kubernetes/good/ack-trainingjob-complete.yaml", 23),
    }


def test_scan_efs_chain_needs_all_three_files() -> None:
    chain = FIXTURES / "bad" / "efs-checkpoint-chain"
    # without the StorageClass file, only its name says EFS: reported as EFS by name (issue 11)
    found = _findings([chain / "pvc-checkpoints.yaml", chain / "pytorchjob.yaml"])
    assert {(rule, Path(file).name) for rule, file, _line in found} == {
        ("FIN401", "pvc-checkpoints.yaml"),
        ("FIN101", "pytorchjob.yaml"),  # the PyTorchJob sets no deadline, whatever its storage
    }


def test_scan_demo() -> None:
    assert _findings([REPO / "fixtures" / "demo" / "kubernetes"]) == {
        ("FIN301", "demo/kubernetes/karpenter-gpu-nodepool.yaml", 17),
        ("FIN502", "demo/kubernetes/sagemaker-pretrain.yaml", 15),
        ("FIN501", "demo/kubernetes/sagemaker-pretrain.yaml", 18),
        ("FIN102", "demo/kubernetes/sagemaker-pretrain.yaml", 20),
        ("FIN304", "demo/kubernetes/karpenter-gpu-nodepool.yaml", 17),
        ("FIN305", "demo/kubernetes/karpenter-g5-nodepool.yaml", 24),
        ("FIN306", "demo/kubernetes/karpenter-g5-nodepool.yaml", 25),
        ("FIN401", "demo/kubernetes/shared-storage.yaml", 7),  # the claim name
        ("FIN401", "demo/kubernetes/train-job.yaml", 23),
        ("FIN101", "demo/kubernetes/train-job.yaml", 3),
    }


def test_scan_honours_the_ignore_annotation(tmp_path: Path) -> None:
    pytest.importorskip("finlint.post.suppressions")
    text = (FIXTURES / "bad" / "nodepool-v1-category-p.yaml").read_text("utf-8")
    annotated = text.replace(
        "  name: gpu-training\n",
        '  name: gpu-training\n  annotations:\n    finlint.io/ignore: "FIN301: capped by a quota"\n',
    )
    (tmp_path / "pool.yaml").write_text(annotated, "utf-8")
    from conftest import scan_paths

    result = scan_paths([tmp_path], select=("FIN301", "FIN9"))
    assert [f.rule_id for f in result.findings if f.active] == []
    # suppressed findings stay visible, with their reason
    assert [(f.rule_id, f.suppressed) for f in result.findings] == [("FIN301", "capped by a quota")]
