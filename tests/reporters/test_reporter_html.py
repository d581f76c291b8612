"""The HTML reports (`scan --format html`, `cost --format html`): structure, numbers, escaping,
contrast, and a real browser.

Structure is checked on a parse of the page (``html.parser``); the numbers are checked against
the JSON reports of the same scan, computed here independently. The browser tests open the page
in headless Chromium (Debian's ``chromium``) over the DevTools protocol (``tests/browser.py``)
and skip, saying why, where it is not installed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterator

import pytest
from click.testing import CliRunner
from tests.browser import Browser, find_chromium
from tests.samples import P5_NOTEBOOK, training_request

from finlint.cli import main
from finlint.reporters.html_page import GRAPHIC_PAIRS, PALETTE, SCRIPT, STYLE, TEXT_PAIRS, page

REPO = Path(__file__).resolve().parents[2]
DEMO = "fixtures/demo"
VOID = {"meta", "br", "link", "img", "input", "hr", "source", "wbr", "area", "base", "col", "embed"}
HOSTILE_NAME = '</script><script>alert("pwned")</script>\'&<b onmouseover=alert(1)>'
HOSTILE_DIR = "in\"fra'<img src=x onerror=alert(2)>&amp;"


# --- a small DOM from html.parser -----------------------------------------------------------------


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Iterator[Node]:
        yield self
        for c in self.children:
            if isinstance(c, Node):
                yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        return [
            n
            for n in self.iter()
            if (tag is None or n.tag == tag)
            and all(n.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]

    def find(self, tag: str | None = None, **attrs: str) -> Node:
        found = self.find_all(tag, **attrs)
        assert found, f"no <{tag} {attrs}>"
        return found[0]

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        assert self.stack[-1].tag == tag, f"</{tag}> closes <{self.stack[-1].tag}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(text: str) -> Node:
    builder = _Builder()
    builder.feed(text)
    builder.close()
    assert [n.tag for n in builder.stack] == ["#document"], "unclosed elements"
    return builder.root


# --- helpers --------------------------------------------------------------------------------------


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The demo scan as HTML (file and DOM) and as JSON; the demo cost breakdown likewise."""
    out = tmp_path_factory.mktemp("html")
    code, _ = cli(
        "scan",
        DEMO,
        "--format",
        "html",
        "-o",
        str(out / "scan.html"),
        "--format",
        "json",
        "-o",
        str(out / "scan.json"),
    )
    assert code == 1
    cost_code, cost_json = cli("cost", DEMO, "--format", "json")
    assert cost_code == 0
    assert cli("cost", DEMO, "--format", "html", "-o", str(out / "cost.html"))[0] == 0
    scan_html = (out / "scan.html").read_text("utf-8")
    cost_html = (out / "cost.html").read_text("utf-8")
    return {
        "scan_path": out / "scan.html",
        "scan_html": scan_html,
        "scan": parse(scan_html),
        "json": json.loads((out / "scan.json").read_text("utf-8")),
        "cost_path": out / "cost.html",
        "cost_html": cost_html,
        "cost": parse(cost_html),
        "cost_json": json.loads(cost_json),
    }


def usd_text(amount: float) -> str:
    return f"${amount:,.0f}" if abs(amount) >= 100 else f"${amount:,.2f}"


def finding_rows(doc: Node, table_id: str = "findings") -> list[tuple[Node, Node]]:
    """A findings table's findings: each its row of facts and the detail row under it."""
    rows = doc.find("table", id=table_id).find("tbody").find_all("tr")
    mains, details = rows[0::2], rows[1::2]  # each detail row right under its row
    assert len(mains) == len(details) and all(r.classes() == {"has-detail"} for r in mains)
    assert all(r.classes() == {"detail"} for r in details)
    for detail in details:
        (cell,) = detail.find_all("td")
        assert cell.attrs["colspan"] == str(len(doc.find("table", id=table_id).find("thead").find_all("th")))
    return list(zip(mains, details, strict=True))


