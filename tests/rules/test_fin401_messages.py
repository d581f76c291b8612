"""FIN401 messages name what a person reads in the manifest, never an internal object."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

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
              resources:
                limits:
                  nvidia.com/gpu: 8
              volumeMounts:
                - name: ckpt
                  mountPath: ${CKPT_MOUNT}
          volumes:
            - name: ckpt
              persistentVolumeClaim:
                claimName: efs-checkpoints
"""


def test_templated_mount_path_is_described_not_printed_as_an_object(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"job.yaml": JOB}, ("FIN401",))
    (finding,) = result.findings
    assert "Unknown(" not in finding.message
    assert finding.message.startswith(
        "PyTorchJob/default/train: mounts checkpoint volume 'ckpt' (mounted at a path not known: "
        "mountPath is a template placeholder ('${CKPT_MOUNT}')) from claim 'efs-checkpoints'"
    )
    assert finding.line == 18
