"""EFS evidence by name (issue 11 section 4): a claim or StorageClass the scan does not define,
whose name says EFS, mounted or used for checkpoints; the message says the evidence is the name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.rules.storage.fin401_checkpoints_on_efs import EFS_NAME

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
          volumeMounts:
            - name: state
              mountPath: /checkpoints
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: {claim}
"""

CLAIM = """\
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ckpt-claim
spec:
  accessModes: [ReadWriteMany]
  storageClassName: {storage_class}
  resources: {{requests: {{storage: 100Gi}}}}
"""


def run(tmp_path: Path, files: dict[str, str], *args: str) -> list[dict]:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / ".git").mkdir(exist_ok=True)  # the repository root: no config above it
    out = CliRunner().invoke(main, ["scan", str(tmp_path), "--format", "json", "--no-context", *args])
    assert out.exit_code in (0, 1), out.output
    return [f for f in json.loads(out.output)["findings"] if f["rule_id"] == "FIN401"]


@pytest.mark.parametrize(
    ("name", "says_efs"),
    [
        ("efs-sc", True),
        ("efs-pvc", True),
        ("train-efs-claim", True),
        ("efs", True),
        ("fsx-sc", False),
        ("refs-data", False),
        ("gp3", False),
    ],
)
def test_the_name_pattern(name: str, says_efs: bool) -> None:
    assert (EFS_NAME.search(name) is not None) is says_efs


def test_an_undefined_claim_named_for_efs_at_a_checkpoint_path(tmp_path: Path) -> None:
    (finding,) = run(tmp_path, {"job.yaml": JOB.format(claim="efs-pvc")})
    assert finding["line"] == 12  # the mount, as for every FIN401 on a mount
    assert "EFS by name only" in finding["message"] and "claim 'efs-pvc'" in finding["message"]
    assert "not defined in the scan" in finding["message"] and "medium confidence" in finding["message"]


def test_fsx_and_neutral_names_are_not_efs(tmp_path: Path) -> None:
    assert run(tmp_path, {"job.yaml": JOB.format(claim="fsx-pvc")}) == []
    assert run(tmp_path, {"job.yaml": JOB.format(claim="shared-pvc")}) == []


def test_a_defined_claim_is_never_judged_by_its_name(tmp_path: Path) -> None:
    # the claim exists and its class is FSx: the linked chain decides, not the name
    sc = (
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: fsx-sc\n"
        "provisioner: fsx.csi.aws.com\n"
    )
    claim = CLAIM.format(storage_class="fsx-sc").replace("ckpt-claim", "efs-pvc")
    assert run(tmp_path, {"job.yaml": JOB.format(claim="efs-pvc"), "claim.yaml": claim, "sc.yaml": sc}) == []


def test_an_undefined_storage_class_named_for_efs(tmp_path: Path) -> None:
    (finding,) = run(tmp_path, {"claim.yaml": CLAIM.format(storage_class="efs-sc")})
    assert finding["line"] == 7
    assert "StorageClass 'efs-sc', which is not defined in the scan" in finding["message"]


def test_the_config_switch_turns_name_evidence_off(tmp_path: Path) -> None:
    config = tmp_path / "finlint.yaml"
    config.write_text("rules:\n  FIN401:\n    params: {name_evidence: false}\n")
    files = {"job.yaml": JOB.format(claim="efs-pvc"), "claim.yaml": CLAIM.format(storage_class="efs-sc")}
    assert run(tmp_path, files, "--config", str(config)) == []
    assert len(run(tmp_path, files)) == 2