def bars(doc: Node, chart_id: str) -> dict[str, float]:
    return {
        b.attrs["data-label"]: float(b.attrs["data-usd"]) for b in doc.find("svg", id=chart_id).find_all("g")
    }


# --- structure ------------------------------------------------------------------------------------


def assert_self_contained(doc: Node) -> None:
    """Nothing that fetches: one inline script and style, allowed by hash and nothing else."""
    for tag in ("link", "img", "iframe", "object", "embed", "base", "form", "audio", "video", "source"):
        assert not doc.find_all(tag), tag
    for node in doc.iter():
        for name, value in node.attrs.items():
            assert not name.startswith("on"), (node.tag, name)
            assert name not in ("src", "srcset", "action", "formaction", "background"), (node.tag, name)
            if name in ("href", "xlink:href"):
                assert value.startswith("#"), value
            if "url(" in value:
                assert re.fullmatch(r"url\(#[\w-]+\)", value), value
    (script,) = doc.find_all("script")
    (style,) = doc.find_all("style")
    assert script.text() == SCRIPT and not script.attrs
    assert "url(" not in style.text() and "@import" not in style.text()
    csp = doc.find("meta", **{"http-equiv": "Content-Security-Policy"}).attrs["content"]
    for text, directive in ((script.text(), "script-src"), (style.text(), "style-src")):
        digest = base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()
        assert f"{directive} 'sha256-{digest}'" in csp
    assert csp.startswith("default-src 'none';") and "unsafe-inline" not in csp


def test_scan_page_is_self_contained(demo: dict[str, Any]) -> None:
    assert demo["scan_html"].startswith("<!DOCTYPE html>")
    assert_self_contained(demo["scan"])
    assert_self_contained(demo["cost"])


def test_scan_headline_and_charts_carry_the_json_numbers(demo: dict[str, Any]) -> None:
    doc, data = demo["scan"], demo["json"]
    total = data["summary"]["monthly_usd"]
    headline = doc.find(id="total")
    assert float(headline.attrs["data-usd"]) == pytest.approx(total, abs=0.01)
    assert headline.find("b").text() == f"{usd_text(total)}/month" and usd_text(total) == "$118,786"
    assert headline.text().startswith("Avoidable spend")
    exposure = doc.find(id="exposure")
    assert float(exposure.attrs["data-usd"]) == pytest.approx(data["summary"]["exposure_usd"], abs=0.01)
    assert exposure.text().startswith("Exposure, not added") and "never added" in exposure.text()
    assert exposure not in headline.iter()  # apart, not a part of the avoidable spend

    active = [f for f in data["findings"] if "suppressed" not in f and not f.get("baseline")]
    per_rule: dict[str, float] = defaultdict(float)
    per_rule_kind: dict[tuple[str, str], float] = defaultdict(float)
    for f in active:
        if f["cost"] and f["cost"]["monthly_usd"]:
            per_rule[f"{f['rule_id']} {f['rule']}"] += f["cost"]["monthly_usd"]
            per_rule_kind[(f"{f['rule_id']} {f['rule']}", f["cost"]["kind"])] += f["cost"]["monthly_usd"]
    by_rule = bars(doc, "by-rule")
    assert by_rule.keys() == per_rule.keys()
    for label in per_rule:  # a bar's figure adds savings and waste; its exposure stands apart
        bar = doc.find("g", **{"data-label": label})
        added = sum(v for (rule, kind), v in per_rule_kind.items() if rule == label and kind != "exposure")
        assert by_rule[label] == pytest.approx(added, abs=0.02), label
        assert float(bar.attrs["data-apart-usd"]) == pytest.approx(
            per_rule_kind[(label, "exposure")], abs=0.02
        )
    # segments: one per cost kind, risk hatched
    for bar in doc.find("svg", id="by-rule").find_all("g"):
        for seg in bar.find_all("rect"):
            key = (bar.attrs["data-label"], seg.attrs["data-kind"])
            assert float(seg.attrs["data-usd"]) == pytest.approx(per_rule_kind[key], abs=0.02)
            hatched = seg.attrs["fill"] == f"url(#by-rule-{seg.attrs['data-kind']})"
            assert hatched == (seg.attrs["data-kind"] == "exposure")
    assert doc.find("pattern", id="by-rule-exposure")
    visible = [t.text() for t in doc.find("svg", id="by-rule").find_all("text", class_="value")]
    largest = max(max(per_rule_kind[(r, "exposure")], by_rule[r]) for r in per_rule)
    assert usd_text(largest) in visible[:2]  # the top row's longer bar
    assert usd_text(per_rule["FIN301 oversized-p5"]) not in visible  # never savings + exposure
    # by resource: the top 11, then the rest in one bar; together the total
    by_resource = bars(doc, "by-resource")
    assert len(by_resource) == 12 and list(by_resource)[-1].endswith("other resources")
    avoidable = {
        bar.attrs["data-label"]: sum(
            float(s.attrs["data-usd"]) for s in bar.find_all("rect") if s.attrs["data-kind"] != "exposure"
        )
        for bar in doc.find("svg", id="by-resource").find_all("g")
    }
    assert sum(avoidable.values()) == pytest.approx(total, abs=0.05)  # savings + waste segments: the headline
    # FIN301's saving at 176 active h plus FIN302's 554 idle h: the notebook's own bill, not more
    assert avoidable["ResearchNotebook"] == pytest.approx((63.296 - 1.52) * 176 + 63.296 * 554, abs=0.01)
    assert avoidable["ResearchNotebook"] <= 63.296 * 730


