"""Reporters: a ScanResult -> text in one output format. One module per format.

Each module exposes ``render(result: ScanResult, context: ReportContext) -> str``. Modules are
imported only when their format is asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from finlint.cost.common import CostSettings
    from finlint.engine import EngineConfig
    from finlint.post.baseline import Comparison
    from finlint.result import ScanResult

#: format name -> module under finlint.reporters
REPORTERS: dict[str, str] = {
    "text": "text",
    "json": "json_report",
    "sarif": "sarif",
    "github": "github",
    "markdown": "markdown",
    "junit": "junit",
    "html": "html",
    "gitlab": "gitlab",
    "auto": "auto",  # github on GitHub Actions, gitlab on GitLab CI, else text
}


@dataclass
class ReportContext:
    """What a reporter may need beyond the findings: the options in force for this run."""

    fail_on: str = "low"
    color: bool = False
    max_monthly_usd: float | None = None
    engine: EngineConfig | None = None  # which rules ran (JUnit lists passing rules)
    show_undetermined: bool = False  # list each undetermined check, not only their count
    comparison: Comparison | None = None  # --baseline / finlint diff: new, fixed, cost change
    cost_settings: CostSettings | None = None  # region and price overlay (HTML report)
    verbose: bool = False  # text: each cost's full basis and suppressed/baseline costs, not one phrase


class Reporter(Protocol):
    def render(self, result: ScanResult, context: ReportContext) -> str: ...


def get_reporter(name: str) -> Reporter:
    module: Reporter = importlib.import_module(f"finlint.reporters.{REPORTERS[name]}")
    return module
