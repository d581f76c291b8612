"""Suppression comments: their grammar (``# finlint: ignore[FIN301] reason``, ``ignore-file``),
parsed from a file's lines. Loaders use it for code cells; ``post.suppressions`` applies them."""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterator

from finlint import loaders

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
    """A comment line; a Slurm ``#SBATCH`` directive is code (a suppression above it covers it)."""
    stripped = text.lstrip()
    return stripped.startswith(("#", "//", "/*", "*")) and not stripped.startswith("#SBATCH")


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