def test_scan_stats_split_exposure_from_savings_and_waste(demo: dict[str, Any]) -> None:
    doc, data = demo["scan"], demo["json"]
    kinds = {
        k: 0.0
        for f in data["findings"]
        if f["cost"] and f["cost"]["monthly_usd"] is not None
        for k in [f["cost"]["kind"]]
    }
    summary = data["summary"]
    stats = {li.attrs["data-kind"]: float(li.attrs["data-usd"]) for li in doc.find_all("li", class_="stat")}
    assert stats == pytest.approx(
        {
            "savings": summary["savings_usd"],
            "waste": summary["waste_usd"],
            "exposure": summary["exposure_usd"],
        },
        abs=0.05,
    )
    assert summary["savings_usd"] + summary["waste_usd"] == pytest.approx(summary["monthly_usd"], abs=0.02)
    counts = {
        k: sum(
            1
            for f in data["findings"]
            if f["cost"] and f["cost"]["kind"] == k and f["cost"]["monthly_usd"] is not None
        )
        for k in kinds
    }
    for kind, count in counts.items():
        assert doc.find("li", **{"data-kind": kind}).text().endswith(f"({count} findings)")
    # savings and waste are the parts of the avoidable spend; the exposure sits in its own figure
    total = doc.find(id="total")
    assert [li.attrs["data-kind"] for li in total.find_all("li")] == ["savings", "waste"]
    assert [li.attrs["data-kind"] for li in doc.find(id="exposure").find_all("li")] == ["exposure"]
    assert "conditional, never added" in doc.find(id="exposure").text()


