"""The ``.env`` beside a manifest fills its envsubst placeholders (issue 27): a checkpoint path set
only there reaches the container, read (never sourced) from the manifest's own folder, inside
the scan roots."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import scan_files

from finlint.ir import Volume
from finlint.loaders.common.dotenv import envsubst, parse

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
          args: ["--checkpoint-dir=${CKPT_DIR}", "--logs", "$(LOG_DIR)"]
          env:
            - name: LOG_DIR
              value: /logs
            - name: SAVE_CHECKPOINT_PATH
              value: ${CKPT_DIR}/last
          resources:
            limits:
              nvidia.com/gpu: 1
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


def _workload(result: object) -> Volume:
    (volume,) = [
        r
        for r in result.records  # type: ignore[attr-defined]
        if isinstance(r, Volume) and r.volume_kind == "workload"
    ]
    return volume


def test_parse_reads_assignments_and_never_a_shell() -> None:
    text = (
        "# comment\n"
        "export CKPT_DIR=/efs/ckpt\n"
        'QUOTED="/efs/q"  # trailing comment\n'
        "SINGLE='/efs/s'\n"
        "CMD=$(cat /etc/passwd)\n"
        "REF=$HOME/x\n"
        "BACKTICK=`id`\n"
        "not a line\n"
    )
    assert parse(text) == {"CKPT_DIR": "/efs/ckpt", "QUOTED": "/efs/q", "SINGLE": "/efs/s"}


def test_envsubst_fills_its_own_forms_only() -> None:
    env = {"A": "/a", "B": "/b"}
    assert envsubst("${A}/x $B $(A) ${C}", env) == "/a/x /b $(A) ${C}"


def test_a_checkpoint_path_set_only_in_the_dotenv_reaches_fin401(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"job.yaml": JOB, ".env": "CKPT_DIR=/efs/ckpt\n"}, ("FIN401",))
    volume = _workload(result)
    paths = {(p.path, p.line) for p in volume.checkpoint_paths}
    assert ("/efs/ckpt", 11) in paths and ("/efs/ckpt/last", 16) in paths
    assert all("(.env: CKPT_DIR=/efs/ckpt)" in p.source for p in volume.checkpoint_paths)
    assert volume.inputs == (str(tmp_path / ".env"),)
    (finding,) = result.findings
    assert "'/efs/ckpt" in finding.message and ".env: CKPT_DIR=/efs/ckpt" in finding.message


def test_without_a_dotenv_the_placeholder_stays_unresolved(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"job.yaml": JOB}, ("FIN401",))
    assert _workload(result).checkpoint_paths == () and result.findings == []


def test_a_dotenv_in_another_folder_is_not_read(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"k8s/job.yaml": JOB, ".env": "CKPT_DIR=/efs/ckpt\n"}, ("FIN401",))
    assert _workload(result).checkpoint_paths == ()


def test_a_dotenv_linking_outside_the_scan_root_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secrets.env").write_text("CKPT_DIR=/efs/ckpt\n", encoding="utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()  # the scan root is this work tree
    (repo / "job.yaml").write_text(JOB, encoding="utf-8")
    os.symlink(outside / "secrets.env", repo / ".env")
    result = scan_files(repo, {}, ("FIN401",))
    assert _workload(result).checkpoint_paths == () and result.findings == []
