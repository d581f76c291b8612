"""A finding's fix in the reports a scan writes: the JSON report (read back as a baseline), the
SARIF log (``fixes``, validated by the official Multitool) — on a real scan's findings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.reporters.test_reporter_sarif import validate, write_tree

from finlint.finding import Fix, TextEdit
from finlint.post.baseline import load
from finlint.reporters import ReportContext, json_report, sarif
from finlint.result import ScanResult
from finlint.scan import ScanOptions, lint

NOTEBOOK_FILE = "infra/notebook.yaml"
# ``      InstanceType: ml.p5.48xlarge`` is line 6 of the notebook: columns 20..34 hold the type
FIX = Fix(
    "use ml.g5.2xlarge",
    False,
    (
        TextEdit(NOTEBOOK_FILE, 6, 20, 6, 34, "ml.g5.2xlarge"),
        TextEdit(NOTEBOOK_FILE, 7, 0, 7, 0, "      # sized down\n"),
    ),
)


def fixed_scan(root: Path, monkeypatch: pytest.MonkeyPatch) -> ScanResult:
    """A scan of the sample tree with ``FIX`` on the active FIN301 finding (no rule sets one yet)."""
    write_tree(root)
    monkeypatch.chdir(root)
    result = lint(ScanOptions(paths=[Path(".")]))
    (target,) = [f for f in result.findings if f.rule_id == "FIN301" and f.active]
    assert target.file == NOTEBOOK_FILE and target.line == 6
    assert (root / NOTEBOOK_FILE).read_text("utf-8").split("\n")[5][20:34] == "ml.p5.48xlarge"
    target.fix = FIX
    return result


def test_json_report_carries_the_fix_and_still_loads_as_a_baseline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = fixed_scan(tmp_path, monkeypatch)
    doc = json.loads(json_report.render(result, ReportContext()))
    fixes = [f["fix"] for f in doc["findings"] if "fix" in f]
    assert fixes == [
        {
            "description": "use ml.g5.2xlarge",
            "safe": False,
            "edits": [
                {
                    "file": NOTEBOOK_FILE,
                    "start_line": 6,
                    "start_col": 20,
                    "end_line": 6,
                    "end_col": 34,
                    "new_text": "ml.g5.2xlarge",
                },
                {
                    "file": NOTEBOOK_FILE,
                    "start_line": 7,
                    "start_col": 0,
                    "end_line": 7,
                    "end_col": 0,
                    "new_text": "      # sized down\n",
                },
            ],
        }
    ]
    report = tmp_path / "report.json"
    report.write_text(json.dumps(doc), encoding="utf-8")
    entries = load(report)  # the baseline reader ignores ``fix``
    assert {(e.rule_id, e.resource) for e in entries} >= {("FIN301", "ResearchNotebook")}


def test_sarif_fix_uses_the_result_uri_and_passes_the_multitool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = fixed_scan(tmp_path, monkeypatch)
    out = tmp_path / "out.sarif"
    out.write_text(sarif.render(result, ReportContext()), encoding="utf-8")
    results = json.loads(out.read_text("utf-8"))["runs"][0]["results"]
    fixable = [r for r in results if "fixes" in r]
    assert len(fixable) == 1 and fixable[0]["ruleId"] == "FIN301"
    assert all("fixes" not in r for r in results if r is not fixable[0])
    (fix,) = fixable[0]["fixes"]
    assert fix["description"] == {"text": "use ml.g5.2xlarge"}
    (change,) = fix["artifactChanges"]
    location = fixable[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert change["artifactLocation"] == location and location["uri"] == NOTEBOOK_FILE
    assert change["replacements"] == [
        {
            "deletedRegion": {"startLine": 6, "startColumn": 21, "endLine": 6, "endColumn": 35},
            "insertedContent": {"text": "ml.g5.2xlarge"},
        },
        {
            "deletedRegion": {"startLine": 7, "startColumn": 1, "endLine": 7, "endColumn": 1},
            "insertedContent": {"text": "      # sized down\n"},
        },
    ]
    assert validate(out) == []
