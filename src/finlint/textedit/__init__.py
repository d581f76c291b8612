"""Minimal text edits in each format's own syntax: spans located from the parser's own positions
(Python's ``ast``), so a fix touches only what it changes and keeps comments and layout."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from finlint.finding import TextEdit

if TYPE_CHECKING:  # imported where used: rule modules load on every scan, fixes only for `fix`
    import ast


def apply_edits(text: str, edits: tuple[TextEdit, ...] | list[TextEdit]) -> str:
    """``text`` with ``edits`` applied (last first, so earlier positions stay valid).
    Raises ValueError on an edit outside the text or edits that overlap."""
    lines = text.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))

    def offset(line: int, col: int) -> int:
        if not 1 <= line <= len(lines) + 1:
            raise ValueError(f"line {line} outside the file")
        base = starts[line - 1]
        width = len(lines[line - 1].rstrip("\r\n")) if line <= len(lines) else 0
        if not 0 <= col <= width:
            raise ValueError(f"column {col} outside line {line}")
        return base + col

    spans = sorted(
        ((offset(e.start_line, e.start_col), offset(e.end_line, e.end_col), e.new_text) for e in edits),
        reverse=True,
    )
    out = text
    previous_start: int | None = None
    for start, end, new in spans:
        if end < start or (previous_start is not None and end > previous_start):
            raise ValueError("fix edits overlap")
        out = out[:start] + new + out[end:]
        previous_start = start
    return out


def whole_lines(lines: list[str], edits: list[TextEdit]) -> tuple[int, list[str], list[str]] | None:
    """``(first line, old lines, new lines)`` of the whole lines ``edits`` touch in ``lines`` (one
    file split at ``\\n``): what a review suggestion or a diff block replaces. None when an edit
    does not fit the lines (the file changed since the report)."""
    if not edits:
        return None
    first, last = min(e.start_line for e in edits), max(e.end_line for e in edits)
    if not 1 <= first <= last <= len(lines):
        return None
    old = lines[first - 1 : last]
    shifted = [
        TextEdit(e.file, e.start_line - first + 1, e.start_col, e.end_line - first + 1, e.end_col, e.new_text)
        for e in edits
    ]
    try:
        new = apply_edits("\n".join(old), shifted)
    except ValueError:
        return None
    return first, old, new.split("\n")


def unified_diff(path: str, before: str, after: str) -> str:
    """A ``git diff``-style unified diff of one file."""
    import difflib

    return "".join(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )


def _eol(text: str) -> str:
    """The file's own line ending, so an inserted line matches its neighbours."""
    return "\r\n" if "\r\n" in text else "\n"


