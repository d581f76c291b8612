"""Markdown for a pull-request comment or a job summary: dollars first.

The total monthly figure is the headline, findings are ranked by dollars (then severity), and
each figure's basis sits in a collapsible block so the table stays readable. With a baseline
or ``finlint diff`` the comment shows new and fixed findings and the change in monthly cost.
The first line is a hidden marker the GitHub Action uses to update its one comment in place.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from finlint import escape
from finlint.budget import budget_status
from finlint.finding import SEVERITIES, Finding, severity_rank
from finlint.reporters import markdown_fixes

if TYPE_CHECKING:
    from finlint.post.baseline import Comparison, Entry
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult

MARKER = "<!-- finlint-report -->"
MAX_ROWS = 50  # a PR comment holds 65,536 characters
_ICONS = {"critical": "🔴", "high": "🔴", "medium": "🟠", "low": "🟡", "info": "⚪"}


def usd(amount: float) -> str:
    return f"${amount:,.0f}" if abs(amount) >= 100 else f"${amount:,.2f}"


def signed_usd(amount: float) -> str:
    return ("+" if amount > 0 else "−" if amount < 0 else "±") + usd(abs(amount))


def monthly(f: Finding) -> float:
    return f.cost.monthly_usd if f.cost is not None and f.cost.monthly_usd is not None else 0.0


def avoidable(f: Finding) -> float:
    """A finding's avoidable dollars: its savings or waste; an exposure counts 0."""
    return 0.0 if f.cost is not None and f.cost.kind == "exposure" else monthly(f)


def ranked(findings: list[Finding]) -> list[Finding]:
    """Most dollars first, then most severe, then by place."""
    return sorted(
        findings, key=lambda f: (-monthly(f), -severity_rank(f.severity), f.file, f.line, f.rule_id)
    )


def cell(text: Any) -> str:
    """Safe inside a table cell: one line, no pipes, HTML, links, images or mentions
    (:func:`finlint.escape.markdown`)."""
    return escape.markdown(text)


def code(text: Any) -> str:
    """A code span inside a table cell (HTML and mentions are inert there; pipes still split cells)."""
    return escape.markdown_code(text)


def _dollars(f: Finding) -> str:
    if f.cost is None:
        return "–"
    if f.cost.monthly_usd is None:
        return "not priced"
    return usd(f.cost.monthly_usd)


def _table(findings: list[Finding], extra: str | None = None) -> list[str]:
    head = "| | Rule | Resource | Location | $/month | Message |" + (f" {extra} |" if extra else "")
    sep = "|---|---|---|---|---:|---|" + ("---|" if extra else "")
    rows = [head, sep]
    for f in findings[:MAX_ROWS]:
        row = (
            f"| {_ICONS.get(f.severity, '')} {f.severity} | {f.rule_id} {code(f.rule)} | {code(f.resource)} "
            f"| {code(f'{f.file}:{f.line}')} | {_dollars(f)} | {cell(f.message)} |"
        )
        if extra:
            row += f" {cell(f.suppressed or 'no reason given')} |"
        rows.append(row)
    if len(findings) > MAX_ROWS:
        rest = findings[MAX_ROWS:]
        rows.append(
            f"\n…and {len(rest)} more ({usd(sum(monthly(f) for f in rest))}/month); "
            "see the SARIF or JSON report for all of them."
        )
    return rows


def _fixed_table(entries: list[Entry]) -> list[str]:
    rows = ["| | Rule | Resource | Location (before) | $/month | Message |", "|---|---|---|---|---:|---|"]
    ordered = sorted(entries, key=lambda e: (-(e.monthly_usd or 0.0), e.file, e.line))
    for e in ordered[:MAX_ROWS]:
        dollars = "–" if e.monthly_usd is None else usd(e.monthly_usd)
        rows.append(
            f"| ✅ {e.severity} | {e.rule_id} {code(e.rule)} | {code(e.resource)} | "
            f"{code(f'{e.file}:{e.line}')} | {dollars} | {cell(e.message)} |"
        )
    if len(ordered) > MAX_ROWS:
        rows.append(f"\n…and {len(ordered) - MAX_ROWS} more.")
    return rows


