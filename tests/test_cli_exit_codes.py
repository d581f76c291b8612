"""Exit codes and messages CI can trust (issue 10): usage errors are exit 2, the budget is
stated in every format, rule ids are case-insensitive, nothing is silently lost."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK

from finlint.cli import main
from finlint.cli.progress import Progress

TF_P5 = """variable "itype" {
  type = string
}

resource "aws_sagemaker_notebook_instance" "nb" {
  name          = "nb"
  role_arn      = "arn:aws:iam::111122223333:role/x"
  instance_type = var.itype
}
"""


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", [["scan"], ["cost"], ["diff", "HEAD"]])
def test_missing_path_is_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    code, _, err = run(*command, str(tmp_path / "nope"))
    assert code == 2 and "does not exist" in err


@pytest.mark.parametrize("command", [["scan"], ["cost"], ["diff", "HEAD"]])
def test_missing_var_file_is_a_usage_error(tmp_path: Path, command: list[str]) -> None:
    (tmp_path / "main.tf").write_text(TF_P5)
    code, _, err = run(*command, str(tmp_path), "--var-file", str(tmp_path / "prod.tfvars"))
    assert code == 2 and "prod.tfvars" in err and "does not exist" in err


def test_unwritable_output_is_a_usage_error_before_scanning(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, _, err = run("scan", str(tmp_path), "--format", "json", "--output", str(blocker / "report.json"))
    assert code == 2 and "cannot write" in err
    code, _, err = run("scan", str(tmp_path), "--format", "json", "--output", str(tmp_path))
    assert code == 2 and "is a directory" in err
    code, _, err = run("scan", str(tmp_path), "--write-baseline", str(blocker / "b.json"))
    assert code == 2 and "cannot write" in err


@pytest.mark.parametrize("budget", ["nan", "-1", "inf", "-inf", "lots"])
def test_bad_budgets_are_rejected(tmp_path: Path, budget: str) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    code, _, err = run("scan", str(tmp_path), f"--max-monthly-usd={budget}")
    assert code == 2 and "--max-monthly-usd" in err


def test_nan_budget_in_config_is_rejected(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    (tmp_path / ".finlint.yaml").write_text("max-monthly-usd: .nan\n")
    code, _, err = run("scan", str(tmp_path), "--config", str(tmp_path / ".finlint.yaml"))
    assert code == 2 and "max-monthly-usd" in err


def test_budget_exceeded_is_said_in_every_format(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    base = ["scan", str(tmp_path), "--fail-on", "critical", "--max-monthly-usd", "1000"]
    code, out, _ = run(*base)
    assert code == 1 and "monthly budget exceeded" in out and "$1,000.00" in out
    data = json.loads(run(*base, "--format", "json")[1])
    assert (
        data["summary"]["budget"]["exceeded"] is True and data["summary"]["budget"]["max_monthly_usd"] == 1000
    )
    sarif = json.loads(run(*base, "--format", "sarif")[1])
    notes = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any(n["level"] == "error" and "budget exceeded" in n["message"]["text"] for n in notes)
    assert "monthly budget exceeded" in run(*base, "--format", "markdown")[1]
    assert "::error title=finlint budget::monthly budget exceeded" in run(*base, "--format", "github")[1]
    # within budget: exit 0, and the JSON says so; without a budget: null
    code, out, _ = run(
        "scan", str(tmp_path), "--fail-on", "critical", "--max-monthly-usd", "1e7", "--format", "json"
    )
    assert code == 0 and json.loads(out)["summary"]["budget"]["exceeded"] is False
    out = run("scan", str(tmp_path), "--format", "json")[1]
    assert json.loads(out)["summary"]["budget"] is None


def test_rule_ids_are_case_insensitive(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    assert run("scan", str(tmp_path), "--ignore", "fin301,fin302")[0] == 0
    assert run("scan", str(tmp_path), "--select", "fin3")[0] == 1
    assert run("scan", str(tmp_path), "--select", "OVERSIZED-P5")[0] == 1
    code, out, _ = run("rule", "fin301")
    assert code == 0 and "FIN301" in out
    (tmp_path / ".finlint.yaml").write_text("rules:\n  fin301:\n    severity: info\n")
    code, out, _ = run(
        "scan",
        str(tmp_path),
        "--config",
        str(tmp_path / ".finlint.yaml"),
        "--fail-on",
        "low",
        "--ignore",
        "fin302",
    )
    assert code == 0 and "FIN301 [info]" in out


def test_cost_reports_files_it_could_not_parse(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    (tmp_path / "broken.yaml").write_text("AWSTemplateFormatVersion: '2010-09-09'\nResources: [\n")
    code, out, _ = run("cost", str(tmp_path))
    assert code == 0 and "could not be read or parsed" in out and "broken.yaml:" in out
    data = json.loads(run("cost", str(tmp_path), "--format", "json")[1])
    assert [Path(e["file"]).name for e in data["errors"]] == ["broken.yaml"]


def test_cost_and_diff_take_terraform_vars(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(TF_P5)
    code, out, _ = run("cost", str(tmp_path), "--var", "itype=ml.p5.48xlarge", "--format", "json")
    assert code == 0 and "ml.p5.48xlarge" in out
    (tmp_path / "prod.tfvars").write_text('itype = "ml.p5.48xlarge"\n')
    code, out, _ = run("cost", str(tmp_path), "--var-file", str(tmp_path / "prod.tfvars"), "--format", "json")
    assert code == 0 and "ml.p5.48xlarge" in out
    code, out, _ = run("cost", str(tmp_path), "--format", "json")
    assert "ml.p5.48xlarge" not in out


def test_show_undetermined_keeps_the_count(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(TF_P5)
    code, out, _ = run("scan", str(tmp_path), "--show-undetermined")
    # FIN301 and FIN302 both need the notebook's instance type
    assert "[undetermined]" in out and "2 check(s) undetermined" in out.splitlines()[-1]


def test_own_report_and_baseline_files_are_not_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("report", "baseline"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "nb.yaml").write_text(P5_NOTEBOOK)
    monkeypatch.chdir(tmp_path / "report")
    for _ in range(2):  # the second run finds the first run's report.json: its own output
        run("scan", ".", "--format", "json", "--output", "report.json")
    assert json.loads(Path("report.json").read_text())["summary"]["files_scanned"] == 1
    monkeypatch.chdir(tmp_path / "baseline")
    code, _, err = run("scan", ".", "--write-baseline", "baseline.json")
    assert code == 0 and "wrote 2 finding(s)" in err  # FIN301 and FIN302 on the p5 notebook
    code, out, _ = run("scan", ".", "--baseline", "baseline.json")
    assert code == 0 and "in 1 file(s) scanned" in out


def test_junit_failures_equal_findings(tmp_path: Path) -> None:
    second = P5_NOTEBOOK.split("Resources:\n", 1)[1].replace("ResearchNotebook", "Other")
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK + second)
    out = run("scan", str(tmp_path), "--format", "junit")[1]
    root = ET.fromstring(out.split("\n", 1)[1])
    findings = json.loads(run("scan", str(tmp_path), "--format", "json")[1])["summary"]["findings"]
    assert root.get("failures") == str(findings) == "4"  # FIN301 and FIN302 on each notebook


def test_limits_are_configurable_from_the_cli_and_config(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    code, out, _ = run("scan", str(tmp_path), "--max-yaml-nodes", "5")
    assert code == 1 and "more than 5 YAML/JSON nodes" in out
    (tmp_path / ".finlint.yaml").write_text("max-file-mb: 0.0001\n")
    code, out, _ = run("scan", str(tmp_path), "--config", str(tmp_path / ".finlint.yaml"))
    assert "too large to scan" in out
    (tmp_path / ".finlint.yaml").write_text("max-yaml-nodes: -3\n")
    assert run("scan", str(tmp_path), "--config", str(tmp_path / ".finlint.yaml"))[0] == 2


def test_no_progress_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    code, _, err = run("scan", str(tmp_path))
    assert code == 1 and err == ""


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_shows_files_done_and_phase() -> None:
    stream = _Tty()
    progress = Progress(stream, interval=0)
    progress("finding files")
    progress("parsing", 3, 10)
    progress("checking rules")
    progress.close()
    text = stream.getvalue()
    assert "finlint: parsing 3/10 files" in text and "finlint: checking rules" in text
    assert text.endswith("\r")  # the line is erased at the end
    silent = io.StringIO()
    Progress(silent)("parsing", 1, 2)
    assert silent.getvalue() == ""


def test_progress_hooks_into_the_scan(tmp_path: Path) -> None:
    from finlint.scan import ScanOptions, lint

    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    (tmp_path / "main.tf").write_text(TF_P5)
    calls: list[tuple[object, ...]] = []
    lint(ScanOptions(paths=[tmp_path], progress=lambda *a: calls.append(a)))
    phases = [c[0] for c in calls]
    assert phases[0] == "finding files" and ("parsing", 0, 1) in calls and phases[-1] == "checking rules"


def test_quiet_turns_progress_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import finlint.cli.commands as cli
    import finlint.cli.runner as support

    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    phases: list[str] = []
    printer = lambda: lambda phase, *_: phases.append(phase)  # noqa: E731
    monkeypatch.setattr(cli, "progress_printer", printer)
    monkeypatch.setattr(support, "progress_printer", printer)
    run("scan", str(tmp_path))
    assert phases and phases[0] == "finding files"  # a terminal would show these
    phases.clear()
    run("scan", str(tmp_path), "--quiet")
    assert phases == []


# --- issue 24: a crash or an interrupt is never the findings code --------------------------------

_PATCHED_SCAN = """
import sys, time
import finlint.scan
def crash(*args, **kwargs):
    raise {exc}
