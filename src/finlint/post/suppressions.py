"""In-source suppressions, with a reason, visible in every output as suppressed.

Three idioms, one meaning (style guide: each format's own idiom, codes and names accepted):

- a comment ``# finlint: ignore[FIN301] reserved for the quarterly run`` (``//`` in HCL) on the
  resource's or call's first line, on the finding's line, or alone on the line above either;
- ``# finlint: ignore-file[FIN301] reason`` in the comment block at the top of a file;
- ``record.suppressions`` from the loaders (CloudFormation ``Metadata.finlint.ignore``, the
  Kubernetes annotation ``finlint.io/ignore``).

A suppression still works without a reason but is reported as FIN900; one that suppresses
nothing (or names no known rule) is reported as FIN901, like ruff's RUF100, so stale
suppressions do not pile up. Only suppressions of rules that ran can be "unused".
"""

from __future__ import annotations

from typing import Iterable, Iterator

from finlint.engine import EngineConfig, Policy
from finlint.finding import Finding
from finlint.ir import Record
from finlint.loaders.common.comments import (
    MAX_RULES,
    Entry,
    parse_comments,
)

UNUSED_ID, NO_REASON_ID = "FIN901", "FIN900"


def record_entries(records: Iterable[Record]) -> dict[tuple[str, int, str, str], Entry]:
    """Loader-found suppressions, one entry per place (CFN Metadata may reach several records)."""
    out: dict[tuple[str, int, str, str], Entry] = {}
    for record in records:
        for s in record.suppressions:
            key = (record.location.file, s.line, s.rule, s.reason)
            if key not in out:
                out[key] = Entry(
                    record.location.file, s.line, (s.rule,), s.reason, "record", resource=record.address
                )
    return out


class _Rules:
    """Resolve a reference (code, any case, or slug) to a policy."""

    def __init__(self, policies: list[Policy]) -> None:
        self.by_key = {p.id: p for p in policies} | {p.name: p for p in policies}

    def get(self, ref: str) -> Policy | None:
        return self.by_key.get(ref.upper()) or self.by_key.get(ref.lower())


def apply(
    findings: list[Finding],
    records: list[Record],
    texts: dict[str, list[str]],
    policies: list[Policy],
    config: EngineConfig,
) -> list[Finding]:
    """Mark suppressed findings (``finding.suppressed = reason``) and add FIN900/FIN901 findings."""
    rules = _Rules(policies)
    relevant = {r.location.file for r in records} | {f.file for f in findings}
    comment_entries = [e for file in sorted(relevant & set(texts)) for e in parse_comments(file, texts[file])]
    by_file: dict[str, list[Entry]] = {}
    for entry in comment_entries:
        by_file.setdefault(entry.file, []).append(entry)
    from_records = record_entries(records)

    for f in findings:
        policy = rules.get(f.rule_id)
        anchors = {f.line}
        if f.record is not None:
            anchors.add(f.record.location.line)
        candidates = [
            e
            for e in by_file.get(f.file, ())
            if (e.scope == "file" and not e.misplaced) or (e.scope == "line" and e.targets & anchors)
        ]
        if f.record is not None and f.record.location.file != f.file:
            # the finding points into a config file its value came from: a comment at the
            # launch (the record's own lines) still suppresses it
            at = {f.record.location.line}
            candidates += [
                e
                for e in by_file.get(f.record.location.file, ())
                if (e.scope == "file" and not e.misplaced) or (e.scope == "line" and e.targets & at)
            ]
        if f.record is not None:
            candidates += [
                from_records[(f.record.location.file, s.line, s.rule, s.reason)]
                for s in f.record.suppressions
                if (f.record.location.file, s.line, s.rule, s.reason) in from_records
            ]
        for entry in candidates:
            for ref in entry.rules:
                if policy is not None and rules.get(ref) is policy:
                    entry.used.add(ref)
                    if f.suppressed is None or (not f.suppressed and entry.reason):
                        f.suppressed = entry.reason

    parsed = {f.file for f in findings if f.rule_id == "FIN000"}
    meta = _meta_findings([*comment_entries, *from_records.values()], rules, config, parsed)
    return [*findings, *meta]


def _problems(e: Entry, rules: _Rules, config: EngineConfig, broken_files: set[str]) -> Iterator[str]:
    """Why an entry is an unused suppression (FIN901), if it is."""
    written = ", ".join(e.rules)
    if e.malformed:
        yield (
            "malformed suppression, it suppresses nothing: write the rule ids in brackets, "
            "e.g. `# finlint: ignore[FIN301] reserved for the quarterly pre-training run`"
        )
        return
    if e.dropped:
        yield f"suppression names more than {MAX_RULES} rules: the {e.dropped} after them are not read"
    if e.misplaced:
        yield f"ignore-file[{written}] has no effect here: put it in the comment block at the top of the file"
        return
    if not e.rules:
        yield "suppression names no rule: write ignore[FIN301] with a rule id or name"
        return
    where = {"file": "in this file", "record": f"on {e.resource}"}.get(e.scope, "here")
    for ref in e.rules:
        policy = rules.get(ref)
        if policy is None:
            yield f"suppression names unknown rule {ref!r} (see `finlint rules`)"
        elif ref in e.used or e.file in broken_files or not config.enabled(policy):
            continue
        elif policy.applies_to:
            yield f"unused suppression: no {policy.id} finding {where} to suppress; remove it"
        elif policy.id == "FIN000":
            yield "unused suppression: the file parses; remove it"


def _meta_findings(
    entries: list[Entry], rules: _Rules, config: EngineConfig, broken_files: set[str]
) -> list[Finding]:
    out: list[Finding] = []
    no_reason, unused = rules.get(NO_REASON_ID), rules.get(UNUSED_ID)
    for e in sorted(entries, key=lambda e: (e.file, e.line)):
        if no_reason is not None and config.enabled(no_reason) and not e.reason and e.rules:
            example = f"`# finlint: ignore[{e.rules[0]}] reserved for the quarterly pre-training run`"
            message = f"suppression of {', '.join(e.rules)} gives no reason: say why, e.g. {example}"
            out.append(_meta(no_reason, config, e, message))
        if unused is not None and config.enabled(unused):
            out += [_meta(unused, config, e, m) for m in _problems(e, rules, config, broken_files)]
    return out


def _meta(policy: Policy, config: EngineConfig, e: Entry, message: str) -> Finding:
    return Finding(
        rule_id=policy.id,
        rule=policy.name,
        severity=config.severity_for(policy),
        file=e.file,
        line=e.line,
        end_line=e.line,
        resource=e.resource,
        message=message,
    )
