"""The HTML report as people see it: where names break, what the labels say, the dates of the
prices, the screenshots' figures, and the page at 800 and 1,400 px in headless Chromium.

The browser tests skip, saying why, where Chromium is not installed; the others need no browser.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from tests.browser import Browser, find_chromium

from finlint.cli import main
from finlint.reporters.html_text import LABELS, breakable, dates_in, label, price_dates, price_dates_html
from finlint.reporters.markdown import usd

REPO = Path(__file__).resolve().parents[2]
IMG = REPO / "docs" / "img"
WIDTHS = (800, 1400)


# --- words ----------------------------------------------------------------------------------------


def test_names_break_only_after_separators() -> None:
    assert breakable("fixtures/demo/cloudformation/training-stack.yaml") == (
        "fixtures/<wbr>demo/<wbr>cloudformation/<wbr>training-<wbr>stack.yaml"  # ".yaml" stays on
    )
    assert breakable("aws_sagemaker_notebook_instance.research") == (
        "aws_<wbr>sagemaker_<wbr>notebook_<wbr>instance.<wbr>research"
    )
    assert breakable("ResearchNotebook") == "ResearchNotebook"
    # a long piece with no separator (a CloudFormation logical id) breaks between its words only
    assert (
        breakable("ResearchNotebookForTheVisionTeam2")
        == "Research<wbr>Notebook<wbr>For<wbr>The<wbr>Vision<wbr>Team2"
    )
    assert breakable("x" * 40) == "x" * 40
    # escaped text only: a separator inside what escaping writes is never split
    assert breakable('a/<b onclick="x">_c') == "a/<wbr>&lt;b onclick=&quot;x&quot;&gt;_c"
    assert "<wbr>" not in breakable("x/").replace("x/", "")


def test_assumption_keys_in_words() -> None:
    assert label("hourly_usd") == "hourly rate"
    assert label("counted_in") == "counted once, on"
    assert label("spare_gb") == "spare (GB)" and label("warm_hours") == "warm (h)"
    assert label("odd_key") == "odd key"
    assert all("_" not in text for text in LABELS.values())


def _keys(assumptions: dict[str, Any]) -> Iterator[str]:
    for key, value in assumptions.items():
        yield key
        if isinstance(value, dict) and key != "prices":
            yield from _keys(value)


def test_every_assumption_the_rules_write_has_words(tmp_path: Path) -> None:
    """Every key the figures of the fixtures and of every policy example carry (the rule
    snapshots) reads as words, not a JSON key."""
    out = tmp_path / "all.json"
    CliRunner().invoke(main, ["scan", str(REPO / "fixtures"), "--format", "json", "-o", str(out)])
    keys = {
        k
        for f in json.loads(out.read_text("utf-8"))["findings"]
        if f["cost"]
        for k in _keys(f["cost"]["assumptions"])
    }
    decoder = json.JSONDecoder()
    for snap in sorted((REPO / "tests" / "rules" / "snapshots").glob("*.snap")):
        text = snap.read_text("utf-8")
        for match in re.finditer(r"^    assumptions: ", text, re.M):
            keys.update(_keys(decoder.raw_decode(text, match.end())[0]))
    assert len(keys) > 80
    assert sorted(k for k in keys if "_" in label(k)) == []


def test_price_dates_span_every_date_a_price_names() -> None:
    assert dates_in("2024-07-01 (S10) / 2025-2026 (S22)") == ["2024-07-01", "2025", "2026"]
    assert dates_in("2023-11 (unchanged in the 2026-06-13 table)") == ["2023-11", "2026-06-13"]
    assert dates_in("undated") == [] and dates_in("12025-13-01") == []
    quotes = [{"date": "2025-11-30"}, {"date": "2022-09-03 / undated (2025-2026)"}, {"date": "undated"}]
    assert price_dates(quotes) == ("2022-09-03", "2026", 1)
    assert price_dates_html(quotes) == (
        "prices dated <b>2022-09-03</b> to <b>2026</b> (3 unit prices, 1 undated)"
    )
    assert price_dates_html([{"date": "2026-09-27"}]) == "prices dated <b>2026-09-27</b> (1 unit price)"
    assert price_dates_html([]) == "no unit prices cited"


# --- the screenshots --------------------------------------------------------------------------------


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR", path
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_screenshots_show_the_demo_as_it_is_today(tmp_path: Path) -> None:
    shown = json.loads((IMG / "html-report.json").read_text("utf-8"))
    out = tmp_path / "demo.json"
    CliRunner().invoke(main, ["scan", "fixtures/demo", "--format", "json", "-o", str(out)])
    summary = json.loads(out.read_text("utf-8"))["summary"]
    today = {
        "findings": f"Findings ({summary['findings']})",
        "avoidable": f"{usd(summary['monthly_usd'])}/month",
        "exposure": f"{usd(summary['exposure_usd'])}/month",
    }
    assert shown["shown"] == today, "the demo's figures changed: regenerate with scripts/html_screenshot.py"
    for width in WIDTHS:
        assert _png_size(IMG / f"html-report-{width}.png")[0] == width
    assert (IMG / "html-report.png").read_bytes() == (IMG / "html-report-1400.png").read_bytes()
    readme = (REPO / "README.md").read_text("utf-8")
    assert "docs/img/html-report.png" in readme
    assert not re.search(r"!\[[^]]*\$\d[^]]*\]\(docs/img/html-report\.png\)", readme)  # no stale figure


# --- in a browser ------------------------------------------------------------------------------------

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not installed (Debian package `chromium`; .ci/run installs it when apt works)",
)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("layout")
    runner = CliRunner()
    runner.invoke(main, ["scan", "fixtures/demo", "--format", "html", "-o", str(out / "scan.html")])
    runner.invoke(main, ["cost", "fixtures/demo", "--format", "html", "-o", str(out / "cost.html")])
    return {"scan": out / "scan.html", "cost": out / "cost.html"}


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as b:
        yield b


#: every place a text node in a name cell wraps onto a new line: the character before the break
BREAKS = """Array.from(document.querySelectorAll('td.name')).flatMap(td => {
  const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
  const chars = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (let i = 0; i < n.length; i++) {
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      const box = r.getBoundingClientRect();
      if (box.width > 0) chars.push([n.data[i], box.top]);
    }
  }
  const out = [];
  for (let i = 1; i < chars.length; i++) {
    if (chars[i][1] > chars[i - 1][1] + 2) out.push([td.textContent, chars[i - 1][0]]);
  }
  return out;
})"""
#: the lines each visible rule slug takes
SLUG_LINES = """Array.from(document.querySelectorAll('#findings code.rule')).filter(c => c.checkVisibility())
  .map(c => { const r = document.createRange(); r.selectNodeContents(c);
              const tops = new Set(Array.from(r.getClientRects()).map(b => Math.round(b.top)));
              return [c.textContent, tops.size]; })"""


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("report", ["scan", "cost"])
def test_page_fits_the_width(browser: Browser, pages: dict[str, Path], report: str, width: int) -> None:
    """No horizontal overflow of the page, and no table that needs its own scroll bar."""
    browser.open(pages[report].as_uri(), width=width, height=900)
    assert browser.evaluate("document.documentElement.scrollWidth") <= width
    overflow = browser.evaluate(
        "Array.from(document.querySelectorAll('.scroll')).map(d => [d.scrollWidth, d.clientWidth])"
    )
    assert overflow and all(scroll <= client for scroll, client in overflow), overflow
    assert browser.problems() == []


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_slugs_stay_on_one_line_and_names_break_at_separators(
    browser: Browser, pages: dict[str, Path], width: int
) -> None:
    browser.open(pages["scan"].as_uri(), width=width, height=900)
    slugs = browser.evaluate(SLUG_LINES)
    assert len(slugs) == 31  # one visible slug per finding: in the Rule column, or first in its detail row
    assert [s for s, lines in slugs if lines != 1] == []
    where = "td.rule" if width >= 1100 else "tr.detail"
    assert browser.evaluate(
        f"Array.from(document.querySelectorAll('#findings code.rule')).filter(c => c.checkVisibility())"
        f".every(c => c.closest('{where}') !== null)"
    )
    breaks = browser.evaluate(BREAKS)
    if width == 800:
        assert breaks  # the narrow page does wrap long paths ...
    assert [b for b in breaks if b[1] not in "/.-_"] == []  # ... only after a separator
    assert browser.evaluate(
        "Array.from(document.querySelectorAll('#findings td.rule'))"
        ".every(td => td.scrollWidth <= td.clientWidth)"
    )


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
def test_detail_row_spans_the_table(browser: Browser, pages: dict[str, Path], width: int) -> None:
    browser.open(pages["scan"].as_uri(), width=width, height=900)
    browser.evaluate("document.querySelectorAll('#findings details').forEach(d => d.open = true)")
    sizes: list[dict[str, Any]] = browser.evaluate(
        """Array.from(document.querySelectorAll('#findings tr.detail')).map(tr => {
            const table = tr.closest('table').getBoundingClientRect();
            const td = tr.cells[0].getBoundingClientRect();
            const basis = tr.querySelector('.basis');
            const style = getComputedStyle(tr.cells[0]);
            const inner = td.width - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
            return {table: table.width, left: td.left - table.left, td: td.width, inner: inner,
                    basis: basis ? basis.getBoundingClientRect().width : null};
        })"""
    )
    assert len(sizes) == 31
    for s in sizes:
        assert s["left"] == pytest.approx(0, abs=1) and s["td"] == pytest.approx(s["table"], abs=1), s
        if s["basis"] is not None:  # the expanded basis uses the whole row, not a column of it
            assert s["basis"] == pytest.approx(s["inner"], abs=1), s
    assert sizes[0]["table"] >= min(width, 1180) - 2 * 20 - 2  # the table is the page's width


@needs_chromium
@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("report", ["scan", "cost"])
def test_charts_are_not_scaled_down(
    browser: Browser, pages: dict[str, Path], report: str, width: int
) -> None:
    """A chart is drawn at its own size from 800 px up (its 12 px labels stay 12 px), and every
    figure after a bar ends inside it."""
    browser.open(pages[report].as_uri(), width=width, height=900)
    charts = browser.evaluate(
        """Array.from(document.querySelectorAll('svg.chart')).map(svg => ({
            scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
            right: Math.max(...Array.from(svg.querySelectorAll('text')).map(t => {
                const b = t.getBBox(); return b.x + b.width; })),
            inside: svg.viewBox.baseVal.width}))"""
    )
    assert len(charts) == 2
    for chart in charts:
        assert chart["scale"] == pytest.approx(1.0, abs=0.01), chart
        assert chart["right"] <= chart["inside"], chart
