"""Human output: one line per finding, grouped by file, then a summary.

``path:line: FIN301 [high] message`` is the grep- and editor-friendly shape (ruff, flake8);
a cost, when known, follows on one short line: figure, kind and the one-phrase basis
(``Cost.brief``), as ``checkov --compact`` keeps a pre-commit failure to a screen. ``--verbose``
prints the full basis instead; JSON, HTML and Markdown always carry it.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from finlint.budget import budget_status
from finlint.escape import clean
from finlint.finding import SEVERITIES, Cost, Finding, severity_rank

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult

_COLORS = {
    "critical": "\x1b[1;31m",
    "high": "\x1b[31m",
    "medium": "\x1b[33m",
    "low": "\x1b[36m",
    "info": "\x1b[2m",
}
_RESET = "\x1b[0m"


def usd(amount: float) -> str:
    return f"${amount:,.0f}" if amount >= 100 else f"${amount:,.2f}"


def _line(f: Finding, color: bool) -> str:
    sev = f"[{f.severity}]"
    if color:
        sev = f"{_COLORS.get(f.severity, '')}{sev}{_RESET}"
    state = ""
    if f.suppressed is not None:
        state = f" (suppressed: {clean(f.suppressed or 'no reason given')})"
    elif f.baseline:
        state = " (baseline)"
    return f"{clean(f.file)}:{f.line}: {clean(f.rule_id)} {sev} {clean(f.message)}{state}"


#: the most characters of a basis the compact cost line shows when a price sets no ``brief``
BRIEF_MAX = 80
_ELLIPSIS = "\u2026"


def short_basis(cost: Cost) -> tuple[str, bool]:
    """The compact line's phrase and whether it was shortened: ``brief`` when the price set
    one, else the first sentence of the reason (not priced) or basis, cut at a word."""
    if cost.brief:
        return shorten(cost.brief, 2 * BRIEF_MAX)  # written to be short; bounded all the same
    text = cost.reason if cost.monthly_usd is None and cost.reason else cost.basis
    return shorten(text, BRIEF_MAX)


def shorten(text: str, limit: int) -> tuple[str, bool]:
    """``text``'s first sentence, at most ``limit`` characters cut at a word, "…" when cut."""
    text = " ".join(text.split())
    first = text.split(". ", 1)[0].rstrip(".")
    cut = first != text
    if len(first) > limit:
        head = first[: limit + 1]
        space = head.rfind(" ")
        first = (head[:space] if space > limit // 2 else first[:limit]).rstrip(" ,;:(-=+")
        cut = True
    return (first + _ELLIPSIS if cut else first), cut


def _cost_line(cost: Cost, verbose: bool) -> tuple[str, bool]:
    """The line under a finding: the figure, its kind and the basis (short unless --verbose)."""
    if verbose:
        text, cut = (cost.reason or cost.basis) if cost.monthly_usd is None else cost.basis, False
    else:
        text, cut = short_basis(cost)
    if cost.monthly_usd is None:
        return f"    cost: not priced: {text}", cut
    return f"    cost: {usd(cost.monthly_usd)}/month ({cost.kind}): {text}", cut


def _signed(amount: float) -> str:
    return ("+" if amount >= 0 else "-") + usd(abs(amount))


def _comparison_lines(comp: Any) -> list[str]:
    """``finlint diff`` / ``--baseline`` in text: new and fixed findings and the monthly change."""
    lines = [
        f"against {comp.label}: {len(comp.new)} new, {len(comp.unchanged)} unchanged, "
        f"{len(comp.fixed)} fixed; monthly cost change {_signed(comp.delta_monthly_usd)}/month "
        f"({usd(comp.base_monthly_usd)} -> {usd(comp.head_monthly_usd)})"
    ]
    for f in comp.new:
        lines.append(f"  new:   {f.file}:{f.line}: {f.rule_id} {f.resource}")
    for e in comp.fixed:
        cost = f" (was {usd(e.monthly_usd)}/month)" if e.monthly_usd else ""
        lines.append(f"  fixed: {e.file}:{e.line}: {e.rule_id} {e.resource}{cost}")
    return lines


def render(result: ScanResult, context: ReportContext) -> str:
    out: list[str] = []
    colored: set[int] = set()  # indices of lines already escaped
    shortened = False  # a basis cut for the compact line: the summary points at --verbose
    by_file: dict[str, list[Finding]] = {}
    for f in result.findings:
        by_file.setdefault(f.file, []).append(f)
    for file in sorted(by_file):
        items = sorted(
            by_file[file],
            key=lambda f: (-severity_rank(f.severity), -((f.cost.monthly_usd or 0) if f.cost else 0), f.line),
        )
        for f in items:
            colored.add(len(out))
            out.append(_line(f, context.color))
            # a suppressed or baseline finding is one line: its cost is not what needs reading
            quiet = f.suppressed is not None or f.baseline
            if f.cost is not None and (context.verbose or not quiet):
                line, cut = _cost_line(f.cost, context.verbose)
                out.append(line)
                shortened = shortened or cut
        out.append("")
    for n in result.notices:
        out.append(f"{n.file}:{n.line}: notice: {n.message}")
    if result.notices:
        out.append("")
    if context.show_undetermined and result.undetermined:
        for u in sorted(result.undetermined, key=lambda u: (u.file, u.line, u.rule_id)):
            out.append(f"{u.file}:{u.line}: {u.rule_id} [undetermined] {u.resource}: {'; '.join(u.reasons)}")
        out.append("")
    if result.context_files:
        out.append(
            f"context: {result.context_files} more file(s) read from the repository for links "
            "(their own findings are not reported; --no-context skips them)"
        )
    active = result.active()
    counts = Counter(f.severity for f in active)
    parts = [f"{counts[s]} {s}" for s in reversed(SEVERITIES) if counts.get(s)]
    summary = f"{len(active)} finding(s)" + (f" ({', '.join(parts)})" if parts else "")
    summary += f" in {result.files_scanned} file(s) scanned"
    suppressed = sum(1 for f in result.findings if f.suppressed is not None)
    baseline = sum(1 for f in result.findings if f.baseline and f.suppressed is None)
    if suppressed:
        summary += f", {suppressed} suppressed"
    if baseline:
        summary += f", {baseline} in baseline"
    figures = result.totals()
    if figures.priced:
        summary += f"; {figures.headline()}"
    if result.undetermined:  # the count stays with --show-undetermined (issue 10)
        summary += f"; {len(result.undetermined)} check(s) undetermined"
        if not context.show_undetermined:
            summary += " (values not known statically: --show-undetermined)"
    if shortened:  # before the summary, which stays the last line
        out.append("cost lines are shortened (\u2026): --verbose prints each figure's full basis")
    out.append(summary)
    comparison = context.comparison  # finlint diff / --baseline
    if comparison is not None:
        out += _comparison_lines(comparison)
    budget = budget_status(result, context)
    if budget is not None:
        out.append(budget.message())
    # every line but the finding lines (escaped field by field: they may carry colour) is
    # escaped whole: each is one line, and its repository-derived parts must stay on it
    return "\n".join(line if i in colored else clean(line) for i, line in enumerate(out)) + "\n"
