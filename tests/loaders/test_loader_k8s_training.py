"""Kubernetes training launchers -> TrainingJob / ComputePool: lines, counts, limits, unknowns."""

from __future__ import annotations

from typing import Any

import pytest
from tests.loaders.test_loader_kubernetes import load_fixture, load_text

from finlint.domain.sagemaker import NO_CAP, runtime_cap
from finlint.ir import Alternatives, ComputePool, TrainingJob, Unknown, Volume

_POD = """
spec:
  nodeSelector:
    node.kubernetes.io/instance-type: {itype}
  containers:
    - name: main
      image: x
      resources:
        limits:
          nvidia.com/gpu: {gpus}"""


def gpu_pod(indent: int, itype: str, gpus: int) -> str:
    """A GPU pod template's ``spec`` block, indented under a ``template:`` key at ``indent``
    (counted in the test's text as written, before dedent)."""
    pad = " " * (indent + 2)
    return (
        "".join(f"\n{pad}{line}" for line in _POD.format(itype=itype, gpus=gpus).splitlines() if line) + "\n"
    )


def jobs(result: Any) -> list[TrainingJob]:
    assert not result.errors, result.errors
    return [r for r in result.records if isinstance(r, TrainingJob)]


def one_job(text: str) -> TrainingJob:
    found = jobs(load_text(text))
    assert len(found) == 1, found
    return found[0]


def test_pytorchjob_without_limit_is_uncapped_with_exact_lines() -> None:
    result = load_fixture("bad/pytorchjob-fsdp-no-deadline.yaml")
    job = jobs(result)[0]
    assert job.launcher == "kubeflow-training-operator"
    assert job.instance_type == "p5.48xlarge" and job.line_of("instance_type") == 19
    assert job.instance_count == 2 and job.line_of("instance_count") == 14
    assert job.max_runtime_s is None and job.max_runtime_default_s is None
    assert job.line_of("max_runtime_s") is None  # no runPolicy: the finding is on the object
    assert job.location.line == 3
    assert runtime_cap(job) == (None, NO_CAP)
    assert job.checkpoint_local_path_default is None and job.spot is None
    # the mounts are still read (FIN401 on workloads)
    assert any(isinstance(r, Volume) and r.volume_kind == "workload" for r in result.records)


def test_run_policy_deadline_and_its_line() -> None:
    job = one_job(
        """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: j
        spec:
          runPolicy:
            activeDeadlineSeconds: 7200
          pytorchReplicaSpecs:
            Master:
              replicas: 1
              template:"""
        + gpu_pod(14, "g5.48xlarge", 8)
        + """
            Worker:
              replicas: 3
              template:"""
        + gpu_pod(14, "g5.48xlarge", 8)
    )
    assert job.max_runtime_s == 7200 and job.line_of("max_runtime_s") == 8
    assert job.instance_count == 4  # Master + Worker
    assert runtime_cap(job)[0] == 7200


def test_run_policy_without_deadline_points_at_run_policy() -> None:
    result = load_fixture("bad/mpijob-launcher-and-workers.yaml")
    job = jobs(result)[0]
    assert job.line_of("max_runtime_s") == 8
    # the CPU launcher is not an instance of the job; the p4d family resolves to its one size
    assert job.instance_type == "p4d.24xlarge" and job.instance_count == 2
    assert job.extra["accelerated_roles"] == ["Worker"]


def test_karpenter_family_with_several_sizes_is_alternatives() -> None:
    job = one_job(
        """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: j
        spec:
          pytorchReplicaSpecs:
            Worker:
              replicas: 1
              template:
                spec:
                  nodeSelector:
                    karpenter.k8s.aws/instance-family: g5
                  containers:
                    - name: main
                      resources:
                        limits:
                          nvidia.com/gpu: 4
        """
    )
    assert isinstance(job.instance_type, Alternatives)
    assert set(job.instance_type.options) == {"g5.12xlarge", "g5.24xlarge", "g5.48xlarge"}


