"""Changed-file scans keep the repository's context (finlint.context).

Each test builds a temporary git repository, then runs ``finlint scan`` with the changed file
alone on the command line, as pre-commit does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.context import ContextPlan, RepoIndex, Unit, find_root, sniff_text
from finlint.finding import Finding
from finlint.ir import Location, TrainingJob

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

STORAGE_CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: team-shared
provisioner: {provisioner}
parameters:
  fileSystemId: fs-0123456789abcdef0
"""
CLAIMS = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: team-data
  namespace: ml
spec:
  accessModes: [ReadWriteMany]
  storageClassName: team-shared
  resources:
    requests:
      storage: 500Gi
"""
# The checkpoint path lies under a generically named mount: only the path says "checkpoint".
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: finetune
  namespace: ml
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: trainer:1
          args: ["--checkpoint-dir=/state/ckpt", "--epochs", "3"]
          volumeMounts:
            - name: state
              mountPath: /state
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: team-data
"""
JOB_ARGS_LINE = 13
UNRELATED = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ckpt-cache
  namespace: ml
spec:
  storageClassName: other-efs
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: other-efs
provisioner: efs.csi.aws.com
"""


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path_factory.mktemp("finlint-cache")
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(cache))
    return cache


def git(cwd: Path, *args: str) -> str:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def repo(tmp_path: Path, files: dict[str, str], commit: bool = True) -> Path:
    root = tmp_path / "repo"
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(root, "init", "-q", "-b", "main")
    if commit:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "base")
    return root


def scan(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, dict]:
    monkeypatch.chdir(root)
    # FIN302 (no auto-stop) fires on the same p5 notebooks as FIN301; these tests follow FIN301
    result = CliRunner().invoke(main, ["scan", "--format", "json", "--ignore", "FIN302", *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.output)


def where(report: dict) -> list[tuple[str, int, str]]:
    return [(f["file"], f["line"], f["rule_id"]) for f in report["findings"] if "suppressed" not in f]


def k8s_repo(tmp_path: Path, provisioner: str = "efs.csi.aws.com") -> Path:
    return repo(
        tmp_path,
        {
            "apps/train/job.yaml": JOB,
            "platform/claims.yaml": CLAIMS,
            "platform/storage/classes.yaml": STORAGE_CLASS.format(provisioner=provisioner),
            "platform/unrelated.yaml": UNRELATED,
            "docs/readme.md": "# not scanned\n",
        },
    )


# --- Kubernetes: the job / claim / StorageClass split ------------------------------------------


@needs_git
def test_job_changed_alone_finds_the_efs_class_through_the_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = k8s_repo(tmp_path)
    code, report = scan(root, monkeypatch, "apps/train/job.yaml")
    assert code == 1
    assert where(report) == [("apps/train/job.yaml", JOB_ARGS_LINE, "FIN401")]
    message = report["findings"][0]["message"]
    assert "'/state/ckpt'" in message and "mount '/state'" in message and "team-data" in message
    assert "linked through" not in message  # it is the job's own file
    assert report["summary"]["files_scanned"] == 1
    assert report["summary"]["context_files"] == 2  # claims + classes; unrelated.yaml is not read


@needs_git
def test_storage_class_changed_alone_reports_the_job_at_its_own_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = k8s_repo(tmp_path)
    code, report = scan(root, monkeypatch, "platform/storage/classes.yaml")
    assert code == 1
    # the job is reported (through the changed class); the context files' own findings are not:
    # unrelated.yaml has an EFS claim named for checkpoints, but not of the changed class
    assert where(report) == [("apps/train/job.yaml", JOB_ARGS_LINE, "FIN401")]
    assert report["findings"][0]["message"].endswith(
        "(linked through changed file platform/storage/classes.yaml)"
    )
    assert report["summary"]["context_files"] == 2


@needs_git
def test_storage_class_that_is_not_efs_reports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = k8s_repo(tmp_path, provisioner="fsx.csi.aws.com")
    code, report = scan(root, monkeypatch, "platform/storage/classes.yaml")
    assert (code, where(report)) == (0, [])
    code, report = scan(root, monkeypatch, "apps/train/job.yaml")
    assert (code, where(report)) == (0, [])


@needs_git
def test_claim_changed_alone_reports_the_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = k8s_repo(tmp_path)
    _, report = scan(root, monkeypatch, "platform/claims.yaml")
    assert where(report) == [("apps/train/job.yaml", JOB_ARGS_LINE, "FIN401")]
    assert "platform/claims.yaml" in report["findings"][0]["message"]


@needs_git
def test_no_context_reads_only_the_given_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = k8s_repo(tmp_path)
    code, report = scan(root, monkeypatch, "apps/train/job.yaml", "--no-context")
    assert (code, where(report), report["summary"]["context_files"]) == (0, [], 0)
    monkeypatch.chdir(root)
    text = CliRunner().invoke(main, ["scan", "apps/train/job.yaml"]).output
    assert "context: 2 more file(s) read from the repository" in text
    text = CliRunner().invoke(main, ["scan", "apps/train/job.yaml", "--no-context"]).output
    assert "context:" not in text


@needs_git
def test_directory_scans_are_unchanged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = k8s_repo(tmp_path)
    _, report = scan(root, monkeypatch, ".")
    assert report["summary"]["context_files"] == 0
    assert ("platform/unrelated.yaml", 4, "FIN401") in where(report)  # reported in a full scan


@needs_git
def test_suppression_in_a_context_file_still_applies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = k8s_repo(tmp_path)
    job = root / "apps/train/job.yaml"
    lines = JOB.splitlines()
    lines.insert(
        JOB_ARGS_LINE - 1, "          # finlint: ignore[FIN401] scratch checkpoints, deleted nightly"
    )
    job.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, report = scan(root, monkeypatch, "platform/storage/classes.yaml")
    assert code == 0
    assert [f["suppressed"]["justification"] for f in report["findings"]] == [
        "scratch checkpoints, deleted nightly"
    ]


# --- checkpoint paths under a mount --------------------------------------------------------------

TWO_MOUNTS = """apiVersion: batch/v1
kind: Job
metadata:
  name: pretrain
  namespace: ml
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: trainer:1
          env:
            - name: CHECKPOINT_DIR
              value: {path}
          volumeMounts:
            - name: state
              mountPath: /state
            - name: fast
              mountPath: /state/run
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: team-data
        - name: fast
          persistentVolumeClaim:
            claimName: fast-scratch
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: fast-scratch
  namespace: ml
