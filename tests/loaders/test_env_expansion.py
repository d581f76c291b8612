"""Checkpoint paths that go through the container's environment (issue 11 section 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from finlint.loaders.common.shellwords import expand
from finlint.scan import ScanOptions, lint

JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      containers:
        - name: train
          image: x
          command: ["sh", "-c", "python train.py --ckpt-dir ${SCRATCH}/ckpt --epochs 3"]
          args: ["--output_dir=$(CKPT_ROOT)/run1"]
          env:
            - name: HOME
              value: /efs/home/x
            - name: CKPT_DIR
              value: $(HOME)/checkpoints
            - name: CKPT_ROOT
              value: /efs/root
            - name: SCRATCH
              value: /scratch
            - name: LATER_CKPT
              value: $(DEFINED_AFTER)/x
            - name: DEFINED_AFTER
              value: /late
          volumeMounts:
            - name: shared
              mountPath: /efs
      volumes:
        - name: shared
          persistentVolumeClaim:
            claimName: shared
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$(HOME)/ckpt", "/efs/home/x/ckpt"),
        ("${HOME}/ckpt", "/efs/home/x/ckpt"),
        ("$HOME/ckpt", "/efs/home/x/ckpt"),
        ("$(UNSET)/ckpt", "$(UNSET)/ckpt"),
        ("no variables", "no variables"),
    ],
)
def test_expand(text: str, expected: str) -> None:
    assert expand(text, {"HOME": "/efs/home/x"}) == expected


def test_checkpoint_paths_are_expanded_with_their_chain(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(JOB)
    (record,) = lint(ScanOptions(paths=[tmp_path])).records
    paths = {p.path: (p.line, p.source) for p in record.checkpoint_paths}
    assert paths["/efs/home/x/checkpoints"] == (
        17,
        "env CKPT_DIR=$(HOME)/checkpoints -> /efs/home/x/checkpoints",
    )
    assert paths["/efs/root/run1"] == (12, "args --output_dir=$(CKPT_ROOT)/run1 -> /efs/root/run1")
    assert paths["/scratch/ckpt"][0] == 11 and "${SCRATCH}/ckpt" in paths["/scratch/ckpt"][1]
    assert paths["/efs/root"] == (19, "env CKPT_ROOT")
    # Kubernetes expands $(VAR) only from entries defined before: this one stays unexpanded
    assert not any(p.startswith("/late") for p in paths)


def test_fin401_message_shows_the_chain(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: efs-sc\n"
        "provisioner: efs.csi.aws.com\n---\n"
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: pv-efs\nspec:\n"
        "  storageClassName: efs-sc\n---\n"
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: train\nspec:\n  template:\n    spec:\n"
        "      containers:\n        - name: train\n          image: x\n          env:\n"
        "            - name: HOME\n              value: /efs/home/x\n"
        "            - name: CKPT_DIR\n              value: $(HOME)/checkpoints\n"
        "          volumeMounts:\n            - name: shared\n              mountPath: /efs\n"
        "      volumes:\n        - name: shared\n"
        "          persistentVolumeClaim:\n            claimName: pv-efs\n"
    )
    (finding,) = [f for f in lint(ScanOptions(paths=[tmp_path])).findings if f.rule_id == "FIN401"]
    assert finding.line == 28  # the value line of CKPT_DIR
    assert "CKPT_DIR=$(HOME)/checkpoints -> /efs/home/x/checkpoints" in finding.message
    assert "claim 'pv-efs'" in finding.message
