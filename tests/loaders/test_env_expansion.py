"""Checkpoint paths that go through the container's environment (issue 11 section 5)."""

from __future__ import annotations

from pathlib import Path

import pytest

from finlint.loaders.kubernetes.workloads import expand
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
    paths = {p["path"]: (p["line"], p["source"]) for p in record.extra["checkpoint_paths"]}
    assert paths["/efs/home/x/checkpoints"] == (
        17,
        "env CKPT_DIR=$(HOME)/checkpoints -> /efs/home/x/checkpoints",
    )
    assert paths["/efs/root/run1"] == (12, "args --output_dir=$(CKPT_ROOT)/run1 -> /efs/root/run1")
    assert paths["/scratch/ckpt"][0] == 11 and "${SCRATCH}/ckpt" in paths["/scratch/ckpt"][1]
    assert paths["/efs/root"] == (19, "env CKPT_ROOT")
    # Kubernetes expands $(VAR) only from entries defined before: this one stays unexpanded
    assert not any(p.startswith("/late") for p in paths)
