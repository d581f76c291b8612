"""``finlint cost --format html``: the declared AI-training spend as one self-contained page.

The breakdown of :mod:`finlint.cost.breakdown` by kind (training jobs, notebooks, node pools,
storage) and by resource. A training job priced at its runtime cap (no expected runtime in the
usage file) is a *ceiling*, the most it can cost, not expected spend: it is drawn hatched, counted
apart in the headline and marked in the table, so nobody budgets a ceiling as a forecast.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from finlint import __version__
from finlint.cost.breakdown import Breakdown, LineItem
from finlint.reporters.html import TOP_RESOURCES, prices_table, pricing_line
from finlint.reporters.html_page import (
    Bar,
    Cell,
    Chart,
    Column,
    Row,
    bar_chart,
    esc,
    page,
    swatch,
    table,
    top_bars,
)
from finlint.reporters.html_text import breakable
from finlint.reporters.markdown import usd

KIND_GROUPS = {
    "training_job": "Training jobs",
    "notebook": "Notebooks",
    "node_pool": "Node pools",
    "file_system": "Storage",
    "volume": "Storage",
    "bucket": "Storage",
}
GROUP_ORDER = ("Training jobs", "Notebooks", "Node pools", "Storage")
ESTIMATES = ("expected", "ceiling")
LEGEND = [
    ("expected", "Expected spend (declared capacity, expected runtime or always-on hours)"),
    ("ceiling", "Ceiling: a job priced at its runtime cap, the most it can cost"),
]


def _estimate(item: LineItem) -> str:
    return "ceiling" if item.estimate == "ceiling" else "expected"


def _segments(items: list[LineItem]) -> list[tuple[str, float]]:
    sums: dict[str, float] = defaultdict(float)
    for i in items:
        if i.monthly_usd:
            sums[_estimate(i)] += i.monthly_usd
    return [(k, sums[k]) for k in ESTIMATES if sums.get(k)]


def group(item: LineItem) -> str:
    return KIND_GROUPS.get(item.kind, item.kind)


def charts(items: list[LineItem]) -> str:
    by_group: dict[str, list[LineItem]] = {}
    for i in items:
        by_group.setdefault(group(i), []).append(i)
    order = [g for g in GROUP_ORDER if g in by_group] + sorted(set(by_group) - set(GROUP_ORDER))
    group_bars = [Bar(g, _segments(by_group[g]), note=f"{len(by_group[g])} resource(s)") for g in order]
    res_bars = top_bars(
        [Bar(i.resource, _segments([i]), note=f"{i.file}:{i.line}") for i in items],
        TOP_RESOURCES,
        "resources",
    )
    present = {k for b in group_bars for k, _ in b.segments}
    legend = [entry for entry in LEGEND if entry[0] in present]
    return (
        '<div class="charts">'
        + bar_chart(Chart("by-kind", "Dollars per month by kind", group_bars, legend))
        + bar_chart(Chart("by-resource", "Dollars per month by resource", res_bars, legend))
        + "</div>"
    )


def _row(i: LineItem) -> Row:
    """A resource's figures in columns, and what they count (quantity at unit price, the prices
    and their sources) in a detail row across the table, as the scan page shows a basis."""
    priced = i.monthly_usd is not None
    estimate = _estimate(i) if priced else "not priced"
    what = f"{i.description}: {i.quantity or '-'}"
    if i.unit_price is not None:
        what += f" at {i.unit_price.rate()}"
    detail = ""
    quotes = [q for q in (i.unit_price, *i.extra_prices) if q is not None]
    if quotes:
        cites = "".join(f"<li>{esc(q.key)} {esc(q.rate())}: {esc(q.cite())}</li>" for q in quotes)
        summary = '<summary><span class="how">Prices and sources</span></summary>'
        detail = f"<details>{summary}<ul>{cites}</ul></details>"
    if not priced:
        what += f" (not priced: {i.reason or 'no price'})"
    cells = [
        Cell(f"<code>{breakable(i.resource)}</code>", i.resource),
        Cell(esc(group(i)), group(i)),
        Cell(f'<span class="loc">{breakable(i.file)}:{i.line}</span>', f"{i.file} {i.line:09d}"),
        Cell(esc(usd(i.monthly_usd)) if i.monthly_usd is not None else "not priced", i.monthly_usd or -1.0),
        Cell(esc(usd(i.per_run_usd)) if i.per_run_usd is not None else "–", i.per_run_usd or -1.0),
        Cell(f'<span class="kind-{esc(estimate)}">{esc(estimate)}</span>', estimate),
    ]
    return Row(cells, detail=f'<p class="message">{esc(what)}</p>{detail}')


def _stats(b: Breakdown) -> str:
    out = []
    for kind, label in LEGEND:
        items = [i for i in b.items if i.monthly_usd is not None and _estimate(i) == kind]
        total = sum(i.monthly_usd or 0.0 for i in items)
        if items:
            out.append(
                f'<li class="stat" data-kind="{kind}" data-usd="{total:.2f}">'
                f"<span>{swatch(kind, 'stat')} {esc(label)}</span><b>{esc(usd(total))}/month</b>"
                f"<span>{len(items)} resource(s)</span></li>"
            )
    unpriced = [i for i in b.items if i.monthly_usd is None]
    if unpriced:
        out.append(
            f'<li class="stat" data-kind="unpriced"><span>Not priced (see each reason)</span>'
            f"<b>{len(unpriced)}</b><span>resource(s)</span></li>"
        )
    return f'<ul class="stats">{"".join(out)}</ul>'


def _prices(b: Breakdown) -> list[dict[str, Any]]:
    seen: dict[tuple[str, str, float], dict[str, Any]] = {}
    for i in b.items:
        for q in (i.unit_price, *i.extra_prices):
            if q is not None:
                seen.setdefault((q.region, q.key, q.usd), q.to_json())
    return [seen[k] for k in sorted(seen)]


def render_breakdown(b: Breakdown, settings: Any = None) -> str:
    """The page for ``finlint cost``: headline, charts, a sortable table, prices and sources."""
    from finlint.reporters.html import pricing_context

    info = pricing_context(settings)
    info["region"] = b.region
    info["usage_file"] = b.usage_file
    total = b.total_monthly_usd
    ceiling = sum(i.monthly_usd or 0.0 for i in b.items if _estimate(i) == "ceiling")
    sub = "/month declared AI-training spend"
    if b.coverage():
        sub += f" {b.coverage()}"
    if ceiling:
        sub += f", of which {usd(ceiling)} are ceilings"
    body = [
        "<header><h1>finlint: declared AI-training spend</h1>",
        f'<p class="total" id="total" data-usd="{total:.2f}">{esc(usd(total))}<small>{esc(sub)}</small></p>',
        f'<p class="meta">{len(b.items)} AI-training resource(s) declared in the infrastructure code</p>',
        _stats(b),
        pricing_line(info, _prices(b)),
        "</header>",
    ]
    if b.items:
        columns = [
            Column("Resource", css="name"),
            Column("Kind"),
            Column("Location", css="name"),
            Column("$/month", numeric=True, sort="descending"),
            Column("$/run", numeric=True),
            Column("Estimate"),
        ]
        caption = (
            "Largest first; sort by any column. Under each resource: its quantity at unit price. "
            "A ceiling is what a job costs if it runs to its cap."
        )
        body += [
            "<section><h2>Where the dollars are</h2>",
            charts(b.items),
            "</section>",
            f"<section><h2>Resources ({len(b.items)})</h2>",
            table("resources", caption, columns, [_row(i) for i in b.items]),
            "</section>",
        ]
        prices = _prices(b)
        if prices:
            body += ["<section><h2>Prices used</h2>", prices_table(prices), "</section>"]
    else:
        body.append("<section><p>No AI-training resources found.</p></section>")
    footer = (
        f"<p>Generated by finlint {esc(__version__)} (<code>finlint cost</code>). Figures are estimates "
        "from the quantities and unit prices shown; set expected runtimes and runs per month in "
        "<code>finlint-usage.yml</code> to turn ceilings into expected spend.</p>"
    )
    return page(f"finlint cost: {usd(total)}/month", "".join(body), footer)
