"""A container's checkpoint path set only by its training script's argparse default (issue 27):
the script is read with ``ast`` (``TrainingScript``), the manifest records the scripts its
containers run (``Volume.runs_scripts``), linking gives the default to a container that does not
pass the option, and FIN401 sees it under an EFS mount."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

from finlint.ir import TrainingScript, Volume

SCRIPT = """\
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--checkpoint-dir", "--ckpt", default="/efs/checkpoints")
parser.add_argument("--resume-ckpt", default=None)
parser.add_argument("--ckpt-name", default="last.pt")
args = parser.parse_args()
"""

JOB = """\
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
          command: ["torchrun", "--nproc_per_node=8", "{script}", {given}"--epochs", "10"]
          resources:
            limits:
              nvidia.com/gpu: 8
          volumeMounts:
            - name: state
              mountPath: /efs
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: train-state
---
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


def _job(script: str, given: str = "") -> str:
    return JOB.replace("{script}", script).replace("{given}", given)


def _workload(result: object) -> Volume:
    (volume,) = [
        r
        for r in result.records  # type: ignore[attr-defined]
        if isinstance(r, Volume) and r.volume_kind == "workload"
    ]
    return volume


def test_the_script_keeps_only_checkpoint_options_with_a_path_default(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"train.py": SCRIPT})
    (script,) = [r for r in result.records if isinstance(r, TrainingScript)]
    assert [(a.options, a.default, a.line) for a in script.checkpoint_args] == [
        (("--checkpoint-dir", "--ckpt"), "/efs/checkpoints", 5)
    ]


def test_a_test_file_gives_no_script(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"test_train.py": SCRIPT})
    assert [r for r in result.records if isinstance(r, TrainingScript)] == []


def test_the_default_reaches_a_container_that_runs_the_script_without_the_option(tmp_path: Path) -> None:
    files = {"src/train.py": SCRIPT, "k8s/job.yaml": _job("/workspace/src/train.py")}
    result = scan_files(tmp_path, files, ("FIN401",))
    volume = _workload(result)
    (run,) = volume.runs_scripts
    assert run.script == "/workspace/src/train.py" and run.given == (
        "--epochs",
    )  # the options after the script
    (path,) = volume.checkpoint_paths
    assert path.path == "/efs/checkpoints" and path.line == 11
    assert "argparse default of --checkpoint-dir in " in path.source and "train.py:5" in path.source
    assert str(tmp_path / "src" / "train.py") in volume.inputs  # a changed script reports it
    (finding,) = result.findings
    assert finding.line == 11 and "'/efs/checkpoints'" in finding.message


def test_a_command_that_passes_the_option_keeps_its_own_path(tmp_path: Path) -> None:
    files = {"train.py": SCRIPT, "job.yaml": _job("train.py", '"--ckpt", "/fsx/ckpt", ')}
    result = scan_files(tmp_path, files, ("FIN401",))
    assert [p.path for p in _workload(result).checkpoint_paths] == ["/fsx/ckpt"]
    assert result.findings == []


def test_a_script_beside_the_manifest_wins_and_two_equal_candidates_give_none(tmp_path: Path) -> None:
    files = {"a/train.py": SCRIPT, "b/train.py": SCRIPT, "job.yaml": _job("train.py")}
    result = scan_files(tmp_path, files, ("FIN401",))
    assert _workload(result).checkpoint_paths == ()  # a/train.py or b/train.py: not guessed
    files["train.py"] = SCRIPT
    result = scan_files(tmp_path, files, ("FIN401",))
    assert [p.path for p in _workload(result).checkpoint_paths] == ["/efs/checkpoints"]