spec:
  storageClassName: lustre
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: lustre
provisioner: fsx.csi.aws.com
"""


@needs_git
@pytest.mark.parametrize(
    ("path", "expected"),
    [("/state/out", [("apps/job.yaml", 14, "FIN401")]), ("/state/run/out", [])],  # longest mount wins
)
def test_env_checkpoint_path_resolves_to_the_longest_mount(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str, expected: list[tuple[str, int, str]]
) -> None:
    root = repo(
        tmp_path,
        {
            "apps/job.yaml": TWO_MOUNTS.format(path=path),
            "platform/claims.yaml": CLAIMS,
            "platform/classes.yaml": STORAGE_CLASS.format(provisioner="efs.csi.aws.com"),
        },
    )
    _, report = scan(root, monkeypatch, "apps/job.yaml")
    assert where(report) == expected
    if expected:
        message = report["findings"][0]["message"]
        assert f"'{path}' (env CHECKPOINT_DIR)" in message and "mount '/state'" in message


# --- Terraform --------------------------------------------------------------------------------

TF_MAIN = """resource "aws_sagemaker_notebook_instance" "research" {
  name          = "research"
  role_arn      = "arn:aws:iam::111122223333:role/R"
  instance_type = var.notebook_type
}

resource "aws_s3_bucket" "logs" {
  bucket = "logs"
}
"""
TF_VARS = """variable "notebook_type" {
  type    = string
  default = "ml.t3.medium"
}
"""


@needs_git
def test_tfvars_changed_alone_reports_the_resource_in_main_tf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "infra/main.tf": TF_MAIN,
            "infra/variables.tf": TF_VARS,
            "infra/terraform.tfvars": 'notebook_type = "ml.p5.48xlarge"\n',
        },
    )
    code, report = scan(root, monkeypatch, "infra/terraform.tfvars")
    assert code == 1
    assert where(report) == [("infra/main.tf", 4, "FIN301")]
    assert "linked through changed file infra/terraform.tfvars" in report["findings"][0]["message"]
    (root / "infra/terraform.tfvars").write_text('notebook_type = "ml.t3.large"\n', encoding="utf-8")
    assert scan(root, monkeypatch, "infra/terraform.tfvars")[0] == 0


MODULE = """variable "instance_type" {
  type = string
}

