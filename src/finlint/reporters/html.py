"""A self-contained HTML report of a scan, for people who read cost as pictures.

One file (``--format html -o finlint.html``): the headline as the text summary says it, the
avoidable spend (savings + expected waste) and, apart and never added, the exposure; bar charts
of dollars by rule and by resource (exposures hatched); a sortable table with two rows a finding:
its facts in columns (rule ids and slugs never wrap, names break only after ``/ . - _``), then,
across the whole table, its message, the one-phrase basis and, folded, the full basis with its
assumptions in words; the prices used with their sources and dates, and the span of those dates
(not the snapshot's compile date). The page shell, charts and escaping live in
:mod:`finlint.reporters.html_page`, the words (breakable names, labels, price dates) in
:mod:`finlint.reporters.html_text`; `finlint cost --format html` is
:mod:`finlint.reporters.html_cost`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from finlint import __version__
from finlint.cost.totals import totals
from finlint.finding import SEVERITIES, Finding, severity_rank
from finlint.reporters.html_page import (
    Bar,
    Cell,
    Chart,
    Column,
    Row,
    badge,
    bar_chart,
    esc,
    page,
    swatch,
    table,
    top_bars,
    value_html,
)
from finlint.reporters.html_text import breakable, label, price_dates_html
from finlint.reporters.markdown import ranked, usd

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult

KINDS = ("savings", "waste", "exposure")
KIND_LABELS = {
    "savings": "Savings: what the fixes save (the largest per resource)",
    "waste": "Waste: what the settings are expected to burn (probability x loss)",
    "exposure": "Exposure: what a setting may bill if it happens (conditional, never added)",
}
TOP_RESOURCES = 12


def pricing_context(settings: Any) -> dict[str, Any]:
    """Region, overlay and usage file in force, resolved as the cost models resolve them."""
    from finlint.cost.common import CostContext
    from finlint.cost.pricing import FALLBACK_REGION
    from finlint.cost.usage import UsageFileError

    info: dict[str, Any] = {
        "region": FALLBACK_REGION,
        "overlay": None,
        "usage_file": None,
    }
    try:
        ctx = CostContext.build(settings)
    except (UsageFileError, OSError, ValueError):  # the CLI reported a bad usage file already
        return info
    info["region"] = ctx.region or str(ctx.usage.defaults.get("region") or FALLBACK_REGION)
    info["overlay"] = str(ctx.pricing_file) if ctx.pricing_file else None
    info["usage_file"] = ctx.usage.file
    return info


def prices_used(findings: list[Finding]) -> list[dict[str, Any]]:
    """Every unit price the findings' figures cite, once."""
    seen: dict[tuple[str, str, float], dict[str, Any]] = {}
    for f in findings:
        prices = f.cost.assumptions.get("prices") if f.cost else None
        if not isinstance(prices, dict):
            continue
        for quote in prices.values():
            if isinstance(quote, dict) and "usd" in quote:
                key = (str(quote.get("region")), str(quote.get("key")), float(quote["usd"]))
                seen.setdefault(key, quote)
    return [seen[k] for k in sorted(seen)]


def prices_table(prices: list[dict[str, Any]], table_id: str = "prices") -> str:
    """One row a price, its source (often a paragraph) across the table under it."""
    if not prices:
        return ""
    columns = [Column("Price", css="name"), Column("Rate", numeric=True), Column("Region", css="nw")]
    columns += [Column("Date"), Column("Confidence")]
    rows = [
        Row(
            [
                Cell(f"<code>{breakable(q.get('key', ''))}</code>"),
                Cell(esc(f"${q['usd']:,}/{q.get('unit', '')}"), float(q["usd"])),
                Cell(esc(q.get("region", ""))),
                Cell(esc(q.get("date", ""))),
                Cell(esc(q.get("confidence", ""))),
            ],
            detail=f'<p class="source">Source: {esc(q.get("source", ""))}</p>',
        )
        for q in prices
    ]
    caption = "Unit prices behind the figures, with their date and, under each, its source"
    return table(table_id, caption, columns, rows)


