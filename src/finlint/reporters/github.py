"""GitHub Actions workflow commands: ``::error file=...,line=...,endLine=...,title=...::message``.

GitHub shows at most 10 annotations per level per step, so the ones that cost most come first
(dollars, then severity) and a final notice says how many were left out and what they cost.
Suppressed and baselined findings are not annotated: they do not fail the run. When
``GITHUB_STEP_SUMMARY`` is set, the Markdown report is appended to the job summary too.
``file=`` is relative to ``GITHUB_WORKSPACE`` (else the git root: :mod:`finlint.reporters.paths`),
which is what GitHub resolves it against, so a step with ``working-directory:`` still annotates
the file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from finlint.budget import budget_status
from finlint.escape import clean
from finlint.finding import Finding
from finlint.reporters.markdown import monthly, ranked, usd
from finlint.reporters.paths import GITHUB, RepoPaths

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult

LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "notice", "info": "notice"}
PER_LEVEL = 10  # GitHub's display limit per level per step


def escape_data(text: str) -> str:
    """A workflow command's message, as GitHub documents (``%``, CR, LF), with every other
    control character and lone surrogate escaped first (:func:`finlint.escape.clean`)."""
    lines = text.split("\n")  # finlint's own line breaks stay line breaks in the annotation
    text = "\n".join(clean(line) for line in lines)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f: Finding, paths: RepoPaths | None = None) -> str:
    title = clean(f"{f.rule_id} {f.rule}")
    dollars = monthly(f)
    if dollars:
        title += f" ({usd(dollars)}/month)"
    props = [
        f"file={escape_property(clean(paths(f.file) if paths is not None else f.file))}",
        f"line={max(f.line, 1)}",
        f"endLine={max(f.end_line, f.line, 1)}",
        f"title={escape_property(title)}",
    ]
    message = f.message  # escape_data escapes each line
    if f.cost is not None and f.cost.monthly_usd is not None and f.cost.basis:
        message += f"\n\n{f.cost.kind}: {usd(f.cost.monthly_usd)}/month. {f.cost.basis}"
    return f"::{LEVELS.get(f.severity, 'warning')} {','.join(props)}::{escape_data(message)}"


def select(findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """The annotations GitHub will show (10 per level; 9 notices when a summary notice follows)."""
    shown: list[Finding] = []
    hidden: list[Finding] = []
    per_level: dict[str, int] = {}
    for f in ranked(findings):
        lvl = LEVELS.get(f.severity, "warning")
        if per_level.get(lvl, 0) < PER_LEVEL:
            per_level[lvl] = per_level.get(lvl, 0) + 1
            shown.append(f)
        else:
            hidden.append(f)
    notices = [f for f in shown if LEVELS.get(f.severity) == "notice"]
    if hidden and len(notices) == PER_LEVEL:  # keep room for the summary notice
        shown.remove(notices[-1])
        hidden.insert(0, notices[-1])
    return shown, hidden


def render(result: ScanResult, context: ReportContext) -> str:
    active = result.active()
    shown, hidden = select(active)
    paths = RepoPaths.for_ci(GITHUB)
    lines = [annotation(f, paths) for f in shown]
    if hidden:
        cost = sum(monthly(f) for f in hidden)
        lines.append(
            "::notice title=finlint::"
            + escape_data(
                f"{len(hidden)} more finding(s) not annotated (GitHub shows 10 per level), "
                f"{usd(cost)}/month; see the job summary or the SARIF report"
            )
        )
    figures = result.totals()
    tail = f"finlint: {len(active)} finding(s)"
    if figures.priced:
        tail += f", {figures.headline()}"
    lines.append(tail)
    budget = budget_status(result, context)
    if budget is not None and budget.exceeded:
        lines.append("::error title=finlint budget::" + escape_data(budget.message()))
    return "\n".join(lines) + "\n"
