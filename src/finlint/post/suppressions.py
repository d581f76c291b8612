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

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterable, Iterator

from finlint import loaders
from finlint.engine import EngineConfig, Policy
from finlint.finding import Finding
from finlint.ir import Record

MARKER = loaders.SUPPRESSION_MARKER
COMMENT_SUFFIXES = loaders.comment_suffixes()
COMMENT_MARKERS = loaders.comment_markers()
#: The directive up to its opening bracket; the rules run to the first ``]`` and the reason is
#: the rest of the comment, both cut with ``str`` methods: linear in the comment's length (a
#: pattern that also matched the reason backtracked cubically on trailing spaces).
_DIRECTIVE = re.compile(r"finlint:\s*(?P<kind>ignore-file|ignore)\s*\[")
#: What a suppression that does not parse starts with: ``finlint: ignore FIN301``, ``ignore[FIN301``,
#: ``finlint: disable[FIN301]`` (reported as FIN901 instead of silently suppressing nothing).
_ATTEMPT = re.compile(r"finlint:\s*(?:ignore|[\w-]+\s*\[)", re.IGNORECASE)
_REASON_PUNCTUATION = ":-\u2013\u2014"
#: A suppression names at most this many rules; repeats count once.
MAX_RULES = 100
_COMMENT_START = re.compile(r"(?:^|\s)(" + "|".join(re.escape(m) for m in COMMENT_MARKERS) + ")")
_HEADER_LINE = re.compile(r"^\s*(#|//|/\*|\*|---\s*$|%YAML|$)")
UNUSED_ID, NO_REASON_ID = "FIN901", "FIN900"


@dataclass
class Entry:
    """One suppression as written: where, which rules, why, and what it covers."""

    file: str
    line: int
    rules: tuple[str, ...]
    reason: str
    scope: str  # line | file | record
    targets: frozenset[int] = frozenset()  # lines covered (line scope)
    resource: str = ""
    misplaced: bool = False  # ignore-file below the file's header comments
    used: set[str] = field(default_factory=set)
    malformed: bool = False  # mentions a suppression but does not parse: suppresses nothing
    dropped: int = 0  # rules named beyond MAX_RULES (not read)


@dataclass(frozen=True)
class _Comment:
    """A comment found in a source file, with its line."""

    line: int
    text: str
    alone: bool  # nothing but the comment on its line


def _comments(file: str, lines: list[str]) -> Iterator[_Comment]:
    """Comments that mention ``finlint:``; Python is tokenized so strings never count."""
    if file.endswith(".py"):
        source = "\n".join(lines) + "\n"
        try:
            for tok in tokenize.generate_tokens(io.StringIO(source).readline):
                if tok.type == tokenize.COMMENT and MARKER in tok.string:
                    row, col = tok.start
                    yield _Comment(row, tok.string, not lines[row - 1][:col].strip())
        except (tokenize.TokenError, SyntaxError, IndentationError):
            return
        return
    for number, text in enumerate(lines, 1):
        if MARKER not in text:
            continue
        match = _COMMENT_START.search(text)
        if match is None:
            continue
        yield _Comment(number, text[match.start(1) :], not text[: match.start(1)].strip())


def _is_comment(text: str) -> bool:
    return text.lstrip().startswith(("#", "//", "/*", "*"))


def _header_end(lines: list[str]) -> int:
    """The last line of the file's leading block of comments, blank lines and YAML directives."""
    end = 0
    for number, text in enumerate(lines, 1):
        if not _HEADER_LINE.match(text) and not text.startswith("#!"):
            break
        end = number
    return end


def parse_comments(file: str, lines: list[str]) -> list[Entry]:
    if not file.endswith(COMMENT_SUFFIXES):
        return []
    entries: list[Entry] = []
    header_end = _header_end(lines)
    for comment in _comments(file, lines):
        text = comment.text
        match = _DIRECTIVE.search(text)
        close = -1 if match is None else text.find("]", match.end())
        if match is None or close < 0:
            if _ATTEMPT.search(text):
                entries.append(Entry(file, comment.line, (), "", "line", resource=file, malformed=True))
            continue
        rules, dropped = _rule_list(text[match.end() : close])
        reason = _reason(text[close + 1 :])
        if match.group("kind") == "ignore-file":
            entries.append(
                Entry(
                    file,
                    comment.line,
                    rules,
                    reason,
                    "file",
                    misplaced=comment.line > header_end,
                    resource=file,
                    dropped=dropped,
                )
            )
            continue
        targets = {comment.line}
        if comment.alone:  # a comment alone on its line covers the next line of code
            nxt = comment.line + 1
            while nxt <= len(lines) and _is_comment(lines[nxt - 1]):
                nxt += 1
            targets.add(nxt)
        entries.append(
            Entry(
                file, comment.line, rules, reason, "line", frozenset(targets), resource=file, dropped=dropped
            )
        )
    return entries


def _rule_list(text: str) -> tuple[tuple[str, ...], int]:
    """The rules of ``ignore[...]``, each once (any case), at most :data:`MAX_RULES`; and how many
    more were named."""
    unique: dict[str, str] = {}
    for raw in text.split(","):
        rule = raw.strip()
        if rule:
            unique.setdefault(rule.lower(), rule)
    rules = tuple(unique.values())
    return rules[:MAX_RULES], max(0, len(rules) - MAX_RULES)


def _reason(rest: str) -> str:
    """The reason after ``ignore[...]``: without leading ``:``/``-``/dashes or a closing ``*/``."""
    reason = rest.strip().lstrip(_REASON_PUNCTUATION).strip()
    if reason.endswith("*/"):
        reason = reason[:-2].rstrip()
    return reason


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
