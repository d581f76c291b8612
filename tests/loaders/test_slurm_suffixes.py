"""Slurm scripts are recognised by their #SBATCH lines under the names people give them
(``train.job``, ``run.bash``, ``launch.batch``, ``x.submit``), not only .sbatch/.slurm/.sh."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import scan_files

SCRIPT = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --gres=gpu:8\nsrun python train.py\n"


@pytest.mark.parametrize("name", ["train.job", "run.bash", "launch.batch", "x.submit"])
def test_sbatch_script_under_another_suffix_is_read(tmp_path: Path, name: str) -> None:
    result = scan_files(tmp_path, {name: SCRIPT, "notes.job": "echo not slurm\n"}, ("FIN101",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [(name, 2)]


def test_limits_at_submit_time_count(tmp_path: Path) -> None:
    files = {
        "srun_t.sbatch": SCRIPT.replace("srun python", "srun -t 2:00:00 python"),
        "job.sbatch": SCRIPT,
        "submit.sh": "#!/bin/bash\nsbatch --time=04:00:00 job.sbatch\n",
    }
    assert scan_files(tmp_path, files, ("FIN101",)).findings == []


def test_extensionless_script_with_shebang_and_directives_is_read(tmp_path: Path) -> None:
    """Issue 27: ``train`` with a shebang and ``#SBATCH`` lines is a Slurm script; a file with no
    extension whose first command comes before any directive, a Makefile, or one without a
    shebang is not read (their first 4 KiB decide, nothing else of them is read)."""
    files = {
        "train": SCRIPT,
        "late": "#!/bin/bash\necho start\n#SBATCH --nodes=2\nsrun python train.py\n",
        "noshebang": SCRIPT.replace("#!/bin/bash\n", ""),
        "Makefile": "all:\n\tsbatch train\n",
        "LICENSE": "MIT\n",
    }
    result = scan_files(tmp_path, files, ("FIN101",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("train", 2)]
    assert not result.errors


def test_extensionless_sniff_reads_only_the_head(tmp_path: Path) -> None:
    """A directive beyond the first 4 KiB (a long comment banner first) is not sniffed."""
    banner = "#!/bin/bash\n" + "# " + "x" * 5000 + "\n"
    result = scan_files(tmp_path, {"train": banner + "#SBATCH --nodes=2\nsrun python t.py\n"}, ("FIN101",))
    assert result.findings == []


def test_extensionless_file_given_by_name_that_is_not_slurm_is_not_ours(tmp_path: Path) -> None:
    from finlint import loaders

    assert loaders.sniffed_spec("#!/bin/bash\n#SBATCH -N 1\n") is not None
    assert loaders.sniffed_spec("#!/bin/bash\nset -e\n#SBATCH -N 1\n") is None
    assert loaders.sniffed_spec("apiVersion: v1\n") is None


@pytest.mark.parametrize(
    ("submit", "script"),
    [
        ("sbatch -t 4:00:00 job.sbatch", SCRIPT),
        ("sbatch --time 240 job.sbatch", SCRIPT),
        ("sbatch -t4:00:00 job.sbatch", SCRIPT),
        ("echo", SCRIPT.replace("srun python", "srun --time=1-00:00:00 python")),
        ("echo", SCRIPT.replace("srun python", "srun -t 90 python")),
    ],
)
def test_submit_time_short_and_long_forms(tmp_path: Path, submit: str, script: str) -> None:
    """Issue 27: ``sbatch -t``/``--time`` on the command line that submits the script and
    ``srun -t``/``--time`` on every step are limits (checked: already read)."""
    files = {"job.sbatch": script, "submit.sh": f"#!/bin/bash\n{submit}\n"}
    assert scan_files(tmp_path, files, ("FIN101",)).findings == []


def test_one_srun_without_time_is_no_limit(tmp_path: Path) -> None:
    script = SCRIPT.replace("srun python train.py\n", "srun -t 60 python prep.py\nsrun python train.py\n")
    result = scan_files(tmp_path, {"job.sbatch": script}, ("FIN101",))
    assert [f.line for f in result.findings] == [2]
