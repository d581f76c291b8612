"""Minimal HCL edits: an attribute or a nested block added inside an existing block, or a new
block after it, at the block's own indentation. Blocks are found by a brace scan that skips
strings (with ``${...}`` interpolations), heredocs and comments, so only the inserted lines
change; a one-line block, a ``dynamic`` block of the same name or a scan that does not balance
is left to a person."""

from __future__ import annotations

import re

from finlint.finding import TextEdit

_DYNAMIC = re.compile(r'dynamic\s+"?([\w-]+)')
_HEREDOC = re.compile(r"<<-?([A-Za-z_][A-Za-z0-9_-]*)[ \t]*\r?\n")


def code_mask(text: str) -> str | None:
    """``text`` with the contents of strings, heredocs and comments blanked (newlines kept), so
    braces and names left in it are HCL structure; None when a string or comment never ends."""
    out = list(text)
    i, n = 0, len(text)
    stack: list[str] = []  # "s": in a string; "i": in a ${ } of a string (its brace depth below)
    depth: list[int] = []

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        in_string = bool(stack) and stack[-1] == "s"
        if in_string:
            if c == "\\":
                blank(i, min(i + 2, n))
                i += 2
                continue
            if c == '"':
                blank(i, i + 1)
                stack.pop()
                i += 1
                continue
            if c in "$%" and text.startswith("{", i + 1):
                if text.startswith(c * 2 + "{", i):  # $${ escapes an interpolation
                    blank(i, i + 3)
                    i += 3
                    continue
                blank(i, i + 2)
                stack.append("i")
                depth.append(0)
                i += 2
                continue
            if c == "\n":
                return None  # a quoted string never spans lines
            blank(i, i + 1)
            i += 1
            continue
        inside = bool(stack)  # in an interpolation: code whose braces are the string's
        if c == '"':
            blank(i, i + 1)
            stack.append("s")
            i += 1
        elif c == "#" or text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                return None
            blank(i, end + 2)
            i = end + 2
        elif c == "<" and (m := _HEREDOC.match(text, i)):
            marker = re.compile(rf"^[ \t]*{re.escape(m.group(1))}[ \t]*\r?$", re.M)
            end_m = marker.search(text, m.end())
            if end_m is None:
                return None
            blank(i, end_m.end())
            i = end_m.end()
        elif inside and c in "{}":
            if c == "{":
                depth[-1] += 1
            elif depth[-1] == 0:
                stack.pop()
                depth.pop()
            else:
                depth[-1] -= 1
            blank(i, i + 1)
            i += 1
        else:
            if inside:
                blank(i, i + 1)
            i += 1
    return None if stack else "".join(out)


def _offset(lines: list[str], line: int, col: int = 0) -> int:
    return sum(len(x) for x in lines[: line - 1]) + col


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1)


def block_span(mask: str, line: int) -> tuple[int, int] | None:
    """Offsets of the ``{`` that opens the block on 1-based ``line`` and of its ``}``."""
    lines = mask.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        return None
    start = _offset(lines, line)
    open_at = mask.find("{", start, start + len(lines[line - 1]))
    if open_at < 0:
        return None
    level = 0
    for k in range(open_at, len(mask)):
        if mask[k] == "{":
            level += 1
        elif mask[k] == "}":
            level -= 1
            if level == 0:
                return open_at, k
    return None


def _items(mask: str, open_at: int, close_at: int) -> list[tuple[str, int, int]]:
    """The block's direct items: (name, offset of its name, offset of a nested block's ``{`` or
    -1 for an attribute)."""
    out: list[tuple[str, int, int]] = []
    level = 0
    pos = open_at + 1
    line_start = True
    while pos < close_at:
        c = mask[pos]
        if c == "\n":
            line_start = True
        elif c in "{[(":
            level += 1
        elif c in "}])":
            level -= 1
        elif level == 0 and line_start and not c.isspace():
            line_start = False
            m = re.compile(r"([A-Za-z_][A-Za-z0-9_-]*)([^\n={]*)([={]?)").match(mask, pos)
            if m:
                brace = m.start(3) if m.group(3) == "{" else -1
                out.append((m.group(1), pos, brace))
        pos += 1
    return out


