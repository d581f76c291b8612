"""What finlint writes when the scanned repository is hostile (issue 24 items 5, 6, 7, 9).

Each test builds a hostile tree in a temporary folder and runs the real CLI.
"""

from __future__ import annotations

import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from finlint.cli import main

REPO = Path(__file__).resolve().parents[2]
HOSTILE_NAME = (
    "x\n::error file=a.py,line=1::forged\n::stop-commands::t\x1b]0;pwn\x07\x1b[31m\x00"
    " @alice ![i](https://e.invalid/x.png) [l](https://e.invalid) <img src=x>"
)

NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {name}
spec:
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["p"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["4"]
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
"""

CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def hostile_tree(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pool.yaml").write_text(NODEPOOL.format(name=json.dumps(HOSTILE_NAME)), encoding="utf-8")
    return root


def live_markdown(text: str) -> str:
    """The Markdown outside code spans (mentions and links are inert inside one)."""
    return re.sub(r"`[^`\n]*`", "", text)


def run(args: list[str], env: dict[str, str] | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, args, env=env, catch_exceptions=False)
    return result.exit_code, result.output


def report(tmp_path: Path, fmt: str) -> str:
    root = hostile_tree(tmp_path)
    out = tmp_path / f"report.{fmt}"
    code, output = run(["scan", str(root), "--format", fmt, "-o", str(out), "--exit-zero"])
    assert code == 0, output
    return out.read_text(encoding="utf-8")


def test_the_hostile_name_is_found() -> None:
    doc = yaml.safe_load(NODEPOOL.format(name=json.dumps(HOSTILE_NAME)))
    assert doc["metadata"]["name"] == HOSTILE_NAME


def test_github_output_has_no_forged_workflow_command(tmp_path: Path) -> None:
    text = report(tmp_path, "github")
    assert "FIN" in text
    for line in text.splitlines():
        if line.startswith("::"):
            assert re.match(r"::(error|warning|notice) [^\n]*::", line), line
            assert not line.startswith(("::stop-commands", "::error file=a.py"))
    assert not CONTROL.search(text)


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit", "github"])
def test_no_control_character_reaches_a_human_readable_report(tmp_path: Path, fmt: str) -> None:
    text = report(tmp_path, fmt)
    assert "FIN" in text
    assert not CONTROL.search(text), repr(CONTROL.search(text))
    if fmt in ("text", "github"):
        assert not any(
            line.startswith("::stop-commands") or line.startswith("::error file=a.py")
            for line in text.splitlines()
        )


def test_text_to_stdout_has_no_escape_codes(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    code, output = run(["scan", str(root), "--no-color", "--exit-zero"])
    assert "FIN" in output
    assert "\x1b" not in output and "\x00" not in output
    assert not any(line.startswith("::") for line in output.splitlines())


def test_junit_is_valid_xml(tmp_path: Path) -> None:
    ET.fromstring(report(tmp_path, "junit").encode("utf-8"))


def test_markdown_has_no_live_mention_image_link_or_html(tmp_path: Path) -> None:
    text = report(tmp_path, "markdown")
    assert "FIN" in text
    live = live_markdown(text)
    assert "@alice" not in live
    assert "![" not in live and not re.search(r"(?<!\\)\]\(", live) and "<img" not in live


def test_job_summary_is_escaped(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    summary = tmp_path / "summary.md"
    code, output = run(
        ["scan", str(root), "--format", "github", "--exit-zero"], env={"GITHUB_STEP_SUMMARY": str(summary)}
    )
    text = summary.read_text(encoding="utf-8")
    assert "FIN" in text and not CONTROL.search(text)
    assert "@alice" not in live_markdown(text)


needs_bytes_names = pytest.mark.skipif(
    sys.platform in ("win32", "darwin"), reason="needs a file system that takes any bytes in a name"
)


@needs_bytes_names
@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "junit", "sarif", "gitlab", "github"])
def test_a_non_utf8_file_name_does_not_crash_or_truncate_the_old_report(tmp_path: Path, fmt: str) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    name = os.fsdecode(b"pool-\xff.yaml")
    (root / name).write_text(NODEPOOL.format(name="gpu"), encoding="utf-8")
    out = tmp_path / "report.out"
    out.write_text("old report\n", encoding="utf-8")
    summary = tmp_path / "summary.md"
    code, output = run(
        ["scan", str(root), "--format", fmt, "-o", str(out), "--exit-zero"],
        env={"GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert code == 0, output
    text = out.read_text(encoding="utf-8")
    assert "FIN" in text
    if fmt == "github":
        assert "FIN" in summary.read_text(encoding="utf-8")


def test_output_through_a_committed_symlink_is_refused(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    link = root / "finlint.json"
    link.symlink_to(victim)
    code, output = run(["scan", str(root), "--format", "json", "-o", str(link)])
    assert code == 2, output
    assert "symbolic link" in output
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert link.is_symlink()


def test_dangling_symlink_is_not_created_through(tmp_path: Path) -> None:
    root = hostile_tree(tmp_path)
    target = tmp_path / "created-elsewhere.txt"
    link = root / "report.sarif"
    link.symlink_to(target)
    code, output = run(["scan", str(root), "--format", "sarif", "-o", str(link)])
    assert code == 2, output
    assert not target.exists()


def test_report_replaces_atomically_and_a_failure_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = hostile_tree(tmp_path)
    out = tmp_path / "report.json"
    out.write_text("old\n", encoding="utf-8")
    from finlint.post import atomic as outputs

    def boom(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(outputs.os, "replace", boom)
    with pytest.raises(KeyboardInterrupt):
        outputs.write_file(out, "new\n")
    assert out.read_text(encoding="utf-8") == "old\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []
    assert root.exists()


@pytest.mark.parametrize("flag", ["-o", "--write-baseline"])
def test_writing_over_an_input_file_is_refused(tmp_path: Path, flag: str) -> None:
    root = hostile_tree(tmp_path)
    pool = root / "pool.yaml"
    before = pool.read_bytes()
    for args in (["scan", str(root), flag, str(pool)], ["scan", str(pool), flag, str(pool)]):
        code, output = run(args)
        assert code == 2, output
        assert "being scanned" in output
        assert pool.read_bytes() == before


def test_diff_never_writes_over_an_input_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`finlint diff REF -o FILE` with FILE in the scanned tree: refused (it overwrote it)."""
    import subprocess

    root = hostile_tree(tmp_path)
    git = ["git", "-c", "user.email=a@b", "-c", "user.name=a"]
    if subprocess.run(["git", "init", "-q", str(root)], capture_output=True, check=False).returncode:
        pytest.skip("git is not installed")
    subprocess.run([*git, "-C", str(root), "add", "."], check=True, capture_output=True)
    subprocess.run([*git, "-C", str(root), "commit", "-qm", "x"], check=True, capture_output=True)
    monkeypatch.chdir(root)
    before = Path("pool.yaml").read_bytes()
    code, output = run(["diff", "HEAD", ".", "-o", "pool.yaml"])
    assert code == 2 and "being scanned" in output, output
    assert Path("pool.yaml").read_bytes() == before


def test_double_dash_makes_option_like_file_names_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = hostile_tree(tmp_path)
    monkeypatch.chdir(root)
    Path("--exclude=*.yaml").write_text(NODEPOOL.format(name="gpu2"), encoding="utf-8")
    code, output = run(["scan", "--format", "json", "--", "--exclude=*.yaml", "pool.yaml"])
    data = json.loads(output)
    files = {f["file"] for f in data["findings"]}
    assert any("--exclude" in f for f in files), files
    assert any("pool.yaml" in f for f in files), files


def test_precommit_hook_ends_options_before_file_names() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    scan = next(h for h in hooks if h["id"] == "finlint")
    assert scan["entry"].split()[-1] == "--"
    assert scan.get("pass_filenames", True)
