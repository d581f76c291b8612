"""Markdown PR comment: dollars on top, a table ranked by dollars, bases folded, baseline changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK, training_request

from finlint.cli import main
from finlint.reporters.markdown import MARKER, cell

NOTEBOOK = P5_NOTEBOOK
REQUEST = training_request()


# FIN302 fires on the same p5 sample notebooks as FIN301 (no auto-stop) and is counted once
# with it; these reporter tests are written against the FIN301 findings.
IGNORE = ("--ignore", "FIN302")


def markdown(root: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str]:
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, ["scan", ".", "--format", "markdown", *IGNORE, *args])
    return result.exit_code, result.output


def test_total_on_top_and_ranked_by_dollars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a-request.json").write_text(json.dumps(REQUEST), encoding="utf-8")  # sorts first by path
    (tmp_path / "z-notebook.yaml").write_text(NOTEBOOK, encoding="utf-8")
    code, text = markdown(tmp_path, monkeypatch)
    assert code == 1
    lines = text.splitlines()
    assert lines[0] == MARKER
    # FIN301's saving at 176 active h is avoidable; FIN101's $36.48 is an exposure, shown apart
    assert (
        lines[1] == "## finlint: $10,873/month avoidable (savings + expected waste) · "
        "$36.48/month exposure if it happens (not added)"
    )
    assert "**2 finding(s)** (2 high) in 2 file(s)" in text
    rows = [line for line in lines if line.startswith("| 🔴")]
    assert [r.split("|")[2].strip().split()[0] for r in rows] == [
        "FIN301",
        "FIN101",
    ]  # dollars, not path order
    assert "`z-notebook.yaml:6`" in rows[0] and "$10,873" in rows[0] and "| $36.48 |" in rows[1]
    assert "<details><summary>How the dollars are computed (2)</summary>" in text
    assert "ml.p5.48xlarge $" in text.split("<details>")[1]  # the basis, folded


def test_clean_scan_and_suppressed_section(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = NOTEBOOK.replace(
        "  ResearchNotebook:",
        "  # finlint: ignore[FIN301] reserved capacity, see RFC-12\n  ResearchNotebook:",
    )
    (tmp_path / "n.yaml").write_text(text, encoding="utf-8")
    code, out = markdown(tmp_path, monkeypatch)
    assert code == 0
    assert "## finlint: no findings" in out and "No costly configuration found." in out
    assert "<details><summary>Suppressed in source (1)</summary>" in out
    assert "| reserved capacity, see RFC-12 |" in out


def test_with_baseline_shows_new_fixed_and_cost_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "n.yaml").write_text(NOTEBOOK, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert (
        CliRunner()
        .invoke(main, ["scan", ".", "--write-baseline", "b/base.json", "-o", "b/out.txt", *IGNORE])
        .exit_code
        == 0
    )
    (tmp_path / "n.yaml").write_text(NOTEBOOK.replace("p5.48xlarge", "g5.xlarge"), encoding="utf-8")  # fixed
    (tmp_path / "job.json").write_text(json.dumps(REQUEST), encoding="utf-8")  # new
    code, out = markdown(tmp_path, monkeypatch, "--baseline", "b/base.json")
    assert code == 1
    head = out.splitlines()[1]
    # avoidable spend only: the fixed saving goes, the new FIN101 exposure ($36.48) is not added
    assert head.startswith("## finlint: −$10,873") and head.endswith("/month against baseline b/base.json")
    assert "1 new (±$0.00) · 1 fixed (−$10,873" in out
    new, fixed = out.split("### New findings (1)")[1].split("### Fixed findings (1)")
    assert "demo-classifier" in new and "ResearchNotebook" not in new
    assert "| ✅ high | FIN301 `oversized-p5` | `ResearchNotebook` | `n.yaml:6` |" in fixed


def test_cells_cannot_break_the_table() -> None:
    assert cell("a | b\n<script>") == "a \\| b &lt;script&gt;"
