"""The CLI contract: exit codes, the JSON shape, rule docs, select/ignore."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from finlint import __version__
from finlint.cli import main

BAD_REQUEST = """{
  "TrainingJobName": "nightly-eval",
  "RoleArn": "arn:aws:iam::111122223333:role/SageMakerTrainingRole",
  "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
  "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50}
}
"""
GOOD_REQUEST = BAD_REQUEST.replace(
    '"VolumeSizeInGB": 50}', '"VolumeSizeInGB": 50},\n  "StoppingCondition": {"MaxRuntimeInSeconds": 3600}'
)


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_exit_0_when_clean_and_1_on_findings(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(GOOD_REQUEST)
    assert run("scan", str(tmp_path))[0] == 0
    (tmp_path / "job.json").write_text(BAD_REQUEST)
    code, out = run("scan", str(tmp_path))
    assert code == 1
    assert "job.json:1: FIN101 [high]" in out


def test_fail_on_and_exit_zero(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(BAD_REQUEST)
    assert run("scan", str(tmp_path), "--fail-on", "critical")[0] == 0
    assert run("scan", str(tmp_path), "--exit-zero")[0] == 0


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("scan", str(tmp_path), "--fail-on", "bogus")[0] == 2
    assert run("scan", str(tmp_path), "--select", "FIN999")[0] == 2
    assert run("rule", "no-such-rule")[0] == 2
    bad_dir = tmp_path / "pol"
    bad_dir.mkdir()
    (bad_dir / "X.yaml").write_text("id: nope\n")
    code, _ = run("scan", str(tmp_path), "--policy-dir", str(bad_dir))
    assert code == 2


def test_json_contract(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(BAD_REQUEST)
    (tmp_path / "broken.yaml").write_text("kind: Pod\na: [1, 2\n")
    code, out = run("scan", str(tmp_path), "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["finlint_version"] == __version__
    assert set(data) >= {"finlint_version", "findings", "errors", "summary"}
    assert set(data["summary"]) >= {"files_scanned", "findings", "by_severity"}
    assert data["summary"]["files_scanned"] == 2
    keys = {"rule_id", "rule", "severity", "file", "line", "end_line", "resource", "message", "cost"}
    for finding in data["findings"]:
        assert keys <= set(finding)
        assert "\\" not in finding["file"]
    ids = sorted(f["rule_id"] for f in data["findings"])
    assert ids == ["FIN000", "FIN101"]
    assert data["errors"][0]["file"].endswith("broken.yaml")
    assert data["errors"][0]["line"] == 3


def test_select_and_ignore_by_id_slug_and_prefix(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(BAD_REQUEST)
    assert run("scan", str(tmp_path), "--ignore", "FIN101")[0] == 0
    assert run("scan", str(tmp_path), "--ignore", "training-job-missing-max-runtime")[0] == 0
    assert run("scan", str(tmp_path), "--select", "FIN3,FIN4")[0] == 0
    assert run("scan", str(tmp_path), "--select", "FIN1")[0] == 1


def test_output_file(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(BAD_REQUEST)
    out = tmp_path / "report.json"
    code, printed = run("scan", str(tmp_path / "job.json"), "--format", "json", "--output", str(out))
    assert code == 1 and printed == ""
    assert json.loads(out.read_text())["findings"][0]["rule_id"] == "FIN101"


def test_rules_and_rule_docs() -> None:
    code, out = run("rules")
    assert code == 0
    for rule_id in ("FIN000", "FIN101", "FIN201", "FIN202", "FIN301", "FIN401"):
        assert rule_id in out
    code, out = run("rule", "FIN301")
    assert code == 0
    assert "oversized-p5" in out and "Why it costs money" in out and "Anti-pattern" in out
    assert run("rule", "checkpoints-on-efs")[1].startswith("FIN401")


def test_console_script_version() -> None:
    for module in ("finlint.cli", "finlint"):  # python -m finlint works like the script
        proc = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True)
        assert proc.returncode == 0 and __version__ in proc.stdout, module


def test_rules_page_is_generated_from_the_policies() -> None:
    """docs/rules.md is `finlint rules --format markdown`; regenerate it when a policy changes."""
    from tests.conftest import REPO

    code, out = run("rules", "--format", "markdown")
    assert code == 0
    page = (REPO / "docs" / "rules.md").read_text(encoding="utf-8")
    assert page == out, "docs/rules.md is stale: run `finlint rules --format markdown > docs/rules.md`"


def test_show_undetermined_explains_what_could_not_be_checked(tmp_path: Path) -> None:
    template = (
        "Parameters:\n  NotebookType:\n    Type: String\nResources:\n  Nb:\n"
        "    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n      InstanceType: !Ref NotebookType\n"
        "      RoleArn: arn:aws:iam::111122223333:role/R\n"
    )
    (tmp_path / "nb.yaml").write_text(template)
    code, out = run("scan", str(tmp_path))
    # FIN301 (is it p5?) and FIN302 (is it a GPU notebook?) both need the instance type
    assert code == 0 and "2 check(s) undetermined" in out
    code, out = run("scan", str(tmp_path), "--show-undetermined")
    # both point at the line a person makes static (the !Ref), not at the resource's first line
    assert "nb.yaml:8: FIN301 [undetermined] Nb:" in out and "NotebookType has no Default" in out
    assert "nb.yaml:8: FIN302 [undetermined] Nb:" in out
    data = json.loads(run("scan", str(tmp_path), "--format", "json")[1])
    assert data["summary"]["undetermined"] == 2
    assert data["undetermined"][0]["rule_id"] == "FIN301"
