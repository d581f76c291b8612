"""GitLab Code Quality output, and ``--format auto``.

The report is validated against GitLab's own schema (vendored in ``tests/schemas`` with its
source) and against a stricter schema of GitLab's documented format; fingerprints are the SARIF
ones and survive lines moving.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK, SUPPRESSED_P5_NOTEBOOK, training_request

from finlint.cli import main
from finlint.finding import SEVERITIES, Finding
from finlint.reporters import gitlab
from finlint.reporters.auto import detect

SCHEMAS = Path(__file__).parent / "schemas"
GITLAB_SCHEMA = json.loads((SCHEMAS / "gitlab-codeclimate.json").read_text("utf-8"))
DOCUMENTED_SCHEMA = json.loads((SCHEMAS / "gitlab-codequality-documented.json").read_text("utf-8"))
NOTEBOOK = P5_NOTEBOOK + SUPPRESSED_P5_NOTEBOOK
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


@pytest.fixture(autouse=True)
def _no_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_ACTIONS", "GITLAB_CI", "GITHUB_STEP_SUMMARY", "CI_PROJECT_DIR"):
        monkeypatch.delenv(name, raising=False)


def write_tree(root: Path, notebook: str = NOTEBOOK) -> None:
    (root / "infra").mkdir(parents=True, exist_ok=True)
    (root / "infra" / "notebook.yaml").write_text(notebook, encoding="utf-8")
    (root / "jobs").mkdir(exist_ok=True)
    (root / "jobs" / "train.json").write_text(json.dumps(training_request(), indent=2), encoding="utf-8")


# FIN302 fires on the same p5 sample notebooks as FIN301 (no auto-stop) and is counted once
# with it; these reporter tests are written against the FIN301 findings.
IGNORE = ("--ignore", "FIN302")


def run(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["scan", *IGNORE, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def report(root: Path, monkeypatch: pytest.MonkeyPatch, *paths: str) -> list[dict[str, Any]]:
    code, out = run(root, monkeypatch, *(paths or (".",)), "--format", "gitlab")
    assert code == 1, out
    data: list[dict[str, Any]] = json.loads(out)
    return data


def assert_valid(data: list[dict[str, Any]]) -> None:
    """Every entry passes GitLab's schema, the whole report the documented format."""
    for entry in data:
        jsonschema.Draft7Validator(GITLAB_SCHEMA).validate(entry)
    jsonschema.Draft202012Validator(DOCUMENTED_SCHEMA).validate(data)
    prints = [e["fingerprint"] for e in data]
    assert len(prints) == len(set(prints)), "GitLab keys entries by fingerprint: a duplicate is lost"


def test_schemas_reject_what_gitlab_rejects() -> None:
    """The validators are not vacuous: entries GitLab would drop fail them."""
    good = {
        "description": "x",
        "check_name": "FIN101",
        "fingerprint": "abc",
        "severity": "major",
        "location": {"path": "a/b.tf", "lines": {"begin": 3}},
    }
    assert_valid([good])
    with pytest.raises(jsonschema.ValidationError):
        no_print = {k: v for k, v in good.items() if k != "fingerprint"}
        jsonschema.Draft7Validator(GITLAB_SCHEMA).validate(no_print)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(GITLAB_SCHEMA).validate({**good, "location": {"lines": {"begin": "3"}}})
    for bad in (
        {**good, "severity": "high"},
        {**good, "location": {"path": "./a/b.tf", "lines": {"begin": 3}}},
        {**good, "location": {"path": "/abs/b.tf", "lines": {"begin": 3}}},
        {**good, "location": {"path": "a/b.tf", "lines": {"begin": 0}}},
        {k: v for k, v in good.items() if k != "check_name"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft202012Validator(DOCUMENTED_SCHEMA).validate([bad])


def test_demo_report_is_valid_and_ranked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = report(DEMO.parent.parent, monkeypatch, "fixtures/demo")
    assert_valid(data)
    assert len(data) == 28  # every active demo finding but FIN302 (ignored here; the text count is 31)
    # the dearest first: the pool's ceiling, one p6-b200.48xlarge node-month ($113.9328/h x 730),
    # which FIN301 and FIN304 state alike (one definition, issue 26)
    assert {e["check_name"] for e in data[:2]} == {"FIN301", "FIN304"}
    top = next(e for e in data[:2] if e["check_name"] == "FIN304")
    assert top["severity"] == "critical"
    assert top["location"] == {
        "path": "fixtures/demo/kubernetes/karpenter-gpu-nodepool.yaml",
        "lines": {"begin": 17, "end": 17},
    }
    assert "$83,171/month, exposure" in top["description"]
    assert all(e["description"].startswith(e["check_name"] + " ") for e in data)


def test_severity_mapping() -> None:
    assert [gitlab.severity(s) for s in SEVERITIES] == ["info", "minor", "major", "critical", "blocker"]


def test_dollars_in_description_and_suppressed_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path)
    data = report(tmp_path, monkeypatch)
    assert_valid(data)
    by_path = {(e["location"]["path"], e["check_name"]): e for e in data}
    assert set(by_path) == {("infra/notebook.yaml", "FIN301"), ("jobs/train.json", "FIN101")}
    job = by_path[("jobs/train.json", "FIN101")]
    assert "(estimated $36.48/month, exposure)" in job["description"]  # ml.g5.2xlarge $1.52/h x 24 h cap
    assert job["severity"] == "critical"
    assert "ReservedNotebook" not in json.dumps(data)  # suppressed in source with a reason


def test_fingerprints_are_sarifs_and_stable_when_lines_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path)
    before = report(tmp_path, monkeypatch)
    _, sarif_out = run(tmp_path, monkeypatch, ".", "--format", "sarif")
    sarif_prints = {
        r["partialFingerprints"]["finlint/v1"] for r in json.loads(sarif_out)["runs"][0]["results"]
    }
    assert {e["fingerprint"] for e in before} <= sarif_prints

    header = 'Description: "GPU"\nParameters:\n  Env:\n    Type: String\n'
    moved = NOTEBOOK.replace("Resources:\n", header + "Resources:\n")
    write_tree(tmp_path, moved)
    after = report(tmp_path, monkeypatch)

    def lines(data: list[dict[str, Any]]) -> dict[str, int]:
        return {e["fingerprint"]: e["location"]["lines"]["begin"] for e in data}

    old, new = lines(before), lines(after)
    assert set(old) == set(new)  # the same findings for GitLab...
    moved_prints = {k for k in new if new[k] != old[k]}
    assert moved_prints and all(new[k] - old[k] == 4 for k in moved_prints)  # ...at their new lines

    write_tree(tmp_path, NOTEBOOK.replace("ResearchNotebook", "OtherNotebook"))
    assert set(lines(report(tmp_path, monkeypatch))) != set(old)  # another resource: another finding


