"""A checkpoint path that lies under a mount resolves to that mount; the longest mount wins."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

from finlint.engine.facts import Evidence
from finlint.ir import Location, Mount, TrainingJob
from finlint.rules.storage.fin401_checkpoints_on_efs import checkpoint_on_efs

PATTERN = "(?i)checkpoint|ckpt"

MANIFESTS = {
    "sc.yaml": "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: shared\n"
    "provisioner: efs.csi.aws.com\n",
    "pvc.yaml": "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n"
    "  storageClassName: shared\n",
    "job.yaml": """apiVersion: batch/v1
kind: Job
metadata:
  name: train
spec:
  template:
    spec:
      containers:
        - name: t
          image: t:1
          command: ["python", "train.py", "--save-checkpoints-to", "/work/run-1"]
          volumeMounts:
            - {name: work, mountPath: /work}
      volumes:
        - {name: work, persistentVolumeClaim: {claimName: data}}
""",
}


def test_full_scan_flags_a_checkpoint_path_under_a_generic_mount(tmp_path: Path) -> None:
    result = scan_files(tmp_path, MANIFESTS, select=("FIN401",))
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("job.yaml", 11)]
    message = result.findings[0].message
    assert "'/work/run-1' (command)" in message and "mount '/work'" in message and "claim 'data'" in message
    # the chain names the claim and the class, for changed-file scans
    assert [Path(f).name for f in result.findings[0].chain_files] == ["pvc.yaml", "sc.yaml"]


def test_a_path_beside_the_mount_is_not_under_it(tmp_path: Path) -> None:
    files = dict(MANIFESTS, **{"job.yaml": MANIFESTS["job.yaml"].replace("/work/run-1", "/workspace/run-1")})
    assert scan_files(tmp_path, files, select=("FIN401",)).findings == []


def _job(path: str, *mounts: tuple[str, bool]) -> TrainingJob:
    return TrainingJob(
        address="job",
        location=Location("job.json", 1, 20),
        source_format="sagemaker-api",
        checkpoint_s3_uri="s3://b/ckpt",
        checkpoint_local_path=path,
        file_system_mounts=tuple(
            Mount(volume="EFS" if efs else "FSxLustre", mount_path=p, is_efs=efs, line=5, via=("fs.yaml",))
            for p, efs in mounts
        ),
    )


def test_sagemaker_job_longest_mount_wins() -> None:
    mounts = (("/opt/ml/input/data/shared", True), ("/opt/ml/input/data/shared/fast/", False))
    on_fsx = checkpoint_on_efs(_job("/opt/ml/input/data/shared/fast/ckpt", *mounts), PATTERN)
    assert on_fsx is None
    on_efs = checkpoint_on_efs(_job("/opt/ml/input/data/shared/other", *mounts), PATTERN)
    assert isinstance(on_efs, Evidence)
    assert "'/opt/ml/input/data/shared/other'" in on_efs.text and "'/opt/ml/input/data/shared'" in on_efs.text
    assert on_efs.chain == ("fs.yaml",)
    assert checkpoint_on_efs(_job("/opt/ml/input/data/sharedx/c", *mounts), PATTERN) is None


def test_same_names_in_two_environments_link_to_the_nearest_objects(tmp_path: Path) -> None:
    """envs/dev and envs/prod reuse the claim and class names; each job links to its own."""
    job = MANIFESTS["job.yaml"]
    files = {
        "envs/dev/storage.yaml": MANIFESTS["sc.yaml"] + "---\n" + MANIFESTS["pvc.yaml"],
        "envs/dev/job.yaml": job,
        "envs/prod/storage.yaml": MANIFESTS["sc.yaml"].replace("efs.csi.aws.com", "fsx.csi.aws.com")
        + "---\n"
        + MANIFESTS["pvc.yaml"],
        "envs/prod/job.yaml": job,
    }
    result = scan_files(tmp_path, files, select=("FIN401",))
    assert [Path(f.file).parent.name for f in result.findings] == ["dev"]