def _char_col(line_text: str, byte_col: int) -> int:
    """``ast`` columns are UTF-8 byte offsets; a TextEdit counts characters."""
    return len(line_text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def call_at(text: str, line: int) -> ast.Call | None:
    """The outermost call that starts on ``line`` (an SDK launcher record's line), if one does."""
    import ast

    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    best: ast.Call | None = None
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.lineno != line:
            continue
        if best is None or (node.end_lineno or 0, node.end_col_offset or 0) > (
            best.end_lineno or 0,
            best.end_col_offset or 0,
        ):
            best = node
    return best


def add_keyword(file: str, text: str, call: ast.Call, source: str) -> TextEdit | None:
    """Insert ``source`` (``name=value``) as the call's last keyword argument, in the call's own
    layout: on its own line with the other arguments' indentation when the call spans lines, else
    after the last argument. None for a call with ``**kwargs`` (the key may be there already)."""
    if any(k.arg is None for k in call.keywords):
        return None
    lines = text.splitlines()
    args: list[ast.expr | ast.keyword] = [*call.args, *call.keywords]
    end_line, end_byte = call.end_lineno or call.lineno, (call.end_col_offset or 1) - 1  # the ")"
    close_col = _char_col(lines[end_line - 1], end_byte)
    if not args:
        return TextEdit(file, end_line, close_col, end_line, close_col, source)
    last = max(args, key=lambda a: (a.end_lineno or 0, a.end_col_offset or 0))
    last_line = last.end_lineno or last.lineno
    last_col = _char_col(lines[last_line - 1], last.end_col_offset or 0)
    between = "\n".join([lines[last_line - 1][last_col:], *lines[last_line:end_line]])
    trailing_comma = between.lstrip().startswith(",")
    first = args[0]
    if first.lineno != call.lineno and end_line > last_line:  # one argument per line
        indent = lines[first.lineno - 1][
            : len(lines[first.lineno - 1]) - len(lines[first.lineno - 1].lstrip())
        ]
        if trailing_comma:  # a new line before the ")" line
            col = len(lines[end_line - 1]) - len(lines[end_line - 1].lstrip())
            if col != close_col:
                return None
            return TextEdit(file, end_line, 0, end_line, 0, f"{indent}{source},{_eol(text)}")
        return TextEdit(file, last_line, last_col, last_line, last_col, f",{_eol(text)}{indent}{source}")
    if trailing_comma:
        return TextEdit(file, end_line, close_col, end_line, close_col, f" {source}")
    ordered = sorted(args, key=lambda a: (a.lineno, a.col_offset))
    if len(ordered) > 1 and last.lineno > (ordered[-2].end_lineno or ordered[-2].lineno):
        # one argument per line, the ")" after the last: the new one on its own line below it
        start_text = lines[last.lineno - 1]
        start_col = _char_col(start_text, last.col_offset)
        if not start_text[:start_col].strip():
            return TextEdit(
                file,
                last_line,
                last_col,
                last_line,
                last_col,
                f",{_eol(text)}{start_text[:start_col]}{source}",
            )
    return TextEdit(file, last_line, last_col, last_line, last_col, f", {source}")


def insert_line_after(file: str, text: str, line: int, new_line: str) -> TextEdit:
    """Insert ``new_line`` (no newline) as a whole line after 1-based ``line``."""
    lines = text.splitlines(keepends=True)
    eol = _eol(text)
    if line < len(lines) or lines[-1].endswith("\n"):
        return TextEdit(file, line + 1, 0, line + 1, 0, new_line + eol)
    end = len(lines[-1])
    return TextEdit(file, line, end, line, end, eol + new_line)


def yaml_add_key(
    file: str, text: str, line: int, path: tuple[str, ...], key: str, value: str, must_exist: int = 1
) -> TextEdit | None:
    """Insert ``key: value`` into the block mapping at ``path`` of the YAML document holding
    1-based ``line``, as that mapping's first entry, at its indentation (missing mappings on the
    path after its first ``must_exist`` are created); a ``value`` of several lines is a nested
    block in 2-space steps, written under ``key`` in the file's own step. None when the document
    does not parse, a mapping on the path is missing or in flow style, or ``key`` is there
    already: such files are left to a person."""
    import yaml

    root = _yaml_document_at(text, line)
    if root is None:
        return None
    lines = text.splitlines()
    node, depth = root, 0
    while depth < len(path):
        child = _yaml_child(node, path[depth])
        if child is None:
            break
        node, depth = child, depth + 1
    if depth < must_exist or not isinstance(node, yaml.MappingNode) or node.flow_style or not node.value:
        return None
    if depth == len(path) and _yaml_child(node, key) is not None:
        return None
    first = node.value[0][0]
    col, at = first.start_mark.column, first.start_mark.line
    if lines[at][:col].strip():
        return None
    step = _yaml_step(node, col) or _doc_step(root) or 2
    block = [*path[depth:], key]
    out = [f"{' ' * (col + i * step)}{name}:" for i, name in enumerate(block)]
    if "\n" in value:
        out.extend(_reindent(value, col + len(block) * step, step))
    else:
        out[-1] += f" {value}"
    return TextEdit(file, at + 1, 0, at + 1, 0, _eol(text).join(out) + _eol(text))


def yaml_scalar(text: str, line: int, path: tuple[str, ...]) -> str | None:
    """The scalar at ``path`` in the YAML document holding 1-based ``line`` (None: none, or the
    text does not parse): what a fix checks before it edits (``kind: TrainingJob``)."""
    import yaml

    node: Any = _yaml_document_at(text, line)
    for name in path:
        node = _yaml_child(node, name) if node is not None else None
    return str(node.value) if isinstance(node, yaml.ScalarNode) else None


def _yaml_document_at(text: str, line: int) -> Any:
    """The composed node of the YAML document holding 1-based ``line`` (libyaml's marks give the
    edits their positions); None when there is none or the text does not parse."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        documents = list(yaml.compose_all(text, Loader=loader))
    except yaml.YAMLError:
        return None
    for root in documents:
        if root is not None and root.start_mark.line <= line - 1 <= root.end_mark.line:
            return root
    return None


def _reindent(block: str, base: int, step: int) -> list[str]:
    """A YAML block written with 2-space steps, at column ``base`` in the file's ``step``: a
    mapping nested in a mapping moves by ``step``, a sequence item's content stays 2 after its
    ``- ``."""
    out: list[str] = []
    parents: list[tuple[int, int, bool]] = []  # (template indent, output column, is "- " row)
    for row in block.split("\n"):
        lead = len(row) - len(row.lstrip(" "))
        while parents and parents[-1][0] >= lead:
            parents.pop()
        if not parents:
            column = base
        else:
            p_lead, p_col, p_dash = parents[-1]
            column = p_col + 2 if p_dash and lead == p_lead + 2 else p_col + step
        out.append(" " * column + row.lstrip(" "))
        parents.append((lead, column, row.lstrip(" ").startswith("- ")))
    return out


def yaml_add_key_within(
    file: str,
    text: str,
    lines: tuple[int, int],
    line: int,
    path: tuple[str, ...],
    key: str,
    value: str,
    must_exist: int = 1,
) -> TextEdit | None:
    """:func:`yaml_add_key` on the YAML that lines ``lines`` (1-based, inclusive) of ``text`` hold
    (a Terraform heredoc's body), the edit shifted back into ``text``."""
    first, last = lines
    body = "".join(text.splitlines(keepends=True)[first - 1 : last])
    edit = yaml_add_key(file, body, line - first + 1, path, key, value, must_exist)
    if edit is None:
        return None
    shift = first - 1
    return TextEdit(
        file, edit.start_line + shift, edit.start_col, edit.end_line + shift, edit.end_col, edit.new_text
    )


_YAML_SOURCE = re.compile(r"\.ya?ml(?:[-.](?:template|tpl|tmpl))?$|\.(?:template|tpl|tmpl)$", re.IGNORECASE)


def yaml_source(name: str) -> bool:
    """Whether a YAML fix may edit file ``name``: a ``.yaml``/``.yml`` file, or a template of
    one (``.yaml-template``, ``.yaml.tpl``, ``.template``: envsubst and ``templatefile``
    sources are the text a person edits). What the edit needs is checked on the text itself:
    a template whose placeholders break the YAML parse is left alone."""
    return _YAML_SOURCE.search(name) is not None


def _yaml_child(node: Any, key: str) -> Any:
    """The value node of ``key`` in a mapping node (None: not a mapping, or no such key)."""
    import yaml

    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _yaml_step(node: Any, col: int) -> int:
    """The file's indentation step: how far a nested mapping sits inside this one (0 if none)."""
    import yaml

    assert isinstance(node, yaml.MappingNode)
    for _, v in node.value:
        if isinstance(v, yaml.MappingNode) and not v.flow_style and v.value:
            step = int(v.value[0][0].start_mark.column) - col
            if step > 0:
                return step
    return 0


def _doc_step(root: Any) -> int:
    """The document's indentation step: the first nested block mapping's offset (0: none)."""
    import yaml

    todo = [root]
    for _ in range(10_000):  # bounded: a document's first nested mapping is near its top
        if not todo:
            break
        node = todo.pop(0)
        if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
            step = _yaml_step(node, int(node.value[0][0].start_mark.column))
            if step:
                return step
            todo.extend(v for _, v in node.value)
    return 0


def yaml_set_key(
    file: str, text: str, line: int, path: tuple[str, ...], key: str, value: str, keep_quotes: bool = False
) -> TextEdit | None:
    """``key: value`` in the block mapping at ``path``: the existing one-line scalar's span
    replaced (a comment after it kept; with ``keep_quotes`` a quoted string stays quoted the
    same way), else the key added (:func:`yaml_add_key`)."""
    import yaml

    node: Any = _yaml_document_at(text, line)
    if node is None:
        return None
    for name in path:
        node = _yaml_child(node, name)
    current = _yaml_child(node, key)
    if current is None:
        return yaml_add_key(file, text, line, path, key, value)
    if not isinstance(current, yaml.ScalarNode) or current.start_mark.line != current.end_mark.line:
        return None
    at = current.start_mark.line + 1
    if keep_quotes and current.style in ("'", '"'):
        value = f"{current.style}{value}{current.style}"
    return TextEdit(file, at, current.start_mark.column, at, current.end_mark.column, value)


def add_keywords(file: str, text: str, line: int, sources: list[str]) -> TextEdit | None:
    """Several keyword arguments added to the call starting on ``line``, one after the other
    in the call's layout (:func:`add_keyword`), as one edit of the span that changed."""
    out = text
    for source in sources:
        call = call_at(out, line)
        edit = call and add_keyword(file, out, call, source)
        if not edit:
            return None
        out = apply_edits(out, [edit])
    return span_edit(file, text, out)


def span_edit(file: str, before: str, after: str) -> TextEdit | None:
    """The one edit that turns ``before`` into ``after``: the span between their common prefix
    and suffix (None: no change)."""
    if before == after:
        return None
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[len(before) - 1 - end] == after[len(after) - 1 - end]:
        end += 1
    old_end = len(before) - end

    def line_col(offset: int) -> tuple[int, int]:
        return before.count("\n", 0, offset) + 1, offset - (before.rfind("\n", 0, offset) + 1)

    (l1, c1), (l2, c2) = line_col(start), line_col(old_end)
    return TextEdit(file, l1, c1, l2, c2, after[start : len(after) - end])