def test_findings_table_rows_basis_and_assumptions(demo: dict[str, Any]) -> None:
    doc, data = demo["scan"], demo["json"]
    pairs = finding_rows(doc)
    assert len(pairs) == data["summary"]["findings"] == 31
    dollars = [float(r.find_all("td")[4].attrs["data-sort"]) for r, _ in pairs]
    # ranked by dollars without any script; a rule without a cost model (-2) ranks with $0.00
    assert [max(d, 0.0) for d in dollars] == sorted((max(d, 0.0) for d in dollars), reverse=True)
    by_place = {(f["file"], f["line"], f["rule_id"]): f for f in data["findings"]}
    for row, detail in pairs:
        cells = row.find_all("td")
        assert len(cells) == 6
        file, _, line = cells[3].text().rpartition(":")
        rule_id = cells[1].find("span", class_="rule-id").text()
        finding = by_place[(file, int(line), rule_id)]
        assert cells[0].text() == finding["severity"]
        assert cells[1].find("code", class_="rule").text() == finding["rule"]
        assert cells[2].text() == finding["resource"]
        message = detail.find("p", class_="message")
        assert message.text() == f"{finding['rule']} {finding['message']}"  # the slug, for narrow pages
        if finding["cost"] is None:  # a rule without a cost model (FIN205, FIN601, FIN306): no basis to show
            assert detail.find_all("details") == []
            continue
        details = detail.find("details")
        assert details.find("p", class_="basis").text() == finding["cost"]["basis"]
        monthly = finding["cost"]["monthly_usd"]
        want = "Why there is no figure" if monthly is None else f"How {usd_text(monthly)}/month is computed"
        summary = details.find("summary")
        assert summary.find("span", class_="how").text() == want
        # the one-phrase basis, visible while the details are folded
        assert summary.find("span", class_="brief").text() == finding["cost"]["brief"]
        if monthly is None:
            continue
        terms = [dt for dt in details.find("dl").children if isinstance(dt, Node) and dt.tag == "dt"]
        assert [dt.attrs["data-key"] for dt in terms] == list(finding["cost"]["assumptions"])
        assert not any("_" in dt.text() for dt in terms), [dt.text() for dt in terms]  # words, not keys
    header = doc.find("table", id="findings").find("thead").find_all("th")
    assert [h.attrs.get("aria-sort") for h in header].count("descending") == 1


def test_pricing_dates_and_region(demo: dict[str, Any], tmp_path: Path) -> None:
    """The oldest and newest dates of the prices the page cites, not the snapshot's compile date."""
    for doc in (demo["scan"], demo["cost"]):
        rows = [r for r, _ in finding_rows(doc, "prices")]
        dates = [r.find_all("td")[3].text() for r in rows]
        named = [d for text in dates for d in re.findall(r"\b20\d\d(?:-\d\d){0,2}\b", text)]
        line = doc.find("p", id="pricing").text()
        assert f"prices dated {min(named)} to {max(named)} ({len(dates)} unit prices)" in line, line
        assert "Region us-east-1" in line and "compiled" not in line
    assert "prices dated 2022-09-03 to 2026-09-27" in demo["scan"].find("p", id="pricing").text()
    prices = {r.find_all("td")[0].text(): d.text() for r, d in finding_rows(doc, "prices")}
    assert prices["ml.p5.48xlarge"].startswith("Source: a public SageMaker cost analyzer module")
    out = tmp_path / "r.html"
    cli("scan", f"{DEMO}/terraform", "--region", "us-west-2", "--format", "html", "-o", str(out))
    assert "Region us-west-2" in parse(out.read_text("utf-8")).find("p", id="pricing").text()


def test_hostile_names_and_paths_are_escaped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / HOSTILE_DIR
    folder.mkdir()
    (folder / "job.json").write_text(json.dumps(training_request(name=HOSTILE_NAME)), encoding="utf-8")
    (folder / "nb.yaml").write_text(
        P5_NOTEBOOK.replace("ResearchNotebook", "Nb\"'<i>x</i>"), encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path)
    code, _ = cli("scan", ".", "--format", "html", "-o", "r.html")
    assert code == 1
    text = (tmp_path / "r.html").read_text("utf-8")
    assert "<script>alert" not in text and "onmouseover=alert" not in text.replace("&lt;b onmouseover", "")
    assert "<img" not in text and "<i>x</i>" not in text
    doc = parse(text)
    assert_self_contained(doc)
    resources = {r.find_all("td")[2].text() for r, _ in finding_rows(doc)}
    assert resources == {HOSTILE_NAME, "Nb\"'<i>x</i>"}  # exactly the names, as text
    locations = {r.find_all("td")[3].text() for r, _ in finding_rows(doc)}
    assert {loc.rpartition(":")[0] for loc in locations} == {
        f"{HOSTILE_DIR}/job.json",
        f"{HOSTILE_DIR}/nb.yaml",
    }
    assert HOSTILE_NAME in bars(doc, "by-resource")  # data-label, round-tripped
    assert any(HOSTILE_NAME in t.text() for t in doc.find("svg", id="by-resource").find_all("title"))
    # the cost page too
    code, cost_page = cli("cost", ".", "--format", "html")
    assert code == 0 and "<script>alert" not in cost_page and "<img" not in cost_page
    cost_doc = parse(cost_page)
    assert_self_contained(cost_doc)
    assert HOSTILE_NAME in {r.find_all("td")[0].text() for r, _ in finding_rows(cost_doc, "resources")}


