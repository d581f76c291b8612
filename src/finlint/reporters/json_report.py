"""JSON output: the contract other tools read. Keys are stable; new keys may be added."""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

from finlint import __version__
from finlint.budget import budget_status
from finlint.finding import SEVERITIES

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult


def as_dict(result: ScanResult) -> dict[str, Any]:
    active = result.active()
    by_severity = Counter(f.severity for f in active)
    return {
        "finlint_version": __version__,
        "findings": [f.to_json() for f in result.findings],
        "errors": [{"file": e.file, "line": e.line, "message": e.message} for e in result.errors],
        "notices": [{"file": n.file, "line": n.line, "message": n.message} for n in result.notices],
        "undetermined": [u.to_json() for u in result.undetermined],
        "summary": {
            "files_scanned": result.files_scanned,
            "context_files": result.context_files,
            "findings": len(active),
            "suppressed": sum(1 for f in result.findings if f.suppressed is not None),
            "baseline": sum(1 for f in result.findings if f.baseline and f.suppressed is None),
            "by_severity": {s: by_severity.get(s, 0) for s in SEVERITIES},
            **result.totals().to_json(),
            "undetermined": len(result.undetermined),
        },
    }


def render(result: ScanResult, context: ReportContext) -> str:
    data = as_dict(result)
    budget = budget_status(result, context)
    data["summary"]["budget"] = budget.to_json() if budget is not None else None
    comparison = context.comparison  # --baseline / finlint diff: new, fixed, cost change
    if comparison is not None:
        data["comparison"] = comparison.to_json()
    return json.dumps(data, indent=2) + "\n"