def pricing_line(info: dict[str, Any], prices: list[dict[str, Any]]) -> str:
    """Region, the span of dates of the prices this page cites (not the snapshot's compile date:
    a snapshot compiled today can carry a price from 2022), overlay and usage file."""
    parts = [f"Region <b>{esc(info['region'])}</b>", price_dates_html(prices)]
    if info.get("overlay"):
        parts.append(f"your prices from <code>{esc(info['overlay'])}</code> take precedence")
    parts.append(
        f"usage assumptions from <code>{esc(info['usage_file'])}</code>"
        if info.get("usage_file")
        else "default usage assumptions"
    )
    return '<p class="meta" id="pricing">' + " · ".join(parts) + "</p>"


def _segments(findings: list[Finding]) -> list[tuple[str, float]]:
    by_kind: dict[str, float] = defaultdict(float)
    for f in findings:
        if f.cost is not None and f.cost.monthly_usd:
            by_kind[f.cost.kind if f.cost.kind in KINDS else "other"] += f.cost.monthly_usd
    return [(k, by_kind[k]) for k in (*KINDS, "other") if by_kind.get(k)]


def _resource_segments(findings: list[Finding]) -> list[tuple[str, float]]:
    """One resource's figures as the headline counts them: its largest saving, its expected
    wastes, its largest exposure (so the savings and waste segments add up to the avoidable spend)."""
    figures = totals(findings)
    parts = [
        ("savings", figures.savings_usd),
        ("waste", figures.waste_usd),
        ("exposure", figures.exposure_usd),
    ]
    return [(k, v) for k, v in parts if v]


def charts(findings: list[Finding]) -> str:
    by_rule: dict[str, list[Finding]] = {}
    by_resource: dict[tuple[str, str], list[Finding]] = {}
    for f in findings:
        by_rule.setdefault(f"{f.rule_id} {f.rule}", []).append(f)
        by_resource.setdefault((f.resource, f.file), []).append(f)
    rule_bars = [Bar(label, _segments(items)) for label, items in by_rule.items()]
    res_bars = [
        Bar(resource, _resource_segments(items), note=f"{file}:{min(f.line for f in items)}")
        for (resource, file), items in by_resource.items()
    ]
    rule_bars.sort(key=lambda b: (-b.size, b.label))
    res_bars = top_bars(res_bars, TOP_RESOURCES, "resources")
    kinds_present = {k for b in rule_bars for k, v in b.segments if v > 0}
    legend = [(k, KIND_LABELS[k]) for k in KINDS if k in kinds_present]
    return (
        '<div class="charts">'
        + bar_chart(Chart("by-rule", "Dollars per month by rule", rule_bars, legend))
        + bar_chart(Chart("by-resource", "Dollars per month by resource", res_bars, legend))
        + "</div>"
    )


def _cost_cell(f: Finding) -> Cell:
    if f.cost is None:
        return Cell('<span class="muted">–</span>', -2.0)
    if f.cost.monthly_usd is None:
        return Cell("not priced", -1.0)
    return Cell(esc(usd(f.cost.monthly_usd)), float(f.cost.monthly_usd))


def _rule_cell(f: Finding) -> Cell:
    """The id, and the slug on a small line of its own: neither ever wraps. Where the page is
    narrow, the stylesheet hides the slug here and shows its copy in the detail row."""
    text = f'<span class="rule-id">{esc(f.rule_id)}</span><code class="rule">{esc(f.rule)}</code>'
    return Cell(text, f.rule_id)


def _value(key: str, value: Any) -> str:
    """A dollar amount (a key ending ``_usd``) with its sign; a nested mapping's keys in words
    too, but the prices' (their keys are price names: ``PERSISTENT_2/250``); the rest as it is."""
    if key.endswith("_usd") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return "$" + value_html(value)
    if isinstance(value, dict) and key != "prices" and not ("usd" in value and "unit" in value):
        items = "".join(f"<li>{esc(label(k))}: {_value(k, v)}</li>" for k, v in value.items())
        return f'<ul class="nested">{items}</ul>'
    return value_html(value)


def _assumptions(items: dict[str, Any]) -> str:
    """The assumptions in words; each entry keeps its JSON key (``data-key``) for recomputing."""
    rows = "".join(
        f'<dt data-key="{esc(k)}" title="{esc(k)}">{esc(label(k))}</dt><dd>{_value(k, v)}</dd>'
        for k, v in items.items()
    )
    return f'<dl class="assumptions">{rows}</dl>'