def test_page_without_findings(tmp_path: Path) -> None:
    (tmp_path / "ok.json").write_text(
        json.dumps(training_request(StoppingCondition={"MaxRuntimeInSeconds": 3600})), encoding="utf-8"
    )
    out = tmp_path / "r.html"
    assert cli("scan", str(tmp_path / "ok.json"), "--format", "html", "-o", str(out))[0] == 0
    doc = parse(out.read_text("utf-8"))
    assert float(doc.find(id="total").attrs["data-usd"]) == 0
    assert "No costly configuration found." in doc.text() and not doc.find_all("svg", class_="chart")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "No AI-training resources found." in cli("cost", str(empty), "--format", "html")[1]


def test_suppressed_findings_are_listed_apart(tmp_path: Path) -> None:
    from tests.samples import SUPPRESSED_P5_NOTEBOOK

    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK + SUPPRESSED_P5_NOTEBOOK, encoding="utf-8")
    out = tmp_path / "r.html"
    cli("scan", str(tmp_path), "--format", "html", "-o", str(out), "--ignore", "FIN302")  # FIN301 only
    doc = parse(out.read_text("utf-8"))
    ((row, detail),) = finding_rows(doc, "suppressed")
    assert row.find_all("td")[2].text() == "ReservedNotebook"
    assert "reserved for the quarterly pre-training run" in detail.text()
    assert [r.find_all("td")[2].text() for r, _ in finding_rows(doc)] == ["ResearchNotebook"]
    assert float(doc.find(id="total").attrs["data-usd"]) == pytest.approx((63.296 - 1.52) * 176, abs=0.01)


def test_baseline_comparison_marks_new_findings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    Path("nb.yaml").write_text(P5_NOTEBOOK, encoding="utf-8")
    ignore = ("--ignore", "FIN302")  # the notebook's FIN301 finding is the baseline here
    assert cli("scan", "nb.yaml", "--write-baseline", "base.json", *ignore)[0] == 0
    Path("job.json").write_text(json.dumps(training_request()), encoding="utf-8")
    assert (
        cli(
            "scan",
            "nb.yaml",
            "job.json",
            "--baseline",
            "base.json",
            "--format",
            "html",
            "-o",
            "r.html",
            *ignore,
        )[0]
        == 1
    )
    doc = parse(Path("r.html").read_text("utf-8"))
    change = doc.find("li", **{"data-kind": "change"})
    # the new FIN101 figure is an exposure ($36.48 if a run gets stuck): no avoidable change
    assert float(change.attrs["data-usd"]) == pytest.approx(0.0, abs=0.01)
    assert "±$0.00/month" in change.text() and "1 new, 0 fixed, 1 unchanged" in change.text()
    ((row, detail),) = finding_rows(doc)
    assert row.find_all("td")[2].text() == "demo-classifier"
    assert detail.find("p", class_="message").text().startswith("training-job-missing-max-runtime new ")
    ((known, _),) = finding_rows(doc, "baseline")
    assert known.find_all("td")[2].text() == "ResearchNotebook"


def test_long_chart_labels_split_then_cut_in_the_middle() -> None:
    from finlint.reporters.html_page import _LINE_CHARS, label_lines, truncate

    assert _LINE_CHARS <= 44  # 44 x ~6.6 px at 12px fits the 322 px label column
    address = 'module.eks.module.eks_managed_node_group["odcr"].aws_eks_node_group.this'
    first, second = label_lines(address)
    assert first + second == address and max(len(first), len(second)) <= _LINE_CHARS
    assert '"odcr"' in second  # the part that tells the bars apart stays visible
    assert label_lines("ResearchNotebook") == ["ResearchNotebook"]
    assert label_lines("ResearchNotebookForTheComputerVisionTeamInProduction") == [
        "ResearchNotebookForThe",
        "ComputerVisionTeamInProduction",
    ]
    cut = truncate("x" * 100, 40)
    assert len(cut) == 40 and cut[13] == "…"
    assert all(len(line) <= _LINE_CHARS for line in label_lines("y" * 150))


