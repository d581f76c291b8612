"""One EFS bill behind two findings (the PVC and the workload that mounts it) is counted once."""

from __future__ import annotations

from tests.conftest import FIXTURES, scan_paths


def test_pvc_and_workload_share_one_cost() -> None:
    result = scan_paths([FIXTURES / "demo" / "kubernetes"], select=("FIN401",))
    by_resource = {f.resource: f for f in result.findings}
    pvc = by_resource["PersistentVolumeClaim/training/training-checkpoints"]
    job = by_resource["PyTorchJob/training/llama-finetune"]
    assert pvc.cost and job.cost
    # 2,048 GiB x $0.30 EFS - (1,200 x $0.217 FSx PERSISTENT_2/250 + 2,048 x $0.023 S3) = 614.40 - 307.504
    assert pvc.cost.monthly_usd is not None and abs(pvc.cost.monthly_usd - 306.896) < 0.001
    assert job.cost.monthly_usd == 0.0
    assert job.cost.assumptions["counted_in"] == pvc.resource
    assert abs(result.monthly_usd() - 306.896) < 0.001
