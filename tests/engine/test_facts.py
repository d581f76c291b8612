"""Derived facts: GPU-hours and the Karpenter requirement evaluation against the catalog."""

from __future__ import annotations

from finlint.domain.karpenter import admitted_types
from finlint.engine.facts import gpu_hours_per_run, uses_reserved_capacity
from finlint.ir import ComputePool, Location, Requirement, TrainingJob, Unknown, is_unknown
from finlint.rules.compute.fin301_oversized_p5 import pool_family_exposure

P5 = ["p5", "p5e", "p5en"]
LOC = Location("np.yaml", 1, 20)


def pool(reqs: list[Requirement], **kw: object) -> ComputePool:
    return ComputePool(
        address="NodePool/gpu",
        location=LOC,
        source_format="kubernetes",
        pool_kind="karpenter-nodepool",
        requirements=tuple(reqs),
        **kw,
    )  # type: ignore[arg-type]


def test_gpu_hours_uses_default_runtime_when_unset() -> None:
    job = TrainingJob(
        address="j",
        location=LOC,
        source_format="x",
        instance_type="ml.p5.48xlarge",
        instance_count=2,
        max_runtime_default_s=86400,
    )
    assert gpu_hours_per_run(job) == 2 * 8 * 24
    explicit = job.with_changes(max_runtime_s=7200)
    assert gpu_hours_per_run(explicit) == 2 * 8 * 2
    assert is_unknown(gpu_hours_per_run(job.with_changes(instance_type=Unknown("param"))))
    assert is_unknown(gpu_hours_per_run(job.with_changes(instance_type="ml.zz9.huge")))


def test_category_p_and_generation_gt_4_admits_p5_without_naming_it() -> None:
    reqs = [
        Requirement("karpenter.k8s.aws/instance-category", "In", ("p",)),
        Requirement("karpenter.k8s.aws/instance-generation", "Gt", ("4",)),
    ]
    types = admitted_types(pool(reqs), P5)
    assert {"p5.48xlarge", "p5en.48xlarge"} <= set(types)
    evidence = pool_family_exposure(pool(reqs), P5)
    assert evidence is not None and "no spec.limits" in evidence.text


def test_generation_gt_5_excludes_p5() -> None:
    reqs = [
        Requirement("karpenter.k8s.aws/instance-category", "In", ("p",)),
        Requirement("karpenter.k8s.aws/instance-generation", "Gt", ("5",)),
    ]
    assert admitted_types(pool(reqs), P5) == []


def test_cpu_only_requirement_admits_p5() -> None:
    reqs = [Requirement("karpenter.k8s.aws/instance-cpu", "Gt", ("3",))]
    assert "p5.48xlarge" in admitted_types(pool(reqs), P5)


def test_notin_and_instance_type_keys() -> None:
    reqs = [Requirement("karpenter.k8s.aws/instance-family", "NotIn", ("p5", "p5e", "p5en"))]
    assert admitted_types(pool(reqs), P5) == []
    reqs = [Requirement("node.kubernetes.io/instance-type", "In", ("g5.12xlarge", "p5.48xlarge"))]
    assert admitted_types(pool(reqs), P5) == ["p5.48xlarge"]
    reqs = [Requirement("karpenter.k8s.aws/instance-gpu-name", "In", ("h100",))]
    assert "p5.48xlarge" in admitted_types(pool(reqs), P5)


def test_limits_smaller_than_one_p5_exclude_it_and_finite_limits_cap_it() -> None:
    reqs = [Requirement("karpenter.k8s.aws/instance-category", "In", ("p",))]
    assert pool_family_exposure(pool(reqs, limits={"cpu": 100, "memory": "200Gi"}), P5) is None
    assert pool_family_exposure(pool(reqs, limits={"cpu": "1k", "memory": "4000Gi"}), P5) is None
    unbounded = pool_family_exposure(pool(reqs, limits={"aws.amazon.com/neuron": 16}), P5)
    assert unbounded is not None and "do not bound" in unbounded.text


def test_templated_requirement_is_unknown() -> None:
    reqs = [Requirement("karpenter.k8s.aws/instance-family", "In", ("{{ .Values.family }}",))]
    assert is_unknown(pool_family_exposure(pool(reqs), P5))


def test_always_on_node_group_and_reserved_capacity() -> None:
    group = ComputePool(
        address="ng",
        location=LOC,
        source_format="cloudformation",
        pool_kind="eks-nodegroup",
        instance_types=("p5.48xlarge",),
        min_size=1,
        desired_size=2,
        capacity_types=("on-demand",),
    )
    evidence = pool_family_exposure(group, P5)
    assert evidence is not None and "keeps 2" in evidence.text
    assert pool_family_exposure(group.with_changes(min_size=0, desired_size=0), P5) is None
    assert uses_reserved_capacity(group.with_changes(capacity_types=("capacity-block",))) is True
    assert uses_reserved_capacity(group) is False
