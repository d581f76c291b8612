"""Reporters: a ScanResult -> text in one output format. One module per format.

Each module exposes ``render(result: ScanResult, context: ReportContext) -> str``. Modules are
imported only when their format is asked for.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, Protocol

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
    """What a reporter may need beyond the findings: options in force and extras."""

    fail_on: str = "low"
    color: bool = False
    max_monthly_usd: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)


class Reporter(Protocol):
    def render(self, result: Any, context: ReportContext) -> str: ...


def get_reporter(name: str) -> Reporter:
    module: Reporter = importlib.import_module(f"finlint.reporters.{REPORTERS[name]}")
    return module
