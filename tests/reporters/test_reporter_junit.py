"""JUnit XML: one test case per rule x file, failures for findings, skips for suppressed ones."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK, SUPPRESSED_P5_NOTEBOOK

from finlint.cli import main

TEMPLATE = P5_NOTEBOOK + SUPPRESSED_P5_NOTEBOOK
GOOD = TEMPLATE.replace("ml.p5.48xlarge", "ml.g5.xlarge")


def test_cases_per_rule_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.yaml").write_text(TEMPLATE, encoding="utf-8")
    (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("Resources: [\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "junit", "--output", "report.xml"])
    assert result.exit_code == 1
    root = ET.parse(tmp_path / "report.xml").getroot()
    assert root.tag == "testsuites"
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    fin301 = suites["FIN301 oversized-p5"]
    cases = {c.get("name"): c for c in fin301.findall("testcase")}
    # notebooks are in both files: FIN301 applies to both; a finding is its own case
    assert set(cases) == {"bad.yaml:6 ResearchNotebook", "good.yaml"}
    failure = cases["bad.yaml:6 ResearchNotebook"].find("failure")
    assert failure is not None and failure.get("type") == "high"
    assert "bad.yaml:6: FIN301 [high] ResearchNotebook" in (failure.text or "")
    assert "ReservedNotebook" not in (failure.text or "")  # suppressed: not a failure
    assert cases["good.yaml"].find("failure") is None and cases["good.yaml"].find("skipped") is None
    assert (fin301.get("tests"), fin301.get("failures")) == ("2", "1")
    assert "FIN000 parse-error" in suites
    assert "FIN101 training-job-missing-max-runtime" not in suites  # no training jobs here: no cases
    assert [c.get("name") for c in suites["FIN000 parse-error"].findall("testcase")] == [
        "broken.yaml:2 broken.yaml"
    ]
    assert int(root.get("failures") or 0) == sum(int(s.get("failures") or 0) for s in suites.values())


def test_only_suppressed_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = TEMPLATE.replace("  ResearchNotebook:", "  # finlint: ignore[FIN301] fine\n  ResearchNotebook:")
    (tmp_path / "t.yaml").write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "junit", "--select", "FIN301"])
    assert result.exit_code == 0
    root = ET.fromstring(result.output.split("\n", 1)[1])
    (suite,) = root.findall("testsuite")
    skipped = suite.find("testcase/skipped")
    assert skipped is not None and "suppressed: fine" in (skipped.get("message") or "")
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("1", "0", "1")


def test_one_failure_per_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two FIN301s in one file are two <failure>s; `failures` equals the active findings."""
    second = P5_NOTEBOOK.split("Resources:\n", 1)[1].replace("ResearchNotebook", "OtherNotebook")
    (tmp_path / "bad.yaml").write_text(P5_NOTEBOOK + second, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "junit", "--select", "FIN301"])
    assert result.exit_code == 1
    root = ET.fromstring(result.output.split("\n", 1)[1])
    failures = root.findall("testsuite/testcase/failure")
    assert len(failures) == 2 and root.get("failures") == "2"
    assert all(len(case.findall("failure")) <= 1 for case in root.iter("testcase"))
    assert sorted(f.text.split(": ")[0] for f in failures if f.text) == ["bad.yaml:11", "bad.yaml:6"]