def _detail_cell(f: Finding, new: bool) -> str:
    """The finding's second row, across the whole table: the message, the one-phrase basis, and
    the full basis and assumptions folded."""
    slug = f'<code class="rule narrow">{esc(f.rule)}</code> '  # shown where the Rule column hides it
    parts = [f'<p class="message">{slug}{"<b>new</b> " if new else ""}{esc(f.message)}</p>']
    if f.suppressed is not None:
        parts.append(f'<p class="muted">Suppressed in source: {esc(f.suppressed or "no reason given")}</p>')
    if f.cost is not None:
        if f.cost.monthly_usd is None:
            summary = "Why there is no figure"
            basis = f.cost.basis if f.cost.basis.startswith("Not priced") else f"Not priced: {f.cost.reason}"
        else:
            summary = f"How {usd(f.cost.monthly_usd)}/month is computed"
            basis = f.cost.basis
        brief = f': <span class="brief">{esc(f.cost.brief)}</span>' if f.cost.brief else ""
        parts.append(
            f'<details><summary><span class="how">{esc(summary)}</span>{brief}</summary>'
            f'<p class="basis">{esc(basis)}</p>'
            + (_assumptions(f.cost.assumptions) if f.cost.assumptions else "")
            + "</details>"
        )
    return "".join(parts)


FINDING_COLUMNS = (
    Column("Severity"),
    Column("Rule", css="rule"),
    Column("Resource", css="name"),
    Column("Location", css="name"),
    Column("$/month", numeric=True, sort="descending"),
    Column("Cost kind"),
)


def findings_table(table_id: str, caption: str, findings: list[Finding], new: set[int]) -> str:
    """One finding, two rows: its facts in columns, then its message and basis across the table
    (a detail row the sort script keeps under its finding)."""
    rows: list[Row] = []
    for f in findings:
        kind = f.cost.kind if f.cost is not None else ""
        cells = [
            Cell(badge(f.severity), f"{len(SEVERITIES) - severity_rank(f.severity)} {f.severity}"),
            _rule_cell(f),
            Cell(f"<code>{breakable(f.resource)}</code>", f.resource),
            Cell(f'<span class="loc">{breakable(f.file)}:{f.line}</span>', f"{f.file} {f.line:09d}"),
            _cost_cell(f),
            Cell(f'<span class="kind-{esc(kind)}">{esc(kind or "–")}</span>', kind),
        ]
        rows.append(Row(cells, detail=_detail_cell(f, id(f) in new)))
    return table(table_id, caption, list(FINDING_COLUMNS), rows)


def _counts(findings: list[Finding]) -> str:
    counts = Counter(f.severity for f in findings)
    return ", ".join(f"{counts[s]} {s}" for s in reversed(SEVERITIES) if counts.get(s))


def _part(kind: str, text: str, value: float, count: int, amount: bool = True) -> str:
    figure = f" <b>{esc(usd(value))}</b>" if amount else ""
    return (
        f'<li class="stat" data-kind="{kind}" data-usd="{value:.2f}">{swatch(kind, "stat")} '
        f"{esc(text)}{figure} <span>({count} finding{'s' if count != 1 else ''})</span></li>"
    )


def headline(active: list[Finding]) -> str:
    """The avoidable spend (savings + waste) and, apart and never added, the exposure: the same
    two figures as the text summary and the JSON ``summary``."""
    figures = totals(active)
    numbers: Counter[str] = Counter(
        f.cost.kind for f in active if f.cost is not None and f.cost.monthly_usd is not None
    )
    parts = []
    if numbers.get("savings"):
        parts.append(_part("savings", "savings", figures.savings_usd, numbers["savings"]))
    if numbers.get("waste"):
        plus = "+ " if parts else ""
        parts.append(_part("waste", f"{plus}expected waste", figures.waste_usd, numbers["waste"]))
    out = [
        '<div class="headline">',
        f'<div class="figure" id="total" data-usd="{figures.avoidable_usd:.2f}">'
        '<span class="what">Avoidable spend</span>'
        f"<b>{esc(usd(figures.avoidable_usd))}<small>/month</small></b>"
        + (f'<ul class="parts">{"".join(parts)}</ul>' if parts else "")
        + '<span class="note">savings + expected waste (probability x loss), the largest saving per '
        "resource</span></div>",
    ]
    if numbers.get("exposure"):
        out.append(
            f'<div class="figure exposure" id="exposure" data-usd="{figures.exposure_usd:.2f}">'
            '<span class="what">Exposure, not added</span>'
            f"<b>{esc(usd(figures.exposure_usd))}<small>/month</small></b>"
            '<ul class="parts">'
            + _part("exposure", "per resource the largest", figures.exposure_usd, numbers["exposure"], False)
            + '</ul><span class="note">what a setting may bill if something happens (a stuck job, a pool '
            "scaling to its limits): conditional, never added to the avoidable spend</span></div>"
        )
    out.append("</div>")
    return "".join(out)


