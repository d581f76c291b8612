"""Minimal HCL edits: an attribute or a nested block added inside an existing block, or a new
block after it, at the block's own indentation.

Every structural question (which block opens on a line, its nested blocks and attributes, the
line of its closing brace, a string's value, a heredoc's body) is answered by the Terraform
loader's own parser (:func:`finlint.loaders.terraform.hcl.parse_text`), so strings, ``${...}``,
heredocs and comments are what HCL says they are; only layout (a line's indentation, whether
the closing ``}`` is alone on its line, the file's line ending) is read from the text. A file
that does not parse, a one-line block or a ``dynamic`` block of the same name is left to a
person."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

from finlint.finding import TextEdit
from finlint.loaders.terraform.hcl import Block, Body, HclError, ObjectItem, Template, parse_text

#: Line breaks other than ``\n``: the parser counts lines by ``\n`` alone and
#: :func:`finlint.textedit.apply_edits` by :meth:`str.splitlines`, so such a file gets no edit.
_OTHER_BREAKS = re.compile("[\v\f\x1c\x1d\x1e\x85\u2028\u2029]|\r(?!\n)")
_UNSAFE_LITERAL = re.compile(r'["\\$%{}\x00-\x1f\x7f]')
_MARKER = re.compile(r"[ \t]*[A-Za-z_][\w.-]*[ \t]*\r?$")  # a heredoc's closing line


def _parse(text: str) -> tuple[Body, list[str]] | None:
    """The file's tree and its lines (split on ``\\n``, ``\\r`` kept); None when it does not
    parse or has line breaks the parser and the edit applier would count differently. A
    byte-order mark (kept by ``finlint fix``'s reader, dropped by the loader's) is not parsed."""
    if _OTHER_BREAKS.search(text):
        return None
    try:
        return parse_text(text.removeprefix("\ufeff")), text.split("\n")
    except HclError:
        return None


def _block_at(body: Body, line: int) -> Block | None:
    """The outermost block whose header is on 1-based ``line``."""
    for block in body.blocks:
        if block.line == line:
            return block
        if block.line < line <= block.end_line:
            return _block_at(block.body, line)
    return None


def _indent(lines: list[str], line: int) -> str:
    row = lines[line - 1]
    return row[: len(row) - len(row.lstrip(" \t"))]


def _own_line_close(lines: list[str], block: Block) -> bool:
    """Whether ``block`` spans lines and its ``}`` starts its line, with at most a comment after."""
    rest = lines[block.end_line - 1].rstrip("\r").lstrip(" \t")
    if block.line == block.end_line or not rest.startswith("}"):
        return False
    after = rest[1:].strip()
    return not after or after.startswith(("#", "//"))


def _first_item_line(body: Body) -> int | None:
    rows = [a.line for a in body.attrs.values()] + [line for _, line in body.duplicates]
    rows += [b.line for b in body.blocks]
    return min(rows) if rows else None


def _descend(block: Block, path: tuple[str, ...], attr: str) -> tuple[Block, int] | None:
    """``(deepest, depth)``: the deepest block of ``path`` (``depth`` names of it) under
    ``block``; None when a name on the path is ambiguous, dynamic or an attribute, or when the
    whole path is there and ``attr`` is set in it already."""
    depth = 0
    while depth < len(path):
        wanted, body = path[depth], block.body
        dynamic = any(b.type == "dynamic" and b.labels[:1] == (wanted,) for b in body.blocks)
        if dynamic or wanted in body.attrs:
            return None
        nested = body.blocks_of(wanted)
        if len(nested) > 1:
            return None  # which one? no fix beats a wrong fix
        if not nested:
            break
        block, depth = nested[0], depth + 1
    if depth == len(path) and attr and (attr in block.body.attrs or block.body.blocks_of(attr)):
        return None
    return block, depth


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def hcl_literal(text: str, line: int, path: tuple[str, ...], attr: str) -> str | None:
    """The plain string ``attr = "..."`` sets inside the nested blocks ``path`` of the block
    opening on 1-based ``line`` (one line, no interpolation, directive or heredoc, and nothing
    that would need escaping written back into a quoted string); None else."""
    parsed = _parse(text)
    block = _block_at(parsed[0], line) if parsed else None
    found = _descend(block, path, "") if block else None
    if found is None or found[1] != len(path):
        return None
    body = found[0].body
    attribute = body.attrs.get(attr)
    if attribute is None or any(name == attr for name, _ in body.duplicates):
        return None
    expr = attribute.expr
    if not isinstance(expr, Template) or expr.heredoc or expr.directive:
        return None
    if attribute.line != attribute.end_line or not all(isinstance(p, str) for p in expr.parts):
        return None
    value = "".join(str(part) for part in expr.parts)
    return None if _UNSAFE_LITERAL.search(value) else value


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
    the file does not parse, a block is written on one line, ``attr`` (or a ``dynamic`` block of
    a name on the path) is there already, or a name on the path is an attribute
    (``timeout = {...}``)."""
    parsed = _parse(text)
    block = _block_at(parsed[0], line) if parsed else None
    found = _descend(block, path, attr) if block else None
    if parsed is None or found is None:
        return None
    lines = parsed[1]
    target, depth = found
    if not _own_line_close(lines, target):
        return None
    first = _first_item_line(target.body)
    own = _indent(lines, target.line)
    indent = _indent(lines, first) if first is not None else own + "  "
    step = indent[len(own) :] if indent.startswith(own) and len(indent) > len(own) else "  "
    eol = _eol(text)
    out: list[str] = []
    body = lines[target.line : target.end_line - 1]
    if depth < len(path) and first is not None and any(not row.strip() for row in body):
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
    at_line = target.end_line
    return TextEdit(file, at_line, 0, at_line, 0, eol.join(out) + eol)


