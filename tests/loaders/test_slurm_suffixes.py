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
