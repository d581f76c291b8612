"""What the engine produces and what cost models and reporters consume."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, TypeVar

from finlint.ir import Record

T = TypeVar("T")

SEVERITIES = ("info", "low", "medium", "high", "critical")


def severity_rank(severity: str) -> int:
    return SEVERITIES.index(severity)


@dataclass(frozen=True)
class CountedOnce:
    """One bill that several findings price: ``cost.price_findings`` counts it on one of them
    and zeroes the others (``storage``: the EFS a PVC and its workload describe). Findings of
    different kinds on one resource are not zeroed: :mod:`finlint.cost.totals` de-duplicates
    them per resource (``resource`` is that resource for a shared bill)."""

    kind: str  # storage
    resource: str  # the address the bill belongs to


@dataclass
class Cost:
    """A dollar figure a reader can recompute from ``basis`` and ``assumptions``.

    ``kind`` (one of :data:`finlint.cost.totals.KINDS`): ``savings`` (a cheaper configuration
    for what bills today), ``waste`` (an expected loss: probability x loss) or ``exposure`` (what
    it may bill if something happens: conditional, never added to the other two).
    ``monthly_usd`` is None only together with ``reason``.
    ``counted_once`` names a bill other findings share (the de-duplication's key); the
    ``assumptions`` still show it to the reader.
    """

    monthly_usd: float | None
    per_run_usd: float | None
    kind: str
    basis: str
    assumptions: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None  # why there is no figure (unpriced type, ...)
    counted_once: CountedOnce | None = None
    #: the basis in one short phrase for a terminal line: what the figure means and the three or
    #: four numbers that drive it ("" until the price sets it; ``basis`` keeps the arithmetic)
    brief: str = ""

    def to_json(self) -> dict[str, Any]:
        """Valid JSON always: a non-finite number (never expected) becomes null, never NaN/Infinity."""
        out: dict[str, Any] = {
            "monthly_usd": _money(self.monthly_usd),
            "per_run_usd": _money(self.per_run_usd),
            "kind": self.kind,
            "basis": self.basis,
            **({"brief": self.brief} if self.brief else {}),
            "assumptions": _finite(self.assumptions),
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def _money(value: float | None) -> float | None:
    return round(value, 2) if value is not None and math.isfinite(value) else None


def _finite(value: Any) -> Any:
    """``value`` with non-finite floats (and ints too big for a double) replaced by None."""
    if type(value) is str:  # the most common leaf, first
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, int) and not isinstance(value, bool):
        return value if abs(value) < 2**53 else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


@dataclass(frozen=True)
class TextEdit:
    """Replace one span of one file: ``file`` as in :attr:`Finding.file`, 1-based lines, 0-based
    columns counted in characters, the end exclusive. An insertion has start == end."""

    file: str
    start_line: int
    start_col: int
    end_line: int
    end_col: int
    new_text: str


@dataclass(frozen=True)
class Fix:
    """The minimal edit that resolves a finding. ``safe``: behaviour is unchanged (it writes down
    the limit that applies today); unsafe fixes change behaviour and carry a chosen value, named
    in ``description``. Edits never overlap and are applied last-first."""

    description: str
    safe: bool
    edits: tuple[TextEdit, ...]


@dataclass
class Finding:
    """One rule firing on one resource: where to edit, what is wrong, and (after pricing) its cost."""

    rule_id: str
    rule: str  # slug
    severity: str
    file: str
    line: int
    end_line: int
    resource: str
    message: str
    record: Record | None = None  # the IR record (None for FIN000 and meta findings)
    cost: Cost | None = None
    cost_model: str | None = None  # the policy's cost model name
    params: dict[str, Any] = field(default_factory=dict)  # the policy params in force
    #: What the rule's facts established for its price: the typed ``data`` of every Evidence the
    #: policy's lets produced (``PoolTypes``, ...). A price reads it (``evidence_of``) and
    #: ``params``; it never re-derives facts.
    evidence: tuple[object, ...] = ()
    #: the files a link went through (workload -> claim -> StorageClass): changed-file context
    chain_files: tuple[str, ...] = ()
    suppressed: str | None = None  # justification when suppressed in source
    baseline: bool = False  # known in the baseline file: reported, never fails the run
    fix: Fix | None = None  # set by the fix stage when the rule has a fix for this finding

    def evidence_of(self, kind: type[T]) -> T | None:
        """The rule's evidence of type ``kind``, or None when its facts established none."""
        return next((e for e in self.evidence if isinstance(e, kind)), None)

    @property
    def active(self) -> bool:
        """Counts toward the exit code and the cost total."""
        return self.suppressed is None and not self.baseline

    def sort_key(self) -> tuple[Any, ...]:
        return (self.file, self.line, self.rule_id, self.resource)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "rule_id": self.rule_id,
            "rule": self.rule,
            "severity": self.severity,
            "file": self.file,
            "line": self.line,
            "end_line": self.end_line,
            "resource": self.resource,
            "message": self.message,
            "cost": self.cost.to_json() if self.cost else None,
        }
        if self.fix is not None:
            out["fix"] = {
                "description": self.fix.description,
                "safe": self.fix.safe,
                "edits": [
                    {
                        "file": e.file,
                        "start_line": e.start_line,
                        "start_col": e.start_col,
                        "end_line": e.end_line,
                        "end_col": e.end_col,
                        "new_text": e.new_text,
                    }
                    for e in self.fix.edits
                ],
            }
        if self.suppressed is not None:
            out["suppressed"] = {"justification": self.suppressed}
        if self.baseline:
            out["baseline"] = True
        return out
