"""Issue 27: what the cluster gives a Slurm job: ``slurm.conf`` partition limits, ParallelCluster
``CustomSlurmSettings`` and ``CapacityType: SPOT``, HyperPod provisioning parameters."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

from finlint import ir
from finlint.options import ScanOptions
from finlint.scan import lint

ROOT = Path(__file__).resolve().parents[2]

CONF = """\
ClusterName=research
PartitionName=DEFAULT State=UP MaxTime=3-00:00:00
PartitionName=gpu Nodes=gpu-[1-16] Default=YES DefaultTime=1-00:00:00
PartitionName=long Nodes=gpu-[1-16] \\
  MaxTime=UNLIMITED
PartitionName=debug Nodes=gpu-[1-2]  # MaxTime from DEFAULT
"""
JOB = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\n{extra}srun python train.py\n"


def jobs(root: Path) -> dict[str, ir.TrainingJob]:
    result = lint(ScanOptions(paths=[root], display_root=root))
    return {Path(r.location.file).name: r for r in result.records if isinstance(r, ir.TrainingJob)}


def test_slurm_conf_partitions() -> None:
    from finlint.loaders.slurm.conf import load_conf

    pools = {p.partition: p for p in load_conf("slurm.conf", CONF).records if isinstance(p, ir.ComputePool)}
    assert set(pools) == {"gpu", "long", "debug"}
    gpu, long, debug = pools["gpu"], pools["long"], pools["debug"]
    assert gpu.default_partition and not long.default_partition
    assert gpu.partition_time_limit_s == 86400 and gpu.line_of("partition_time_limit_s") == 3
    assert long.partition_time_limit_s is None and long.line_of("partition_time_limit_s") == 4
    assert debug.partition_time_limit_s == 3 * 86400 and debug.line_of("partition_time_limit_s") == 2


def test_a_job_without_time_is_capped_by_its_partition(tmp_path: Path) -> None:
    files = {
        "slurm.conf": CONF,
        "jobs/default.sbatch": JOB.format(extra=""),
        "jobs/debug.sbatch": JOB.format(extra="#SBATCH -p debug\n"),
        "jobs/long.sbatch": JOB.format(extra="#SBATCH --partition=long\n"),
        "jobs/own.sbatch": JOB.format(extra="#SBATCH -p debug\n#SBATCH -t 60\n"),
    }
    result = scan_files(tmp_path, files, ("FIN101",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("long.sbatch", 2)]
    assert (
        "partition long MaxTime" in result.findings[0].message and "UNLIMITED" in result.findings[0].message
    )
    found = jobs(tmp_path)
    assert found["default.sbatch"].max_runtime_s == 86400
    source = found["default.sbatch"].value_source("max_runtime_s")
    assert source is not None and (source.file, source.line) == ("slurm.conf", 3)
    assert "slurm.conf" in found["default.sbatch"].inputs
    assert found["debug.sbatch"].max_runtime_s == 3 * 86400
    assert found["own.sbatch"].max_runtime_s == 3600  # the script's own --time wins


def test_unknown_partition_or_placeholder_is_not_capped(tmp_path: Path) -> None:
    files = {
        "slurm.conf": CONF,
        "a.sbatch": JOB.format(extra="#SBATCH -p nosuch\n"),
        "b.sbatch": JOB.format(extra="#SBATCH -p $PART\n"),
    }
    found = jobs(tmp_path)  # nothing written yet
    assert found == {}
    scan_files(tmp_path, files)
    found = jobs(tmp_path)
    assert found["a.sbatch"].max_runtime_s is None and found["b.sbatch"].max_runtime_s is None


CLUSTER = """\
Scheduling:
  Scheduler: slurm
  SlurmSettings:
    ScaledownIdletime: 240
  SlurmQueues:
    - Name: spot-gpu
      CapacityType: SPOT
      CustomSlurmSettings:
        MaxTime: 2-00:00:00
      ComputeResources:
        - Name: g5
          InstanceType: g5.12xlarge
          MaxCount: 8
    - Name: od
      CustomSlurmSettings:
        MaxTime: UNLIMITED
      ComputeResources:
        - Name: p4
          InstanceType: p4d.24xlarge
          MaxCount: 2
