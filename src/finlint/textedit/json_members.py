"""Minimal JSON edits: a key added to an object at the file's own indentation and separators,
with the commas JSON needs, located through libyaml's node offsets (``json`` gives none).
Only the inserted span changes; a file that does not parse as strict JSON is left alone."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from finlint.finding import TextEdit

_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"')
MAX_DEPTH = 200


@dataclass
class JsonNode:
    """A value's span in the text; for an object its members as (key, key start, value)."""

    start: int
    end: int  # one past the value (for an object: past its "}")
    members: list[tuple[str, int, JsonNode]] = field(default_factory=list)
    is_object: bool = False

    def get(self, key: str) -> JsonNode | None:
        for name, _, value in self.members:
            if name == key:
                return value
        return None


def parse(text: str) -> tuple[JsonNode, list[JsonNode]] | None:
    """The document's root and every object in document order; None: not strict JSON, or JSON
    libyaml would not read at the same offsets. The C JSON parser checks it; libyaml, the
    loaders' own parser (JSON is YAML's flow style), gives each node's offsets."""
    import json

    import yaml

    from finlint.loaders.common.yamlload import _json_for_libyaml

    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return None
    spaced = text.replace("\t", " ")  # legal JSON whitespace, not YAML indentation; same length
    if _json_for_libyaml(spaced) != spaced:  # astral escapes or raw C1 characters: offsets would move
        return None
    try:
        root = yaml.compose(spaced, Loader=yaml.CSafeLoader)
    except (yaml.YAMLError, RecursionError):
        return None
    if root is None:
        return None
    objects: list[JsonNode] = []
    node = _node(root, objects, 0)
    return (node, objects) if node is not None else None


def _node(node: Any, objects: list[JsonNode], depth: int) -> JsonNode | None:
    import yaml

    if depth > MAX_DEPTH:
        return None
    out = JsonNode(node.start_mark.index, node.end_mark.index)
    if isinstance(node, yaml.MappingNode):
        out.is_object = True
        objects.append(out)  # before its children: document order
        for key, value in node.value:
            child = _node(value, objects, depth + 1)
            if child is None:
                return None
            out.members.append((str(key.value), key.start_mark.index, child))
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            if _node(item, objects, depth + 1) is None:
                return None
    return out


def _object_on(text: str, objects: list[JsonNode], line: int) -> JsonNode | None:
    """The first object (in document order) that opens on 1-based ``line``; a bisection over
    the objects' offsets, so a large file is not scanned once per object."""
    import bisect

    if line < 1:
        return None
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    k = bisect.bisect_left([o.start for o in objects], start)
    return objects[k] if k < len(objects) and objects[k].start <= end else None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1)


def _indent_of(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    line = text[start:offset]
    return line[: len(line) - len(line.lstrip(" \t"))]


def json_add_key(
    file: str,
    text: str,
    line: int,
    path: tuple[str, ...],
    key: str,
    value: str,
    must_exist: int = 0,
    expand: bool = False,
) -> TextEdit | None:
    """Insert ``"key": value`` (``value`` JSON text) as the last member of the object at ``path``
    under the first object that opens on 1-based ``line``; objects on the path after its first
    ``must_exist`` are created inline. The member goes on its own line at its siblings'
    indentation when the object spans lines (with ``expand``, its value laid out over lines in
    the file's indentation step), else inline; the file's ``":"`` spacing is kept.
    None when the file is not strict JSON, an object on the path is missing or not an object, or
    ``key`` is there already."""
    parsed = parse(text)
    if parsed is None:
        return None
    node = _object_on(text, parsed[1], line)
    if node is None:
        return None
    depth = 0
    while depth < len(path):
        child = node.get(path[depth])
        if child is None:
            break
        if not child.is_object:
            return None
        node, depth = child, depth + 1
    if depth < must_exist or (depth == len(path) and node.get(key) is not None):
        return None
    colon = ": "
    if node.members:
        _, key_start, first = node.members[0]
        key_end = key_start + len(_STRING.match(text, key_start).group())  # type: ignore[union-attr]
        colon = text[key_end : first.start]
        if colon.strip() != ":" or "\n" in colon:
            colon = ": "
    new_value = value  # the missing objects of the path, innermost first
    for name in reversed((*path[depth:], key)[1:]):
        new_value = f"{{{_dumps(name)}{colon}{new_value}}}"
    head = _dumps((*path[depth:], key)[0])
    member = f"{head}{colon}{new_value}"
    eol = "\r\n" if "\r\n" in text else "\n"
    if not node.members:
        at = node.start + 1
        insert = member
    else:
        at = node.members[-1][2].end
        first_key = node.members[0][1]
        if _line_col(text, first_key)[0] != _line_col(text, node.start)[0]:
            indent = _indent_of(text, first_key)
            if expand:  # the new value laid out as the file lays out its objects
                step = indent[len(_indent_of(text, node.start)) :] or "  "
                member = f"{head}{colon}{_expanded(new_value, step, indent, eol)}"
            insert = f",{eol}{indent}{member}"
        else:
            insert = f", {member}"
    at_line, at_col = _line_col(text, at)
    return TextEdit(file, at_line, at_col, at_line, at_col, insert)


def _expanded(value: str, step: str, indent: str, eol: str) -> str:
    """JSON ``value`` re-dumped one member per line, ``step`` deeper per level, under ``indent``
    (its first line continues the member's line)."""
    import json

    body = json.dumps(json.loads(value), indent="\t" if "\t" in step else len(step))
    first, *rest = body.split("\n")
    return eol.join([first, *(indent + row for row in rest)])


def _dumps(name: str) -> str:
    import json

    return json.dumps(name)


def json_object_at(text: str, line: int, path: tuple[str, ...] = ()) -> JsonNode | None:
    """The object at ``path`` under the first object opening on 1-based ``line`` (None: none)."""
    parsed = parse(text)
    if parsed is None:
        return None
    node = _object_on(text, parsed[1], line)
    for name in path:
        node = node.get(name) if node is not None else None
    return node if node is not None and node.is_object else None
