"""Issue 27 (FIN307): how long a KubeRay RayCluster keeps an idle GPU worker
(``ComputePool.idle_release_s``), read by the Ray loader."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

from finlint import ir

CLUSTER = """\
apiVersion: ray.io/v1
kind: {kind}
metadata:
  name: batch-gpu
spec:
{extra}  headGroupSpec:
    template:
      spec:
        containers:
          - name: head
            image: rayproject/ray:2.9.0
  workerGroupSpecs:
    - groupName: gpu
      replicas: 2
      minReplicas: 0
      maxReplicas: 4
      template:
        spec:
          nodeSelector:
            node.kubernetes.io/instance-type: g5.12xlarge
          containers:
            - name: worker
              image: rayproject/ray:2.9.0-gpu
              resources:
                limits:
                  nvidia.com/gpu: 4
"""


def pool_and_findings(tmp_path: Path, text: str) -> tuple[ir.ComputePool, list[str]]:
    result = scan_files(tmp_path, {"cluster.yaml": text}, ("FIN307",))
    (pool,) = [r for r in result.records if isinstance(r, ir.ComputePool)]
    return pool, [f"{f.rule_id}:{f.line}" for f in result.findings]


def test_no_autoscaling_never_releases_idle_workers(tmp_path: Path) -> None:
    pool, found = pool_and_findings(tmp_path, CLUSTER.format(kind="RayCluster", extra=""))
    assert pool.source_kind == "RayCluster" and pool.idle_release_s is None
    assert found == ["FIN307:14"]  # the replicas line


def test_autoscaler_idle_timeout_default_and_explicit(tmp_path: Path) -> None:
    pool, found = pool_and_findings(
        tmp_path, CLUSTER.format(kind="RayCluster", extra="  enableInTreeAutoscaling: true\n")
    )
    assert pool.idle_release_s == 60 and found == []
    extra = "  enableInTreeAutoscaling: true\n  autoscalerOptions:\n    idleTimeoutSeconds: 900\n"
    pool, found = pool_and_findings(tmp_path, CLUSTER.format(kind="RayCluster", extra=extra))
    assert pool.idle_release_s == 900 and pool.line_of("idle_release_s") == 8 and found == []


def test_placeholder_autoscaling_is_unknown_and_rayservice_is_not_flagged(tmp_path: Path) -> None:
    extra = "  enableInTreeAutoscaling: '{{ .Values.autoscale }}'\n"
    pool, found = pool_and_findings(tmp_path, CLUSTER.format(kind="RayCluster", extra=extra))
    assert isinstance(pool.idle_release_s, ir.Unknown) and found == []
    service = (
        "apiVersion: ray.io/v1\nkind: RayService\nmetadata:\n  name: serve\nspec:\n  rayClusterConfig:\n"
        + "\n".join("  " + line for line in CLUSTER.format(kind="x", extra="").splitlines()[5:])
        + "\n"
    )
    pool, found = pool_and_findings(tmp_path, service)
    assert pool.source_kind == "RayService" and found == []


def test_an_accelerated_head_is_not_an_idle_worker_group(tmp_path: Path) -> None:
    """A GPU head stays up as long as the cluster (FIN301 sees it as always-on); FIN307's
    RayCluster case is about worker groups an idle timeout could release."""
    text = CLUSTER.format(kind="RayCluster", extra="  enableInTreeAutoscaling: true\n").replace(
        "            image: rayproject/ray:2.9.0\n",
        "            image: rayproject/ray:2.9.0\n            resources:\n              limits:\n"
        "                nvidia.com/gpu: 1\n",
        1,
    )
    result = scan_files(tmp_path, {"cluster.yaml": text}, ("FIN307",))
    pools = {r.address.rsplit("/", 1)[-1]: r for r in result.records if isinstance(r, ir.ComputePool)}
    assert set(pools) == {"head", "gpu"} and pools["head"].source_kind is None
    assert result.findings == []
