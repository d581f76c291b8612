"""``envFrom`` ConfigMaps (issue 11, section 5): checkpoint paths that reach a container through
a ConfigMap in the scan are expanded before they are matched against its mounts."""

from __future__ import annotations

from pathlib import Path

from finlint.engine import EngineConfig
from finlint.ir import ConfigMap
from finlint.scan import ScanOptions, lint

STORAGE = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: team-state
  namespace: ml
spec:
  storageClassName: efs-sc
  accessModes: [ReadWriteMany]
  resources: {requests: {storage: 100Gi}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc
provisioner: efs.csi.aws.com
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  namespace: ml
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: trainer:1
          envFrom:
            - configMapRef:
                name: train-env
{env}          args: ["--epochs", "3", "{arg}"]
          volumeMounts:
            - name: state
              mountPath: /state
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: team-state
"""
ARGS_LINE = 15  # the args line when env is empty


def config_map(data: str) -> str:
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: train-env\n  namespace: ml\ndata:\n{data}"


def fin401(tmp_path: Path, job: str, data: str | None) -> list[tuple[str, int, str]]:
    (tmp_path / "job.yaml").write_text(job, encoding="utf-8")
    (tmp_path / "storage.yaml").write_text(STORAGE, encoding="utf-8")
    if data is not None:
        (tmp_path / "env.yaml").write_text(config_map(data), encoding="utf-8")
    result = lint(ScanOptions(paths=[tmp_path], engine=EngineConfig(select=("FIN401",))))
    return [(Path(f.file).name, f.line, f.message) for f in result.findings if f.file.endswith("job.yaml")]


def test_an_argument_expanded_from_a_config_map_in_another_file(tmp_path: Path) -> None:
    job = JOB.format(env="", arg="--checkpoint-dir=$(STATE_ROOT)/ckpt")
    (found,) = fin401(tmp_path, job, "  STATE_ROOT: /state\n")
    assert found[1] == ARGS_LINE
    assert "'/state/ckpt'" in found[2] and "envFrom ConfigMap train-env" in found[2]
    assert "--checkpoint-dir=$(STATE_ROOT)/ckpt -> --checkpoint-dir=/state/ckpt" in found[2]


def test_an_env_entry_expanded_from_a_config_map(tmp_path: Path) -> None:
    env = "          env:\n            - name: CHECKPOINT_DIR\n              value: $(ROOT)/ckpt\n"
    (found,) = fin401(tmp_path, JOB.format(env=env, arg="--lr=0.1"), "  ROOT: /state\n")
    assert found[1] == 17  # the value line: where a person edits
    assert "'/state/ckpt'" in found[2]


def test_a_checkpoint_key_injected_whole(tmp_path: Path) -> None:
    (found,) = fin401(tmp_path, JOB.format(env="", arg="--lr=0.1"), "  CHECKPOINT_DIR: /state/ckpt\n")
    assert found[1] == 13  # the envFrom entry that brings it in
    assert "CHECKPOINT_DIR=/state/ckpt" in found[2]


def test_without_the_config_map_nothing_is_guessed(tmp_path: Path) -> None:
    assert fin401(tmp_path, JOB.format(env="", arg="--checkpoint-dir=$(STATE_ROOT)/ckpt"), None) == []


def test_a_path_outside_the_mount_is_not_reported(tmp_path: Path) -> None:
    job = JOB.format(env="", arg="--checkpoint-dir=$(STATE_ROOT)/ckpt")
    assert fin401(tmp_path, job, "  STATE_ROOT: /scratch\n") == []


def test_config_maps_are_records_with_their_data(tmp_path: Path) -> None:
    (tmp_path / "env.yaml").write_text(config_map("  A: /x\n  B: '{{ .Values.b }}'\n"), encoding="utf-8")
    result = lint(ScanOptions(paths=[tmp_path]))
    (cm,) = [r for r in result.records if isinstance(r, ConfigMap)]
    assert cm.data == {"A": "/x"} and cm.namespace == "ml"  # a templated value is never expanded
