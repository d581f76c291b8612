"""A checkpoint path set only inside a ConfigMap-mounted script the container runs."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

SCRIPT_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: train-script
data:
  run.sh: |
    #!/bin/bash
    export CKPT_DIR=/shared/ckpt
    torchrun train.py --save-dir $CKPT_DIR
  flags.sh: |
    ROOT=/shared
    torchrun train.py --checkpoint-path $ROOT/run1
"""

JOB = """\
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: img
              command: ["bash", "/scripts/SCRIPT"]
              resources:
                limits:
                  nvidia.com/gpu: 8
              volumeMounts:
                - name: scripts
                  mountPath: /scripts
                - name: shared
                  mountPath: /shared
          volumes:
            - name: scripts
              configMap:
                name: train-script
            - name: shared
              persistentVolumeClaim:
                claimName: shared
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: shared
spec:
  storageClassName: efs-sc
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc
provisioner: efs.csi.aws.com
"""


def test_export_in_a_configmap_script_puts_checkpoints_on_efs(tmp_path: Path) -> None:
    files = {"cm.yaml": SCRIPT_MAP, "job.yaml": JOB.replace("SCRIPT", "run.sh")}
    (finding,) = scan_files(tmp_path, files, ("FIN401",)).findings
    assert (Path(finding.file).name, finding.line) == ("job.yaml", 14)  # the command that runs it
    assert "checkpoint path '/shared/ckpt' (script run.sh (ConfigMap train-script" in finding.message
    assert "CKPT_DIR=/shared/ckpt" in finding.message and "on EFS through claim 'shared'" in finding.message


def test_a_checkpoint_flag_in_the_script_after_its_own_assignments(tmp_path: Path) -> None:
    files = {"cm.yaml": SCRIPT_MAP, "job.yaml": JOB.replace("SCRIPT", "flags.sh")}
    (finding,) = scan_files(tmp_path, files, ("FIN401",)).findings
    assert "checkpoint path '/shared/run1' (script flags.sh" in finding.message


def test_a_script_the_container_does_not_run_says_nothing(tmp_path: Path) -> None:
    files = {"cm.yaml": SCRIPT_MAP, "job.yaml": JOB.replace("/scripts/SCRIPT", "/opt/other.sh")}
    assert scan_files(tmp_path, files, ("FIN401",)).findings == []
