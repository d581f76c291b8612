"""Several ``--format X --output F`` pairs in one run; ``--output`` for every format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.cli.outputs import plan
from finlint.errors import UsageError
from finlint.reporters import REPORTERS

REQUEST = {
    "TrainingJobName": "demo-classifier",
    "AlgorithmSpecification": {
        "TrainingImage": "123.dkr.ecr.us-east-1.amazonaws.com/t:1",
        "TrainingInputMode": "File",
    },
    "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
    "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
    "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
}


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "job.json").write_text(json.dumps(REQUEST), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    for ci in ("GITHUB_ACTIONS", "GITLAB_CI"):  # --format auto: text here
        monkeypatch.delenv(ci, raising=False)
    return tmp_path


def test_every_format_writes_to_output(repo: Path) -> None:
    assert set(REPORTERS) == {
        *("text", "json", "sarif", "github", "markdown", "junit", "html", "gitlab", "auto"),
    }
    for fmt in REPORTERS:
        result = CliRunner().invoke(main, ["scan", "src", "--format", fmt, "--output", f"out/{fmt}.report"])
        assert result.exit_code == 1, (fmt, result.output)
        assert result.output == ""  # everything went to the file
        assert "demo-classifier" in (repo / "out" / f"{fmt}.report").read_text("utf-8"), fmt


def test_several_pairs_in_one_run(repo: Path) -> None:
    args = [
        "scan",
        "src",
        "--format",
        "text",
        "--format",
        "sarif",
        "--output",
        "r.sarif",
        "--format",
        "json",
        "-o",
        "r.json",
        "--output=r.md",
        "--format=markdown",
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    assert result.output.startswith("src/job.json:1: FIN101 [high]")  # the one format without a file
    assert json.loads((repo / "r.sarif").read_text("utf-8"))["version"] == "2.1.0"
    assert json.loads((repo / "r.json").read_text("utf-8"))["summary"]["findings"] == 1
    assert (repo / "r.md").read_text("utf-8").startswith("<!-- finlint-report -->")


def test_two_formats_on_stdout_is_a_usage_error(repo: Path) -> None:
    result = CliRunner().invoke(main, ["scan", "src", "--format", "json", "--format", "sarif"])
    assert result.exit_code == 2
    assert "would all write to stdout" in result.output


def test_plan_pairs_each_output_with_the_format_before_it() -> None:
    raw = ["--format", "text", "--format", "sarif", "--output", "a.sarif"]
    assert plan(("text", "sarif"), (Path("a.sarif"),), raw) == [("sarif", Path("a.sarif")), ("text", None)]
    raw = ["-o", "a.json", "--format", "json"]
    assert plan(("json",), (Path("a.json"),), raw) == [("json", Path("a.json"))]
    assert plan((), (Path("a.txt"),), ["-o", "a.txt"]) == [("text", Path("a.txt"))]
    assert plan((), (), []) == [("text", None)]
    with pytest.raises(UsageError):
        plan(("json", "sarif"), (Path("x"), Path("x")), None)
    raw = ["--format", "json", "-o", "a.json", "-o", "b.md", "--format", "markdown", "--format", "text"]
    assert plan(("json", "markdown", "text"), (Path("a.json"), Path("b.md")), raw) == [
        ("json", Path("a.json")),
        ("markdown", Path("b.md")),
        ("text", None),
    ]