# --- cost ------------------------------------------------------------------------------------------

GROUPS = {"training_job": "Training jobs", "notebook": "Notebooks", "node_pool": "Node pools"}


def test_cost_page_kinds_and_ceilings(demo: dict[str, Any]) -> None:
    doc, data = demo["cost"], demo["cost_json"]
    assert float(doc.find(id="total").attrs["data-usd"]) == pytest.approx(data["total_monthly_usd"], abs=0.01)
    expected: dict[tuple[str, str], float] = defaultdict(float)
    for item in data["resources"]:
        if item["monthly_usd"]:
            group = GROUPS.get(item["kind"], "Storage")
            expected[(group, item["estimate"])] += item["monthly_usd"]
    segs = {
        (bar.attrs["data-label"], seg.attrs["data-kind"]): float(seg.attrs["data-usd"])
        for bar in doc.find("svg", id="by-kind").find_all("g")
        for seg in bar.find_all("rect")
    }
    assert segs.keys() == expected.keys()
    for key, value in expected.items():
        assert segs[key] == pytest.approx(value, abs=0.05), key
    # the demo's jobs run to their caps: ceilings, hatched and counted apart in the headline
    assert ("Training jobs", "ceiling") in segs and ("Training jobs", "expected") not in segs
    ceilings = sum(v for (_, kind), v in expected.items() if kind == "ceiling")
    assert f"of which {usd_text(ceilings)} are ceilings" in doc.find(id="total").text()
    for seg in doc.find("svg", id="by-kind").find_all("rect", **{"data-kind": "ceiling"}):
        assert seg.attrs["fill"] == "url(#by-kind-ceiling)"
    rows = finding_rows(doc, "resources")
    assert len(rows) == len(data["resources"])
    estimate = {r.find_all("td")[0].text(): r.find_all("td")[5].text() for r, _ in rows}
    # what each figure counts, across the table under its resource
    what = {r.find_all("td")[0].text(): d.find("p", class_="message").text() for r, d in rows}
    assert what["ResearchNotebook"].startswith("ml.p5.48xlarge notebook: 730 h per month")
    assert estimate["FineTuneSpot"] == "ceiling" and estimate["ResearchNotebook"] == "expected"


def test_expected_runtime_turns_a_ceiling_into_expected_spend(tmp_path: Path) -> None:
    job = tmp_path / "job.json"
    job.write_text(
        json.dumps(training_request(StoppingCondition={"MaxRuntimeInSeconds": 36000})), encoding="utf-8"
    )
    capped = json.loads(cli("cost", str(job), "--format", "json")[1])["resources"][0]
    assert capped["estimate"] == "ceiling" and capped["monthly_usd"] == pytest.approx(1.52 * 10, abs=0.01)
    usage = tmp_path / "u.yml"
    usage.write_text("defaults:\n  expected_runtime_hours: 3\n", encoding="utf-8")
    known = json.loads(cli("cost", str(job), "--format", "json", "--usage-file", str(usage))[1])["resources"][
        0
    ]
    assert known["estimate"] == "expected" and known["monthly_usd"] == pytest.approx(1.52 * 3, abs=0.01)
    page_text = cli("cost", str(job), "--format", "html", "--usage-file", str(usage))[1]
    doc = parse(page_text)
    assert not doc.find_all("rect", **{"data-kind": "ceiling"})
    assert f"usage assumptions from {usage}" in doc.find("p", id="pricing").text()


# --- contrast --------------------------------------------------------------------------------------


