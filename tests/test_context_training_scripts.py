"""Changed-file scans of a training script: the launcher that runs it is context (FIN601)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.test_context import repo, scan, where

LAUNCHER = """\
from sagemaker.pytorch import PyTorch

est = PyTorch(entry_point="train.py", source_dir="scripts", instance_type="ml.g5.12xlarge", max_run=3600)
est.fit()
"""
SCRIPT = """\
from torch.utils.data import DataLoader

def loaders(dataset):
    return DataLoader(dataset, batch_size=64)
"""


def test_changed_training_script_pulls_in_its_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "jobs/launch.py": LAUNCHER,
            "jobs/scripts/train.py": "import data\n",
            "jobs/scripts/data.py": SCRIPT,
            "jobs/unrelated.py": "import sagemaker\nprint('no script named here')\n",
        },
    )
    _, report = scan(root, monkeypatch, "--select", "FIN601", "jobs/scripts/data.py")
    # train.py imports data.py (python_launchers); launch.py names the source_dir; unrelated.py neither
    assert report["summary"]["context_files"] == 2
    assert where(report) == [("jobs/scripts/data.py", 4, "FIN601")]