def test_gpus_packed_on_fewer_nodes() -> None:
    job = one_job(
        """
        apiVersion: kubeflow.org/v1
        kind: PyTorchJob
        metadata:
          name: j
        spec:
          pytorchReplicaSpecs:
            Worker:
              replicas: 8
              template:"""
        + gpu_pod(14, "p4d.24xlarge", 1)
    )
    assert job.instance_count == 1  # 8 one-GPU pods fit one 8-GPU instance


def test_affinity_and_placeholders() -> None:
    job = one_job(
        """
        apiVersion: kubeflow.org/v1
        kind: TFJob
        metadata:
          name: j
        spec:
          runPolicy:
            activeDeadlineSeconds: "{{ .Values.deadline }}"
          tfReplicaSpecs:
            Worker:
              replicas: ${NUM_NODES}
              template:
                spec:
                  affinity:
                    nodeAffinity:
                      requiredDuringSchedulingIgnoredDuringExecution:
                        nodeSelectorTerms:
                          - matchExpressions:
                              - key: node.kubernetes.io/instance-type
                                operator: In
                                values: [p4d.24xlarge, p5.48xlarge]
                  containers:
                    - name: main
                      resources:
                        limits:
                          nvidia.com/gpu: 8
        """
    )
    assert isinstance(job.max_runtime_s, Unknown) and job.line_of("max_runtime_s") == 8
    assert isinstance(job.instance_type, Alternatives) and job.line_of("instance_type") == 19
    assert isinstance(job.instance_count, Unknown)


def test_hyperpod_job() -> None:
    job = jobs(load_fixture("bad/hyperpod-pytorchjob-no-limit.yaml"))[0]
    assert job.launcher == "hyperpod-training-operator"
    assert job.instance_type == "ml.g5.48xlarge" and job.instance_count == 2
    assert job.max_runtime_s is None and job.line_of("max_runtime_s") is None
    assert job.extra["job_max_retry_count"] == 20


@pytest.mark.parametrize(
    ("limits", "expected"),
    [("nvidia.com/gpu: 1", 1), ("aws.amazon.com/neuron: 16", 1), ("cpu: 4", 0)],
)
def test_batch_job_only_with_accelerators(limits: str, expected: int) -> None:
    result = load_text(
        f"""
        apiVersion: batch/v1
        kind: Job
        metadata:
          name: j
        spec:
          activeDeadlineSeconds: 600
          template:
            spec:
              containers:
                - name: main
                  resources:
                    limits:
                      {limits}
        """
    )
    found = jobs(result)
    assert len(found) == expected
    if found:
        assert found[0].launcher == "kubernetes-job" and found[0].max_runtime_s == 600


def test_jobset_replicated_job_without_deadline() -> None:
    job = one_job(
        """
        apiVersion: jobset.x-k8s.io/v1alpha2
        kind: JobSet
        metadata:
          name: js
        spec:
          replicatedJobs:
            - name: driver
              replicas: 1
              template:
                spec:
                  activeDeadlineSeconds: 60
                  template:
                    spec:
                      containers:
                        - name: main
            - name: workers
              replicas: 2
              template:
                spec:
                  parallelism: 2
                  template:"""
        + gpu_pod(18, "g5.48xlarge", 8)
    )
    assert job.launcher == "jobset"
    assert job.max_runtime_s is None and job.line_of("max_runtime_s") == 17  # the workers' name
    assert job.instance_count == 4


def test_good_fixture_limits() -> None:
    found = {j.address: j for j in jobs(load_fixture("good/pytorchjob-with-deadline.yaml"))}
    assert found["TFJob/default/resnet"].max_runtime_s == 43200
    assert found["JAXJob/default/jax-mnist"].max_runtime_s == 3600
    jobset = found["JobSet/default/pretrain"]
    assert jobset.max_runtime_s == 86400 and jobset.instance_count == 4
    other = {j.address: j for j in jobs(load_fixture("good/rayjob-shutdown-and-volcano.yaml"))}
    volcano = other["Job/default/mpi-train"]
    assert volcano.launcher == "volcano" and volcano.max_runtime_s == 7200
    assert volcano.runtime_limit_field == "pod template activeDeadlineSeconds"
    train = other["TrainJob/default/torch-mnist"]
    assert train.launcher == "kubeflow-trainer" and isinstance(train.max_runtime_s, Unknown)
    assert train.instance_count == 2
    ray = other["RayJob/default/batch-train"]
    assert ray.max_runtime_s == 21600
    assert ray.cluster_after_job is not None and ray.cluster_after_job.shutdown is True


