"""ParallelCluster v3 configurations: compute resources as pools, shared storage, templates."""

from __future__ import annotations

from pathlib import Path

from finlint import ir
from finlint.loaders import parallelcluster
from finlint.options import ScanOptions
from finlint.scan import lint

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "parallelcluster"


def scan(path: Path) -> list[ir.Record]:
    return list(lint(ScanOptions(paths=[path], display_root=ROOT)).records)


def pools(path: Path) -> dict[str, ir.ComputePool]:
    return {r.address: r for r in scan(path) if isinstance(r, ir.ComputePool)}


def test_compute_resources() -> None:
    found = pools(FIX / "bad" / "cluster-config.yaml")
    p5 = found["SlurmQueues/gpu/ComputeResources/p5"]
    assert p5.pool_kind == "parallelcluster-compute-resource"
    assert p5.instance_types == ("p5.48xlarge",) and p5.line_of("instance_types") == 22
    assert p5.min_size == 2 and p5.line_of("min_size") == 23 and p5.max_size == 2
    assert p5.capacity_types == ("on-demand",) and p5.partition == "gpu" and p5.default_partition
    assert p5.idle_release_s == 3600 and p5.line_of("idle_release_s") == 13
    c5 = found["SlurmQueues/cpu/ComputeResources/c5"]
    assert c5.instance_types == ("c5.4xlarge",) and c5.min_size == 0 and not c5.default_partition


def test_shared_storage_created_by_the_cluster() -> None:
    fs = {r.address: r for r in scan(FIX / "bad" / "cluster-config.yaml") if isinstance(r, ir.FileSystem)}
    assert fs["SharedStorage/scratch"].fs_type == "fsx-lustre"
    assert fs["SharedStorage/scratch"].deployment_type == "SCRATCH_2"
    assert fs["SharedStorage/shared"].throughput_mode == "provisioned"
    assert fs["SharedStorage/shared"].provisioned_throughput_mibps == 512
    assert fs["SharedStorage/shared"].extra["mount_dir"] == "/shared"
    # an existing file system the cluster only mounts is not a record of this file
    assert not [r for r in scan(FIX / "good" / "cluster-config.yaml") if isinstance(r, ir.FileSystem)]


def test_capacity_block_and_reservation() -> None:
    found = pools(FIX / "good" / "cluster-config.yaml")
    block = found["SlurmQueues/reserved/ComputeResources/p5-block"]
    assert block.capacity_types == ("capacity-block",) and block.capacity_reservation is True
    assert found["SlurmQueues/spot/ComputeResources/g5"].capacity_types == ("spot",)


def test_jinja_template_values_are_unknown() -> None:
    (pool,) = pools(FIX / "good" / "templated").values()
    assert isinstance(pool.min_size, ir.Unknown)
    types = pool.instance_types
    assert isinstance(types, tuple) and isinstance(types[0], ir.Unknown)


def test_claims() -> None:
    assert parallelcluster.claims({"Scheduling": {"Scheduler": "slurm", "SlurmQueues": []}})
    assert not parallelcluster.claims({"Scheduling": {"Scheduler": "awsbatch", "AwsBatchQueues": []}})
    assert not parallelcluster.claims({"Scheduling": "slurm"})
    assert parallelcluster.claims({"Scheduling": {"Scheduler": "{{ scheduler }}", "SlurmQueues": []}})