resource "aws_sagemaker_notebook_instance" "this" {
  name          = "nb"
  role_arn      = "arn:aws:iam::111122223333:role/R"
  instance_type = var.instance_type
}
"""
CALLER = """module "notebook" {
  source        = "../modules/notebook"
  instance_type = "ml.p5.48xlarge"
}
"""


@needs_git
def test_local_module_changed_alone_is_read_with_its_callers_inputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "modules/notebook/main.tf": MODULE,
            "envs/prod.tf": CALLER,
            "envs/own.tf": TF_MAIN.replace("var.notebook_type", '"ml.p5.48xlarge"'),
        },
    )
    _, report = scan(root, monkeypatch, "modules/notebook/main.tf")
    # the caller's own p5 notebook does not depend on the module: not reported
    assert where(report) == [("modules/notebook/main.tf", 8, "FIN301")]
    assert report["summary"]["context_files"] == 2
    _, alone = scan(root, monkeypatch, "modules/notebook/main.tf", "--no-context")
    assert where(alone) == []  # the variable has no value without its caller
    # a change to the caller reaches its own resources and the module it calls
    _, caller = scan(root, monkeypatch, "envs/prod.tf")
    assert where(caller) == [("envs/own.tf", 4, "FIN301"), ("modules/notebook/main.tf", 8, "FIN301")]
    assert caller["findings"][1]["message"].endswith("(linked through changed file envs/prod.tf)")


# --- Helm charts --------------------------------------------------------------------------------

CHART_PV = """apiVersion: v1
kind: PersistentVolume
metadata:
  name: checkpoints-pv
spec:
  capacity:
    storage: 100Gi
  accessModes: [ReadWriteMany]
  csi:
    driver: efs.csi.aws.com
    volumeHandle: fs-0123456789abcdef0
"""


@needs_git
def test_helm_values_changed_pulls_in_its_chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The chart is pulled in whole and rendered (issue 11: a helm binary, the finlint[helm]
    # extra, or the tolerant reader); its templates share values.yaml.
    root = repo(
        tmp_path,
        {
            "charts/train/Chart.yaml": "apiVersion: v2\nname: train\nversion: 0.1.0\n",
            "charts/train/values.yaml": "replicas: 2\n",
            "charts/train/templates/pv.yaml": CHART_PV,
            "charts/train/templates/job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n"
            "  name: {{ .Release.Name }}\n",
            "other/pv.yaml": CHART_PV,
        },
    )
    _, report = scan(root, monkeypatch, "charts/train/values.yaml")
    assert where(report) == [("charts/train/templates/pv.yaml", 4, "FIN401")]
    assert "linked through changed file charts/train/values.yaml" in report["findings"][0]["message"]
    assert report["summary"]["context_files"] == 4  # the chart unit: Chart.yaml, values.yaml, 2 templates
    # the templated job is rendered (or read by the tolerant reader), never skipped; the one
    # notice says which renderer was used
    assert [n["file"] for n in report["notices"]] == ["charts/train/Chart.yaml"]
    assert "Helm charts" in report["notices"][0]["message"]
    _, report = scan(root, monkeypatch, "charts/train/templates/job.yaml")
    assert where(report) == []  # a template does not link its sibling templates
    assert not [n for n in report["notices"] if "skipped template" in n["message"]]


CHART_STORAGE = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: {{ .Values.storageClass }}
provisioner: efs.csi.aws.com
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: {{ .Release.Name }}-state
spec:
  storageClassName: {{ .Values.storageClass }}
  accessModes: [ReadWriteMany]
  resources:
    requests:
      storage: 100Gi
"""
CHART_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: {{ .Release.Name }}-train
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: trainer:1
          args: ["--checkpoint-dir=/state/ckpt"]
          volumeMounts:
            - name: state
              mountPath: /state
      volumes:
        - name: state
          persistentVolumeClaim:
            claimName: {{ .Release.Name }}-state
"""


@needs_git
def test_helm_template_changed_reports_the_sibling_job_it_now_affects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 17: a Helm template changed alone (the storage template now says EFS) reports the
    job template that checkpoints through it, at the job's own line, naming the changed file."""
    root = repo(
        tmp_path,
        {
            "charts/train/Chart.yaml": "apiVersion: v2\nname: train\nversion: 0.1.0\n",
            "charts/train/values.yaml": "storageClass: shared\n",
            "charts/train/templates/storage.yaml": CHART_STORAGE,
            "charts/train/templates/job.yaml": CHART_JOB,
        },
    )
    _, report = scan(root, monkeypatch, "charts/train/templates/storage.yaml")
    found = [f for f in report["findings"] if f["rule_id"] == "FIN401"]
    assert found, report
    assert {f["file"] for f in found} <= {
        "charts/train/templates/job.yaml",
        "charts/train/templates/storage.yaml",
    }
    through_job = [f for f in found if f["file"] == "charts/train/templates/job.yaml"]
    assert (
        through_job
        and "linked through changed file charts/train/templates/storage.yaml" in (through_job[0]["message"])
    )


