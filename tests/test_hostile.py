"""Hostile trees (issue 10): each input used to crash or hang the whole scan and lose every
other file's findings. Now each costs one notice (or FIN000) and the scan goes on."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.conftest import scan_paths

from finlint.loaders.common.discovery import Limits, read_text
from finlint.scan import ScanOptions, lint

POSIX = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs, devices and permissions")

GOOD_REQUEST = """{
  "TrainingJobName": "x",
  "RoleArn": "arn:aws:iam::111122223333:role/R",
  "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50}
}
"""

P5_NOTEBOOK_TF = """resource "aws_sagemaker_notebook_instance" "nb" {
  name          = "big"
  role_arn      = "arn:aws:iam::111122223333:role/x"
  instance_type = "ml.p5.48xlarge"
}
"""


def rules_by_file(result: object) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for f in result.findings:  # type: ignore[attr-defined]
        out.setdefault(Path(f.file).name, set()).add(f.rule_id)
    return out


def notices_by_file(result: object) -> dict[str, str]:
    return {Path(n.file).name: n.message for n in result.notices}  # type: ignore[attr-defined]


def _can_drop_privileges() -> str | None:
    """Why the non-root test cannot run, or None."""
    if sys.platform == "win32":
        return "POSIX only"
    if os.geteuid() != 0:
        return None  # already unprivileged: run directly
    if shutil.which("setpriv") is None:
        return "running as root without setpriv to drop to nobody"
    probe = subprocess.run(
        [
            "setpriv",
            "--reuid=nobody",
            "--regid=nogroup",
            "--clear-groups",
            sys.executable,
            "-c",
            "import finlint",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        return f"nobody cannot import finlint here: {probe.stderr.strip()[-200:]}"
    return None


@pytest.fixture
def world_readable_dir() -> Iterator[Path]:
    """A temp dir the user nobody can read (pytest's tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="finlint-hostile-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for sub in path.rglob("*"):
            if sub.is_dir() and not sub.is_symlink():
                sub.chmod(0o755)
        shutil.rmtree(path, ignore_errors=True)


def test_unreadable_subdirectory_is_a_notice_and_the_scan_goes_on(world_readable_dir: Path) -> None:
    reason = _can_drop_privileges()
    if reason:
        pytest.skip(reason)
    root = world_readable_dir
    (root / "good.json").write_text(GOOD_REQUEST)
    (root / "good.json").chmod(0o644)
    sub = root / "private"
    sub.mkdir()
    (sub / "job.json").write_text(GOOD_REQUEST)
    sub.chmod(0)
    prefix = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.geteuid() == 0 else []
    cmd = [
        *prefix,
        sys.executable,
        "-c",
        "from finlint.cli import main; main()",
        "scan",
        str(root),
        "--format",
        "json",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 1, proc.stderr  # the good file's FIN101 fails the run
    data = json.loads(proc.stdout)
    assert [Path(f["file"]).name for f in data["findings"] if f["rule_id"] == "FIN101"] == ["good.json"]
    (notice,) = [n for n in data["notices"] if n["file"].endswith("private")]
    assert "cannot list directory" in notice["message"] and "Permission denied" in notice["message"]


@POSIX
def test_fifo_named_yaml_does_not_hang(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    os.mkfifo(tmp_path / "pipe.yaml")
    os.mkfifo(tmp_path / "pipe.tf")
    (tmp_path / "main.tf").write_text(P5_NOTEBOOK_TF)
    started = time.monotonic()
    result = scan_paths([tmp_path])
    assert time.monotonic() - started < 20
    assert "FIN101" in rules_by_file(result)["good.json"] and "FIN301" in rules_by_file(result)["main.tf"]
    notices = notices_by_file(result)
    assert "FIFO" in notices["pipe.yaml"] and "FIFO" in notices["pipe.tf"]
    assert not result.errors


@POSIX
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_symlink_to_a_device_is_not_read(tmp_path: Path, device: str) -> None:
    if not os.path.exists(device):
        pytest.skip(f"no {device}")
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    os.symlink(device, tmp_path / "dev.yaml")
    os.symlink(device, tmp_path / "dev.tf")
    (tmp_path / "main.tf").write_text(P5_NOTEBOOK_TF)
    result = scan_paths([tmp_path])
    assert "device" in notices_by_file(result)["dev.yaml"] and "device" in notices_by_file(result)["dev.tf"]
    assert "FIN301" in rules_by_file(result)["main.tf"]


@POSIX
def test_read_checks_the_open_descriptor_and_reads_bounded(tmp_path: Path) -> None:
    """Even when discovery is bypassed (a race, a direct call), a FIFO or device is not read."""
    os.mkfifo(tmp_path / "pipe.yaml")
    started = time.monotonic()
    error = read_text(tmp_path / "pipe.yaml", "pipe.yaml")
    assert not isinstance(error, str) and "not a regular file" in error.message
    if os.path.exists("/dev/zero"):
        error = read_text(Path("/dev/zero"), "zero", max_bytes=1024)
        assert not isinstance(error, str) and "not a regular file" in error.message
    assert time.monotonic() - started < 5
    (tmp_path / "big.yaml").write_text("a: " + "x" * 5000)
    error = read_text(tmp_path / "big.yaml", "big.yaml", max_bytes=1000)
    assert not isinstance(error, str) and "too large" in error.message


def test_read_sizes_the_first_read_from_fstat_and_still_reads_what_it_did_not_announce(
    tmp_path: Path,
) -> None:
    """A small file is read with one right-sized read (os.read allocates what it is asked
    for); a file whose size fstat does not tell (procfs says 0) is still read to its end."""
    from finlint.loaders.common.discovery import read_bytes

    (tmp_path / "job.yaml").write_text("a: 1\n" * 3000)
    asked: list[int] = []
    real = os.read

    def spy(fd: int, n: int) -> bytes:
        asked.append(n)
        return real(fd, n)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "read", spy)
        assert read_bytes(tmp_path / "job.yaml", 1 << 20) == b"a: 1\n" * 3000
    assert asked[0] == 15001 and len(asked) <= 2
    status = Path("/proc/self/status")
    if status.exists() and status.stat().st_size == 0:
        data = read_bytes(status, 1 << 20)
        assert isinstance(data, bytes) and b"Name:" in data and len(data) > 100


@POSIX
def test_a_fifo_given_on_the_command_line_is_a_notice(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")
    result = scan_paths([tmp_path / "pipe.yaml"])
    assert "FIFO" in notices_by_file(result)["pipe.yaml"] and not result.findings


@POSIX
def test_directory_symlink_is_reported_not_followed(tmp_path: Path) -> None:
    target = tmp_path / "real"
    target.mkdir()
    (target / "job.json").write_text(GOOD_REQUEST)
    os.symlink(target, tmp_path / "alias")
    result = scan_paths([tmp_path])
    assert "directory symlink not followed" in notices_by_file(result)["alias"]
    assert [Path(f.file).parent.name for f in result.findings if f.rule_id == "FIN101"] == ["real"]


def test_terraform_mutual_module_cycle_keeps_the_finding(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "main.tf").write_text('module "b" {\n  source = "../b"\n}\n')
    (tmp_path / "b" / "main.tf").write_text('module "a" {\n  source = "../a"\n}\n\n' + P5_NOTEBOOK_TF)
    result = scan_paths([tmp_path])
    fin301 = [f for f in result.findings if f.rule_id == "FIN301"]
    assert len(fin301) == 1 and Path(fin301[0].file).parent.name == "b" and fin301[0].line == 8
    assert any("cyclic" in n.message for n in result.notices)


def test_terraform_module_called_by_a_root_is_loaded_once(tmp_path: Path) -> None:
    """The cycle fix keeps the old rule: a module a root calls is not also loaded standalone."""
    (tmp_path / "root").mkdir()
    (tmp_path / "mod").mkdir()
    (tmp_path / "root" / "main.tf").write_text('module "m" {\n  source = "../mod"\n}\n')
    (tmp_path / "mod" / "main.tf").write_text(P5_NOTEBOOK_TF)
    result = scan_paths([tmp_path])
    (finding,) = [f for f in result.findings if f.rule_id == "FIN301"]
    assert finding.resource.startswith("module.m.")


def _configmap_list(items: int) -> str:
    out = ["apiVersion: v1", "kind: List", "items:"]
    for i in range(items):
        out += [
            "- apiVersion: v1",
            "  kind: ConfigMap",
            f"  metadata: {{name: cm-{i}, namespace: default}}",
            f'  data: {{key1: "value {i}", key2: "other {i}"}}',
        ]
    return "\n".join(out) + "\n"


def test_large_yaml_without_aliases_is_refused_fast_with_a_true_message(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    (tmp_path / "big.yaml").write_text(_configmap_list(3000))  # ~39,000 nodes, no aliases
    started = time.monotonic()
    result = lint(ScanOptions(paths=[tmp_path], limits=Limits(max_yaml_nodes=10_000)))
    elapsed = time.monotonic() - started
    (error,) = [f for f in result.findings if f.rule_id == "FIN000"]
    assert "more than 10,000 YAML/JSON nodes" in error.message and "--max-yaml-nodes" in error.message
    assert "alias" not in error.message
    assert "FIN101" in rules_by_file(result)["good.json"]
    assert elapsed < 10
    # the same file under the default limit loads (and nothing in it is a finding)
    result = scan_paths([tmp_path / "big.yaml"])
    assert not result.findings and not result.errors


def test_alias_bomb_is_still_called_an_alias_bomb(tmp_path: Path) -> None:
    lines = ["kind: ConfigMap", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n")
    (error,) = scan_paths([tmp_path]).findings
    assert "alias bomb" in error.message and "expand" in error.message


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "tsconfig.json",
            '{\n  // comments are fine in tsconfig\n  "compilerOptions": {"strict": true},\n}\n',
        ),
        (
            "mkdocs.yml",
            "site_name: x\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
            "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
        ),
        ("empty.json", ""),
    ],
)
def test_unclaimed_files_never_fail_the_run(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(text)
    result = scan_paths([tmp_path])
    assert not result.findings and not result.errors and result.exit_code("low") == 0


def test_a_broken_file_a_loader_would_claim_is_still_fin000(tmp_path: Path) -> None:
    (tmp_path / "template.json").write_text(
        '{\n  "AWSTemplateFormatVersion": "2010-09-09",\n  "Resources": {,}\n}\n'
    )
    (tmp_path / "pool.yaml").write_text("apiVersion: karpenter.sh/v1\nkind: NodePool\nspec: [x\n")
    assert rules_by_file(scan_paths([tmp_path])) == {"template.json": {"FIN000"}, "pool.yaml": {"FIN000"}}


def test_the_whole_hostile_set_together_gives_valid_json_with_every_planted_finding(
    world_readable_dir: Path,
) -> None:
    """Everything above in one tree, scanned by the CLI as an unprivileged user where possible."""
    root = world_readable_dir
    files = {
        "good.json": GOOD_REQUEST,  # planted: FIN101
        "cfn/nb.yaml": P5_NOTEBOOK_CFN,  # planted: FIN301
        "tf/a/main.tf": 'module "b" {\n  source = "../b"\n}\n',
        "tf/b/main.tf": 'module "a" {\n  source = "../a"\n}\n\n' + P5_NOTEBOOK_TF,  # planted: FIN301
        "bomb.yaml": "kind: ConfigMap\n" + _bomb(),
        "big.yaml": _configmap_list(400),
        "deep.json": '{"TrainingJobName": "x", "ResourceConfig": {"InstanceType": "ml.g5.2xlarge"}, '
        '"HyperParameters": ' + "[" * 5000 + "]" * 5000 + "}",  # claimed, then too deep
        "dup.yaml": "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  A: {Type: AWS::S3::Bucket}\n"
        "  A: {Type: AWS::S3::Bucket}\n",
        "pool.yaml": "apiVersion: karpenter.sh/v1\nkind: NodePool\n",
        "helm/nodepool.yaml": "apiVersion: karpenter.sh/v1\nkind: NodePool\n{{- if .Values.gpu }}\n",
        "tsconfig.json": '{\n  // comment\n  "compilerOptions": {},\n}\n',
        "mkdocs.yml": "site_name: x\nx: !!python/name:material.extensions.emoji.twemoji\n",
        "empty.json": "",
        "private/job.json": GOOD_REQUEST,
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (root / "blob.yaml").write_bytes(b"\x00\x01binary")
    (root / "latin1.yml").write_bytes(b"kind: caf\xe9\n")
    os.mkfifo(root / "pipe.yaml")
    os.symlink("/dev/zero", root / "zero.yaml")
    os.symlink(root, root / "loop")
    for path in root.rglob("*"):
        if not path.is_symlink() and path.is_dir():
            path.chmod(0o755)
        elif not path.is_symlink() and path.is_file():
            path.chmod(0o644)
    reason = _can_drop_privileges()
    prefix: list[str] = []
    if reason is None:
        (root / "private").chmod(0)
        prefix = (
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] if os.geteuid() == 0 else []
        )
    cmd = [*prefix, sys.executable, "-c", "from finlint.cli import main; main()", "scan", str(root)]
    cmd += ["--format", "json", "--max-yaml-nodes", "3000"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    data = json.loads(proc.stdout)
    found = {(f["rule_id"], Path(f["file"]).name, Path(f["file"]).parent.name) for f in data["findings"]}
    assert ("FIN101", "good.json", root.name) in found
    assert ("FIN301", "nb.yaml", "cfn") in found
    assert ("FIN301", "main.tf", "b") in found
    fin000 = {Path(f["file"]).name: f["message"] for f in data["findings"] if f["rule_id"] == "FIN000"}
    assert "alias bomb" in fin000["bomb.yaml"] and "3,000 YAML/JSON nodes" in fin000["big.yaml"]
    assert "nested too deeply" in fin000["deep.json"] and "duplicate key" in fin000["dup.yaml"]
    assert "has no `spec`" in fin000["pool.yaml"] and "binary" in fin000["blob.yaml"]
    assert "UTF-8" in fin000["latin1.yml"]
    assert not {"tsconfig.json", "mkdocs.yml", "empty.json"} & set(fin000)
    notices = {Path(n["file"]).name: n["message"] for n in data["notices"]}
    assert "FIFO" in notices["pipe.yaml"] and "device" in notices["zero.yaml"]
    assert "directory symlink" in notices["loop"] and "template" in notices["nodepool.yaml"]
    if reason is None:
        assert "cannot list directory" in notices["private"]


P5_NOTEBOOK_CFN = """AWSTemplateFormatVersion: "2010-09-09"
Resources:
  ResearchNotebook:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.p5.48xlarge
      RoleArn: arn:aws:iam::111122223333:role/R
"""


def _bomb() -> str:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"
