"""Baselines: adopt finlint in a big repo without fixing everything first.

A finding is keyed by rule, file and resource, never by line, so editing a file above a known
finding does not turn it "new" (ruff's and detekt's baselines had to learn this). Keys are a
multiset: two known FIN301 findings on one resource excuse two, not three. Paths in the file
are relative to the baseline file's directory, so CI and laptops can run from anywhere.

The same comparison powers ``finlint diff``: there the "baseline" is the scan of the base ref.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from finlint import __version__
from finlint.finding import Finding

FORMAT_VERSION = 1
#: A baseline is read with :func:`finlint.untrusted.read_text` (a FIFO or /dev/zero is refused)
#: and at most this large: ~200,000 findings.
MAX_BASELINE_BYTES = 64 * 1024 * 1024
#: A finding's monthly figure in a baseline is a number of dollars below this (not 1e308).
MAX_MONTHLY_USD = 1e12

Key = tuple[str, str, str]


class BaselineError(Exception):
    """An unreadable or malformed baseline file (a usage error, exit 2)."""


@dataclass(frozen=True)
class Entry:
    """A known finding: its key plus what a reader of a PR comment needs about it."""

    rule_id: str
    file: str  # display path (relative to the CWD) once loaded
    resource: str
    rule: str = ""
    severity: str = ""
    line: int = 0
    message: str = ""
    monthly_usd: float | None = None
    kind: str = ""  # savings | waste | exposure ("" in a baseline written before kinds)

    @property
    def avoidable_usd(self) -> float:
        """What the entry counts toward a cost change: exposures are conditional, never counted."""
        return 0.0 if self.kind == "exposure" or self.monthly_usd is None else self.monthly_usd

    @property
    def key(self) -> Key:
        return (self.rule_id, self.file, self.resource)

    @classmethod
    def of(cls, f: Finding) -> Entry:
        monthly = f.cost.monthly_usd if f.cost is not None else None
        kind = f.cost.kind if f.cost is not None else ""
        return cls(f.rule_id, f.file, f.resource, f.rule, f.severity, f.line, f.message, monthly, kind)


def key_of(f: Finding) -> Key:
    return (f.rule_id, f.file, f.resource)


@dataclass
class Comparison:
    """What changed against a baseline: new findings, known ones, fixed ones, and the dollars."""

    label: str  # "baseline .finlint-baseline.json" or "main (1a2b3c4)"
    new: list[Finding] = field(default_factory=list)
    unchanged: list[Finding] = field(default_factory=list)
    fixed: list[Entry] = field(default_factory=list)
    base_monthly_usd: float = 0.0
    head_monthly_usd: float = 0.0

    @property
    def delta_monthly_usd(self) -> float:
        return round(self.head_monthly_usd - self.base_monthly_usd, 2)  # no "−$0.00" from float noise

    def to_json(self) -> dict[str, Any]:
        return {
            "against": self.label,
            "new": len(self.new),
            "unchanged": len(self.unchanged),
            "fixed": [
                {
                    "rule_id": e.rule_id,
                    "rule": e.rule,
                    "severity": e.severity,
                    "file": e.file,
                    "line": e.line,
                    "resource": e.resource,
                    "message": e.message,
                    "monthly_usd": None if e.monthly_usd is None else round(e.monthly_usd, 2),
                }
                for e in self.fixed
            ],
            "base_monthly_usd": round(self.base_monthly_usd, 2),
            "head_monthly_usd": round(self.head_monthly_usd, 2),
            "delta_monthly_usd": round(self.delta_monthly_usd, 2),
        }


def _monthly(f: Finding) -> float:
    """A finding's avoidable dollars (savings or waste); an exposure is conditional: 0 here."""
    cost = f.cost
    if cost is None or cost.monthly_usd is None or cost.kind == "exposure":
        return 0.0
    return cost.monthly_usd


def compare(findings: list[Finding], known: Iterable[Entry], label: str) -> Comparison:
    """Mark findings whose key is known as ``baseline``; the rest are new. Suppressed ones stay out."""
    known = list(known)
    remaining = Counter(e.key for e in known)
    result = Comparison(label=label)
    for f in sorted(findings, key=lambda f: f.sort_key()):
        if f.suppressed is not None:
            continue
        if remaining[key_of(f)] > 0:
            remaining[key_of(f)] -= 1
            f.baseline = True
            result.unchanged.append(f)
        else:
            result.new.append(f)
    for entry in known:  # whatever keys were not consumed are fixed
        if remaining[entry.key] > 0:
            remaining[entry.key] -= 1
            result.fixed.append(entry)
    result.base_monthly_usd = sum(e.avoidable_usd for e in known)
    result.head_monthly_usd = sum(_monthly(f) for f in result.new + result.unchanged)
    return result


