"""SARIF output: validated by the official SARIF Multitool, plus GitHub's required fields.

The Multitool (``@microsoft/sarif-multitool``, ~100 MB) is installed from npm into
``~/.cache/finlint-test/sarif`` on first use (bounded), so reruns are fast; the test skips
only when npm itself is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK, SUPPRESSED_P5_NOTEBOOK, training_request

from finlint.cli import main

CACHE = Path(os.environ.get("FINLINT_TEST_CACHE", Path.home() / ".cache" / "finlint-test")) / "sarif"
MULTITOOL = CACHE / "node_modules" / ".bin" / "sarif-multitool"

NOTEBOOK = P5_NOTEBOOK + SUPPRESSED_P5_NOTEBOOK
REQUEST = training_request()


def write_tree(root: Path, notebook: str = NOTEBOOK) -> None:
    (root / "infra").mkdir(parents=True, exist_ok=True)
    (root / "infra" / "notebook.yaml").write_text(notebook, encoding="utf-8")
    (root / "jobs").mkdir(exist_ok=True)
    (root / "jobs" / "train request.json").write_text(json.dumps(REQUEST, indent=2), encoding="utf-8")


# FIN302 fires on the same p5 sample notebooks as FIN301 (no auto-stop) and is counted once
# with it; these reporter tests are written against the FIN301 findings.
IGNORE = ("--ignore", "FIN302")


def sarif_of(root: Path, *args: str, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(
        main, ["scan", ".", "--format", "sarif", "--output", "out.sarif", *IGNORE, *args]
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads((root / "out.sarif").read_text("utf-8"))


@pytest.fixture()
def sarif(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    write_tree(tmp_path)
    code, doc = sarif_of(tmp_path, monkeypatch=monkeypatch)
    assert code == 1
    return doc


def test_github_required_fields(sarif: dict[str, Any]) -> None:
    assert sarif["version"] == "2.1.0" and "sarif-schema-2.1.0" in sarif["$schema"]
    (run,) = sarif["runs"]
    driver = run["tool"]["driver"]
    assert (
        driver["name"] == "finlint" and driver["version"] and driver["informationUri"].startswith("https://")
    )
    rules = {r["id"]: r for r in driver["rules"]}
    assert {"FIN000", "FIN101", "FIN301", "FIN900", "FIN901"} <= set(rules)  # every rule, fired or not
    for rule in rules.values():
        assert rule["name"] and rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert "## Why it costs money" in rule["help"]["markdown"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
        assert {"cost", "finops"} <= set(rule["properties"]["tags"])
        assert "security-severity" not in rule["properties"]  # cost findings, not security alerts
    assert "```yaml" in rules["FIN301"]["help"]["markdown"]  # examples are in the help
    results = run["results"]
    assert len(results) == 3
    for res in results:
        assert res["ruleId"] in rules and driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note") and res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["region"]["startLine"] >= 1 and loc["region"]["endLine"] >= loc["region"]["startLine"]
        assert res["partialFingerprints"]["finlint/v1"]
        assert re.fullmatch(r"[0-9a-f]{16}:1", res["partialFingerprints"]["primaryLocationLineHash"])
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].endswith("/")


def test_results_carry_dollars_suppressions_and_encoded_uris(sarif: dict[str, Any]) -> None:
    results = sarif["runs"][0]["results"]
    by_resource = {r["locations"][0]["logicalLocations"][0]["name"]: r for r in results}
    research = by_resource["ResearchNotebook"]
    assert research["level"] == "error"
    assert research["locations"][0]["physicalLocation"]["region"]["startLine"] == 6
    assert research["properties"]["monthly_usd"] > 1000 and research["properties"]["cost_basis"]
    assert "/month" in research["message"]["text"]
    reserved = by_resource["ReservedNotebook"]
    assert reserved["suppressions"] == [
        {"kind": "inSource", "justification": "reserved for the quarterly pre-training run"}
    ]
    assert "suppressions" not in research
    job = by_resource["demo-classifier"]
    assert job["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "jobs/train%20request.json"
    assert sarif["runs"][0]["properties"]["monthly_usd"] > 1000


def test_fingerprints_stable_when_unrelated_lines_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_tree(tmp_path)
    _, before = sarif_of(tmp_path, monkeypatch=monkeypatch)
    moved = NOTEBOOK.replace(
        "Resources:\n",
        'Description: "GPU notebooks"\nParameters:\n  Env:\n    Type: String\n    Default: dev\nResources:\n',
    )
    write_tree(tmp_path, moved)
    _, after = sarif_of(tmp_path, monkeypatch=monkeypatch)

    def prints(doc: dict[str, Any]) -> dict[str, tuple[str, int]]:
        return {
            r["partialFingerprints"]["finlint/v1"]: (
                r["locations"][0]["logicalLocations"][0]["name"],
                r["locations"][0]["physicalLocation"]["region"]["startLine"],
            )
            for r in doc["runs"][0]["results"]
        }

    old, new = prints(before), prints(after)
    assert set(old) == set(new)  # same alerts...
    assert old != new  # ...although their lines moved
    assert {k: v[1] - old[k][1] for k, v in new.items() if v[0] == "ResearchNotebook"} == {
        k: 5 for k, v in new.items() if v[0] == "ResearchNotebook"
    }
    # a different resource is a different alert
    renamed = NOTEBOOK.replace("ResearchNotebook", "OtherNotebook")
    write_tree(tmp_path, renamed)
    _, third = sarif_of(tmp_path, monkeypatch=monkeypatch)
    assert set(prints(third)) != set(old)


def test_baseline_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    CliRunner().invoke(main, ["scan", "infra", "--write-baseline", "base.json", "-o", "ignored.txt"])
    code, doc = sarif_of(tmp_path, "--baseline", "base.json", monkeypatch=monkeypatch)
    states = {
        r["ruleId"] + ":" + r["locations"][0]["logicalLocations"][0]["name"]: r.get("baselineState")
        for r in doc["runs"][0]["results"]
    }
    assert states == {
        "FIN301:ResearchNotebook": "unchanged",
        "FIN301:ReservedNotebook": "new",  # suppressed, so never baselined; it does not fail either
        "FIN101:demo-classifier": "new",
    }
    assert code == 1  # the new FIN101 fails the run


def test_github_limits_columns_and_problem_severity(sarif: dict[str, Any]) -> None:
    """GitHub refuses a fullDescription over 1,024 characters (FIN301's was 1,144), wants a
    column on every region, and ranks non-security alerts by ``problem.severity``."""
    from finlint.rules import load_policies

    whats = {p.id: " ".join(str(p.docs.get("what") or p.summary).split()) for p in load_policies()}
    (run,) = sarif["runs"]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert len(whats["FIN301"]) > 1024  # the case this guards
    for rule_id, rule in rules.items():
        text = rule["fullDescription"]["text"]
        assert len(text) <= 1024, rule_id
        if len(whats[rule_id]) <= 1024:
            assert text == whats[rule_id]
        else:  # cut at a boundary, marked, and whole in help
            assert text.endswith("…") and whats[rule_id].startswith(text.rstrip(" …"))
            assert whats[rule_id] in rule["help"]["text"]
        expected = {"critical": "error", "high": "error", "medium": "warning"}.get(
            rule["properties"]["severity"], "recommendation"
        )
        assert rule["properties"]["problem.severity"] == expected
    for res in run["results"]:
        assert res["locations"][0]["physicalLocation"]["region"]["startColumn"] == 1
        assert res["properties"]["problem.severity"] in ("error", "warning", "recommendation")
    for note in run["invocations"][0]["toolExecutionNotifications"]:
        for loc in note.get("locations", []):
            assert loc["physicalLocation"]["region"]["startColumn"] == 1


def test_shorten_cuts_at_a_sentence_else_a_word() -> None:
    from finlint.reporters.sarif import shorten

    assert shorten("short.", 20) == "short."
    sentences = "First sentence here. Second sentence is longer than the room."
    assert shorten(sentences, 36) == "First sentence here. …"
    # the whole sentence would keep under half of the room: cut at a word instead
    assert shorten(sentences, 50) == "First sentence here. Second sentence is longer…"
    assert shorten("word " * 20, 24) == "word word word word…"
    assert len(shorten("x" * 50, 10)) <= 10 and shorten("x" * 50, 10).endswith("…")


# --- the official validator ----------------------------------------------------------------


def multitool() -> Path:
    if MULTITOOL.exists():
        return MULTITOOL
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip("npm is not installed: cannot install @microsoft/sarif-multitool")
    CACHE.mkdir(parents=True, exist_ok=True)
    proc = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--prefix", str(CACHE), "@microsoft/sarif-multitool"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0 and MULTITOOL.exists(), proc.stderr[-2000:]
    return MULTITOOL


def validate(path: Path) -> list[str]:
    """Errors the Multitool reports (it exits 0 even on errors, so read its log)."""
    log = path.with_suffix(".validation.sarif")
    proc = subprocess.run(
        [str(multitool()), "validate", str(path), "--output", str(log), "--log", "ForceOverwrite"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = json.loads(log.read_text("utf-8-sig"))["runs"][0].get("results", [])
    return [
        f"{r['ruleId']}: {r['message'].get('text', r['message'])}"
        for r in results
        if r.get("level") == "error"
    ]


def test_multitool_finds_errors_in_a_broken_log(tmp_path: Path) -> None:
    """The validator really validates: a region at line 0 is an error."""
    bad = tmp_path / "bad.sarif"
    bad.write_text(
        json.dumps(
            {
                "version": "2.1.0",
                "runs": [
                    {
                        "tool": {"driver": {"name": "x", "version": "1"}},
                        "results": [
                            {
                                "ruleId": "X1",
                                "message": {"text": "m"},
                                "locations": [
                                    {
                                        "physicalLocation": {
                                            "artifactLocation": {"uri": "a.yaml"},
                                            "region": {"startLine": 0},
                                        }
                                    }
                                ],
                            }
                        ],
                    }
                ],
            }
        ),
        encoding="utf-8",
    )
    assert any("startLine" in e for e in validate(bad))


def test_multitool_validates_our_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_tree(tmp_path)
    (tmp_path / "broken.yaml").write_text("Resources: [\n", encoding="utf-8")  # a FIN000 result too
    code, doc = sarif_of(tmp_path, monkeypatch=monkeypatch)
    assert {r["ruleId"] for r in doc["runs"][0]["results"]} == {"FIN000", "FIN101", "FIN301"}
    assert validate(tmp_path / "out.sarif") == []
