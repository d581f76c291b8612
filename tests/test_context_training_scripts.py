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


CKPT_SCRIPT = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--checkpoint-dir", default="/efs/checkpoints")
"""
CKPT_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: trainer:1
          command: ["python", "/app/src/finetune.py", "--epochs", "3"]
          env:
            - name: CKPT_DIR
              value: ${CKPT_DIR}
          volumeMounts:
            - name: state
              mountPath: /efs
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: train-state
"""
CKPT_STORAGE = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: train-state
spec:
  storageClassName: efs-sc
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc
provisioner: efs.csi.aws.com
"""


def test_a_changed_script_or_dotenv_reports_the_manifest_it_sets_a_checkpoint_path_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "src/finetune.py": CKPT_SCRIPT,
            "k8s/job.yaml": CKPT_JOB,
            "platform/storage.yaml": CKPT_STORAGE,
            "other/unrelated.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
        },
    )
    _, report = scan(root, monkeypatch, "--select", "FIN401", "src/finetune.py")
    assert where(report) == [("k8s/job.yaml", 11, "FIN401")]  # the command that omits the option
    assert "linked through changed file src/finetune.py" in report["findings"][0]["message"]
    assert report["summary"]["context_files"] == 2  # the manifest and its claim/class file
    (root / "k8s" / ".env").write_text("CKPT_DIR=/efs/run1\n", encoding="utf-8")
    _, report = scan(root, monkeypatch, "--select", "FIN401", "k8s/.env")
    assert [f["file"] for f in report["findings"]] == ["k8s/job.yaml"]
    assert all("linked through changed file k8s/.env" in f["message"] for f in report["findings"])