def luminance(hex_colour: str) -> float:
    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.03928 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_contrast_meets_wcag_aa() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)  # the formula itself
    assert contrast("#777777", "#ffffff") < 4.5  # a grey that fails, as WCAG's examples say
    for fg, bg in TEXT_PAIRS:
        assert contrast(PALETTE[fg], PALETTE[bg]) >= 4.5, (fg, bg)
    for fg, bg in GRAPHIC_PAIRS:
        assert contrast(PALETTE[fg], PALETTE[bg]) >= 3.0, (fg, bg)
    # every other text colour the stylesheet sets is readable on the page and on the panels
    # (white is the badges' text, checked against each badge colour above)
    for colour in set(re.findall(r"(?<![-\w])color:(#[0-9a-f]{6})", STYLE)) - {PALETTE["badge-text"]}:
        assert min(contrast(colour, PALETTE["bg"]), contrast(colour, PALETTE["panel"])) >= 4.5, colour
    for sev in ("critical", "high", "medium", "low", "info"):
        assert f".sev-{sev}{{background:{PALETTE[sev]}" in STYLE


# --- in a browser ------------------------------------------------------------------------------------

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium not installed (Debian package `chromium`; .ci/run installs it when apt works)",
)


@pytest.fixture()
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as b:
        yield b


@needs_chromium
def test_browser_harness_sees_errors_and_the_policy_blocks_injected_script(
    browser: Browser, tmp_path: Path
) -> None:
    """The console check can fail, and the page's CSP stops a script that escaping missed."""
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><title>t</title><script>console.error('boom'); nope();</script>")
    browser.open(broken.as_uri())
    problems = browser.problems()
    assert any("boom" in p for p in problems) and any("nope" in p for p in problems), problems
    injected = tmp_path / "injected.html"
    injected.write_text(page("t", "<p>x</p><script>document.title = 'pwned'</script>"), encoding="utf-8")
    browser.open(injected.as_uri())
    assert browser.evaluate("document.title") == "t"
    assert any("Content Security Policy" in p for p in browser.problems()), browser.problems()


@needs_chromium
@pytest.mark.parametrize("report", ["scan", "cost"])
def test_browser_loads_cleanly_and_fetches_nothing(
    browser: Browser, demo: dict[str, Any], report: str
) -> None:
    url = demo[f"{report}_path"].as_uri()
    browser.open(url)
    assert browser.problems() == []
    assert browser.requests() == [url]
    assert browser.evaluate("document.querySelector('table.sortable').dataset.sortable") == "ready"


@needs_chromium
def test_browser_draws_bars_to_scale(browser: Browser, demo: dict[str, Any]) -> None:
    browser.open(demo["scan_path"].as_uri())
    drawn = browser.evaluate(
        """Array.from(document.querySelectorAll('#by-rule g.bar')).flatMap(g =>
            ['added', 'apart'].map(lane => {
              const rects = Array.from(g.querySelectorAll('rect')).filter(r =>
                (r.dataset.kind === 'exposure') === (lane === 'apart'));
              return {label: g.dataset.label, lane: lane,
                usd: parseFloat(lane === 'apart' ? g.dataset.apartUsd : g.dataset.usd),
                width: rects.reduce((w, r) => w + r.getBBox().width, 0),
                shown: Array.from(g.querySelectorAll('text.value')).map(t => t.textContent)};
            }).filter(d => d.usd > 0))"""
    )
    data = demo["json"]
    expected: dict[tuple[str, str], float] = defaultdict(float)
    for f in data["findings"]:
        if f["cost"] and f["cost"]["monthly_usd"]:
            lane = "apart" if f["cost"]["kind"] == "exposure" else "added"
            expected[(f"{f['rule_id']} {f['rule']}", lane)] += f["cost"]["monthly_usd"]
    assert {(d["label"], d["lane"]): d["usd"] for d in drawn} == pytest.approx(dict(expected), abs=0.02)
    # every label starts inside the chart (long ones wrap rather than run off the left edge)
    lefts = browser.evaluate(
        "Array.from(document.querySelectorAll('svg.chart text.label')).map(t => t.getBBox().x)"
    )
    assert lefts and min(lefts) >= 0, lefts
    top = max(drawn, key=lambda d: d["usd"])
    for d in drawn:  # each lane is drawn to scale and shows its own figure, never a sum of kinds
        assert usd_text(d["usd"]) in d["shown"]
        if d["usd"] / top["usd"] > 0.01:  # tiny bars get a 1-unit minimum
            assert d["width"] / top["width"] == pytest.approx(d["usd"] / top["usd"], rel=0.01)
    fin301 = [d for d in drawn if d["label"] == "FIN301 oversized-p5"]
    assert {d["lane"] for d in fin301} == {"added", "apart"}  # a saving and an exposure, apart
    assert usd_text(sum(d["usd"] for d in fin301)) not in fin301[0]["shown"]