"""


def test_parallelcluster_queue_limits_spot_and_idle_time(tmp_path: Path) -> None:
    files = {
        "cluster-config.yaml": CLUSTER,
        "spot.sbatch": JOB.format(extra="#SBATCH --partition=spot-gpu\n"),
        "od.sbatch": JOB.format(extra="#SBATCH --partition=od\n"),
        "ckpt.sbatch": JOB.format(extra="#SBATCH -p spot-gpu\nexport CKPT_DIR=/fsx/ckpt\n"),
    }
    result = scan_files(tmp_path, files)
    pools = {r.partition: r for r in result.records if isinstance(r, ir.ComputePool)}
    assert pools["spot-gpu"].idle_release_s == 240 * 60 and pools["spot-gpu"].line_of("idle_release_s") == 4
    assert pools["spot-gpu"].partition_time_limit_s == 2 * 86400
    assert pools["spot-gpu"].line_of("partition_time_limit_s") == 9
    assert pools["od"].partition_time_limit_s is None and pools["od"].line_of("partition_time_limit_s") == 16
    found = jobs(tmp_path)
    spot, od = found["spot.sbatch"], found["od.sbatch"]
    assert spot.capacity_spot is True and spot.line_of("capacity_spot") == 4
    assert spot.max_runtime_s == 2 * 86400 and spot.instance_type == "g5.12xlarge"
    assert od.capacity_spot is False and od.max_runtime_s is None
    by_rule = sorted(
        (f.rule_id, Path(f.file).name) for f in result.findings if f.rule_id in ("FIN101", "FIN201")
    )
    assert by_rule == [("FIN101", "od.sbatch"), ("FIN201", "spot.sbatch")]


def test_parallelcluster_default_scaledown_is_ten_minutes(tmp_path: Path) -> None:
    scan_files(tmp_path, {"cluster-config.yaml": CLUSTER.replace("    ScaledownIdletime: 240\n", "")})
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    pool = next(r for r in result.records if isinstance(r, ir.ComputePool))
    assert pool.idle_release_s == 600 and pool.line_of("idle_release_s") is None


def test_hyperpod_provisioning_parameters_partition_gives_the_instance_type() -> None:
    folder = ROOT / "fixtures" / "slurm" / "good" / "hyperpod"
    result = lint(ScanOptions(paths=[folder], display_root=ROOT))
    (pool,) = [r for r in result.records if isinstance(r, ir.ComputePool)]
    assert (pool.pool_kind, pool.partition, pool.instance_types) == (
        "slurm-partition",
        "ml.p5.48xlarge",
        ("ml.p5.48xlarge",),
    )
    (job,) = [r for r in result.records if isinstance(r, ir.TrainingJob)]
    assert job.instance_type == "ml.p5.48xlarge" and job.line_of("instance_type") == 4
    assert job.capacity_spot is None  # HyperPod partitions carry no capacity type


def test_hyperpod_partition_takes_its_instance_group_type(tmp_path: Path) -> None:
    """``worker_groups[].instance_group_name`` names the cluster's InstanceGroups entry (a
    CreateCluster request in the scan): the partition, and the job on it, get its type."""
    files = {
        "cluster.json": (
            '{"ClusterName": "demo", "InstanceGroups": ['
            '{"InstanceGroupName": "controller", "InstanceType": "ml.c5.xlarge", "InstanceCount": 1},\n'
            '{"InstanceGroupName": "worker", "InstanceType": "ml.g5.2xlarge", "InstanceCount": 2}]}\n'
        ),
        "lifecycle/provisioning_parameters.json": (
            '{"version": "1.0.0", "workload_manager": "slurm", "controller_group": "controller",\n'
            '"worker_groups": [{"instance_group_name": "worker", "partition_name": "dev"}]}\n'
        ),
        "lifecycle/train.sbatch": JOB.format(extra="#SBATCH --partition=dev\n"),
    }
    scan_files(tmp_path, files)
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    (partition,) = [
        r for r in result.records if isinstance(r, ir.ComputePool) and r.pool_kind == "slurm-partition"
    ]
    assert partition.instance_types == ("ml.g5.2xlarge",) and "cluster.json" in partition.inputs
    job = jobs(tmp_path)["train.sbatch"]
    assert job.instance_type == "ml.g5.2xlarge"
    assert set(job.inputs) == {"cluster.json", "lifecycle/provisioning_parameters.json"}