# --- launchers and their config files ------------------------------------------------------------

LAUNCHER = """import yaml
from sagemaker.pytorch import PyTorch

cfg = yaml.safe_load(open("config.yaml"))
est = PyTorch(
    entry_point="train.py",
    role="arn:aws:iam::111122223333:role/R",
    framework_version="2.1",
    py_version="py310",
    instance_type=cfg["instance_type"],
    instance_count=1,
)
est.fit()
"""


@needs_git
def test_launcher_config_changed_pulls_in_the_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "train/launch.py": LAUNCHER,
            "train/config.yaml": "instance_type: ml.p5.48xlarge\n",
            "train/other.py": "print('unrelated')\n",
        },
    )
    _, report = scan(root, monkeypatch, "train/config.yaml")
    assert report["summary"]["context_files"] == 1  # launch.py names config.yaml; other.py does not
    # The launch reads its instance type from config.yaml (issue 12): its record lists the file
    # in Record.inputs, so the launch is reported through it; FIN301 points at the value.
    assert where(report) == [("train/config.yaml", 1, "FIN301"), ("train/launch.py", 5, "FIN101")]


def _finding(file: str, inputs: tuple[str, ...] = ()) -> Finding:
    record = TrainingJob(
        address="est", location=Location(file, 5, 12), source_format="sagemaker-sdk", inputs=inputs
    )
    return Finding("FIN301", "oversized-p5", "high", file, 10, 10, "est", "msg", record=record)


def test_a_record_naming_its_input_files_is_reported_through_them(tmp_path: Path) -> None:
    plan = ContextPlan(tmp_path, [], given={"train/config.yaml"})
    linked = _finding("train/launch.py", inputs=("train/config.yaml",))
    assert plan.part_of_change(linked)
    assert linked.message == "msg (linked through changed file train/config.yaml)"
    assert not plan.part_of_change(_finding("train/launch.py", inputs=("train/other.yaml",)))
    assert not plan.part_of_change(_finding("train/launch.py"))
    plan.units.append(Unit(frozenset({"train/launch.py"}), frozenset({"train/config.yaml"})))
    assert plan.part_of_change(_finding("train/launch.py"))


# --- diff and baseline --------------------------------------------------------------------------


@needs_git
def test_diff_counts_a_finding_through_a_changed_file_as_new_only_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = k8s_repo(tmp_path, provisioner="fsx.csi.aws.com")
    classes = root / "platform/storage/classes.yaml"
    classes.write_text(STORAGE_CLASS.format(provisioner="efs.csi.aws.com"), encoding="utf-8")
    monkeypatch.chdir(root)
    out = CliRunner().invoke(main, ["diff", "HEAD", "platform/storage/classes.yaml", "--format", "json"])
    data = json.loads(out.output)
    assert out.exit_code == 1
    assert [(f["file"], f["line"]) for f in data["findings"] if not f.get("baseline")] == [
        ("apps/train/job.yaml", JOB_ARGS_LINE)
    ]
    assert data["comparison"]["new"] == 1
    git(root, "commit", "-qam", "efs")
    classes.write_text(classes.read_text() + "# a comment\n", encoding="utf-8")
    out = CliRunner().invoke(main, ["diff", "HEAD", "platform/storage/classes.yaml", "--format", "json"])
    data = json.loads(out.output)
    assert out.exit_code == 0, out.output
    assert (data["comparison"]["new"], data["comparison"]["unchanged"]) == (0, 1)


@needs_git
def test_baseline_of_a_full_scan_covers_a_finding_reported_through_a_changed_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = k8s_repo(tmp_path)
    monkeypatch.chdir(root)
    assert CliRunner().invoke(main, ["scan", ".", "--write-baseline", "base.json"]).exit_code == 0
    code, report = scan(root, monkeypatch, "platform/storage/classes.yaml", "--baseline", "base.json")
    assert code == 0
    assert [f.get("baseline") for f in report["findings"]] == [True]