@needs_chromium
def test_browser_sorts_the_table(browser: Browser, demo: dict[str, Any]) -> None:
    browser.open(demo["scan_path"].as_uri())
    column = (
        "Array.from(document.querySelectorAll('#findings tbody tr.has-detail'))"
        ".map(r => r.cells[{i}].dataset.sort)"
    )
    # each detail row stays under its finding whatever the order
    paired = """Array.from(document.querySelectorAll('#findings tbody tr')).every((r, i, all) =>
        r.classList.contains('detail') === (i % 2 === 1) && (i % 2 === 0 ||
        r.querySelector('p.message').textContent.startsWith(
            all[i - 1].querySelector('code.rule').textContent)))"""
    click = "document.querySelectorAll('#findings thead th button')[{i}].click()"
    start = [float(v) for v in browser.evaluate(column.format(i=4))]
    # ranked by dollars; a rule without a cost model (sort key -2) ranks with the $0.00 rows
    assert [max(v, 0.0) for v in start] == sorted((max(v, 0.0) for v in start), reverse=True)
    browser.evaluate(click.format(i=4))
    assert [float(v) for v in browser.evaluate(column.format(i=4))] == sorted(start)
    assert browser.evaluate(
        "document.querySelectorAll('#findings thead th')[4].getAttribute('aria-sort')"
    ) == ("ascending")
    browser.evaluate(click.format(i=4))
    assert [float(v) for v in browser.evaluate(column.format(i=4))] == sorted(start, reverse=True)
    browser.evaluate(click.format(i=0))  # severity: most severe first
    severities = browser.evaluate(column.format(i=0))
    assert severities == sorted(severities) and severities[0].endswith("high")
    browser.evaluate(click.format(i=3))  # location: by file, then line
    places = browser.evaluate(column.format(i=3))
    assert places == sorted(places)
    assert browser.evaluate(paired) is True
    assert browser.problems() == []


@needs_chromium
def test_browser_without_javascript(browser: Browser, demo: dict[str, Any]) -> None:
    browser.open(demo["scan_path"].as_uri(), javascript=False)
    assert browser.evaluate("document.querySelectorAll('#findings tbody tr.has-detail').length") == 31
    assert browser.evaluate("document.querySelectorAll('#findings th button').length") == 0
    assert (
        browser.evaluate("document.querySelectorAll('svg.chart g.bar').length")
        == len(bars(demo["scan"], "by-rule")) + 12
    )
    assert browser.evaluate("document.querySelector('#by-rule g.bar rect').getBBox().width") > 100
    assert browser.evaluate("document.querySelector('#findings').dataset.sortable") is None


@needs_chromium
def test_browser_print_shows_every_basis(browser: Browser, demo: dict[str, Any]) -> None:
    browser.open(demo["scan_path"].as_uri())
    visible = "document.querySelector('#findings details .basis').checkVisibility()"
    assert browser.evaluate(visible) is False  # collapsed on screen
    browser.send("Emulation.setEmulatedMedia", {"media": "print"})
    assert browser.evaluate(visible) is True  # every basis is on paper, even without the script
    pdf = base64.b64decode(browser.send("Page.printToPDF", {"printBackground": False})["data"])
    assert pdf.startswith(b"%PDF") and len(pdf) > 10_000
    assert browser.problems() == []


def test_readme_shows_the_demo_screenshot() -> None:
    image = REPO / "docs" / "img" / "html-report.png"
    assert image.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert "docs/img/html-report.png" in (REPO / "README.md").read_text("utf-8")