def _change(comparison: Any) -> str:
    if comparison is None:
        return ""
    delta = comparison.delta_monthly_usd
    sign = "+" if delta > 0 else "−" if delta < 0 else "±"
    return (
        f'<ul class="stats"><li class="stat" data-kind="change" data-usd="{delta:.2f}">'
        f"<span>Change against {esc(comparison.label)}</span>"
        f"<b>{sign}{esc(usd(abs(delta)))}/month</b><span>{len(comparison.new)} new, "
        f"{len(comparison.fixed)} fixed, {len(comparison.unchanged)} unchanged</span></li></ul>"
    )


def render(result: ScanResult, context: ReportContext) -> str:
    active = ranked(result.active())
    total = result.monthly_usd()
    comparison = context.comparison
    new = {id(f) for f in comparison.new} if comparison is not None else set()
    info = pricing_context(context.cost_settings)
    suppressed = ranked([f for f in result.findings if f.suppressed is not None])
    baseline = ranked([f for f in result.findings if f.baseline and f.suppressed is None])
    prices = prices_used(active + suppressed + baseline)

    meta = f"{len(active)} finding(s)" + (f" ({_counts(active)})" if active else "")
    meta += f" in {result.files_scanned} file(s) scanned · fail-on {context.fail_on}"
    if suppressed:
        meta += f" · {len(suppressed)} suppressed in source"
    if baseline:
        meta += f" · {len(baseline)} in the baseline"
    if context.max_monthly_usd is not None:
        verdict = "over" if total > context.max_monthly_usd else "within"
        meta += f" · {verdict} the budget of {usd(context.max_monthly_usd)}/month"
    body = [
        "<header><h1>finlint: AI-training cost report</h1>",
        headline(active),
        f'<p class="meta">{esc(meta)}</p>',
        _change(comparison),
        pricing_line(info, prices),
        "</header>",
    ]
    if active:
        body += ["<section><h2>Where the dollars are</h2>", charts(active), "</section>"]
        caption = "Ranked by dollars per month; sort by any column. Open a row's details for its basis."
        body += [
            f"<section><h2>Findings ({len(active)})</h2>",
            findings_table("findings", caption, active, new),
            "</section>",
        ]
    else:
        body.append("<section><h2>Findings</h2><p>No costly configuration found.</p></section>")
    for table_id, title, items in (
        ("suppressed", "Suppressed in source", suppressed),
        ("baseline", "Known in the baseline", baseline),
    ):
        if items:
            body += [
                f"<section><details><summary><b>{esc(title)} ({len(items)})</b>: not counted in the total"
                "</summary>",
                findings_table(table_id, f"{title}: reported, never fail the run", items, new),
                "</details></section>",
            ]
    if prices:
        body += ["<section><h2>Prices used</h2>", prices_table(prices), "</section>"]
    footer = [f"Generated by finlint {esc(__version__)}. Figures are estimates from the basis shown."]
    if result.errors:
        footer.append(f"{len(result.errors)} file(s) could not be read or parsed (FIN000).")
    if result.notices:
        footer.append(f"{len(result.notices)} file(s) skipped with a notice (unrendered templates).")
    if result.undetermined:
        footer.append(
            f"{len(result.undetermined)} check(s) undetermined: values not known statically "
            "(run with --show-undetermined)."
        )
    title = f"finlint: {usd(total)}/month, {len(active)} finding(s)"
    return page(title, "".join(body), " ".join(f"<p>{p}</p>" for p in footer))
