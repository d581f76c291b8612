"""``finlint fix``: each rule's ``fix`` (in its module) turned into edits, checked, and applied.

A fix is offered only if it survives a re-lint: the edited file, linted alone in a scratch
folder, no longer has the finding, and has no finding (nor FIN000) the original alone did not
have. Edits are written back atomically to files inside the scan paths only, never through a
symlink. The scan's own reporters get ``Finding.fix`` through :func:`attach_fixes`.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finlint.confine import inside
from finlint.finding import Finding, Fix
from finlint.options import ScanOptions
from finlint.textedit import apply_edits, unified_diff
from finlint.untrusted import read_bytes

if TYPE_CHECKING:
    from finlint.engine import Policy

MAX_BYTES = 4 * 1024 * 1024


def _reader(roots: list[Path], base: Path) -> Callable[[str], str | None]:
    """The text of a finding's file, only when it resolves inside one of ``roots``."""
    cache: dict[str, str | None] = {}

    def read(name: str) -> str | None:
        if name not in cache:
            cache[name] = None
            path = (base / name).resolve()
            if any(path == r or inside(path, r) for r in roots):
                data = read_bytes(path, MAX_BYTES)
                if isinstance(data, bytes):
                    with contextlib.suppress(UnicodeDecodeError):  # not text: no fix
                        cache[name] = data.decode("utf-8")
        return cache[name]

    return read


def attach_fixes(
    findings: list[Finding], read: Callable[[str], str | None], cost_settings: Any = None
) -> int:
    """Set ``Finding.fix`` on each active finding whose rule has a fix for it; how many got one.
    Not re-linted (see :func:`plan`). ``cost_settings`` name the usage file an unsafe fix's value
    comes from (``expected_runtime_hours``)."""
    from finlint.cost.common import CostContext
    from finlint.rules import registry

    rules = registry().rules
    usage = CostContext.build(cost_settings, [])
    count = 0
    for finding in findings:
        rule = rules.get(finding.rule_id)
        if rule is None or rule.fix is None or not finding.active or finding.record is None:
            continue
        text = read(finding.file)
        if text is None:
            continue
        try:
            fix = rule.fix(finding, text, usage.params(finding.record))
        except (ValueError, IndexError, KeyError):  # a fix that cannot place its edit is no fix
            fix = None
        if fix is not None and all(e.file == finding.file for e in fix.edits):
            finding.fix = fix
            count += 1
    return count


@dataclass
class FileFix:
    """The fixes applied to one file and the text they make."""

    file: str
    before: str
    after: str
    fixes: list[tuple[Finding, Fix]] = field(default_factory=list)
    #: findings whose fix is the very edit of one in ``fixes`` (one resource in two module
    #: instances, two rules with one remedy): resolved by it, applied once
    shared: list[Finding] = field(default_factory=list)

    @property
    def resolved(self) -> int:
        """How many findings the file's edits resolve."""
        return len(self.fixes) + len(self.shared)

    def diff(self) -> str:
        return unified_diff(self.file, self.before, self.after)


@dataclass
class FixPlan:
    """What ``finlint fix`` will do: the files it edits, and the fixes it leaves out and why."""

    files: list[FileFix]
    rejected: list[tuple[Finding, str]]  # fixes not offered, and why
    skipped_unsafe: int  # unsafe fixes left out without --unsafe-fixes
    remaining: int  # active findings with no fix applied


def _keys(findings: list[Finding]) -> set[tuple[str, str]]:
    return {(f.rule_id, f.resource) for f in findings if f.active}


def _same(resource: str, alone: str) -> bool:
    """Whether ``alone`` (a resource of the file linted by itself) is ``resource`` of the scan: the
    same name, or the scan's name with a prefix the file alone cannot know (``module.a.`` of a
    Terraform module call)."""
    return resource == alone or resource.endswith("." + alone)


def _lint_alone(name: str, text: str, options: ScanOptions, policies: list[Policy] | None) -> list[Finding]:
    """The findings of ``text`` as file ``name``, linted alone in a scratch folder (a re-lint
    never writes into the scanned repository), with the scan's ``policies`` (None: loaded
    again from ``options``; each re-lint loading the pack again was most of a fixable scan)."""
    from finlint.scan import lint

    with tempfile.TemporaryDirectory(prefix="finlint-fix-") as tmp:
        root = Path(tmp)
        target = root / Path(name).name
        target.write_text(text, encoding="utf-8")
        scratch = replace(options, paths=[root], display_root=root, context=False, jobs=1, progress=None)
        return lint(scratch, policies).findings


