"""GitHub workflow-command annotations: format, escaping, ranking by dollars, the 10-per-level cap."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.cost.totals import Totals, totals
from finlint.finding import Cost, Finding
from finlint.reporters import ReportContext, github
from finlint.reporters.github import annotation, escape_property, select

ANNOTATION = re.compile(
    r"^::(error|warning|notice) file=([^,]+),line=(\d+),endLine=(\d+),title=([^:]+)::(.*)$"
)


def notebook(name: str, instance_type: str) -> str:
    return (
        f"  {name}:\n    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n"
        f"      InstanceType: {instance_type}\n      RoleArn: arn:aws:iam::111122223333:role/R\n"
    )


def request(name: str) -> str:
    return json.dumps(
        {
            "TrainingJobName": name,
            "AlgorithmSpecification": {
                "TrainingImage": "123.dkr.ecr.us-east-1.amazonaws.com/t:1",
                "TrainingInputMode": "File",
            },
            "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
            "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
            "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
        }
    )


# FIN302 fires on the same p5 sample notebooks as FIN301 (no auto-stop) and is counted once
# with it; these reporter tests are written against the FIN301 findings.
IGNORE = ("--ignore", "FIN302")


def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, list[str]]:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "github", *IGNORE, *args])
    return result.exit_code, result.output.splitlines()


def test_annotations_ranked_by_dollars_with_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "job-1.json").write_text(request("cheap-job"), encoding="utf-8")  # FIN101, ~$36/month
    body = "".join(
        notebook(f"Notebook{i:02d}", "ml.p5.48xlarge") for i in range(12)
    )  # 12 x FIN301, ~$27k each
    (tmp_path / "notebooks.yaml").write_text(
        f'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n{body}', "utf-8"
    )
    code, lines = run(tmp_path, monkeypatch)
    assert code == 1
    errors = [m for m in map(ANNOTATION.match, lines) if m and m.group(1) == "error"]
    assert len(errors) == 10  # GitHub shows 10 per level: the 10 most expensive
    assert all(m.group(2) == "notebooks.yaml" and "FIN301 oversized-p5 ($" in m.group(5) for m in errors)
    assert all(int(m.group(4)) >= int(m.group(3)) for m in errors)
    notice = next(line for line in lines if line.startswith("::notice title=finlint::"))
    assert "3 more finding(s)" in notice and "/month" in notice
    more = re.search(r"\$([\d,]+)/month", notice)
    # two p5 notebooks at 176 active h ($10,873 each) and the cheap job
    assert more and int(more.group(1).replace(",", "")) > 21_000
    assert lines[-1].startswith("finlint: 13 finding(s), avoidable $")


def test_severity_levels_and_suppressed_not_annotated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    text = 'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n' + notebook("A", "ml.p5.48xlarge")
    text += "  # finlint: ignore[FIN301]\n" + notebook("B", "ml.p5.48xlarge")
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    _, lines = run(tmp_path, monkeypatch)
    levels = sorted((m.group(1), m.group(5).split(" ")[0]) for m in map(ANNOTATION.match, lines) if m)
    assert levels == [
        ("error", "FIN301"),
        ("notice", "FIN900"),
    ]  # high -> error, low -> notice; B is suppressed


def test_escaping() -> None:
    f = Finding(
        "FIN301", "oversized-p5", "medium", "dir,with:odd/f%.yaml", 3, 5, "r", "50% more\nsecond line"
    )
    f.cost = Cost(1234.6, None, "waste", "a, b: c")
    line = annotation(f)
    assert line.startswith(
        "::warning file=dir%2Cwith%3Aodd/f%25.yaml,line=3,endLine=5,title=FIN301 oversized-p5 "
    )
    assert "::50%25 more%0Asecond line%0A%0Awaste: $1,235/month. a, b: c" in line
    assert "\n" not in line
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_room_is_kept_for_the_summary_notice() -> None:
    findings = [Finding("FIN900", "x", "low", "f.yaml", i, i, "r", "m") for i in range(1, 13)]
    shown, hidden = select(findings)
    assert len(shown) == 9 and len(hidden) == 3  # 9 notices + the summary notice = GitHub's 10


def test_step_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    scan_dir = tmp_path / "repo"
    scan_dir.mkdir()
    (scan_dir / "job.json").write_text(request("cheap-job"), encoding="utf-8")
    run(scan_dir, monkeypatch)
    text = summary.read_text("utf-8")
    assert text.startswith("earlier step\n<!-- finlint-report -->")  # appended, never truncated
    assert "## finlint: $0.00/month avoidable (savings + expected waste) · $36.48/month exposure" in text


def test_context_is_unused_by_annotations() -> None:
    """render() works without a step summary and with an empty result."""
    from finlint.reporters import github

    class Empty:
        findings: list[Finding] = []
        errors: list[object] = []
        notices: list[object] = []
        files_scanned = 0

        def active(self) -> list[Finding]:
            return []

        def totals(self) -> Totals:
            return totals([])

    assert github.render(Empty(), ReportContext()) == "finlint: 0 finding(s)\n"  # type: ignore[arg-type]


def test_render_only_formats(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reporters only format: the job-summary write belongs to the output stage (outputs.emit)."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    f = Finding("FIN101", "x", "high", "a.yaml", 3, 3, "Job", "no max runtime")
    result = type("R", (), {"active": lambda self: [f], "totals": lambda self: totals([f])})()
    github.render(result, ReportContext())
    assert not summary.exists()
