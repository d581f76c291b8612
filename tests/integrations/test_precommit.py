"""The pre-commit hooks, run by the real pre-commit in a temporary git repository.

The hook repository is a snapshot of this checkout (working tree, including uncommitted
files) committed with fixed dates, so an unchanged checkout gives the same rev and
pre-commit's cache (``~/.cache/finlint-test/pre-commit``) skips the install on reruns.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("FINLINT_TEST_CACHE", Path.home() / ".cache" / "finlint-test"))
SNAPSHOT_PARTS = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "src", "policies")
FIXED_DATE = "2026-01-01T00:00:00+0000"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BAD = {
    "TrainingJobName": "nightly-finetune",
    "AlgorithmSpecification": {
        "TrainingImage": "123.dkr.ecr.us-east-1.amazonaws.com/t:1",
        "TrainingInputMode": "File",
    },
    "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
    "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
    "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
}
GOOD = {**BAD, "StoppingCondition": {"MaxRuntimeInSeconds": 7200}}


def git(cwd: Path, *args: str) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "finlint-test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "finlint-test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
        "GIT_AUTHOR_DATE": FIXED_DATE,
        "GIT_COMMITTER_DATE": FIXED_DATE,
    }
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "pre-commit"],
            capture_output=True,
            timeout=300,
        )
        assert proc.returncode == 0, "pre-commit is in the test extra and could not be installed"
    return [sys.executable, "-m", "pre_commit"]


@pytest.fixture(scope="module")
def hook_repo() -> tuple[Path, str]:
    """This checkout as a git repository pre-commit can install from."""
    target = CACHE / "hook-repo"
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for part in SNAPSHOT_PARTS:
        source = REPO / part
        if source.is_dir():
            shutil.copytree(source, target / part, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, target / part)
    git(target, "init", "-q", "-b", "main")
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "snapshot")
    return target, git(target, "rev-parse", "HEAD")


def project(tmp_path: Path, hook_repo: tuple[Path, str], hook_id: str) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    url, rev = hook_repo
    config = {"repos": [{"repo": str(url), "rev": rev, "hooks": [{"id": hook_id}]}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return root


def run(root: Path, *args: str) -> tuple[int, str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["PRE_COMMIT_HOME"] = str(CACHE / "pre-commit")
    env["PRE_COMMIT_COLOR"] = "never"
    start = time.monotonic()
    proc = subprocess.run(
        [*pre_commit(), "run", *args], cwd=root, env=env, capture_output=True, text=True, timeout=900
    )
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start


def test_hooks_file_shape() -> None:
    hooks = {h["id"]: h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text("utf-8"))}
    assert set(hooks) == {"finlint", "finlint-diff", "finlint-fix"}
    assert hooks["finlint-fix"]["entry"] == "finlint fix --exit-non-zero-on-fix --"
    assert hooks["finlint-fix"]["files"] == hooks["finlint"]["files"]
    assert hooks["finlint"]["language"] == "python" and hooks["finlint"]["entry"] == "finlint scan --"
    assert hooks["finlint"].get("pass_filenames", True) is True
    import re

    pattern = re.compile(hooks["finlint"]["files"])
    for name in ("a.yaml", "b.yml", "c.json", "t.template", "main.tf", "x.tfvars", "train.py", "nb.ipynb"):
        assert pattern.search(name), name
    for name in ("README.md", "image.png", "setup.cfg"):
        assert not pattern.search(name), name


def test_finlint_hook_fails_on_bad_file_and_passes_on_good(
    tmp_path: Path, hook_repo: tuple[Path, str]
) -> None:
    root = project(tmp_path, hook_repo, "finlint")
    (root / "jobs").mkdir()
    (root / "jobs" / "bad.json").write_text(json.dumps(BAD, indent=2), encoding="utf-8")
    (root / "jobs" / "good.json").write_text(json.dumps(GOOD, indent=2), encoding="utf-8")
    (root / "notes.md").write_text("# not scanned\n", encoding="utf-8")
    git(root, "add", ".")

    code, out, first = run(root, "--files", "jobs/bad.json", "notes.md")
    assert code == 1, out
    assert "Failed" in out and "jobs/bad.json:1: FIN101 [high]" in out

    code, out, second = run(root, "--files", "jobs/good.json")
    assert code == 0, out
    assert "Passed" in out
    print(f"pre-commit: first run {first:.1f} s (may include install), second run {second:.2f} s")


def test_finlint_diff_hook_only_fails_on_new_findings(tmp_path: Path, hook_repo: tuple[Path, str]) -> None:
    root = project(tmp_path, hook_repo, "finlint-diff")
    (root / "old.json").write_text(json.dumps(BAD, indent=2), encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "existing debt")

    (root / "old.json").write_text(
        json.dumps({**BAD, "TrainingJobName": "nightly-finetune"}), encoding="utf-8"
    )
    git(root, "add", "old.json")
    code, out, _ = run(root)
    assert code == 0, out  # the known finding is not new

    (root / "new.json").write_text(json.dumps({**BAD, "TrainingJobName": "another-job"}), encoding="utf-8")
    git(root, "add", "new.json")
    code, out, _ = run(root)
    assert code == 1, out
    assert "new.json:1: FIN101" in out
    old_line = next(line for line in out.splitlines() if line.startswith("old.json:1: FIN101"))
    assert old_line.endswith("(baseline)")  # shown, but it does not fail the commit
    assert git(root, "worktree", "list").count("\n") == 0


STORAGE_CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: team-shared
provisioner: {provisioner}
"""
CLAIM = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: team-data
spec:
  storageClassName: team-shared
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: trainer:1
          args: ["--checkpoint-dir=/state/ckpt"]
          volumeMounts:
            - {name: state, mountPath: /state}
      volumes:
        - name: state
          persistentVolumeClaim: {claimName: team-data}