def _indent(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def _own_line_close(text: str, close_at: int) -> bool:
    start = text.rfind("\n", 0, close_at) + 1
    return not text[start:close_at].strip()


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _descend(
    text: str, mask: str, line: int, path: tuple[str, ...], attr: str
) -> tuple[int, int, int] | None:
    """``(open, close, depth)``: the deepest block of ``path`` (``depth`` names of it) under the
    block opening on ``line``; None when a name on the path is ambiguous, dynamic or an
    attribute."""
    span = block_span(mask, line)
    if span is None:
        return None
    open_at, close_at = span
    depth = 0
    while depth < len(path):
        items = _items(mask, open_at, close_at)
        dynamic = {m.group(1) for _, at, _ in items if (m := _DYNAMIC.match(text, at))}
        wanted = path[depth]
        if wanted in dynamic or any(name == wanted and brace < 0 for name, _, brace in items):
            return None
        nested = [brace for name, _, brace in items if name == wanted and brace >= 0]
        if len(nested) > 1:
            return None  # which one? no fix beats a wrong fix
        if not nested:
            break
        inner = block_span(mask, _line_col(mask, nested[0])[0])
        if inner is None or inner[0] != nested[0]:
            return None
        open_at, close_at = inner
        depth += 1
    items = _items(mask, open_at, close_at)
    if depth == len(path) and any(name == attr for name, _, _ in items):
        return None
    return open_at, close_at, depth


def hcl_literal(text: str, line: int, path: tuple[str, ...], attr: str) -> str | None:
    """The plain string ``attr = "..."`` sets inside the nested blocks ``path`` of the block
    opening on 1-based ``line`` (no interpolation, no escapes, alone on its line); None else."""
    mask = code_mask(text)
    if mask is None:
        return None
    found = _descend(text, mask, line, path, "")
    if found is None or found[2] != len(path):
        return None
    open_at, close_at, _ = found
    hits = [at for name, at, brace in _items(mask, open_at, close_at) if name == attr and brace < 0]
    if len(hits) != 1:
        return None
    start = hits[0]
    end = text.find("\n", start)
    m = _PLAIN.match(text[start : len(text) if end < 0 else end])
    return m.group(1) if m else None


_PLAIN = re.compile(r'[A-Za-z_][\w-]*\s*=\s*"([^"\\$%{}]*)"\s*(?:(?:#|//).*)?\r?$')


def hcl_add(
    file: str,
    text: str,
    line: int,
    path: tuple[str, ...],
    attr: str,
    value: str,
    more: tuple[tuple[str, str], ...] = (),
) -> TextEdit | None:
    """``attr = value`` (and the pairs of ``more`` after it, ``=`` aligned as ``terraform fmt``
    does) inside the nested blocks ``path`` of the block opening on 1-based ``line``; the blocks
    of ``path`` that are missing are created (``timeout { ... }``) as the last items of the
    deepest one there. Indentation: the block's items', else its own plus two spaces. None when
    the file does not scan, a block is written on one line, ``attr`` (or a ``dynamic`` block of a
    name on the path) is there already, or a name on the path is an attribute
    (``timeout = {...}``)."""
    mask = code_mask(text)
    if mask is None:
        return None
    found = _descend(text, mask, line, path, attr)
    if found is None:
        return None
    open_at, close_at, depth = found
    if not _own_line_close(text, close_at) or _line_col(text, open_at)[0] == _line_col(text, close_at)[0]:
        return None
    items = _items(mask, open_at, close_at)
    own = _indent(text, open_at)
    indent = _indent(text, items[0][1]) if items else own + "  "
    step = indent[len(own) :] if indent.startswith(own) and len(indent) > len(own) else "  "
    eol = _eol(text)
    out: list[str] = []
    body = text[open_at + 1 : close_at].split("\n")[1:-1]
    if depth < len(path) and items and any(not row.strip() for row in body):
        out.append("")  # a new block, in a block whose items are set apart by blank lines
    for k, name in enumerate(path[depth:]):
        out.append(f"{indent}{step * k}{name} {{")
    level = len(path) - depth
    pairs = ((attr, value), *more)
    width = max(len(name) for name, _ in pairs)
    for name, val in pairs:
        out.append(f"{indent}{step * level}{name.ljust(width)} = {val}")
    for k in reversed(range(level)):
        out.append(f"{indent}{step * k}}}")
    at_line = _line_col(text, close_at)[0]
    return TextEdit(file, at_line, 0, at_line, 0, eol.join(out) + eol)


def hcl_append_after(file: str, text: str, line: int, block: str) -> TextEdit | None:
    """``block`` (lines without the file's indentation) as a new top-level block after the one
    opening on 1-based ``line``, a blank line between; None when the block does not scan or is
    not closed on its own line."""
    mask = code_mask(text)
    if mask is None:
        return None
    span = block_span(mask, line)
    if span is None or not _own_line_close(text, span[1]):
        return None
    close_line = _line_col(text, span[1])[0]
    lines = text.splitlines(keepends=True)
    eol = _eol(text)
    own = _indent(text, span[0])
    body = eol.join(own + x if x else x for x in block.split("\n"))
    tail = lines[close_line - 1]
    if tail.rstrip("\r\n").strip() != "}":
        return None  # a comment or more code after the brace: leave it
    if tail.endswith("\n"):
        return TextEdit(file, close_line + 1, 0, close_line + 1, 0, eol + body + eol)
    end = len(tail)
    return TextEdit(file, close_line, end, close_line, end, eol + eol + body + eol)


_OPENER = re.compile(r"^\s*[A-Za-z_][\w-]*\s*=\s*<<(-?)([A-Za-z_][\w-]*)\s*$")


def heredoc_body(text: str, line: int) -> tuple[int, int] | None:
    """``(first, last)`` 1-based lines of the body of the heredoc attribute
    (``yaml_body = <<-YAML``) whose body holds ``line``; None when ``line`` is in none."""
    lines = text.splitlines()
    for opener in range(min(line, len(lines)) - 1, 0, -1):
        m = _OPENER.match(lines[opener - 1])
        if m is None:
            continue
        marker = m.group(2)
        for closer in range(opener + 1, len(lines) + 1):
            if lines[closer - 1].strip() == marker:
                return (opener + 1, closer - 1) if opener < line < closer else None
        return None
    return None