def test_paths_are_repository_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert gitlab.repo_path("./infra/a.tf") == "infra/a.tf"
    assert gitlab.repo_path(str(tmp_path / "infra" / "a.tf"), root=str(tmp_path)) == "infra/a.tf"
    outside = tmp_path / "elsewhere" / "a.tf"
    assert gitlab.repo_path(str(outside), root=str(tmp_path / "repo")) == str(outside)  # not under it
    # a scan of an absolute path outside the CWD, as in a GitLab job that scans $CI_PROJECT_DIR
    write_tree(tmp_path)
    monkeypatch.setenv("CI_PROJECT_DIR", str(tmp_path))
    elsewhere = tmp_path.parent
    monkeypatch.chdir(elsewhere)
    out = CliRunner().invoke(main, ["scan", str(tmp_path / "infra"), "--format", "gitlab", *IGNORE]).output
    (entry,) = json.loads(out)
    assert entry["location"]["path"] == "infra/notebook.yaml"
    assert_valid([entry])


def test_unpriced_and_parse_errors_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken.yaml").write_text("Resources:\n  A: [unclosed\n", encoding="utf-8")
    (tmp_path / "odd.json").write_text(
        json.dumps(training_request(instance_type="ml.unknown.9xlarge")), encoding="utf-8"
    )
    data = report(tmp_path, monkeypatch)
    assert_valid(data)
    checks = {e["check_name"]: e for e in data}
    assert checks["FIN000"]["location"]["path"] == "broken.yaml"
    assert checks["FIN101"]["description"].endswith("(not priced)")


def test_description_is_one_bounded_line() -> None:
    f = Finding("FIN101", "x", "high", "a.tf", 3, 3, "r", "line one\nline two " + "y" * 3000)
    text = gitlab.description(f)
    assert "\n" not in text and len(text) <= gitlab.MAX_DESCRIPTION and text.endswith("…")


def test_auto_detect() -> None:
    assert detect({"GITHUB_ACTIONS": "true"}) == "github"
    assert detect({"GITLAB_CI": "true"}) == "gitlab"
    assert detect({"GITHUB_ACTIONS": "true", "GITLAB_CI": "true"}) == "github"
    assert detect({"GITLAB_CI": "false", "CI": "true"}) == "text"
    assert detect({}) == "text"


@pytest.mark.parametrize(
    ("env", "check"),
    [
        (
            {"GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": ""},
            lambda out: "::error file=infra/notebook.yaml,line=6," in out,
        ),
        (
            {"GITLAB_CI": "true"},
            lambda out: json.loads(out)[0]["check_name"] == "FIN302",
        ),  # the dearest first
        ({}, lambda out: "finding(s)" in out.splitlines()[-1] and not out.startswith("[")),
    ],
)
def test_format_auto_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], check: Any
) -> None:
    write_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner(env=env).invoke(main, ["scan", ".", "--format", "auto"])
    assert result.exit_code == 1, result.output
    assert check(result.output), result.output


def test_docs_gitlab_job(tmp_path: Path) -> None:
    """docs/gitlab.md's job: valid YAML, publishes the file it writes, shell and Python that parse."""
    import re
    import shutil
    import subprocess

    import yaml

    text = (Path(__file__).resolve().parents[2] / "docs" / "gitlab.md").read_text("utf-8")
    (block,) = re.findall(r"```yaml\n(.*?)```", text, re.S)
    job = yaml.safe_load(block)["finlint"]
    assert job["artifacts"]["reports"]["codequality"] == "gl-code-quality-report.json"
    first, second = job["script"]
    assert "--format gitlab -o gl-code-quality-report.json" in first
    assert "finlint.html" in first and job["artifacts"]["paths"] == ["finlint.html"]
    script = tmp_path / "job.sh"
    script.write_text("\n".join(job["before_script"] + job["script"]) + "\n", encoding="utf-8")
    subprocess.run(["bash", "-n", str(script)], check=True)
    shellcheck = shutil.which("shellcheck")
    if shellcheck is not None:
        subprocess.run([shellcheck, "--shell=bash", "--severity=warning", str(script)], check=True)
    heredoc = re.search(r"<<'EOF'\n(.*?)\nEOF\n", second, re.S)
    assert heredoc is not None
    compile(heredoc.group(1), "note.py", "exec")
    assert "<!-- finlint-report -->" in heredoc.group(1)
    from finlint.reporters.markdown import MARKER

    assert MARKER == "<!-- finlint-report -->"