"""


def test_finlint_hook_catches_a_finding_that_depends_on_unchanged_files(
    tmp_path: Path, hook_repo: tuple[Path, str]
) -> None:
    """Only the StorageClass changes; the job and its claim are unchanged files of the repo."""
    root = project(tmp_path, hook_repo, "finlint")
    (root / "apps").mkdir()
    (root / "platform").mkdir()
    (root / "apps" / "job.yaml").write_text(JOB, encoding="utf-8")
    (root / "platform" / "claim.yaml").write_text(CLAIM, encoding="utf-8")
    classes = root / "platform" / "classes.yaml"
    classes.write_text(STORAGE_CLASS.format(provisioner="fsx.csi.aws.com"), encoding="utf-8")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "checkpoints on FSx")

    classes.write_text(STORAGE_CLASS.format(provisioner="efs.csi.aws.com"), encoding="utf-8")
    git(root, "add", "platform/classes.yaml")
    code, out, _ = run(root)  # pre-commit passes the staged file only
    assert code == 1, out
    assert "apps/job.yaml:11: FIN401 [medium]" in out
    assert "linked through changed file platform/classes.yaml" in out
    assert "context: 2 more file(s) read from the repository" in out


SDK_BAD = """from sagemaker.pytorch import PyTorch

estimator = PyTorch(
    entry_point="train.py",  # the comment stays
    instance_type="ml.g5.12xlarge",
    instance_count=1,
)
"""


def test_fix_hook_applies_safe_fixes_and_fails_when_it_changed_a_file(
    tmp_path: Path, hook_repo: tuple[Path, str]
) -> None:
    root = project(tmp_path, hook_repo, "finlint-fix")
    (root / "launch.py").write_text(SDK_BAD, encoding="utf-8")
    (root / "job.sbatch").write_text("#!/bin/bash\n#SBATCH --nodes=2\nsrun train.py\n", encoding="utf-8")
    git(root, "add", "-A")
    code, out, _ = run(root, "--all-files")
    assert code == 1, out
    fixed = (root / "launch.py").read_text("utf-8")
    assert fixed == SDK_BAD.replace("instance_count=1,\n", "instance_count=1,\n    max_run=86400,\n")
    # the Slurm fix is unsafe (a new limit): the hook never applies it
    assert (root / "job.sbatch").read_text("utf-8") == "#!/bin/bash\n#SBATCH --nodes=2\nsrun train.py\n"
    git(root, "add", "-A")
    code, out, _ = run(root, "--all-files")
    assert code == 0, out
