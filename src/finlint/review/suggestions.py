"""From a report's fixes to whole-line suggestions on the lines a pull request changed.

A GitHub ``suggestion`` block (and GitLab's ``suggestion:-0+0``) replaces whole lines, so each
fix becomes the replacement of the full lines its edits touch, computed from the file as it is
now (read under the scan root with :func:`finlint.untrusted.read_bytes`: the checkout is
untrusted). Only a suggestion whose lines all lie in the diff is kept: both hosts reject a
comment outside it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from finlint.escape import code_fence
from finlint.finding import Fix, fix_from_json
from finlint.textedit import whole_lines
from finlint.untrusted import read_bytes

MAX_FILE_BYTES = 4 * 1024 * 1024
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Suggestion:
    """Replace lines ``start_line``..``end_line`` (1-based, inclusive) of ``file`` by ``new_lines``."""

    file: str
    start_line: int
    end_line: int
    new_lines: tuple[str, ...]
    rule_id: str
    message: str
    description: str


@dataclass(frozen=True)
class Fixable:
    """One finding of a report that carries a fix."""

    rule_id: str
    message: str
    fix: Fix


def load_report(path: Path) -> list[Fixable]:
    """The fixable findings of a ``--format json`` report; ValueError when it is not one."""
    data = read_bytes(path, 64 * 1024 * 1024)
    if isinstance(data, str):
        raise ValueError(f"{path}: {data}")
    try:
        doc = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: not a finlint JSON report ({exc})") from None
    findings = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(findings, list):
        raise ValueError(f"{path}: not a finlint JSON report (no 'findings' list)")
    out = []
    for f in findings:
        if not isinstance(f, dict) or "suppressed" in f or f.get("baseline"):
            continue
        fix = fix_from_json(f.get("fix"))
        if fix is not None and fix.edits:
            out.append(Fixable(str(f.get("rule_id", "")), str(f.get("message", "")), fix))
    return out


def added_lines(patch: str, context: bool = True) -> set[int]:
    """New-side line numbers a unified-diff patch shows: the lines a review comment may sit on.
    ``context=False``: added lines only (a GitLab position with only ``new_line`` must be one)."""
    lines: set[int] = set()
    new = 0
    for row in patch.splitlines():
        m = _HUNK.match(row)
        if m:
            new = int(m.group(1))
            continue
        if new == 0 or row.startswith("-") or row.startswith("\\"):
            continue
        if context or row.startswith("+"):
            lines.add(new)
        new += 1
    return lines


def _lines(root: Path, file: str) -> list[str] | None:
    """The file's current lines (without line endings), or None when it cannot be read inside
    the root (absolute, ``..``, a symlink out, unreadable, not UTF-8)."""
    base = root.resolve()
    try:
        target = (base / file).resolve()
        target.relative_to(base)
    except (OSError, ValueError):
        return None
    data = read_bytes(target, MAX_FILE_BYTES)
    if isinstance(data, str):
        return None
    try:
        return data.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        return None


def to_suggestions(fixable: Fixable, root: Path) -> list[Suggestion]:
    """One whole-line suggestion per file the fix edits; [] when an edit does not fit the file
    (a stale report) so a wrong suggestion is never posted."""
    out: list[Suggestion] = []
    for file in dict.fromkeys(e.file for e in fixable.fix.edits):
        lines = _lines(root, file)
        if lines is None:
            return []
        span = whole_lines(lines, [e for e in fixable.fix.edits if e.file == file])
        if span is None:
            return []
        first, old, new = span
        last = first + len(old) - 1
        out.append(
            Suggestion(
                file,
                first,
                last,
                tuple(new),
                fixable.rule_id,
                fixable.message,
                fixable.fix.description,
            )
        )
    return out


def fence(lines: tuple[str, ...], info: str) -> str:
    """A fenced block longer than any backtick run in the content (it cannot close early)."""
    return "\n".join(code_fence(list(lines), info))


def body(s: Suggestion, info: str = "suggestion") -> str:
    """The comment text: the rule, the fix's description, the suggestion block."""
    from finlint.escape import markdown

    return f"**{markdown(s.rule_id)}**: {markdown(s.description)}\n\n{fence(s.new_lines, info)}\n"


def in_diff(s: Suggestion, diff: dict[str, set[int]]) -> bool:
    """Every line the suggestion replaces is one the diff shows."""
    shown = diff.get(s.file, set())
    return all(n in shown for n in range(s.start_line, s.end_line + 1))


def unique(suggestions: list[Suggestion]) -> list[Suggestion]:
    """One suggestion per distinct replacement (file, lines, new text): findings resolved by the
    same edit are posted once, naming every rule."""
    from dataclasses import replace

    out: dict[tuple[str, int, int, tuple[str, ...]], Suggestion] = {}
    for s in suggestions:
        key = (s.file, s.start_line, s.end_line, s.new_lines)
        seen = out.get(key)
        if seen is None:
            out[key] = s
        elif s.rule_id not in seen.rule_id.split(", "):
            out[key] = replace(seen, rule_id=f"{seen.rule_id}, {s.rule_id}")
    return list(out.values())
