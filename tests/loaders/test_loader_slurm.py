"""Slurm loader: #SBATCH directives, time formats, command lines, submissions, partitions."""

from __future__ import annotations

from pathlib import Path

import pytest

from finlint import ir
from finlint.loaders import slurm
from finlint.loaders.slurm.link import nearest_config
from finlint.loaders.slurm.options import time_seconds
from finlint.options import ScanOptions
from finlint.scan import lint

ROOT = Path(__file__).resolve().parents[2]


def load(text: str, name: str = "job.sbatch") -> ir.LoadResult:
    return slurm.load_file(Path(name), name, text, {})


def only_job(text: str, name: str = "job.sbatch") -> ir.TrainingJob:
    result = load(text, name)
    assert not result.errors and len(result.records) == 1
    job = result.records[0]
    assert isinstance(job, ir.TrainingJob)
    return job


@pytest.mark.parametrize(
    ("raw", "seconds"),
    [
        ("60", 3600),
        ("90:30", 5430),
        ("1:00:00", 3600),
        ("2-12", 2 * 86400 + 12 * 3600),
        ("1-02:30", 86400 + 2 * 3600 + 30 * 60),
        ("3-00:00:10", 3 * 86400 + 10),
        ("UNLIMITED", None),
        ("infinite", None),
        ("0", None),
    ],
)
def test_slurm_time_formats(raw: str, seconds: int | None) -> None:
    assert time_seconds(raw) == seconds


def test_time_placeholder_and_garbage_are_unknown() -> None:
    assert isinstance(time_seconds("$WALLTIME"), ir.Unknown)
    assert isinstance(time_seconds("${T}"), ir.Unknown)
    assert isinstance(time_seconds("soon"), ir.Unknown)


def test_directives_fields_and_lines() -> None:
    job = only_job(
        "#!/bin/bash\n"
        "#SBATCH --job-name=pretrain\n"
        "#SBATCH -N 4\n"
        "#SBATCH --gres=gpu:a100:8 # per node\n"
        "#SBATCH -p gpu\n"
        "#SBATCH --exclusive\n"
        "#SBATCH -t 1-00:00:00\n"
        "srun python train.py\n"
    )
    assert job.launcher == "slurm-sbatch" and job.source_format == "slurm"
    assert job.max_runtime_s == 86400 and job.line_of("max_runtime_s") == 7
    assert job.instance_count == 4 and job.line_of("instance_count") == 3
    assert job.name == "pretrain"
    assert job.extra["gpus_per_node"] == 8 and job.extra["partition"] == "gpu" and job.extra["exclusive"]
    assert job.location.line == 2 and job.max_runtime_default_s is None


def test_no_time_is_missing_and_the_directive_after_a_command_is_ignored() -> None:
    job = only_job("#!/bin/bash\n#SBATCH --nodes=2\necho start\n#SBATCH --time=10\nsrun x\n", "run.sh")
    assert job.max_runtime_s is None
    assert job.default_note is not None and "below the first command" in job.default_note


def test_unlimited_is_no_limit_at_its_line() -> None:
    job = only_job("#SBATCH --time=UNLIMITED\nsrun x\n")
    assert job.max_runtime_s is None and job.line_of("max_runtime_s") == 1
    assert job.default_note is not None and "sets no limit" in job.default_note


def test_srun_time_limits_the_step() -> None:
    job = only_job("#SBATCH -N 1\nsrun \\\n  --time=30 \\\n  python x.py\n")
    assert job.max_runtime_s == 1800 and job.line_of("max_runtime_s") == 2


def test_plain_shell_scripts_are_not_ours() -> None:
    assert load("#!/bin/bash\necho hi\n", "build.sh").records == []
    assert load("#!/bin/bash\n# mentions SBATCH in prose only\n", "x.sh").records == []


def test_wrap_submission_is_a_job_and_a_script_outside_the_scan_is_unknown() -> None:
    result = load("sbatch --nodes 2 --wrap 'srun python e.py'\nsbatch other.sbatch\n", "submit.sh")
    wrap, other = result.records
    assert isinstance(wrap, ir.TrainingJob) and wrap.max_runtime_s is None and wrap.instance_count == 2
    assert isinstance(other, ir.TrainingJob) and isinstance(other.max_runtime_s, ir.Unknown)
    assert "not in the scan" in other.max_runtime_s.reason


def test_expanded_options_make_the_runtime_unknown() -> None:
    result = load('sbatch "${OPTS[@]}" --wrap "python x.py"\n', "submit.sh")
    (job,) = result.records
    assert isinstance(job, ir.TrainingJob) and isinstance(job.max_runtime_s, ir.Unknown)


def test_submission_time_applies_to_the_scanned_script(tmp_path: Path) -> None:
    (tmp_path / "job.sbatch").write_text("#SBATCH --nodes=2\nsrun x\n", encoding="utf-8")
    (tmp_path / "submit.sh").write_text("sbatch -t 2:00:00 job.sbatch\n", encoding="utf-8")
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    (job,) = [r for r in result.records if isinstance(r, ir.TrainingJob)]
    assert job.address == "sbatch:job.sbatch" and job.max_runtime_s == 7200
    assert "max_runtime_s" not in job.attr_lines and job.inputs == ("submit.sh",)
    assert not result.findings