def _basis(findings: list[Finding]) -> list[str]:
    priced = [f for f in findings if f.cost is not None][:MAX_ROWS]
    if not priced:
        return []
    out = ["", f"<details><summary>How the dollars are computed ({len(priced)})</summary>", ""]
    for f in priced:
        assert f.cost is not None
        basis = (
            f.cost.basis if f.cost.monthly_usd is not None else f"not priced: {f.cost.reason or f.cost.basis}"
        )
        figure = f"{_dollars(f)}/month" if f.cost.monthly_usd is not None else "not priced"
        out.append(
            f"- **{f.rule_id}** {code(f.resource)} ({code(f'{f.file}:{f.line}')}), "
            f"{figure} ({f.cost.kind}): {cell(basis)}"
        )
    out += ["", "</details>"]
    return out


def _counts(findings: list[Finding]) -> str:
    counts = Counter(f.severity for f in findings)
    return ", ".join(f"{counts[s]} {s}" for s in reversed(SEVERITIES) if counts.get(s))


def _suppressed(result: ScanResult) -> list[str]:
    items = [f for f in result.findings if f.suppressed is not None]
    if not items:
        return []
    return [
        "",
        f"<details><summary>Suppressed in source ({len(items)})</summary>",
        "",
        *_table(ranked(items), extra="Reason"),
        "",
        "</details>",
    ]


def _comparison(result: ScanResult, comp: Comparison, context: ReportContext) -> list[str]:
    new = ranked(comp.new)
    new_usd = sum(avoidable(f) for f in new)  # as the change: exposures are never counted
    fixed_usd = sum(e.avoidable_usd for e in comp.fixed)
    out = [
        MARKER,
        f"## finlint: {signed_usd(comp.delta_monthly_usd)}/month against {cell(comp.label)}",
        "",
        f"**Monthly cost change: {signed_usd(comp.delta_monthly_usd)}** "
        f"({usd(comp.base_monthly_usd)} → {usd(comp.head_monthly_usd)}) · "
        f"{len(new)} new ({signed_usd(new_usd)}) · {len(comp.fixed)} fixed ({signed_usd(-fixed_usd)}) · "
        f"{len(comp.unchanged)} unchanged · fail-on `{context.fail_on}`",
        "",
    ]
    if new:
        fixes = markdown_fixes.section(new)
        out += [f"### New findings ({len(new)})", "", *_table(new), *_basis(new), *fixes, ""]
    else:
        out += ["### No new findings", ""]
    if comp.fixed:
        out += [f"### Fixed findings ({len(comp.fixed)})", "", *_fixed_table(comp.fixed), ""]
    if comp.unchanged:
        out += [
            f"<details><summary>Unchanged findings ({len(comp.unchanged)})</summary>",
            "",
            *_table(ranked(comp.unchanged)),
            "",
            "</details>",
        ]
    out += _suppressed(result)
    return out


def render(result: ScanResult, context: ReportContext) -> str:
    comp = context.comparison
    budget = budget_status(result, context)
    budget_lines = (
        [] if budget is None else ["", f"**{budget.message()}** ❌" if budget.exceeded else budget.message()]
    )
    if comp is not None:
        return "\n".join(_comparison(result, comp, context) + budget_lines).rstrip() + "\n"
    active = ranked(result.active())
    figures = result.totals()
    total = figures.avoidable_usd
    exposure = (
        f" · {usd(figures.exposure_usd)}/month exposure if it happens (not added)"
        if figures.exposure_usd
        else ""
    )
    headline = (
        f"{usd(total)}/month avoidable (savings + expected waste){exposure}"
        if figures.priced
        else ("no findings" if not active else f"{len(active)} finding(s)")
    )
    summary = f"**{len(active)} finding(s)**" + (f" ({_counts(active)})" if active else "")
    summary += f" in {result.files_scanned} file(s) · fail-on `{context.fail_on}`"
    suppressed = sum(1 for f in result.findings if f.suppressed is not None)
    baseline = sum(1 for f in result.findings if f.baseline and f.suppressed is None)
    if suppressed:
        summary += f" · {suppressed} suppressed"
    if baseline:
        summary += f" · {baseline} in baseline"
    out = [MARKER, f"## finlint: {headline}", "", summary, ""]
    if active:
        out += _table(active) + _basis(active) + markdown_fixes.section(active)
    else:
        out.append("No costly configuration found. ✅")
    out += _suppressed(result)
    out += budget_lines
    if result.errors:
        out += ["", f"{len(result.errors)} file(s) could not be read or parsed (reported as FIN000)."]
    return "\n".join(out).rstrip() + "\n"