# --- root, sniffing and the cache ------------------------------------------------------------------


def test_root_is_git_root_else_config_folder_else_common_parent(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "c").mkdir()
    files = [tmp_path / "a" / "b" / "x.yaml", tmp_path / "a" / "c" / "y.yaml"]
    assert find_root(files) == tmp_path / "a"
    assert find_root(files, tmp_path / ".finlint.yaml") == tmp_path
    (tmp_path / "a" / ".git").write_text("gitdir: elsewhere\n")  # a worktree's .git is a file
    assert find_root(files, tmp_path / ".finlint.yaml") == tmp_path / "a"


def test_sniff_finds_definitions_and_references(tmp_path: Path) -> None:
    sniff = sniff_text(tmp_path / "x.yaml", CLAIMS + "---\n" + JOB, tmp_path)
    assert "team-data" in sniff.defines and "finetune" not in sniff.defines
    assert set(sniff.refs) == {"team-shared", "team-data"}
    as_json = sniff_text(
        tmp_path / "x.json", json.dumps({"kind": "StorageClass", "metadata": {"name": "s"}}), tmp_path
    )
    assert as_json.defines == ("s",)
    tf = sniff_text(tmp_path / "envs" / "prod.tf", CALLER, tmp_path)
    assert tf.module_dirs == ("modules/notebook",)


def test_sniff_cache_is_outside_the_repository_and_follows_changes(tmp_path: Path, _cache: Path) -> None:
    root = tmp_path / "r"
    root.mkdir()
    claims = root / "claims.yaml"
    claims.write_text(CLAIMS, encoding="utf-8")
    index = RepoIndex(root, lambda p: False)
    assert "team-shared" in index.sniff(claims).refs
    index.save()
    assert list(_cache.glob("context-*.json")) and not list(root.glob("*.json"))
    again = RepoIndex(root, lambda p: False)
    again._read_sniff = None  # type: ignore[assignment,method-assign]  # must come from the cache
    assert "team-shared" in again.sniff(claims).refs
    claims.write_text(CLAIMS.replace("team-shared", "other-class-name"), encoding="utf-8")
    fresh = RepoIndex(root, lambda p: False)
    assert "other-class-name" in fresh.sniff(claims).refs


@needs_git
def test_hostile_repository_files_cost_context_not_the_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = k8s_repo(tmp_path)
    (root / "platform" / "binary.yaml").write_bytes(b"\x00\xff\xfe kind: StorageClass\n")
    (root / "platform" / "latin1.yaml").write_bytes(
        "kind: PersistentVolumeClaim\nname: caf\xe9\n".encode("latin-1")
    )
    (root / "platform" / "dangling.yaml").symlink_to(root / "nowhere.yaml")
    (root / "platform" / "loop").symlink_to(root / "platform")
    code, report = scan(root, monkeypatch, "apps/train/job.yaml")
    assert code == 1 and where(report) == [("apps/train/job.yaml", JOB_ARGS_LINE, "FIN401")]
    assert report["errors"] == []  # context files' problems are not the change's


TF_STORAGE = """resource "kubernetes_storage_class_v1" "shared" {
  metadata {
    name = "team-shared"
  }
  storage_provisioner = "efs.csi.aws.com"
}

resource "kubernetes_persistent_volume_claim_v1" "data" {
  metadata {
    name      = "team-data"
    namespace = "ml"
  }
  spec {
    access_modes       = ["ReadWriteMany"]
    storage_class_name = "team-shared"
  }
}
"""


@needs_git
def test_claim_and_class_in_terraform_are_context_for_a_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(tmp_path, {"apps/train/job.yaml": JOB, "infra/k8s/storage.tf": TF_STORAGE})
    _, report = scan(root, monkeypatch, "apps/train/job.yaml")
    assert where(report) == [("apps/train/job.yaml", JOB_ARGS_LINE, "FIN401")]
    assert report["summary"]["context_files"] == 1
    # and the other way: the Terraform storage changed reports the manifest's job through it
    _, report = scan(root, monkeypatch, "infra/k8s/storage.tf")
    assert where(report) == [("apps/train/job.yaml", JOB_ARGS_LINE, "FIN401")]
    assert report["findings"][0]["message"].endswith("(linked through changed file infra/k8s/storage.tf)")