def test_rayjob_idle_nodes() -> None:
    job = jobs(load_fixture("bad/rayjob-gpu-cluster-kept.yaml"))[0]
    assert job.launcher == "kuberay" and job.instance_type == "g5.12xlarge"
    assert job.instance_count == 2  # the CPU head is not counted
    after = job.cluster_after_job
    assert after is not None and after.shutdown is None and after.idle_nodes == 2
    assert after.idle_roles == ("gpu-group",)


def test_rayjob_on_existing_cluster_and_cpu_only_are_not_jobs() -> None:
    assert not jobs(
        load_text(
            """
            apiVersion: ray.io/v1
            kind: RayJob
            metadata:
              name: r
            spec:
              entrypoint: python x.py
              clusterSelector:
                ray.io/cluster: shared
            """
        )
    )


def test_raycluster_gpu_group_is_an_always_on_pool() -> None:
    result = load_fixture("bad/raycluster-p5-workers-always-on.yaml")
    assert not result.errors
    pools = [r for r in result.records if isinstance(r, ComputePool)]
    assert len(pools) == 1  # the CPU head is no pool
    pool = pools[0]
    assert pool.pool_kind == "ray-worker-group"
    assert pool.address == "RayCluster/default/rl-cluster/p5-workers"
    assert pool.instance_types == ("p5.48xlarge",) and pool.line_of("instance_types") == 24
    assert (pool.min_size, pool.desired_size, pool.max_size) == (2, 2, 4)


def test_raycluster_autoscaling_keeps_min_replicas() -> None:
    result = load_text(
        """
        apiVersion: ray.io/v1
        kind: RayService
        metadata:
          name: serve
        spec:
          rayClusterConfig:
            enableInTreeAutoscaling: true
            headGroupSpec:
              template:
                spec:
                  containers:
                    - name: head
            workerGroupSpecs:
              - groupName: gpu
                replicas: 3
                minReplicas: 1
                maxReplicas: 5
                template:"""
        + gpu_pod(16, "g5.2xlarge", 1)
    )
    pool = next(r for r in result.records if isinstance(r, ComputePool))
    assert (pool.min_size, pool.desired_size, pool.max_size) == (1, 3, 5)
    assert pool.line_of("min_size") == 17


@pytest.mark.parametrize(
    "spec",
    [
        "pytorchReplicaSpecs: [1, 2]",
        "pytorchReplicaSpecs: {Worker: {replicas: many, template: {spec: {containers: "
        "[{resources: {limits: {nvidia.com/gpu: lots}}}]}}}}",
        "pytorchReplicaSpecs: {Worker: 3}",
        "runPolicy: [x]",
        "replicaSpecs: {a: b}",
        "tasks: 7",
        "workerGroupSpecs: [{replicas: -1, template: {spec: {containers: "
        "[{resources: {limits: {nvidia.com/gpu: 1}}}]}}}]",
    ],
)
@pytest.mark.parametrize(
    "kind",
    [
        "kubeflow.org/v1|PyTorchJob",
        "sagemaker.amazonaws.com/v1|HyperPodPyTorchJob",
        "batch.volcano.sh/v1alpha1|Job",
        "ray.io/v1|RayCluster",
        "ray.io/v1|RayJob",
        "jobset.x-k8s.io/v1alpha2|JobSet",
        "trainer.kubeflow.org/v1alpha1|TrainJob",
    ],
)
def test_odd_shapes_never_crash(kind: str, spec: str) -> None:
    api, name = kind.split("|")
    result = load_text(f"apiVersion: {api}\nkind: {name}\nmetadata:\n  name: x\nspec:\n  {spec}\n")
    for record in result.records:
        assert record.address
    for error in result.errors:  # a bad value is a FIN000 with a line, never a crash
        assert error.line >= 1