# --- the file --------------------------------------------------------------------------------


def _relative(display: str, base_dir: Path) -> str:
    target = Path(display) if os.path.isabs(display) else Path.cwd() / display
    try:
        return os.path.relpath(target, base_dir).replace(os.sep, "/")
    except ValueError:
        return display


def _display(stored: str, base_dir: Path) -> str:
    from finlint.loaders.common.discovery import display_path

    return display_path(base_dir / stored)


def write(path: Path, findings: Iterable[Finding]) -> int:
    """Write every finding that is not suppressed; returns how many."""
    base_dir = path.resolve().parent
    entries = sorted(
        (Entry.of(f) for f in findings if f.suppressed is None),
        key=lambda e: (e.file, e.rule_id, e.resource, e.line),
    )
    doc = {
        "finlint_baseline": FORMAT_VERSION,
        "finlint_version": __version__,
        "findings": [
            {
                "rule_id": e.rule_id,
                "rule": e.rule,
                "severity": e.severity,
                "file": _relative(e.file, base_dir),
                "resource": e.resource,
                "line": e.line,
                "message": e.message,
                "monthly_usd": None if e.monthly_usd is None else round(e.monthly_usd, 2),
                "kind": e.kind,
            }
            for e in entries
        ],
    }
    from finlint.post.atomic import write_file  # atomic, never through a symlink

    write_file(path, json.dumps(doc, indent=2) + "\n")
    return len(entries)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a baseline holds")


def load(path: Path) -> list[Entry]:
    """The entries of a baseline file, each finding once (an entry repeated word for word is
    one finding, not one more fixed finding per copy)."""
    from finlint.untrusted import Unreadable, read_text

    try:
        text = read_text(path, MAX_BASELINE_BYTES)
    except Unreadable as exc:
        raise BaselineError(f"{path}:1: cannot read baseline: {exc}") from exc
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise BaselineError(f"{path}:{exc.lineno}: not a finlint baseline (invalid JSON: {exc.msg})") from exc
    except RecursionError as exc:
        raise BaselineError(f"{path}:1: not a finlint baseline (JSON nested too deeply)") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits, NaN, Infinity
        raise BaselineError(f"{path}:1: not a finlint baseline (invalid JSON: {exc})") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("findings"), list):
        raise BaselineError(f'{path}:1: not a finlint baseline (expected {{"findings": [...]}})')
    version = doc.get("finlint_baseline", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        raise BaselineError(
            f"{path}:1: baseline format {_short(version)} is not supported (expected {FORMAT_VERSION})"
        )
    base_dir = path.resolve().parent
    out: dict[Entry, None] = {}  # insertion-ordered set: exact copies count once
    for i, item in enumerate(doc["findings"]):
        if not isinstance(item, dict) or not all(
            isinstance(item.get(k), str) for k in ("rule_id", "file", "resource")
        ):
            raise BaselineError(f"{path}:1: findings[{i}] needs string rule_id, file and resource")
        line, monthly = item.get("line") or 0, item.get("monthly_usd")
        if isinstance(line, bool) or not isinstance(line, int) or not 0 <= line < 1 << 31:
            raise BaselineError(f"{path}:1: findings[{i}].line: expected a line number, got {_short(line)}")
        if monthly is not None and (
            isinstance(monthly, bool)
            or not isinstance(monthly, (int, float))
            or not -MAX_MONTHLY_USD < monthly < MAX_MONTHLY_USD
        ):
            raise BaselineError(
                f"{path}:1: findings[{i}].monthly_usd: expected dollars a month, got {_short(monthly)}"
            )
        entry = Entry(
            rule_id=item["rule_id"],
            file=_display(item["file"], base_dir),
            resource=item["resource"],
            rule=str(item.get("rule") or ""),
            severity=str(item.get("severity") or ""),
            line=line,
            message=str(item.get("message") or ""),
            monthly_usd=None if monthly is None else float(monthly),
            kind=str(item.get("kind") or ""),
        )
        out.setdefault(entry, None)
    return list(out)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