def test_a_huge_folder_outside_a_repository_is_searched_only_in_part(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import finlint.context.index as index

    monkeypatch.setattr(index, "MAX_CANDIDATES", 2)
    for n in range(4):
        (tmp_path / f"d{n}").mkdir()
        (tmp_path / f"d{n}" / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    _, report = scan(tmp_path, monkeypatch, "job.yaml")
    assert report["summary"]["context_files"] <= 2
    assert any("more than 2 candidate files" in n["message"] for n in report["notices"])


def test_a_slow_search_stops_at_its_read_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file passed from a huge folder outside any repository must not cost minutes: reading
    candidates stops at a byte/time budget, with a notice (seen: 120 s for a job in /tmp)."""
    import finlint.context.index as index

    monkeypatch.setattr(index, "MAX_SNIFF_TOTAL_BYTES", len(CLAIMS) + 10)
    for n in range(4):
        (tmp_path / f"d{n}").mkdir()
        (tmp_path / f"d{n}" / "claims.yaml").write_text(CLAIMS, encoding="utf-8")
    (tmp_path / "job.yaml").write_text(JOB, encoding="utf-8")
    _, report = scan(tmp_path, monkeypatch, "job.yaml")
    assert any("stopped reading candidate files" in n["message"] for n in report["notices"])


def test_context_files_are_capped_nearest_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Thousands of copies of a claim name (seen: pytest temp dirs under /tmp) are not all read."""
    import finlint.context as context

    monkeypatch.setattr(context, "MAX_CONTEXT_FILES", 1)
    root = repo(
        tmp_path,
        {"near/job.yaml": JOB, "near/claims.yaml": CLAIMS, "far/deep/er/claims.yaml": CLAIMS},
    )
    _, report = scan(root, monkeypatch, "near/job.yaml")
    assert report["summary"]["context_files"] == 1
    assert any("only the 1 nearest were read" in n["message"] for n in report["notices"])


def test_fifos_and_devices_in_the_repository_are_never_sniffed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: a FIFO named *.yaml beside the changed file hung the context search forever."""
    import os

    root = repo(tmp_path, {"apps/job.yaml": JOB, "platform/claims.yaml": CLAIMS})
    os.mkfifo(root / "platform" / "pipe.yaml")
    os.symlink("/dev/zero", root / "platform" / "zero.yaml")
    code, report = scan(root, monkeypatch, "apps/job.yaml")
    assert code in (0, 1) and report["summary"]["context_files"] >= 1


# --- Kubernetes training: the pools pods land on, a TrainJob's runtime ----------------------------

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "kubernetes"


@needs_git
def test_a_changed_job_is_priced_from_the_pool_it_lands_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    landing = _FIXTURES / "bad" / "karpenter-landing"
    root = repo(
        tmp_path,
        {
            "apps/bert/pytorchjob.yaml": (landing / "pytorchjob-bert.yaml").read_text("utf-8"),
            "platform/karpenter/nodepools.yaml": (landing / "nodepool-gpu-spot.yaml").read_text("utf-8"),
            "platform/unrelated.yaml": UNRELATED,
        },
    )
    _, report = scan(root, monkeypatch, "apps/bert/pytorchjob.yaml")
    assert report["summary"]["context_files"] == 1  # the pools; not the unrelated manifest
    assert where(report) == [
        ("apps/bert/pytorchjob.yaml", 3, "FIN101"),
        ("apps/bert/pytorchjob.yaml", 15, "FIN201"),
    ]
    fin101 = report["findings"][0]
    assert fin101["cost"]["assumptions"]["instance_type"] == "g5.24xlarge"


@needs_git
def test_a_changed_trainjob_reads_its_runtime_and_a_changed_runtime_its_trainjobs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trainer = _FIXTURES / "bad" / "trainer-runtime"
    root = repo(
        tmp_path,
        {
            "jobs/trainjob.yaml": (trainer / "trainjob-llama.yaml").read_text("utf-8"),
            "runtimes/runtime.yaml": (trainer / "cluster-training-runtime.yaml").read_text("utf-8"),
        },
    )
    _, report = scan(root, monkeypatch, "jobs/trainjob.yaml")
    assert report["summary"]["context_files"] == 1
    (finding,) = report["findings"]
    assert (finding["file"], finding["line"], finding["rule_id"]) == ("runtimes/runtime.yaml", 15, "FIN101")
    assert "linked through changed file jobs/trainjob.yaml" in finding["message"]
    _, report = scan(root, monkeypatch, "runtimes/runtime.yaml")
    assert report["summary"]["context_files"] == 1
    assert where(report) == [("runtimes/runtime.yaml", 15, "FIN101")]
