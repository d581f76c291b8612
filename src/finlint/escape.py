"""One place for what a report does with a string the scanned repository chose.

The repository is untrusted (finlint runs on fork pull requests): a resource name, a path, a
message built from either, a suppression reason or a notice may hold newlines, ANSI/OSC escape
sequences, a NUL byte or, from a file name that is not UTF-8, lone surrogates
(``surrogateescape``). Every human-readable report passes such strings through :func:`clean`
(one line, printable, encodable as strict UTF-8); the Markdown report also through
:func:`markdown` (no live mentions, links, images or HTML).
"""

from __future__ import annotations

import re
from typing import Any

# C0 and C1 control characters, DEL, and the Unicode line/paragraph separators and bidi
# overrides that reorder or break a displayed line
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_control(match: re.Match[str]) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def encodable(text: str) -> str:
    """``text`` with lone surrogates (a non-UTF-8 file name) shown as ``\\udcXX``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def clean(value: Any) -> str:
    """A repository-derived string as one printable line: control characters as ``\\n``,
    ``\\x1b``…, lone surrogates as ``\\udcXX``."""
    text = encodable(str(value))
    return _CONTROL.sub(_escape_control, text)


def markdown(value: Any) -> str:
    """Inert Markdown text: :func:`clean`, then every markup character backslash-escaped, HTML
    tags and entities escaped, ``@mentions``, ``#refs`` and bare URLs broken with a zero-width
    space so GitHub links none of them."""
    text = clean(str(value).replace("\r\n", " ").replace("\r", " ").replace("\n", " "))
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = re.sub(r"([\\`*_\[\]|])", r"\\\1", text)
    text = text.replace("@", "@\u200b")
    text = re.sub(r"(?i)(://|www\.)", lambda m: m.group()[0] + "\u200b" + m.group()[1:], text)
    return text


def markdown_code(value: Any) -> str:
    """A code span (mentions, links and HTML are inert inside one): :func:`clean`, no backtick
    (it would end the span), no pipe (it would split a table cell)."""
    text = clean(value).replace("`", "'").replace("|", "\\|")
    return f"`{text}`"


def code_fence(lines: list[str], info: str) -> list[str]:
    """A fenced Markdown block no content line can close: longer than any backtick run in it."""
    longest = max((len(m) for line in lines for m in re.findall(r"`+", line)), default=0)
    ticks = "`" * max(3, longest + 1)
    return [ticks + info, *lines, ticks]
