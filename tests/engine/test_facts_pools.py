"""Pool facts: how many nodes a NodePool's limits admit (FIN301), GPU pools without limits
(FIN304), consolidation (FIN305), API mismatches (FIN306), SageMaker names in pools (FIN303)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.conftest import scan_files

from finlint.domain import catalog
from finlint.domain.karpenter import nodes_within_limits
from finlint.engine.facts import Evidence
from finlint.ir import ComputePool, Location, Requirement, Unknown
from finlint.rules.compute.fin301_oversized_p5 import pool_family_exposure
from finlint.rules.compute.fin303_karpenter_sagemaker_instance_type import sagemaker_type_in_pool
from finlint.rules.compute.fin304_gpu_pool_without_limits import gpu_pool_without_limits
from finlint.rules.compute.fin305_gpu_pool_never_consolidates import pool_never_consolidates
from finlint.rules.compute.fin306_karpenter_api_mismatch import karpenter_api_mismatch
from finlint.rules.compute.gpu_pools import PoolTypes

P5 = catalog.lookup("p5.48xlarge")
FAMILY_P5 = (Requirement("karpenter.k8s.aws/instance-family", "In", ("p5",), 9),)


def pool(**kw: Any) -> ComputePool:
    base: dict[str, Any] = {
        "address": "NodePool/gpu",
        "location": Location("np.yaml", 1, 20),
        "source_format": "kubernetes",
        "pool_kind": "karpenter-nodepool",
        "requirements": FAMILY_P5,
        "api_version": "karpenter.sh/v1",
    }
    base.update(kw)
    return ComputePool(**base)


def test_nodes_within_limits_takes_the_smallest_count() -> None:
    assert P5 is not None
    # cpu 5000 / 192 = 26; memory 60Ti / 2Ti = 30; the smaller binds
    assert nodes_within_limits({"cpu": 5000, "memory": "60Ti"}, P5) == (26, "cpu", 5000)
    assert nodes_within_limits({"cpu": "1k", "nvidia.com/gpu": "64"}, P5) == (5, "cpu", "1k")
    assert nodes_within_limits({"nvidia.com/gpu": 16}, P5) == (2, "nvidia.com/gpu", 16)


def test_a_limit_on_a_resource_p5_does_not_consume_is_none() -> None:
    assert P5 is not None
    assert nodes_within_limits({"aws.amazon.com/neuron": 64}, P5) is None
    assert nodes_within_limits({}, P5) is None and nodes_within_limits(None, P5) is None
    trn1 = catalog.lookup("trn1.32xlarge")
    assert trn1 is not None and nodes_within_limits({"aws.amazon.com/neuron": 64}, trn1)[0] == 4


def test_unparseable_or_templated_limit_is_unknown() -> None:
    assert P5 is not None
    assert isinstance(nodes_within_limits({"cpu": "lots"}, P5), Unknown)
    assert isinstance(nodes_within_limits({"cpu": Unknown("{{ .Values.cpu }}")}, P5), Unknown)
    assert isinstance(nodes_within_limits(Unknown("templated"), P5), Unknown)


@pytest.mark.parametrize(
    ("limits", "max_nodes", "fires"),
    [
        ({"cpu": 768}, 4, False),  # exactly 4 nodes: at the param, capped
        ({"cpu": 576}, 4, False),  # 3 nodes: below
        ({"cpu": 960}, 4, True),  # 5 nodes: above
        ({"cpu": 5000}, 4, True),  # 26 nodes
        ({"cpu": 5000}, 30, False),  # a looser param
        ({"cpu": 100, "memory": "200Gi"}, 4, False),  # smaller than any p5: never launches one
    ],
)
def test_limits_at_below_and_above_the_param(limits: dict[str, Any], max_nodes: int, fires: bool) -> None:
    found = pool_family_exposure(pool(limits=limits), ["p5", "p5e", "p5en"], max_nodes)
    assert (found is not None) is fires
    if fires:
        assert isinstance(found, Evidence)
        count = int(limits["cpu"]) // 192
        assert f"limits admit up to {count} p5.48xlarge (cpu {limits['cpu']} / 192 vCPU)" in found.text
        assert isinstance(found.data, PoolTypes)
        assert found.data.limit_nodes == count and found.data.limit_resource == "cpu"
        # every admitted type with the count the limits let in (the price takes the dearest total)
        assert dict(found.data.limit_counts)["p5.48xlarge"] == count
        assert dict(found.data.limit_counts)["p5.4xlarge"] == int(limits["cpu"]) // 16


def test_limits_too_small_for_p5_48xlarge_still_count_p5_4xlarge() -> None:
    # 100 vCPU fit no p5.48xlarge (192) but six p5.4xlarge (16 vCPU, one H100 each)
    found = pool_family_exposure(pool(limits={"cpu": 100}), ["p5"], 4)
    assert (
        isinstance(found, Evidence)
        and isinstance(found.data, PoolTypes)
        and found.data.types == ("p5.4xlarge",)
    )
    assert "up to 6 p5.4xlarge (cpu 100 / 16 vCPU)" in found.text


def test_fin301_prices_the_limit_ceiling(tmp_path: Any) -> None:
    manifest = (
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: h100\nspec:\n  template:\n"
        "    spec:\n      requirements:\n        - key: karpenter.k8s.aws/instance-family\n"
        "          operator: In\n          values: [p5]\n      nodeClassRef:\n"
        "        group: karpenter.k8s.aws\n"
        "        kind: EC2NodeClass\n        name: gpu\n  limits:\n    cpu: 5000\n"
    )
    (finding,) = scan_files(tmp_path, {"np.yaml": manifest}, select=("FIN301",)).findings
    assert finding.line == 17
    assert finding.cost is not None and finding.cost.kind == "exposure"
    # the most the limits admit over every admitted priced type: 5000 vCPU let in 26 x
    # p5.48xlarge ($55.04/h: $1,044,659) but 312 x p5.4xlarge ($6.88/h: $1,566,989), the exposure
    assert finding.cost.monthly_usd == pytest.approx(312 * 6.88 * 730)
    assert finding.cost.assumptions["instance_type"] == "p5.4xlarge"
    assert finding.cost.assumptions["limit_nodes"] == 312


def test_gpu_pool_without_limits() -> None:
    found = gpu_pool_without_limits(pool(limits=None))
    assert isinstance(found, Evidence) and "has no spec.limits" in found.text
    assert gpu_pool_without_limits(pool(limits={"nvidia.com/gpu": 16})) is None
    # neuron limits cap trn1 but not the GPU type it also admits
    mixed = pool(
        requirements=(Requirement("karpenter.k8s.aws/instance-family", "In", ("g5", "trn1"), 9),),
        limits={"aws.amazon.com/neuron": 64},
    )
    found = gpu_pool_without_limits(mixed)
    assert isinstance(found, Evidence) and isinstance(found.data, PoolTypes)
    assert all(t.startswith("g5.") for t in found.data.types)
    cpu_only = pool(requirements=(Requirement("karpenter.k8s.aws/instance-category", "In", ("c", "m"), 9),))
    assert gpu_pool_without_limits(cpu_only) is None


def test_pool_never_consolidates() -> None:
    assert isinstance(pool_never_consolidates(pool(disruption={"consolidateAfter": "Never"})), Evidence)
    assert pool_never_consolidates(pool(disruption={"consolidateAfter": "5m"})) is None
    assert isinstance(pool_never_consolidates(pool(disruption={"budgets": [{"nodes": "0"}]})), Evidence)
    scheduled = {"budgets": [{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h"}]}
    assert pool_never_consolidates(pool(disruption=scheduled)) is None
    beta = {"consolidationPolicy": "WhenEmpty", "expireAfter": "Never"}
    assert isinstance(
        pool_never_consolidates(pool(api_version="karpenter.sh/v1beta1", disruption=beta)), Evidence
    )
    # no expireAfter: the v1beta1 CRD defaults it to 720h, so WhenEmpty nodes are still recycled
    defaulted = {"consolidationPolicy": "WhenEmpty"}
    assert pool_never_consolidates(pool(api_version="karpenter.sh/v1beta1", disruption=defaulted)) is None
    assert pool_never_consolidates(pool(api_version="karpenter.sh/v1", disruption=beta)) is None
    prov = pool(pool_kind="karpenter-provisioner", api_version="karpenter.sh/v1alpha5")
    assert isinstance(pool_never_consolidates(prov), Evidence)
    assert pool_never_consolidates(prov.with_changes(disruption={"ttlSecondsAfterEmpty": 30})) is None


def test_karpenter_api_mismatch_reads_where_a_field_was_written() -> None:
    v1 = pool(
        disruption={"consolidationPolicy": "WhenUnderutilized", "expireAfter": "720h"},
        disruption_paths={
            "consolidationPolicy": "spec.disruption.consolidationPolicy",
            "expireAfter": "spec.disruption.expireAfter",
        },
        attr_lines={"disruption.consolidationPolicy": 17, "disruption.expireAfter": 18},
    )
    found = karpenter_api_mismatch(v1)
    assert isinstance(found, Evidence) and found.line == 17
    assert (
        "consolidationPolicy WhenUnderutilized" in found.text
        and "expireAfter under spec.disruption" in found.text
    )
    fine = v1.with_changes(
        disruption={"consolidationPolicy": "WhenEmptyOrUnderutilized", "expireAfter": "720h"},
        disruption_paths={
            "consolidationPolicy": "spec.disruption.consolidationPolicy",
            "expireAfter": "spec.template.spec.expireAfter",
        },
    )
    assert karpenter_api_mismatch(fine) is None
    assert isinstance(karpenter_api_mismatch(v1.with_changes(api_version=Unknown("templated"))), Unknown)


def test_sagemaker_type_in_pool() -> None:
    req = (Requirement("node.kubernetes.io/instance-type", "In", ("ml.trn1.32xlarge",), 11),)
    found = sagemaker_type_in_pool(pool(requirements=req))
    assert isinstance(found, Evidence) and found.line == 11 and "trn1.32xlarge" in found.text
    hyperpod = pool(pool_kind="hyperpod-instance-group", instance_types=("ml.p5.48xlarge",))
    assert sagemaker_type_in_pool(hyperpod) is None
    eks = pool(pool_kind="eks-nodegroup", instance_types=("ml.g5.12xlarge",), requirements=())
    assert isinstance(sagemaker_type_in_pool(eks), Evidence)
