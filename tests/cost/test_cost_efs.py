"""FIN401 EFS checkpoints, recomputed by hand: EFS storage + write traffic vs FSx PERSISTENT_2 + S3."""

from __future__ import annotations

from typing import Any

import pytest

from finlint import rules
from finlint.cost import price_findings
from finlint.cost.usage import parse_usage
from finlint.finding import Finding
from finlint.ir import FileSystem, Location, Mount, Record, Volume

LOC = Location("k.yaml", 1, 9)
FSX = 1200 * 0.217  # 1,200 GB PERSISTENT_2 at 250 MB/s/TiB = $260.40


def cost(rec: Record, records: list[Record], usage: str = "") -> Any:
    f = Finding("FIN401", "efs-checkpoints", "medium", "k.yaml", 1, 1, rec.address, "m", record=rec)
    f.cost_model = "efs-checkpoints"
    price_findings([f], records, {"usage": parse_usage(usage, "u.yml")}, rules.registry().cost_models)
    assert f.cost is not None
    return f.cost


def efs(**kw: Any) -> FileSystem:
    return FileSystem(address="CkptFs", location=LOC, source_format="cloudformation", **kw)


def test_pvc_size_is_a_weak_hint_and_storage_only_is_a_lower_bound() -> None:
    pvc = Volume(address="PVC/ml/ckpt", location=LOC, source_format="k", capacity_gb=2000, is_efs=True)
    c = cost(pvc, [pvc])
    # EFS 2,000 x 0.30 = 600.00; alternative 260.40 + 2,000 x 0.023 = 46.00 -> 306.40
    assert c.monthly_usd == pytest.approx(600 - (FSX + 46))  # 293.60
    assert c.per_run_usd is None and c.kind == "savings"
    assert "$600.00" in c.basis and "$306.40" in c.basis and "$293.60/month" in c.basis
    assert "weak hint" in c.basis and "storage only — a lower bound" in c.basis
    assert c.assumptions["lower_bound"] is True


def test_usage_volume_wins_over_the_pvc_size() -> None:
    pvc = Volume(address="PVC/ml/ckpt", location=LOC, source_format="k", capacity_gb=2000, is_efs=True)
    c = cost(pvc, [pvc], "defaults:\n  checkpoint_storage_gb: 500\n")
    assert c.assumptions["checkpoint_gb"] == 500
    assert c.monthly_usd == 0.0  # 150.00 < 260.40 + 11.50
    assert "no saving" in c.basis and "usage checkpoint_storage_gb" in c.basis


def test_workload_claim_size() -> None:
    pvc = Volume(address="PVC/ml/ckpt", location=LOC, source_format="k", name="ckpt", capacity_gb=4000)
    pod = Volume(
        address="Job/ml/train", location=LOC, source_format="k", volume_kind="workload",
        mounts=(Mount(volume="c", mount_path="/ckpt", claim_name="ckpt", is_efs=True),),
    )  # fmt: skip
    c = cost(pod, [pvc, pod])
    assert c.monthly_usd == pytest.approx(4000 * 0.30 - (FSX + 4000 * 0.023))  # 1,200 - 352.40 = 847.60


def test_provisioned_throughput_has_no_per_gb_write_charge() -> None:
    usage = "defaults:\n  checkpoint_size_gb: 10\n"
    c = cost(efs(throughput_mode="provisioned", provisioned_throughput_mibps=100), [], usage)
    # EFS 1,200 x 0.30 + (100 - 54.5697 MiB/s the 1,200 GB include) x 6.00 = 360 + 272.58 = 632.58;
    # 1,200 GB = 1,117.587 GiB x 50 KiB/s / 1,024 = 54.5697 MiB/s. Stream 10 x 1 x 4/h x 730 h = 29,200 GB
    # alternative 260.40 + 27.60 + 29,200 x 1,024 / 8 = 3,737,600 PUTs x $0.005/1,000 = 18.688
    baseline = 1200 * 1e9 / 2**30 * 50 / 1024
    assert baseline == pytest.approx(54.5697, abs=1e-4)
    assert c.monthly_usd == pytest.approx(360 + (100 - baseline) * 6 - (FSX + 27.6 + 18.688))  # 325.89
    assert "stated default" in c.basis and "100 MiB/s" in c.basis
    assert "no per-GB write charge in provisioned throughput mode" in c.basis


def test_field_guide_case_twelve_gb_every_five_minutes_from_eight_nodes() -> None:
    """The guide: 12 GB every 5 min from 8 nodes on EFS paid $31,000/month; FSx + S3 $4,200."""
    usage = "defaults:\n  checkpoint_size_gb: 12\n  checkpoint_writers: 8\n  checkpoint_interval_minutes: 5\n"
    c = cost(efs(throughput_mode="elastic"), [], usage)
    written = 12 * 8 * 12 * 730  # 840,960 GB a month
    efs_side = 1200 * 0.30 + written * 0.06  # 360 + 50,457.60 = 50,817.60
    puts = written * 1024 / 8  # 107,642,880
    alt = FSX + 1200 * 0.023 + puts / 1000 * 0.005  # 260.40 + 27.60 + 538.2144 = 826.2144
    assert c.monthly_usd == pytest.approx(efs_side - alt)  # 49,991.39
    assert c.monthly_usd == pytest.approx(49991.39, abs=0.01)
    assert "$50,817.60" in c.basis and "840,960 GB written" in c.basis and "$826.21" in c.basis
    assert "Standard-IA would be" in c.basis  # the 30-day minimum makes IA dearer for a rolling stream
    # The guide's $31,000 bill matches about 450 training hours a month
    part = cost(efs(throughput_mode="elastic"), [], usage + "  training_hours_per_month: 450\n")
    assert part.assumptions["efs_monthly_usd"] == pytest.approx(360 + 12 * 8 * 12 * 450 * 0.06)  # 31,464
    assert 20_000 < part.assumptions["efs_monthly_usd"] < 40_000  # same order as the guide's $31,000
    assert part.monthly_usd == pytest.approx(31464 - (FSX + 27.6 + 12 * 8 * 12 * 450 * 128 / 1000 * 0.005))


def test_direct_write_volume_and_standard_ia_when_it_is_cheaper() -> None:
    usage = "defaults:\n  checkpoint_storage_gb: 100000\n  checkpoint_write_gb_per_month: 1000\n"
    c = cost(efs(throughput_mode="elastic"), [], usage)
    efs_side = 100000 * 0.30 + 1000 * 0.06  # 30,060
    puts = 1000 * 1024 / 8  # 128,000
    ia = 100000 * 0.0125 + puts / 1000 * 0.01  # 1,250 + 1.28 (the retained volume outlasts 30 days)
    assert c.monthly_usd == pytest.approx(efs_side - (FSX + ia))
    assert "S3 Standard-IA" in c.basis and "S3 Standard would be $2,300.64" in c.basis
