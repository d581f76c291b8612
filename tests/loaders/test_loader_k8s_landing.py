"""Where Kubernetes training pods land (linking.landing), spot capacity, CronJobs, Trainer runtimes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.loaders.test_loader_kubernetes import load_text

from conftest import scan_files, scan_paths
from finlint.ir import Alternatives, PodPlacement, Requirement, TrainingJob, Unknown
from finlint.loaders.kubernetes.cronjob import runs_per_month

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "kubernetes"

GPU_POOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [{family}]
        - key: karpenter.sh/capacity-type
          operator: In
          values: [{capacity}]
{taints}"""

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
{placement}      containers:
        - name: train
          image: x
{args}          resources:
            limits:
              nvidia.com/gpu: {gpus}
"""


def pool(name: str = "gpu", family: str = "g5", capacity: str = "spot", tainted: bool = False) -> str:
    taints = "      taints:\n        - {key: nvidia.com/gpu, effect: NoSchedule}\n" if tainted else ""
    return GPU_POOL.format(name=name, family=family, capacity=capacity, taints=taints)


def job(placement: str = "", gpus: int = 4, args: str = "") -> str:
    return JOB.format(placement=textwrap.indent(placement, "      "), gpus=gpus, args=args)


def scanned_job(tmp_path: Path, files: dict[str, str]) -> TrainingJob:
    result = scan_files(tmp_path, files)
    found = [r for r in result.records if isinstance(r, TrainingJob)]
    assert len(found) == 1, found
    return found[0]


def test_pod_placement_is_read_with_lines() -> None:
    text = job(
        "nodeSelector:\n  team: ml\n"
        "tolerations:\n  - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}\n"
        "affinity:\n  nodeAffinity:\n    requiredDuringSchedulingIgnoredDuringExecution:\n"
        "      nodeSelectorTerms:\n        - matchExpressions:\n"
        "            - {key: karpenter.k8s.aws/instance-gpu-name, operator: In, values: [a10g]}\n"
    )
    found = [r for r in load_text(text).records if isinstance(r, TrainingJob)]
    placement = found[0].placement
    assert isinstance(placement, PodPlacement)
    assert placement.selector == (("team", "ml"),) and placement.line == 8
    assert placement.tolerations == (("nvidia.com/gpu", "Exists", "", "NoSchedule"),)
    assert placement.affinity == ((Requirement("karpenter.k8s.aws/instance-gpu-name", "In", ("a10g",), 17),),)
    assert (placement.accelerators, placement.accelerator_kind, placement.devices) == (4, "gpu", 4)
    assert placement.unresolved is None


def test_a_placeholder_selector_is_unresolved() -> None:
    text = job("nodeSelector:\n  team: '{{ .Values.team }}'\n")
    placement = [r for r in load_text(text).records if isinstance(r, TrainingJob)][0].placement
    assert placement is not None and placement.unresolved and "placeholder" in placement.unresolved


def test_the_karpenter_fixture_lands_on_the_spot_g5_pool() -> None:
    result = scan_paths([FIXTURES / "bad/karpenter-landing"])
    (found,) = [r for r in result.records if isinstance(r, TrainingJob)]
    assert isinstance(found.instance_type, Alternatives)
    assert found.instance_type.options == ("g5.12xlarge", "g5.24xlarge", "g5.48xlarge")
    assert found.landing_types == ("g5.12xlarge", "g5.24xlarge", "g5.48xlarge")
    assert found.instance_types_from and "NodePool gpu-spot" in found.instance_types_from
    assert found.line_of("instance_type") == 15  # the pod's nodeSelector: where it chooses nodes
    assert found.capacity_spot is True and "launches spot capacity only" in str(found.capacity_spot_from)
    assert found.checkpoint_in_sight is None
    fin101 = next(f for f in result.findings if f.rule_id == "FIN101")
    assert fin101.cost is not None and fin101.cost.kind == "exposure"
    assert fin101.cost.assumptions["instance_type"] == "g5.24xlarge"  # the dearest bill for 8 GPUs
    assert fin101.cost.assumptions["instances"] == 2
    assert "upper bound, Karpenter launches the cheapest that fits" in fin101.cost.basis
    fin201 = next(f for f in result.findings if f.rule_id == "FIN201")
    assert fin201.line == 15 and "NodePool gpu-spot" in fin201.message


def test_one_type_sets_the_instance_type_and_count(tmp_path: Path) -> None:
    found = scanned_job(
        tmp_path, {"pool.yaml": pool(family="p4d", capacity="on-demand"), "job.yaml": job(gpus=8)}
    )
    assert found.instance_type == "p4d.24xlarge" and found.instance_count == 1
    assert found.capacity_spot is None  # an on-demand pool


def test_a_taint_the_pod_does_not_tolerate_keeps_it_off_the_pool(tmp_path: Path) -> None:
    found = scanned_job(tmp_path, {"pool.yaml": pool(tainted=True), "job.yaml": job()})
    assert found.instance_type is None and found.capacity_spot is None
    tolerating = job("tolerations:\n  - {key: nvidia.com/gpu, operator: Exists}\n")
    found = scanned_job(tmp_path / "t", {"pool.yaml": pool(tainted=True), "job.yaml": tolerating})
    assert isinstance(found.instance_type, Alternatives) and found.capacity_spot is True


def test_a_custom_label_the_pool_does_not_carry_keeps_it_off(tmp_path: Path) -> None:
    found = scanned_job(tmp_path, {"pool.yaml": pool(), "job.yaml": job("nodeSelector:\n  team: ml\n")})
    assert found.instance_type is None


def test_the_pool_named_by_karpenter_nodepool_wins(tmp_path: Path) -> None:
    files = {
        "pools.yaml": pool("a", "g5") + "---\n" + pool("b", "p4d", "on-demand"),
        "job.yaml": job("nodeSelector:\n  karpenter.sh/nodepool: b\n", gpus=8),
    }
    found = scanned_job(tmp_path, files)
    assert found.instance_type == "p4d.24xlarge" and found.capacity_spot is None


def test_pools_with_different_types_are_ambiguous(tmp_path: Path) -> None:
    files = {"pools.yaml": pool("a", "g5") + "---\n" + pool("b", "p4d", "on-demand"), "job.yaml": job(gpus=8)}
    found = scanned_job(tmp_path, files)
    assert isinstance(found.instance_type, Unknown) and not isinstance(found.instance_type, Alternatives)
    assert "several pools" in found.instance_type.reason and found.landing_types == ()


def test_a_neuron_pod_does_not_land_on_a_gpu_pool(tmp_path: Path) -> None:
    neuron = job().replace("nvidia.com/gpu: 4", "aws.amazon.com/neuron: 16")
    files = {"pools.yaml": pool("gpu", "p4d") + "---\n" + pool("trn", "trn1"), "job.yaml": neuron}
    found = scanned_job(tmp_path, files)
    assert found.instance_type == "trn1.32xlarge"


def test_a_spot_selector_is_spot_capacity_at_load() -> None:
    text = job("nodeSelector:\n  karpenter.sh/capacity-type: spot\n")
    found = [r for r in load_text(text).records if isinstance(r, TrainingJob)][0]
    assert found.capacity_spot is True and found.line_of("capacity_spot") == 9  # the label itself
    assert found.capacity_spot_from == "nodeSelector karpenter.sh/capacity-type: spot"
    on_demand = job("nodeSelector:\n  eks.amazonaws.com/capacityType: ON_DEMAND\n")
    assert [r for r in load_text(on_demand).records if isinstance(r, TrainingJob)][0].capacity_spot is False
    assert found.spot is None  # SageMaker managed spot stays apart


def test_checkpoints_in_sight_from_flags_env_and_resume() -> None:
    flagged = job(
        "nodeSelector:\n  karpenter.sh/capacity-type: spot\n", args='          args: ["--resume"]\n'
    )
    found = [r for r in load_text(flagged).records if isinstance(r, TrainingJob)][0]
    assert found.checkpoint_in_sight == "args --resume (line 13)"
    env = job(
        "nodeSelector:\n  karpenter.sh/capacity-type: spot\n",
        args="          env:\n            - {name: CKPT_DIR, value: /ckpt/run}\n",
    )
    found = [r for r in load_text(env).records if isinstance(r, TrainingJob)][0]
    assert str(found.checkpoint_in_sight).startswith("checkpoint path /ckpt/run (env CKPT_DIR")


def test_env_from_a_config_map_not_in_the_scan_is_unknown(tmp_path: Path) -> None:
    text = job(
        "nodeSelector:\n  karpenter.sh/capacity-type: spot\n",
        args="          envFrom:\n            - configMapRef: {name: train-env}\n"
        "          volumeMounts:\n            - {name: data, mountPath: /data}\n",
    ).replace("      containers:", "      volumes:\n        - {name: data, emptyDir: {}}\n      containers:")
    found = scanned_job(tmp_path, {"job.yaml": text})
    assert isinstance(found.checkpoint_in_sight, Unknown) and "train-env" in found.checkpoint_in_sight.reason
    result = scan_files(tmp_path, {}, select=("FIN201",))
    assert not [f for f in result.findings if f.rule_id == "FIN201"]
    assert any(u.rule_id == "FIN201" for u in result.undetermined)


def test_the_node_group_fixture_is_spot_with_checkpoints() -> None:
    result = scan_paths([FIXTURES / "good/nodegroup-cronjob"])
    (found,) = [r for r in result.records if isinstance(r, TrainingJob)]
    assert found.launcher == "kubernetes-cronjob"
    assert found.instance_type == "g5.xlarge" and found.instance_count == 1
    assert found.capacity_spot is True and "node group gpu-spot" in str(found.capacity_spot_from)
    assert found.max_runtime_s == 14400 and found.line_of("max_runtime_s") == 11
    assert found.scheduled_runs_per_month == pytest.approx(730 / 24) and found.line_of("schedule") == 7
    assert str(found.checkpoint_in_sight).startswith("checkpoint path /ckpt/nightly")
    assert not result.findings


@pytest.mark.parametrize(
    ("schedule", "runs"),
    [
        ("0 3 * * *", 730 / 24),
        ("@daily", 730 / 24),
        ("*/30 * * * *", 730 * 2),
        ("0 2 * * 1-5", 5 * 730 / 168),
        ("0 2 * * 0,7", 730 / 168),
        ("0 0 1,15 * *", 2.0),
        ("CRON_TZ=UTC 0 4 * * 6", 730 / 168),
        ("@monthly", 1.0),
        ("0 0 1 */3 *", None),  # months: not simple
        ("0 0 * * MON", None),
        ("0 0 1 * 1", None),
        ("61 * * * *", None),
        ("nonsense", None),
    ],
)
def test_simple_schedules_give_runs_per_month(schedule: str, runs: float | None) -> None:
    got = runs_per_month(schedule)
    assert got == (pytest.approx(runs) if runs is not None else None)


def test_a_cronjob_without_deadline_fires_fin101_at_the_object(tmp_path: Path) -> None:
    text = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n"
        '  schedule: "0 1 * * *"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n'
        "          nodeSelector:\n            node.kubernetes.io/instance-type: g5.2xlarge\n"
        "          containers:\n            - name: t\n              image: x\n"
        "              resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    result = scan_files(tmp_path, {"cron.yaml": text}, select=("FIN101",))
    (finding,) = result.findings
    assert finding.line == 1 and "the schedule starts the next one anyway" in finding.message
    a_cpu_cron = text.replace("nvidia.com/gpu: 1", "cpu: 1").replace("g5.2xlarge", "m5.large")
    assert not scan_files(tmp_path / "cpu", {"cron.yaml": a_cpu_cron}).findings


def test_a_trainjob_reads_its_cluster_runtime() -> None:
    result = scan_paths([FIXTURES / "bad/trainer-runtime"])
    (found,) = [r for r in result.records if isinstance(r, TrainingJob)]
    assert found.launcher == "kubeflow-trainer"
    assert found.instance_type == "p4d.24xlarge" and found.instance_count == 2  # the TrainJob's overrides
    assert found.max_runtime_s is None and "sets no activeDeadlineSeconds" in str(found.default_note)
    source = found.value_source("max_runtime_s")
    assert source is not None and source.file.endswith("cluster-training-runtime.yaml") and source.line == 15
    assert any(f.endswith("cluster-training-runtime.yaml") for f in found.inputs)
    (finding,) = [f for f in result.findings if f.rule_id == "FIN101"]
    assert finding.file.endswith("cluster-training-runtime.yaml") and finding.line == 15
    assert not any(type(r).__name__ == "Record" for r in result.records)  # carriers dropped


def test_a_trainjob_takes_the_runtime_deadline_nodes_and_type() -> None:
    result = scan_paths([FIXTURES / "good/trainer-runtime"])
    (found,) = [r for r in result.records if isinstance(r, TrainingJob)]
    assert found.max_runtime_s == 43200 and found.runtime_limit_field is not None
    assert found.instance_type == "g5.12xlarge" and found.instance_count == 2  # mlPolicy.numNodes
    assert not result.findings


def test_a_trainjob_whose_runtime_is_elsewhere_stays_unknown(tmp_path: Path) -> None:
    text = (FIXTURES / "bad/trainer-runtime/trainjob-llama.yaml").read_text("utf-8")
    found = scanned_job(tmp_path, {"trainjob.yaml": text})
    assert isinstance(found.max_runtime_s, Unknown) and "not in the scan" in found.max_runtime_s.reason
    other_namespace = (FIXTURES / "good/trainer-runtime/training-runtime.yaml").read_text("utf-8")
    capped = (FIXTURES / "good/trainer-runtime/trainjob-capped.yaml").read_text("utf-8")
    found = scanned_job(
        tmp_path / "ns",
        {"runtime.yaml": other_namespace.replace("namespace: ml", "namespace: x"), "j.yaml": capped},
    )
    assert isinstance(found.max_runtime_s, Unknown)  # a TrainingRuntime of another namespace


def test_a_pod_asking_for_zero_gpus_gets_no_landing_type(tmp_path: Path) -> None:
    """Field test (an MPIJob asking ``nvidia.com/gpu: 0``): not an accelerated pod, so no pool type."""
    mpijob = (
        "apiVersion: kubeflow.org/v2beta1\nkind: MPIJob\nmetadata:\n  name: md\nspec:\n  mpiReplicaSpecs:\n"
        "    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers:\n"
        "            - name: w\n              image: x\n"
        "              resources: {limits: {nvidia.com/gpu: 0}}\n"
    )
    found = scanned_job(tmp_path, {"pool.yaml": pool(capacity="on-demand"), "job.yaml": mpijob})
    assert found.placement is not None and found.placement.accelerator_kind is None
    assert found.instance_type is None and found.landing_types == ()


def test_a_node_group_without_a_name_is_named_by_its_address(tmp_path: Path) -> None:
    files = {
        "main.tf": 'resource "aws_eks_node_group" "gpu" {\n  cluster_name = "c"\n'
        '  instance_types = ["g5.xlarge"]\n  capacity_type = "SPOT"\n'
        "  scaling_config {\n    min_size = 0\n    max_size = 2\n    desired_size = 0\n  }\n}\n",
        "job.yaml": job(gpus=1),
    }
    found = scanned_job(tmp_path, files)
    assert found.instance_type == "g5.xlarge" and found.capacity_spot is True
    assert "node group aws_eks_node_group.gpu" in str(found.capacity_spot_from)


def test_a_trainjob_reads_its_trainer_command_and_pod_template_overrides(tmp_path: Path) -> None:
    text = (
        "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainJob\nmetadata:\n  name: t\nspec:\n"
        "  runtimeRef: {name: torch-distributed}\n  trainer:\n    numNodes: 2\n"
        '    command: ["torchrun", "train.py", "--resume_from_checkpoint=/ckpt/last"]\n'
        "    resourcesPerNode: {limits: {nvidia.com/gpu: 8}}\n"
        "  podTemplateOverrides:\n    - targetJobs: [{name: node}]\n      spec:\n"
        "        nodeSelector:\n          karpenter.sh/capacity-type: spot\n"
        "          node.kubernetes.io/instance-type: p5.48xlarge\n"
    )
    found = scanned_job(tmp_path, {"trainjob.yaml": text})
    assert found.instance_type == "p5.48xlarge" and found.capacity_spot is True
    assert str(found.checkpoint_in_sight).startswith("checkpoint path /ckpt/last (command")


def test_a_spot_cronjob_is_priced_per_its_schedule(tmp_path: Path) -> None:
    text = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: nightly\nspec:\n"
        '  schedule: "0 1 * * *"\n  jobTemplate:\n    spec:\n      activeDeadlineSeconds: 7200\n'
        "      template:\n        spec:\n          nodeSelector:\n"
        "            karpenter.sh/capacity-type: spot\n"
        "            node.kubernetes.io/instance-type: g5.2xlarge\n"
        "          containers:\n            - name: t\n              image: x\n"
        "              resources: {limits: {nvidia.com/gpu: 1}}\n"
    )
    result = scan_files(tmp_path, {"cron.yaml": text}, select=("FIN201",))
    (finding,) = result.findings
    assert finding.line == 13 and finding.cost is not None
    assert finding.cost.assumptions["runs_per_month"] == pytest.approx(30.42)
    assert finding.cost.basis.startswith("Spot capacity: nodeSelector karpenter.sh/capacity-type: spot.")
    assert "Runs per month: 30.42, from the CronJob's schedule." in finding.cost.basis
