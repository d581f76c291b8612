"""Template tags and YAML keys in a line of template text, found in linear time.

The regular expressions these replace backtracked on attacker-sized input (issue 24): a lazy
``\\{\\{.*?\\}\\}`` with DOTALL scanned to the end of the text from every unclosed ``{{``,
and a lazy key followed by ``\\s*:`` was quadratic on a long line of spaces.
``tests/security/test_linear_text.py`` checks each against the pattern it replaced.
"""

from __future__ import annotations

import re

#: where a tag may start, and how each kind ends (``${`` ends at the first brace, if a ``}``)
_TAG_START = re.compile(r"\{[{%#]|%\{|\$\{")
_TAG_END = {"{{": "}}", "{%": "%}", "{#": "#}", "%{": "}"}
_BRACE = re.compile(r"[{}]")
#: A tag that spans lines is joined over at most this many lines (else the file is not a template
#: this module can read): joining a whole file line by line was quadratic.
MAX_TAG_LINES = 200
MAX_TAG_CHARS = 64 * 1024


class Tags:
    """Template tags in a text: Go/Jinja expressions and statements, Jinja comments, Terraform
    template directives (``{{...}}``, ``{%...%}``, ``{#...#}``, ``%{...}``, ``${...}`` without
    braces inside), leftmost first. Found in one linear pass: the lazy DOTALL regex this
    replaces scanned to the end of the text from every unclosed ``{{`` (200 KB of them: minutes)."""

    @staticmethod
    def spans(text: str) -> list[tuple[int, int]]:
        found: list[tuple[int, int]] = []
        dead: set[str] = set()  # kinds with no closer left in the text
        pos = 0
        while (start := _TAG_START.search(text, pos)) is not None:
            at = start.start()
            opener = start.group()
            end = -1
            if opener == "${":
                brace = _BRACE.search(text, at + 2)
                if brace is not None and brace.group() == "}":
                    end = brace.end()
            elif opener not in dead:
                close = text.find(_TAG_END[opener], at + 2)
                if close < 0:
                    dead.add(opener)
                else:
                    end = close + len(_TAG_END[opener])
            if end < 0:
                pos = at + 1
                continue
            found.append((at, end))
            pos = end
        return found

    @classmethod
    def findall(cls, text: str) -> list[str]:
        return [text[a:b] for a, b in cls.spans(text)]

    @classmethod
    def search(cls, text: str) -> bool:
        return bool(cls.spans(text))

    @classmethod
    def fullmatch(cls, text: str) -> bool:
        return bool(text) and cls.spans(text) == [(0, len(text))]

    @classmethod
    def split(cls, text: str) -> list[str]:
        parts, last = [], 0
        for a, b in cls.spans(text):
            parts.append(text[last:a])
            last = b
        parts.append(text[last:])
        return parts

    @classmethod
    def sub(cls, replacement: str, text: str) -> str:
        return replacement.join(cls.split(text))


#: A mapping key, read without regex backtracking (a lazy key followed by ``\s*:`` was
#: quadratic on a long line of spaces): the list dashes before it, a quoted key, a plain key up
#: to the first ``:`` followed by a space or the end, or a key of ``[A-Za-z0-9_./-]``.
_DASHES = re.compile(r"(?:-\s+)*")
_VALID_COLON = re.compile(r":(?=\s|$)")
_COLON_AFTER = re.compile(r"\s*:(?:\s+|$)")
_PLAIN_KEY_START_EXCLUDED = frozenset("#'\"{}[],&*!|>%@`-")
_SIMPLE_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-")


def key_match(body: str) -> tuple[str, str, str] | None:
    """``(list dashes, key, value)`` of a ``key: value`` line, or None."""
    prefix = _DASHES.match(body)
    dashes = prefix.group() if prefix else ""
    found = _key_after(dashes, body[len(dashes) :])
    if found is None and dashes:  # `- : x`: the last dash is the key (as the regex backtracked)
        last = dashes.rstrip().rfind("-")
        found = _simple_key(dashes[:last], body[last:])
    return found


def _key_after(dashes: str, rest: str) -> tuple[str, str, str] | None:
    if not rest:
        return None
    first = rest[0]
    if first in "\"'":
        close = rest.find(first, 1)
        tail = _COLON_AFTER.match(rest, close + 1) if close > 0 else None
        return (dashes, rest[: close + 1], rest[tail.end() :]) if tail else None
    if not first.isspace() and first not in _PLAIN_KEY_START_EXCLUDED:
        colon = _VALID_COLON.search(rest, 1)
        if colon is None or "#" in rest[: colon.start()]:
            return None
        return dashes, rest[: colon.start()].rstrip(), rest[colon.end() :].lstrip()
    return _simple_key(dashes, rest)


def _simple_key(dashes: str, rest: str) -> tuple[str, str, str] | None:
    end = 0
    while end < len(rest) and rest[end] in _SIMPLE_KEY_CHARS:
        end += 1
    tail = _COLON_AFTER.match(rest, end) if end else None
    return (dashes, rest[:end], rest[tail.end() :]) if tail else None


def head_key(text: str) -> str:
    """The key of a line whose tags are masked, up to its first colon (``""``: none)."""
    prefix = _DASHES.match(text)
    rest = text[prefix.end() if prefix else 0 :]
    colon = rest.find(":")
    if colon < 0 or not (colon + 1 == len(rest) or rest[colon + 1].isspace()):
        return ""
    key = rest[:colon]
    return "" if any(c in key for c in "#'\"") else key.rstrip()
