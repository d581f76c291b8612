"""A stable, JSON-ready picture of a scan: IR records and findings, for golden tests.

Used by ``tests/test_golden.py`` and ``scripts/update_goldens.py``: a refactor that changes
what a loader produces or what a rule reports shows up as a diff of a checked-in
``*.expected.json``, not as a silent behaviour change.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from finlint.ir import Record, Unknown
from finlint.result import ScanResult


def plain(value: Any) -> Any:
    """Records, tuples, mappings and Unknowns as JSON values (Unknown -> {"unknown": reason})."""
    if isinstance(value, Unknown):
        return {"unknown": value.reason}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float):
        return round(value, 6) if math.isfinite(value) else str(value)
    if isinstance(value, (str, int, bool)) or value is None:
        return value
    return repr(value)


def record_snapshot(record: Record) -> dict[str, Any]:
    data = plain(record)
    data.pop("extra", None)  # loader-private context, not part of the IR contract
    return {"kind": record.KIND, **data}


def _money(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def scan_snapshot(result: ScanResult) -> dict[str, Any]:
    records = sorted(
        (record_snapshot(r) for r in result.records),
        key=lambda r: (r["location"]["file"], r["location"]["line"], r["kind"], r["address"]),
    )
    findings = []
    for f in result.findings:
        findings.append(
            {
                "rule_id": f.rule_id,
                "file": f.file,
                "line": f.line,
                "resource": f.resource,
                "severity": f.severity,
                "suppressed": f.suppressed is not None,
                "message": f.message,
                "monthly_usd": _money(f.cost.monthly_usd if f.cost else None),
                "per_run_usd": _money(f.cost.per_run_usd if f.cost else None),
            }
        )
    return {
        "files_scanned": result.files_scanned,
        "errors": sorted([e.file, e.line, e.message] for e in result.errors),
        "notices": sorted([n.file, n.line, n.message] for n in result.notices),
        "records": records,
        "findings": findings,
    }