def test_parallelcluster_partition_gives_the_instance_type() -> None:
    result = lint(ScanOptions(paths=[ROOT / "fixtures" / "parallelcluster" / "bad"], display_root=ROOT))
    (job,) = [
        r for r in result.records if isinstance(r, ir.TrainingJob) and r.address == "sbatch:train.sbatch"
    ]
    assert job.instance_type == "p5.48xlarge"  # no --partition: the first queue
    assert job.inputs == ("fixtures/parallelcluster/bad/cluster-config.yaml",)


def test_nearest_config() -> None:
    configs = ["a/cluster.yaml", "a/b/cluster.yaml", "c/one.yaml", "c/two.yaml"]
    assert nearest_config("a/b/c/job.sbatch", configs) == "a/b/cluster.yaml"
    assert nearest_config("a/job.sbatch", configs) == "a/cluster.yaml"
    assert nearest_config("c/job.sbatch", configs) is None
    assert nearest_config("x/job.sbatch", configs) is None
    assert nearest_config("x/job.sbatch", ["y/only.yaml"]) is None  # elsewhere, no partition
    only = {
        "y/only.yaml": [
            ir.ComputePool("q", ir.Location("y/only.yaml", 1, 1), "parallelcluster", partition="gpu")
        ]
    }
    assert nearest_config("x/job.sbatch", ["y/only.yaml"], "gpu", only) == "y/only.yaml"
    assert nearest_config("x/job.sbatch", ["y/only.yaml"], "cpu", only) is None


def test_bounded_on_a_huge_continuation() -> None:
    text = "#SBATCH -N 1\nsrun " + "--x \\\n" * 50_000 + "python\n"
    job = only_job(text)
    assert job.instance_count == 1


def test_a_suppression_above_the_first_directive_covers_the_job(tmp_path: Path) -> None:
    (tmp_path / "t.sbatch").write_text(
        "#!/bin/bash\n# finlint: ignore[FIN101] the partition caps runs at 48 h\n#SBATCH --nodes=2\nsrun x\n",
        encoding="utf-8",
    )
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    assert [f.rule_id for f in result.findings if not f.suppressed] == []


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("#SBATCH --nodes=1  --time=04:00:00\n", 4 * 3600),  # several options on one line
        ("#SBATCH --time=1-0\n", 86400),
        ("#SBATCH -t 00:36:00\n", 36 * 60),
        ("#SBATCH -t15\n", 15 * 60),  # a short option with its value attached
        ("#SBATCH --time 2:00:00 # two hours\n", 7200),
        ("#####SBATCH --time=10\n#SBATCH -N 1\n", None),  # a disabled directive
        ("#SBTACH --time=10\n#SBATCH -N 1\n", None),  # a misspelt one: Slurm ignores it too
    ],
)
def test_directive_spellings(header: str, seconds: int | None) -> None:
    job = only_job("#!/bin/bash -l\n" + header + "srun python train.py\n")
    assert job.max_runtime_s == seconds


def test_directives_written_by_a_heredoc_are_not_a_job() -> None:
    text = "#!/bin/bash\ncat > job.tmp <<-EOM\n#SBATCH --nodes=$1\n#SBATCH --gres=gpu:8\nEOM\n"
    assert load(text, "launch.sh").records == []


def test_env_prefixed_srun_is_a_command() -> None:
    job = only_job("#SBATCH -N 1\nCUDA_VISIBLE_DEVICES=0,1 srun --time=5 python x.py\n")
    assert job.max_runtime_s == 300


def test_checkpoint_under_a_parallelcluster_efs_mount(tmp_path: Path) -> None:
    """A script's --checkpoint-dir under the cluster's SharedStorage Efs MountDir is FIN401 at
    the command's line; a path under the Lustre mount, or no cluster in the scan, is not."""
    (tmp_path / "cluster.yaml").write_text(
        "Region: us-east-1\nHeadNode:\n  InstanceType: c5.xlarge\nScheduling:\n  Scheduler: slurm\n"
        "  SlurmQueues:\n    - Name: gpu\n      ComputeResources:\n        - Name: p4d\n"
        "          InstanceType: p4d.24xlarge\n          MaxCount: 4\n"
        "SharedStorage:\n  - MountDir: /efs\n    Name: home\n    StorageType: Efs\n"
        "    EfsSettings:\n      FileSystemId: fs-0123\n"
        "  - MountDir: /fsx\n    Name: scratch\n    StorageType: FsxLustre\n"
    )
    body = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --time=1:00:00\nexport CKPT_DIR={}\nsrun python t.py\n"
    (tmp_path / "efs.sbatch").write_text(body.format("/efs/run/ckpt"))
    (tmp_path / "fsx.sbatch").write_text(body.format("/fsx/run/ckpt"))
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    hits = [(f.file, f.line) for f in result.findings if f.rule_id == "FIN401"]
    assert hits == [("efs.sbatch", 4)]
    job = next(r for r in result.records if r.address == "sbatch:efs.sbatch")
    assert "cluster.yaml" in job.inputs
