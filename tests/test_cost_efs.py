"""FIN401 EFS checkpoints, recomputed by hand: EFS vs S3 Standard-IA + FSx SCRATCH_2."""

from __future__ import annotations

from typing import Any

import pytest

from finlint.cost import price_findings
from finlint.cost.usage import parse_usage
from finlint.finding import Finding
from finlint.ir import FileSystem, Location, Mount, Record, Volume

LOC = Location("k.yaml", 1, 9)
ALT_FSX = 1200 * 0.14  # default 1,200 GB SCRATCH_2 = $168


def cost(rec: Record, records: list[Record], usage: str = "") -> Any:
    f = Finding("FIN401", "efs-checkpoints", "medium", "k.yaml", 1, 1, rec.address, "m", record=rec)
    f.cost_model = "efs-checkpoints"
    price_findings([f], records, {"usage": parse_usage(usage, "u.yml")})
    assert f.cost is not None
    return f.cost


def test_pvc_size() -> None:
    pvc = Volume(address="PVC/ml/ckpt", location=LOC, source_format="k", capacity_gb=2000, is_efs=True)
    c = cost(pvc, [pvc])
    assert c.monthly_usd == pytest.approx(2000 * 0.30 - (2000 * 0.0125 + ALT_FSX))  # 600 - 193 = 407
    assert c.per_run_usd is None and c.kind == "savings"
    assert "$600.00" in c.basis and "$193.00" in c.basis and "$407.00/month" in c.basis


def test_small_pvc_has_no_saving() -> None:
    pvc = Volume(address="PVC/ml/small", location=LOC, source_format="k", capacity_gb=100, is_efs=True)
    c = cost(pvc, [pvc])
    assert c.monthly_usd == 0.0  # 30.00 < 1.25 + 168
    assert "no saving" in c.basis


def test_workload_claim_size() -> None:
    pvc = Volume(address="PVC/ml/ckpt", location=LOC, source_format="k", name="ckpt", capacity_gb=4000)
    pod = Volume(
        address="Job/ml/train", location=LOC, source_format="k", volume_kind="workload",
        mounts=(Mount(volume="c", mount_path="/ckpt", claim_name="ckpt", is_efs=True),),
    )  # fmt: skip
    c = cost(pod, [pvc, pod])
    assert c.monthly_usd == pytest.approx(4000 * 0.30 - (4000 * 0.0125 + ALT_FSX))  # 1,200 - 218 = 982


def test_file_system_provisioned_throughput_default_size() -> None:
    fs = FileSystem(
        address="CkptFs", location=LOC, source_format="cloudformation",
        throughput_mode="provisioned", provisioned_throughput_mibps=100,
    )  # fmt: skip
    c = cost(fs, [fs])
    efs = 1200 * 0.30 + 100 * 6.00  # 960
    assert c.monthly_usd == pytest.approx(efs - (1200 * 0.0125 + ALT_FSX))  # 960 - 183 = 777
    assert "stated default" in c.basis and "100 MiB/s" in c.basis


def test_elastic_writes_from_usage() -> None:
    fs = FileSystem(address="CkptFs", location=LOC, source_format="cloudformation", throughput_mode="elastic")
    usage = "defaults:\n  checkpoint_storage_gb: 5000\n  checkpoint_write_gb_per_month: 10000\n"
    c = cost(fs, [fs], usage)
    efs = 5000 * 0.30 + 10000 * 0.06  # 2,100
    assert c.monthly_usd == pytest.approx(efs - (5000 * 0.0125 + ALT_FSX))  # 2,100 - 230.5 = 1,869.5
    assert "usage checkpoint_storage_gb" in c.basis
