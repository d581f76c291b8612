"""What one scan produced: findings, load errors, notices and the IR, handed to the reporters.

A leaf module (it imports no stage), so reporters, baseline and diff depend on the result, not
on the scan that made it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from finlint.finding import Finding, severity_rank
from finlint.ir import LoadError, Notice, Record

if TYPE_CHECKING:
    from finlint.cost.totals import Totals
    from finlint.engine import Policy, Undetermined


@dataclass
class ScanResult:
    """Everything one scan produced, for the reporters, the baseline and ``diff``."""

    findings: list[Finding]
    errors: list[LoadError]
    notices: list[Notice]
    files_scanned: int
    records: list[Record]
    policies: list[Policy]
    undetermined: list[Undetermined] = field(default_factory=list)
    #: files read from the repository only for links (changed-file scans; never reported on)
    context_files: int = 0

    def active(self) -> list[Finding]:
        return [f for f in self.findings if f.active]

    def totals(self) -> Totals:
        """The headline figures by kind (:mod:`finlint.cost.totals`)."""
        from finlint.cost.totals import totals

        return totals(self.findings)

    def monthly_usd(self) -> float:
        """The avoidable spend: savings plus expected waste, the largest saving per resource."""
        return self.totals().avoidable_usd

    def exit_code(self, fail_on: str, max_monthly_usd: float | None = None) -> int:
        threshold = severity_rank(fail_on)
        if any(severity_rank(f.severity) >= threshold for f in self.active()):
            return 1
        if max_monthly_usd is not None and self.monthly_usd() > max_monthly_usd:
            return 1
        return 0