finlint.scan.lint = crash
from finlint.cli import main
main()
"""


def _run_patched(tmp_path: Path, exc: str, *extra_env: tuple[str, str]) -> subprocess.CompletedProcess[str]:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    return subprocess.run(
        [sys.executable, "-c", _PATCHED_SCAN.format(exc=exc), "scan", "nb.yaml"],
        cwd=tmp_path,
        env={**os.environ, **dict(extra_env)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_an_internal_error_is_exit_2_with_one_line(tmp_path: Path) -> None:
    proc = _run_patched(tmp_path, "RuntimeError('boom\\n::error::forged')")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "finlint: internal error: RuntimeError: boom\\n::error::forged "
        "(a bug: please report it with FINLINT_DEBUG=1 output)"
    ]
    debug = _run_patched(tmp_path, "RuntimeError('boom')", ("FINLINT_DEBUG", "1"))
    assert debug.returncode == 2 and "Traceback" in debug.stderr


def test_an_interrupt_is_exit_130(tmp_path: Path) -> None:
    proc = _run_patched(tmp_path, "KeyboardInterrupt")
    assert proc.returncode == 130
    assert "Aborted!" in proc.stderr and "Traceback" not in proc.stderr


def test_a_real_sigint_is_exit_130(tmp_path: Path) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)
    code = (
        "import time, finlint.scan\n"
        "def slow(*a, **k):\n    open('started', 'w').close(); time.sleep(60)\n"
        "finlint.scan.lint = slow\nfrom finlint.cli import main\nmain()\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "scan", "nb.yaml"], cwd=tmp_path, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 30
    while not (tmp_path / "started").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
