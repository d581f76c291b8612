"""What the HTML reports share: escaping, the page shell, SVG bar charts, sortable tables.

The page is one self-contained file: inline CSS, inline SVG, one small inline script, and a
Content-Security-Policy that names the exact hashes of that style and script and allows nothing
else (``default-src 'none'``). So the report fetches nothing, and even a string that escaped
escaping could not run as script. Every string from scanned files goes through :func:`esc`.

It reads without JavaScript (charts are SVG, the table is already ranked by dollars); the
script only adds sort buttons to the table headers (a :class:`Row`'s detail row moves with its
row) and opens every ``<details>`` before printing. Colours meet WCAG AA (text 4.5:1, chart
marks 3:1 against white; see ``PALETTE`` and ``tests/reporters/test_reporter_html.py``), and
exposure figures, which are conditional rather than expected spend, are drawn hatched with a
solid outline so they differ without colour too.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from finlint import __version__
from finlint.escape import clean
from finlint.reporters.markdown import usd

#: name -> colour. Text colours are checked against ``bg`` for 4.5:1, marks for 3:1.
PALETTE: dict[str, str] = {
    "bg": "#ffffff",
    "text": "#1b1f24",
    "muted": "#4a5360",
    "rule": "#8c959f",  # table rules and chart axis (decorative)
    "panel": "#f3f5f7",
    "badge-text": "#ffffff",
    "critical": "#7a0c0c",
    "high": "#a4161a",
    "medium": "#8a4600",
    "low": "#0f5d7a",
    "info": "#4a5360",
    "savings": "#1f5fa8",
    "waste": "#9a3d00",
    "expected": "#1f5fa8",
    "exposure": "#a4161a",
    "ceiling": "#a4161a",
    "other": "#4a5360",
}
#: (foreground, background) pairs that carry text: WCAG AA needs 4.5:1.
TEXT_PAIRS: tuple[tuple[str, str], ...] = (
    ("text", "bg"),
    ("muted", "bg"),
    ("text", "panel"),
    ("muted", "panel"),
    *(("badge-text", s) for s in ("critical", "high", "medium", "low", "info")),
    *((k, "bg") for k in ("savings", "waste", "exposure", "expected", "ceiling")),  # coloured kind labels
)
#: Chart marks against the page: WCAG 1.4.11 needs 3:1.
GRAPHIC_PAIRS: tuple[tuple[str, str], ...] = tuple(
    (k, "bg") for k in ("savings", "waste", "expected", "exposure", "ceiling", "other")
)
#: Kinds drawn hatched: what a setting may burn at most, not what it is expected to cost.
HATCHED = frozenset({"exposure", "ceiling"})

SEVERITY_ORDER = ("critical", "high", "medium", "low", "info")


def esc(value: Any) -> str:
    """Text or attribute value, escaped for HTML (``& < > " '``)."""
    return html.escape(clean(value), quote=True)


def truncate(text: str, limit: int) -> str:
    """At most ``limit`` characters, cut in the middle: addresses differ at both ends
    (``module.eks.module.eks_…["odcr"].aws_eks_node_group.this``)."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 3
    return text[:head] + "…" + text[len(text) - (limit - 1 - head) :]


def number(value: float) -> str:
    """A figure for the assumptions list: no float noise, no exponent for ordinary values."""
    if value == 0 or not math.isfinite(value):
        return str(value)
    if abs(value) >= 0.001:
        return f"{value:,.6f}".rstrip("0").rstrip(".")
    return f"{value:.6g}"


def _quote_text(q: Mapping[str, Any]) -> str:
    """A cited price (``PriceQuote.to_json()``) in one line."""
    rate = f"${number(float(q['usd']))}/{q.get('unit', '')}"
    cite = ", ".join(str(q[k]) for k in ("region", "source", "date") if q.get(k))
    conf = f", {q['confidence']} confidence" if q.get("confidence") else ""
    return f"{rate} ({cite}{conf})"


def value_html(value: Any) -> str:
    """An assumption's value: a cited price in one line, nested mappings as lists, lists joined."""
    if isinstance(value, Mapping):
        if "usd" in value and "unit" in value and isinstance(value["usd"], (int, float)):
            return esc(_quote_text(value))
        items = "".join(f"<li><code>{esc(k)}</code>: {value_html(v)}</li>" for k, v in value.items())
        return f'<ul class="nested">{items}</ul>'
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return '<span class="muted">not set</span>'
    if isinstance(value, (int, float)):
        return esc(number(float(value)) if isinstance(value, float) else f"{value:,}")
    if isinstance(value, (list, tuple, set)):
        return ", ".join(value_html(v) for v in value) or '<span class="muted">none</span>'
    return esc(value)


# --- charts -------------------------------------------------------------------------------------


#: kinds never added to the others: drawn as a bar of their own beside the stacked one
APART = frozenset({"exposure"})


@dataclass
class Bar:
    """One bar: a label and its dollars by kind. Kinds that add up (savings and waste, a bill's
    parts) are stacked; an :data:`APART` kind (exposure) is a second bar in the same row, never
    added to them."""

    label: str
    segments: list[tuple[str, float]]
    note: str = ""  # tooltip text after the label (a location, a count)

    @property
    def added(self) -> float:
        """The stacked kinds' sum (for the scan: the avoidable spend)."""
        return sum(v for k, v in self.segments if k not in APART)

    @property
    def apart(self) -> float:
        return sum(v for k, v in self.segments if k in APART)

    @property
    def size(self) -> float:
        """What the bar is ranked and scaled by: the longer of its two bars."""
        return max(self.added, self.apart)


@dataclass
class Chart:
    """A horizontal bar chart of the HTML report."""

    chart_id: str  # unique in the page; prefixes the hatch patterns' ids
    title: str
    bars: list[Bar]
    legend: list[tuple[str, str]] = field(default_factory=list)  # (kind, label)


def top_bars(bars: list[Bar], limit: int, noun: str) -> list[Bar]:
    """The largest non-zero bars, the rest summed (kind by kind) into one last bar."""
    ranked = sorted((b for b in bars if b.size > 0), key=lambda b: (-b.size, b.label))
    if len(ranked) <= limit:
        return ranked
    rest = ranked[limit - 1 :]
    merged: dict[str, float] = {}
    for b in rest:
        for kind, value in b.segments:
            merged[kind] = merged.get(kind, 0.0) + value
    return ranked[: limit - 1] + [Bar(f"{len(rest)} other {noun}", [(k, v) for k, v in merged.items() if v])]


#: the chart's own width is the page's at 800 px (760 px inside the margins), so its 12 px labels
#: are drawn at 12 px there rather than scaled down (wider pages show it at that size); the bars
#: leave room after the longest for a figure of ten characters ("$1,234,567")
_LABEL_W, _BAR_X, _BAR_W, _WIDTH = 322, 330, 330, 760
_LINE_CHARS = 44  # what fits in the label column at 12px
_SPLIT_AT = ".[/:-_"


def _pattern(chart_id: str, kind: str) -> str:
    colour = PALETTE[kind]
    return (
        f'<pattern id="{chart_id}-{kind}" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff"/>'
        f'<rect width="3" height="6" fill="{colour}"/></pattern>'
    )


def _fill(chart_id: str, kind: str) -> str:
    return f"url(#{chart_id}-{kind})" if kind in HATCHED else PALETTE.get(kind, PALETTE["other"])


def label_lines(label: str) -> list[str]:
    """One line, or two split after the separator nearest the middle, else between the camel-case
    words nearest it (each line cut to fit)."""
    if len(label) <= _LINE_CHARS:
        return [label]
    # a line ends with its separator (``PersistentVolumeClaim/``), but ``[`` opens the next one
    cuts = [i + (ch != "[") for i, ch in enumerate(label) if ch in _SPLIT_AT and 0 < i < len(label) - 1]
    if not cuts:  # no separator (a CloudFormation logical id): between two camel-case words
        cuts = [i for i in range(1, len(label)) if label[i].isupper() and label[i - 1].islower()]
    cut = min(cuts, key=lambda i: abs(i - len(label) / 2)) if cuts else len(label) // 2
    return [truncate(label[:cut], _LINE_CHARS), truncate(label[cut:], _LINE_CHARS)]


def _lane(
    chart_id: str, segments: list[tuple[str, float]], top: float, y: float, h: float
) -> tuple[str, float]:
    """One bar's rectangles from the axis, and where it ends."""
    x = float(_BAR_X)
    rects: list[str] = []
    for kind, value in segments:
        if value <= 0:
            continue
        w = max(value / top * _BAR_W, 1.0)
        rects.append(
            f'<rect class="seg seg-{esc(kind)}" data-kind="{esc(kind)}" data-usd="{value:.2f}" '
            f'x="{x:.1f}" y="{y:.0f}" width="{w:.1f}" height="{h:.0f}" '
            f'fill="{_fill(chart_id, kind)}" stroke="{PALETTE.get(kind, PALETTE["other"])}" '
            f'stroke-width="1.5"><title>{esc(kind)}: {esc(usd(value))}/month</title></rect>'
        )
        x += w
    return "".join(rects), x


def bar_chart(chart: Chart) -> str:
    """A horizontal bar chart in inline SVG; every bar carries its figures as ``data-usd`` (the
    stacked kinds' sum) and ``data-apart-usd`` (the exposure, never added to it)."""
    bars = [b for b in chart.bars if b.size > 0]
    if not bars:
        return f'<p class="muted">{esc(chart.title)}: no dollar figures to chart.</p>'
    top = max(b.size for b in bars)
    lines = [label_lines(b.label) for b in bars]
    both = any(b.added and b.apart for b in bars)
    row_h = 40 if both or any(len(ls) > 1 for ls in lines) else 28
    height = len(bars) * row_h + 8
    kinds = sorted({k for b in bars for k, v in b.segments if v > 0} & HATCHED)
    defs = "".join(_pattern(chart.chart_id, k) for k in kinds)
    rows: list[str] = []
    for i, (b, label) in enumerate(zip(bars, lines, strict=True)):
        y = 4 + i * row_h
        mid = y + row_h / 2
        added = [(k, v) for k, v in b.segments if k not in APART]
        apart = [(k, v) for k, v in b.segments if k in APART]
        lanes: list[tuple[list[tuple[str, float]], str]] = []
        if b.added:
            lanes.append((added, usd(b.added)))
        if b.apart:
            lanes.append((apart, usd(b.apart)))  # hatched: the legend says it is an exposure
        h = 18.0 if len(lanes) == 1 else 14.0
        drawn: list[str] = []
        for n, (segments, figure) in enumerate(lanes):
            top_y = mid - 9 if len(lanes) == 1 else mid - 15 + n * 16
            rects, end = _lane(chart.chart_id, segments, top, top_y, h)
            value_y = top_y + h / 2 + 4
            drawn.append(
                f'{rects}<text class="value" x="{end + 6:.1f}" y="{value_y:.0f}">{esc(figure)}</text>'
            )
        figures = " and ".join(
            part
            for part in (
                f"{usd(b.added)}/month" if b.added else "",
                f"exposure {usd(b.apart)}/month (not added)" if b.apart else "",
            )
            if part
        )
        tip = f"{b.label}{' (' + b.note + ')' if b.note else ''}: {figures}"
        first = mid + 5 - 7 * (len(label) - 1)
        text = "".join(
            f'<tspan x="{_LABEL_W}" y="{first + 14 * n:.0f}">{esc(part)}</tspan>'
            for n, part in enumerate(label)
        )
        rows.append(
            f'<g class="bar" data-label="{esc(b.label)}" data-usd="{b.added:.2f}" '
            f'data-apart-usd="{b.apart:.2f}"><title>{esc(tip)}</title>'
            f'<text class="label" text-anchor="end">{text}</text>{"".join(drawn)}'
            "</g>"
        )
    axis = f'<line x1="{_BAR_X}" y1="2" x2="{_BAR_X}" y2="{height - 2}" stroke="{PALETTE["rule"]}"/>'
    svg = (
        f'<svg class="chart" id="{esc(chart.chart_id)}" viewBox="0 0 {_WIDTH} {height}" role="img" '
        f'aria-labelledby="{esc(chart.chart_id)}-title" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{esc(chart.chart_id)}-title">{esc(chart.title)}</title>'
        f"<defs>{defs}</defs>{axis}{''.join(rows)}</svg>"
    )
    return f"<figure><figcaption>{esc(chart.title)}</figcaption>{svg}{legend(chart)}</figure>"


def swatch(kind: str, chart_id: str = "legend") -> str:
    """A small legend mark: solid, or hatched for ceilings (an SVG of its own)."""
    pattern = _pattern(f"{chart_id}-sw", kind) if kind in HATCHED else ""
    fill = f"url(#{chart_id}-sw-{kind})" if kind in HATCHED else PALETTE.get(kind, PALETTE["other"])
    return (
        f'<svg class="swatch" width="18" height="12" viewBox="0 0 18 12" aria-hidden="true">'
        f'<defs>{pattern}</defs><rect x="0.75" y="0.75" width="16.5" height="10.5" fill="{fill}" '
        f'stroke="{PALETTE.get(kind, PALETTE["other"])}" stroke-width="1.5"/></svg>'
    )


def legend(chart: Chart) -> str:
    if not chart.legend:
        return ""
    items = "".join(f"<li>{swatch(kind, chart.chart_id)} {esc(label)}</li>" for kind, label in chart.legend)
    return f'<ul class="legend">{items}</ul>'


# --- tables -------------------------------------------------------------------------------------


@dataclass
class Column:
    """A column of an HTML table: its label and how it sorts."""

    label: str
    numeric: bool = False
    sort: str | None = None  # initial aria-sort ("ascending"/"descending") of the server's order
    css: str = ""  # class of the column's cells ("wide": a minimum width)


@dataclass
class Cell:
    """A table cell: escaped HTML and the key it sorts by."""

    html: str  # already escaped
    sort: str | float | None = None  # sort key when it differs from the text
    css: str = ""


@dataclass
class Row:
    """A table row, and optionally a detail row under it across every column (a finding's
    message and basis): the sort script moves the two together."""

    cells: list[Cell]
    detail: str = ""  # already escaped HTML; "" for no detail row


def table(table_id: str, caption: str, columns: list[Column], rows: Iterable[list[Cell] | Row]) -> str:
    """A table the inline script makes sortable; without script it keeps the server's order."""
    head = "".join(
        f'<th scope="col"{" data-type=" + chr(34) + "num" + chr(34) if c.numeric else ""}'
        f"{' aria-sort=' + chr(34) + c.sort + chr(34) if c.sort else ''}>{esc(c.label)}</th>"
        for c in columns
    )
    body: list[str] = []
    for item in rows:
        row = item if isinstance(item, Row) else Row(item)
        cells = []
        for col, cell in zip(columns, row.cells, strict=False):
            attrs = ""
            if cell.sort is not None:
                key = f"{cell.sort:.2f}" if isinstance(cell.sort, float) else str(cell.sort)
                attrs += f' data-sort="{esc(key)}"'
            css = " ".join(c for c in (cell.css, col.css, "num" if col.numeric else "") if c)
            if css:
                attrs += f' class="{esc(css)}"'
            cells.append(f"<td{attrs}>{cell.html}</td>")
        if row.detail:
            body.append(f'<tr class="has-detail">{"".join(cells)}</tr>')
            body.append(f'<tr class="detail"><td colspan="{len(columns)}">{row.detail}</td></tr>')
        else:
            body.append(f"<tr>{''.join(cells)}</tr>")
    return (
        f'<div class="scroll"><table class="sortable" id="{esc(table_id)}">'
        f"<caption>{esc(caption)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def badge(severity: str) -> str:
    return f'<span class="badge sev-{esc(severity)}">{esc(severity)}</span>'


# --- the page -----------------------------------------------------------------------------------

SCRIPT = """
(function () {
  "use strict";
  function key(row, i, numeric) {
    var cell = row.cells[i];
    var v = cell.getAttribute("data-sort");
    if (v === null) { v = cell.textContent.trim(); }
    if (numeric) { var n = parseFloat(v); return isNaN(n) ? -Infinity : n; }
    return v.toLowerCase();
  }
  function sortBy(table, heads, th, i) {
    var numeric = th.getAttribute("data-type") === "num";
    var now = th.getAttribute("aria-sort");
    var asc = now ? now !== "ascending" : !numeric;
    var body = table.tBodies[0];
    var groups = [];
    Array.prototype.forEach.call(body.rows, function (r) {
      if (r.classList.contains("detail") && groups.length) { groups[groups.length - 1].push(r); }
      else { groups.push([r]); }
    });
    groups.sort(function (a, b) {
      var x = key(a[0], i, numeric), y = key(b[0], i, numeric);
      return (x < y ? -1 : x > y ? 1 : 0) * (asc ? 1 : -1);
    });
    groups.forEach(function (g) { g.forEach(function (r) { body.appendChild(r); }); });
    Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", asc ? "ascending" : "descending");
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, i) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      button.title = "Sort by " + th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () { sortBy(table, heads, th, i); });
    });
    table.setAttribute("data-sortable", "ready");
  });
  window.addEventListener("beforeprint", function () {
    Array.prototype.forEach.call(document.querySelectorAll("details"), function (d) { d.open = true; });
  });
})();
"""


#: below this page width the Rule column shows the id only and the slug opens the detail row
NARROW_PX = 1100


def _style() -> str:
    p = PALETTE
    severities = "".join(f".sev-{s}{{background:{p[s]};border-color:{p[s]}}}" for s in SEVERITY_ORDER)
    kinds = "".join(
        f".kind-{k}{{color:{p[k]}}}" for k in ("savings", "waste", "exposure", "expected", "ceiling")
    )
    return f"""
*{{box-sizing:border-box}}
body{{margin:0;background:{p["bg"]};color:{p["text"]};font:15px/1.45 system-ui,-apple-system,"Segoe UI",
Roboto,"Helvetica Neue",Arial,sans-serif}}
main{{max-width:1180px;margin:0 auto;padding:24px 20px 48px}}
h1{{font-size:22px;margin:0 0 4px}} h2{{font-size:18px;margin:32px 0 8px}}
.muted{{color:{p["muted"]}}}
.headline{{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0 10px}}
.figure{{flex:1 1 320px;border:1px solid {p["rule"]};border-radius:6px;padding:10px 14px}}
.figure.exposure{{border:2px dashed {p["exposure"]}}}
.figure .what{{display:block;font-weight:600}}
.figure>b{{display:block;font-size:36px;line-height:1.15}}
.figure>b small{{font-size:16px;font-weight:400;color:{p["muted"]}}}
.figure .note{{display:block;color:{p["muted"]};font-size:13px;margin-top:2px}}
ul.parts{{list-style:none;margin:4px 0 0;padding:0;display:flex;flex-wrap:wrap;gap:2px 14px}}
ul.parts span{{color:{p["muted"]};font-size:13px}}
p.total{{font-size:40px;font-weight:700;margin:8px 0 0;line-height:1.1}}
p.total small{{font-size:18px;font-weight:400;color:{p["muted"]}}}
.meta{{color:{p["muted"]};margin:6px 0 0}}
.stats{{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0 0;padding:0;list-style:none}}
.stats li{{background:{p["panel"]};border:1px solid {p["rule"]};border-radius:6px;padding:10px 14px;
min-width:180px}}
.stats b{{display:block;font-size:20px;color:{p["text"]}}}
.stats span{{color:{p["muted"]};font-size:13px}}
.charts{{display:grid;grid-template-columns:1fr;gap:8px}}
figure{{margin:0;max-width:{_WIDTH}px}} figcaption{{font-weight:600;margin:12px 0 4px}}
svg.chart{{width:100%;height:auto;display:block}}
svg.chart text{{font:13px system-ui,sans-serif;fill:{p["text"]}}}
svg.chart text.value{{font-weight:600}} svg.chart text.label{{font-size:12px}}
.legend{{list-style:none;padding:0;margin:4px 0 0;display:flex;flex-wrap:wrap;gap:4px 16px;font-size:13px;
color:{p["muted"]}}}
.swatch{{vertical-align:-1px}}
.scroll{{overflow-x:auto}}
table{{border-collapse:collapse;width:100%;font-size:14px}}
caption{{text-align:left;color:{p["muted"]};padding:0 0 6px}}
th,td{{text-align:left;vertical-align:top;padding:6px 8px;border-bottom:1px solid {p["rule"]}}}
th{{background:{p["panel"]};white-space:nowrap}}
td.num,th[data-type=num]{{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}}
th button{{font:inherit;font-weight:600;color:{p["text"]};background:none;border:0;padding:0;cursor:pointer;
text-decoration:underline dotted}}
th[aria-sort=ascending] button::after{{content:" \\25B2"}}
th[aria-sort=descending] button::after{{content:" \\25BC"}}
th button:focus-visible,summary:focus-visible{{outline:2px solid {p["text"]};outline-offset:2px}}
code,.loc{{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:13px;
overflow-wrap:anywhere}}
td.name code,td.name .loc{{overflow-wrap:normal;word-break:normal}}
td.rule{{white-space:nowrap}} .rule-id{{display:block;font-weight:600}}
td.rule code.rule{{display:block;font-size:12px;color:{p["muted"]}}}
code.rule.narrow{{display:none;white-space:nowrap;font-weight:600}}
@media (max-width:{NARROW_PX}px){{td.rule code.rule{{display:none}} code.rule.narrow{{display:inline}}}}
tr.has-detail td{{border-bottom:0;padding-bottom:2px}}
tr.detail td{{padding-top:0}} tr.detail td>*{{contain:inline-size}}
tr.detail p.message{{margin:0 0 2px}}
.brief{{color:{p["muted"]}}}
.badge{{display:inline-block;color:{p["badge-text"]};border:1px solid;border-radius:4px;padding:0 6px;
font-size:12px;font-weight:600}}
{severities}{kinds}
.kind-exposure,.kind-ceiling{{font-weight:600}}
details{{margin:4px 0 0}} summary{{cursor:pointer;color:{p["text"]}}}
summary .how{{text-decoration:underline}}
.basis{{margin:6px 0;max-width:80ch}} tr.detail .basis{{max-width:none}}
dl.assumptions{{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:4px 0;font-size:13px}}
dl.assumptions dt{{color:{p["muted"]}}} dl.assumptions dd{{margin:0;overflow-wrap:anywhere}}
ul.nested{{margin:0;padding-left:1.1em}}
td p{{margin:0 0 4px}} code.rule{{overflow-wrap:normal}}
p.source{{margin:0;color:{p["muted"]};font-size:13px;overflow-wrap:break-word}}
td.nw{{white-space:nowrap}} td.nw code{{overflow-wrap:normal}}
footer{{margin-top:32px;color:{p["muted"]};font-size:13px}}
@media print{{
body{{font-size:11pt}} main{{max-width:none;padding:0}}
.figure>b,p.total{{font-size:24pt}}
.charts{{display:block}} figure{{break-inside:avoid;margin-bottom:12pt}}
.scroll{{overflow:visible}}
thead{{display:table-header-group}} tr{{break-inside:avoid}} tr.has-detail{{break-after:avoid}}
th button{{text-decoration:none}}
th[aria-sort] button::after{{content:""}}
details::details-content{{content-visibility:visible;display:contents}}
summary .how{{text-decoration:none;font-style:italic}}
.badge{{color:{p["text"]};background:none}}
.stats li{{background:none}}
}}
"""


STYLE = _style()


def csp_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CSP = (
    f"default-src 'none'; style-src {csp_hash(STYLE)}; script-src {csp_hash(SCRIPT)}; "
    "img-src 'none'; base-uri 'none'; form-action 'none'"
)


def page(title: str, body: str, footer: str = "") -> str:
    """The whole document. ``body`` and ``footer`` are HTML built with :func:`esc`."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta name="color-scheme" content="light">'
        f'<meta name="generator" content="finlint {esc(__version__)}">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n"
        f"<body><main>{body}<footer>{footer}</footer></main><script>{SCRIPT}</script></body></html>\n"
    )