def _survives(ff: FileFix, options: ScanOptions, policies: list[Policy] | None) -> str | None:
    """Why the edited file does not survive a re-lint (None: it does)."""
    before = _lint_alone(ff.file, ff.before, options, policies)
    after = _lint_alone(ff.file, ff.after, options, policies)
    if any(f.rule_id == "FIN000" for f in after):
        return "the edited file does not parse"
    fixed = {(f.rule_id, f.resource) for f, _ in [*ff.fixes, *((s, None) for s in ff.shared)]}
    left = {
        (rule, res) for rule, res in fixed for r2, alone in _keys(after) if r2 == rule and _same(res, alone)
    }
    if left:
        return f"{sorted(left)[0][0]} still reported after the edit"
    new = _keys(after) - _keys(before)
    if new:
        return f"the edit adds {sorted(new)[0][0]}"
    return None


def plan(
    findings: list[Finding],
    read: Callable[[str], str | None],
    options: ScanOptions,
    unsafe: bool,
    policies: list[Policy] | None = None,
) -> FixPlan:
    """Which fixes to apply, file by file: non-overlapping, re-linted (with the scan's
    ``policies``, if given), safe ones unless ``unsafe``."""
    attach_fixes(findings, read, options.cost_settings)
    by_file: dict[str, list[tuple[Finding, Fix]]] = defaultdict(list)
    skipped = 0
    for f in findings:
        if f.fix is None:
            continue
        if not f.fix.safe and not unsafe:
            skipped += 1
            continue
        by_file[f.file].append((f, f.fix))
    files: list[FileFix] = []
    rejected: list[tuple[Finding, str]] = []
    for name, fixes in by_file.items():
        before = read(name) or ""
        duplicates: list[tuple[Finding, Fix]] = []
        chosen = _non_overlapping(before, fixes, rejected, duplicates)
        if not chosen:
            continue
        ff = FileFix(name, before, apply_edits(before, [e for _, fx in chosen for e in fx.edits]), chosen)
        why = _survives(ff, options, policies)
        if why is not None:  # try them one by one: keep the ones that survive alone
            ff = _one_by_one(name, before, chosen, options, rejected, policies)
        kept = {tuple(fx.edits) for _, fx in ff.fixes}
        for finding, fix in duplicates:
            if tuple(fix.edits) in kept:
                ff.shared.append(finding)
            else:
                rejected.append((finding, "its edit is another finding's, which was not applied"))
        if ff.fixes:
            files.append(ff)
    applied = {id(f) for ff in files for f in [*(f for f, _ in ff.fixes), *ff.shared]}
    for finding, _ in rejected:
        finding.fix = None  # not offered: it would not survive the re-lint, or overlaps another
    remaining = sum(1 for f in findings if f.active and id(f) not in applied)
    return FixPlan(files, rejected, skipped, remaining)


def _non_overlapping(
    text: str,
    fixes: list[tuple[Finding, Fix]],
    rejected: list[tuple[Finding, str]],
    duplicates: list[tuple[Finding, Fix]],
) -> list[tuple[Finding, Fix]]:
    """The fixes to try, in order, leaving out those that overlap one already chosen; a fix
    whose edits are exactly a chosen one's goes to ``duplicates`` (applied once)."""
    chosen: list[tuple[Finding, Fix]] = []
    seen: set[tuple[object, ...]] = set()
    for finding, fix in fixes:
        key = tuple(fix.edits)
        if key in seen:  # two findings resolved by one edit: applied once
            duplicates.append((finding, fix))
            continue
        try:
            apply_edits(text, [e for _, fx in chosen for e in fx.edits] + list(fix.edits))
        except ValueError as exc:
            rejected.append((finding, str(exc)))
            continue
        seen.add(key)
        chosen.append((finding, fix))
    return chosen


def _one_by_one(
    name: str,
    before: str,
    chosen: list[tuple[Finding, Fix]],
    options: ScanOptions,
    rejected: list[tuple[Finding, str]],
    policies: list[Policy] | None,
) -> FileFix:
    kept: list[tuple[Finding, Fix]] = []
    for finding, fix in chosen:
        trial = kept + [(finding, fix)]
        ff = FileFix(name, before, apply_edits(before, [e for _, fx in trial for e in fx.edits]), trial)
        why = _survives(ff, options, policies)
        if why is None:
            kept = trial
        else:
            rejected.append((finding, why))
    return FileFix(name, before, apply_edits(before, [e for _, fx in kept for e in fx.edits]), kept)


def offer_fixes(findings: list[Finding], options: ScanOptions, policies: list[Policy] | None = None) -> int:
    """Set ``Finding.fix`` (safe and unsafe) on the findings of a scan run with ``options`` (and
    ``policies``), each re-linted first; what ``finlint scan`` calls for reports that carry
    fixes. How many got one."""
    plan(findings, reader_for(options), options, unsafe=True, policies=policies)
    return sum(1 for f in findings if f.fix is not None)


def reader_for(options: ScanOptions) -> Callable[[str], str | None]:
    """The reader of finding files for a scan run with ``options`` (paths relative to its display root)."""
    roots = [p.resolve() for p in options.paths]
    return _reader(roots, (options.display_root or Path.cwd()).resolve())


__all__ = ["FileFix", "FixPlan", "attach_fixes", "offer_fixes", "plan", "reader_for"]