def hcl_block_attributes(text: str, line: int) -> frozenset[str] | None:
    """The names of the attributes set directly in the block opening on 1-based ``line``; None
    when the file does not parse or no block opens there."""
    parsed = _parse(text)
    block = _block_at(parsed[0], line) if parsed else None
    return frozenset(block.body.attrs) if block else None


def hcl_append_after(file: str, text: str, line: int, block: str) -> TextEdit | None:
    """``block`` (lines without the file's indentation) as a new top-level block after the
    top-level one opening on 1-based ``line``, a blank line between; None when the file does
    not parse or the block's ``}`` is not alone on its line."""
    parsed = _parse(text)
    if parsed is None:
        return None
    tree, lines = parsed
    after = next((b for b in tree.blocks if b.line == line), None)
    if after is None or after.line == after.end_line:
        return None
    close_line = after.end_line
    if lines[close_line - 1].rstrip("\r").strip() != "}":
        return None  # a comment or more code after the brace: leave it
    eol = _eol(text)
    own = _indent(lines, after.line)
    new = eol.join(own + x if x else x for x in block.split("\n"))
    if close_line < len(lines):  # a newline ends the brace's line
        return TextEdit(file, close_line + 1, 0, close_line + 1, 0, eol + new + eol)
    end = len(lines[close_line - 1])
    return TextEdit(file, close_line, end, close_line, end, eol + eol + new + eol)


def _heredocs(body: Body, lines: list[str]) -> Iterator[tuple[int, int]]:
    """``(first, last)`` body lines of every heredoc an attribute or an object's key is set to,
    in all blocks."""
    for attribute in body.attrs.values():
        expr = attribute.expr
        if isinstance(expr, Template) and expr.heredoc:
            # the token ends with the newline after its closing marker: end_line is the next line
            yield from _checked(expr.body_line, attribute.end_line - 2, lines)
        yield from _item_heredocs(expr, lines)
    for block in body.blocks:
        yield from _heredocs(block.body, lines)


def _item_heredocs(node: object, lines: list[str]) -> Iterator[tuple[int, int]]:
    """The heredocs of ``key = <<EOT`` object items in expression ``node``: an item has no end
    line, so the body's last line is counted from its text and its closing marker checked."""
    if isinstance(node, ObjectItem) and isinstance(node.value, Template) and node.value.heredoc:
        doc = node.value
        if doc.parts:
            newlines = sum(p.count("\n") for p in doc.parts if isinstance(p, str))
            yield from _checked(doc.body_line, doc.body_line + newlines, lines)
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            for item in value if isinstance(value, tuple) else (value,):
                yield from _item_heredocs(item, lines)


def _checked(first: int, last: int, lines: list[str]) -> Iterator[tuple[int, int]]:
    """``(first, last)`` when the line after ``last`` is a heredoc's closing marker."""
    if first <= last < len(lines) and _MARKER.match(lines[last]):
        yield first, last


def heredoc_body(text: str, line: int) -> tuple[int, int] | None:
    """``(first, last)`` 1-based lines of the body of the heredoc attribute
    (``yaml_body = <<-YAML``) whose body holds ``line``; None when ``line`` is in none."""
    parsed = _parse(text)
    if parsed is None:
        return None
    return next(((a, b) for a, b in _heredocs(*parsed) if a <= line <= b), None)
