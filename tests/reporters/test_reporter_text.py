"""The text reporter's compact output (issue 28): one line per finding and one short cost line,
--verbose for the full basis, colour from the flags and NO_COLOR/FORCE_COLOR, -o directories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.cli.runner import use_color
from finlint.finding import Cost, Finding
from finlint.reporters import ReportContext
from finlint.reporters.text import BRIEF_MAX, render, shorten
from finlint.result import ScanResult

LONG_BASIS = (
    "ml.p5.48xlarge $63.296/h - ml.g5.2xlarge $1.52/h (alternative from the policy param) x 1 relative "
    "runtime (policy param; 1.0: an interactive session lasts as long on a smaller GPU) = $61.776 per "
    "instance-hour; x 176 active h per month = $10,872.58/month. Prices: ml.p5.48xlarge $63.296/h."
)


def _finding(cost: Cost | None, suppressed: str | None = None, baseline: bool = False) -> Finding:
    message = "notebook Nb runs on p5"
    return Finding(
        "FIN301",
        "oversized",
        "high",
        "a.yaml",
        3,
        3,
        "Nb",
        message,
        cost=cost,
        suppressed=suppressed,
        baseline=baseline,
    )


def _text(*findings: Finding, verbose: bool = False) -> str:
    result = ScanResult(list(findings), [], [], 1, [], [])
    return render(result, ReportContext(verbose=verbose))


def _cost(brief: str = "", basis: str = LONG_BASIS) -> Cost:
    return Cost(10872.58, None, "savings", basis, brief=brief)


def test_the_cost_line_is_figure_kind_and_brief() -> None:
    out = _text(_finding(_cost(brief="p5 -> g5.2xlarge for 176 active h/month")))
    assert "    cost: $10,873/month (savings): p5 -> g5.2xlarge for 176 active h/month\n" in out
    assert "$61.776" not in out and "--verbose" not in out  # nothing was shortened


def test_without_a_brief_the_basis_is_cut_at_a_word_and_says_so() -> None:
    out = _text(_finding(_cost()))
    line = next(x for x in out.splitlines() if x.startswith("    cost:"))
    phrase = line.split("(savings): ", 1)[1]
    assert phrase.endswith("\u2026") and len(phrase) <= BRIEF_MAX + 1
    assert LONG_BASIS.startswith(phrase[:-1])  # a prefix of the basis, nothing invented
    assert LONG_BASIS[len(phrase) - 1] == " "  # cut between words
    assert "--verbose prints each figure's full basis" in out
    assert out.splitlines()[-1].startswith("1 finding(s)")  # the summary stays last


def test_a_short_basis_is_printed_whole() -> None:
    assert shorten("2 x p5.48xlarge idle 554 h", BRIEF_MAX) == ("2 x p5.48xlarge idle 554 h", False)
    assert shorten("first sentence. Prices: many", BRIEF_MAX) == ("first sentence\u2026", True)


def test_verbose_prints_the_full_basis() -> None:
    out = _text(_finding(_cost(brief="short")), verbose=True)
    assert f"(savings): {LONG_BASIS}\n" in out and "short" not in out


def test_not_priced_shows_the_reason_briefly() -> None:
    cost = Cost(None, None, "savings", "n/a", reason="ml.x9.huge is not in the price snapshot")
    assert "    cost: not priced: ml.x9.huge is not in the price snapshot\n" in _text(_finding(cost))


def test_an_unpriced_cost_says_not_priced_once(tmp_path: Path) -> None:
    """A Batch GPU job definition with no instance type: the brief is the reason, the line labels it."""
    (tmp_path / "main.tf").write_text(
        'resource "aws_batch_job_definition" "train" {\n'
        '  name = "train"\n'
        '  type = "container"\n'
        "  container_properties = jsonencode({\n"
        '    image = "train:latest"\n'
        '    resourceRequirements = [{ type = "GPU", value = "8" }]\n'
        "  })\n"
        "}\n"
    )
    out = CliRunner().invoke(main, ["scan", str(tmp_path), "--no-color"]).output
    assert "    cost: not priced: instance type unknown or unresolved\n" in out, out
    assert out.count("not priced") == 1, out


def test_suppressed_and_baseline_findings_are_one_line() -> None:
    out = _text(_finding(_cost(), suppressed="sized on purpose"), _finding(_cost(), baseline=True))
    assert "cost:" not in out
    assert "(suppressed: sized on purpose)" in out and "(baseline)" in out
    assert _text(_finding(_cost(), baseline=True), verbose=True).count("cost:") == 1


def test_a_brief_is_escaped_and_bounded() -> None:
    out = _text(_finding(_cost(brief="evil \x1b[2J" + "word " * 100)))
    line = next(x for x in out.splitlines() if x.startswith("    cost:"))
    assert "\x1b" not in line and len(line) < 3 * BRIEF_MAX


@pytest.mark.parametrize(
    ("flag", "env", "tty", "expected"),
    [
        (None, {}, True, True),
        (None, {}, False, False),
        (None, {"NO_COLOR": "1"}, True, False),
        (None, {"NO_COLOR": ""}, True, True),  # no-color.org: set and not empty
        (None, {"FORCE_COLOR": "1"}, False, True),
        (None, {"FORCE_COLOR": "0"}, False, False),
        (None, {"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
        (True, {"NO_COLOR": "1"}, False, True),  # the flag wins
        (False, {"FORCE_COLOR": "1"}, True, False),
    ],
)
def test_colour_follows_flags_then_no_color_then_force_color(
    monkeypatch: pytest.MonkeyPatch, flag: bool | None, env: dict[str, str], tty: bool, expected: bool
) -> None:
    for name in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr("sys.stdout.isatty", lambda: tty)
    assert use_color(flag, [("text", None)]) is expected
    assert use_color(None, [("text", Path("r.txt"))]) is False  # a report file: never


JOB = {
    "TrainingJobName": "j",
    "AlgorithmSpecification": {
        "TrainingImage": "1.dkr.ecr.us-east-1.amazonaws.com/t:1",
        "TrainingInputMode": "File",
    },
    "RoleArn": "arn:aws:iam::111122223333:role/R",
    "OutputDataConfig": {"S3OutputPath": "s3://b/o"},
}


def _scan_json(tmp_path: Path, *args: str) -> tuple[int, list[dict[str, object]]]:
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--format", "json", *args])
    return result.exit_code, json.loads(result.output)["findings"]


@pytest.mark.parametrize(
    ("instance_type", "severity"),
    [("ml.p4d.24xlarge", "high"), ("ml.m5.xlarge", "low"), ("ml.zz9.unknown", "medium")],
)
def test_fin101_severity_follows_the_accelerators(tmp_path: Path, instance_type: str, severity: str) -> None:
    job = {**JOB, "ResourceConfig": {"InstanceType": instance_type, "InstanceCount": 1, "VolumeSizeInGB": 50}}
    (tmp_path / "job.json").write_text(json.dumps(job), encoding="utf-8")
    _, findings = _scan_json(tmp_path, "--select", "FIN101")
    assert [(f["rule_id"], f["severity"]) for f in findings] == [("FIN101", severity)]


def test_fin101_is_high_on_an_uncapped_launcher_of_unknown_type(tmp_path: Path) -> None:
    script = "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --exclusive\nsrun python train.py\n"
    (tmp_path / "train.sbatch").write_text(script, encoding="utf-8")
    _, findings = _scan_json(tmp_path, "--select", "FIN101")
    assert [(f["rule_id"], f["severity"]) for f in findings] == [("FIN101", "high")]


def test_cells_that_are_not_python_are_one_notice_per_notebook(tmp_path: Path) -> None:
    cells = [
        {"cell_type": "code", "source": ["pip install sagemaker\n"], "metadata": {}, "outputs": []},
        {"cell_type": "code", "source": ["import sagemaker\n"], "metadata": {}, "outputs": []},
        {
            "cell_type": "code",
            "source": ["library(ggplot2)\n", "df %>% head()\n"],
            "metadata": {},
            "outputs": [],
        },
        {"cell_type": "code", "source": ["pip install boto3\n"], "metadata": {}, "outputs": []},
    ]
    nb = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "nb.ipynb").write_text(json.dumps(nb, indent=1), encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(tmp_path), "--format", "json"])
    notices = [n["message"] for n in json.loads(result.output)["notices"] if "notebook" in n["message"]]
    assert len(notices) == 1 and notices[0].startswith(
        "3 notebook cells skipped: not valid Python (cells 1, 3, 4;"
    )


def test_cost_and_diff_accept_no_color(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(json.dumps(JOB), encoding="utf-8")
    result = CliRunner().invoke(main, ["cost", str(tmp_path), "--no-color"])
    assert result.exit_code == 0, result.output
    for command in ("diff", "scan"):
        help_text = CliRunner().invoke(main, [command, "--help"]).output
        assert "--color / --no-color" in help_text and "--verbose" in help_text


def test_output_creates_missing_directories(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(json.dumps(JOB), encoding="utf-8")
    target = tmp_path / "out" / "reports" / "finlint.sarif"
    result = CliRunner().invoke(
        main, ["scan", str(tmp_path / "job.json"), "--format", "sarif", "-o", str(target)]
    )
    assert result.exit_code == 1, result.output  # the finding fails the run; the report is written
    assert json.loads(target.read_text(encoding="utf-8"))["version"] == "2.1.0"
    table = tmp_path / "out" / "cost" / "table.txt"
    assert CliRunner().invoke(main, ["cost", str(tmp_path / "job.json"), "-o", str(table)]).exit_code == 0
    assert table.is_file()
