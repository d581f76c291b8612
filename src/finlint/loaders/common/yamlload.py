"""One line-aware YAML/JSON loader on libyaml (``CSafeLoader``), shared by every structured format.

Why not ``yaml.safe_load``: it is pure Python and ~10x slower. Why not cfn-lint's decoder: its
import costs ~0.9 s (sympy), too much for a pre-commit hook. Mappings and sequences come back
as :class:`LineDict` / :class:`LineList` (plain ``dict``/``list`` subclasses, so values compare
equal to cfn-lint's), carrying 1-based ``line``/``end_line`` and the line of every key / item.
CloudFormation short-form intrinsics get their long-form meaning (``!Ref X`` -> ``{"Ref": "X"}``),
as cfn-lint does. Aliases stay shared references; :func:`expanded_size` guards against
alias bombs before anyone walks a document.
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterator

import yaml

MAX_EXPANDED_NODES = 250_000  # the same cap cfn-lint uses


class LineDict(dict[Any, Any]):
    """A mapping with source lines: ``line``/``end_line`` of the node, ``key_lines[key]``."""

    line: int = 0
    end_line: int = 0
    key_lines: dict[Any, int]

    def line_of(self, key: Any, default: int | None = None) -> int:
        lines = getattr(self, "key_lines", None) or {}
        return int(lines.get(key, default if default is not None else self.line))


class LineList(list[Any]):
    """A sequence with source lines: ``line``/``end_line`` and ``item_lines[i]``."""

    line: int = 0
    end_line: int = 0
    item_lines: list[int]

    def line_of(self, index: int) -> int:
        lines = getattr(self, "item_lines", None) or []
        return lines[index] if index < len(lines) else self.line


def _end_line(loader: LineLoader, node: yaml.Node) -> int:
    """1-based last line of a node's content.

    libyaml ends a block collection (and a ``|``/``>`` scalar) at the *next* token: the next
    sibling's key, often past blank and comment lines. So when only indentation precedes the
    end mark, the node ended on an earlier line; then trailing blank/comment lines are dropped.
    """
    start, end = node.start_mark.line, node.end_mark.line
    lines: list[str] = getattr(loader, "source_lines", None) or []
    last = end
    if end > start and (end >= len(lines) or not lines[end][: node.end_mark.column].strip()):
        last = end - 1
    while last > start and last < len(lines) and lines[last].strip()[:1] in ("", "#"):
        last -= 1
    return last + 1


class LineLoader(yaml.CSafeLoader):
    """CSafeLoader building LineDict/LineList with 1-based line numbers."""

    source_lines: list[str]


def _construct_mapping(loader: LineLoader, node: yaml.MappingNode) -> LineDict:
    explicit = sum(1 for k, _ in node.value if k.tag != "tag:yaml.org,2002:merge")
    loader.flatten_mapping(node)
    first_own = len(node.value) - explicit  # merged (<<) pairs come first and may be overridden
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.end_line = _end_line(loader, node)
    result.key_lines = {}
    own: set[Any] = set()
    for index, (key_node, value_node) in enumerate(node.value):
        key = loader.construct_object(key_node, deep=True)
        try:
            hash(key)
        except TypeError as exc:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping", node.start_mark, "found unhashable key", key_node.start_mark
            ) from exc
        if index >= first_own:
            if key in own:  # last-wins would silently hide a resource (cfn-lint: E0000)
                raise yaml.constructor.ConstructorError(
                    None,
                    None,
                    f"duplicate key {key!r} (first at line {result.key_lines[key]}); the later value "
                    "would silently replace the earlier one",
                    key_node.start_mark,
                )
            own.add(key)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: LineLoader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.end_line = _end_line(loader, node)
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_UNCONVERTED = ("Ref", "Condition")


def _construct_intrinsic(loader: LineLoader, tag_suffix: str, node: yaml.Node) -> LineDict:
    """``!Ref``, ``!Sub``, ``!GetAtt``, ... -> their long form, as cfn-lint's decoder gives."""
    name = tag_suffix if tag_suffix in _UNCONVERTED else f"Fn::{tag_suffix}"
    value: Any
    if name == "Fn::GetAtt" and isinstance(node, yaml.ScalarNode):
        value = LineList(str(loader.construct_scalar(node)).split(".", 1))
        value.line = node.start_mark.line + 1
        value.end_line = value.line
        value.item_lines = [value.line] * len(value)
    elif isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = _construct_sequence(loader, node)
    else:
        value = _construct_mapping(loader, node)  # type: ignore[arg-type]
    result = LineDict({name: value})
    result.line = node.start_mark.line + 1
    result.end_line = _end_line(loader, node)
    result.key_lines = {name: result.line}
    return result


LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
LineLoader.add_multi_constructor("!", _construct_intrinsic)


class YamlLoadError(Exception):
    """A document that cannot be loaded; ``line`` is 1-based. ``limit``: refused by a size
    limit (too many nodes, an alias bomb), not because the text is broken."""

    def __init__(self, message: str, line: int, limit: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.limit = limit


_NODE_EVENTS = (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)


def _check_node_count(text: str, cap: int) -> None:
    """Refuse text with more than ``cap`` nodes, counted on libyaml's event stream (about a
    tenth of the cost of building them), so a large file is refused in a fraction of a second
    instead of after a full load. Every node takes at least one character, so short texts are
    not counted."""
    if len(text) <= cap:
        return
    count = 0
    for event in yaml.parse(text, Loader=yaml.CSafeLoader):
        if isinstance(event, _NODE_EVENTS):
            count += 1
            if count > cap:
                raise YamlLoadError(
                    f"file has more than {cap:,} YAML/JSON nodes (the --max-yaml-nodes limit); not loaded",
                    (event.start_mark.line + 1) if event.start_mark is not None else 1,
                    limit=True,
                )


def _error_line(exc: yaml.YAMLError) -> int:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return int(mark.line) + 1 if mark is not None else 1


def json_error(exc: json.JSONDecodeError) -> tuple[str, int]:
    """``(message, line)`` for a JSON error, the same on every Python version.

    A trailing comma is reported at the comma's line (the line a person edits): Python 3.13 says
    so itself; older versions say "Expecting property name" at the closing bracket.
    """
    doc, pos = exc.doc, exc.pos
    if exc.msg.startswith("Illegal trailing comma before end of "):  # Python 3.13+: at the comma
        closing = exc.msg.rsplit(" ", 1)[-1]
        return f"invalid JSON: trailing comma before the end of an {closing}", exc.lineno
    before = doc[:pos].rstrip()
    if before.endswith(",") and doc[pos : pos + 1] in ("}", "]"):
        closing = "object" if doc[pos] == "}" else "array"
        return f"invalid JSON: trailing comma before the end of an {closing}", before.count("\n") + 1
    return f"invalid JSON: {exc.msg}", exc.lineno


#: characters JSON allows raw in a string that libyaml refuses (non-printable) or reads as a line
#: break inside a quoted scalar (folding it into a space): written as the escapes they equal
_JSON_RAW_FOR_LIBYAML = re.compile("[\x7f-\x9f\u2028\u2029\ufffe\uffff]")
#: a surrogate-pair escape (an astral character as ``json.dumps`` writes it), which libyaml
#: refuses ("invalid Unicode character escape code"), after an even run of backslashes
_JSON_PAIR = re.compile(r"(?<!\\)((?:\\\\)*)\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})")


def _json_for_libyaml(text: str) -> str:
    """Valid JSON that libyaml reads as JSON does (same values, same lines): astral escapes
    as their characters, raw DEL/C1/U+2028/U+2029/U+FFFE/U+FFFF as escapes. (Without this a
    valid notebook or request with an emoji escape was a FIN000 "invalid JSON".)"""
    if "\\u" in text and _JSON_PAIR.search(text):
        text = _JSON_PAIR.sub(_pair_character, text)
    if _JSON_RAW_FOR_LIBYAML.search(text):
        text = _JSON_RAW_FOR_LIBYAML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text


def _pair_character(match: re.Match[str]) -> str:
    high, low = int(match.group(2), 16), int(match.group(3), 16)
    return match.group(1) + chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))


def load_all(text: str, is_json: bool = False, max_nodes: int | None = None) -> list[Any]:
    """Every document of ``text``; raises :class:`YamlLoadError` with a line on bad input.

    JSON is loaded by the same loader (JSON is YAML's flow style) so it gets lines too; tabs,
    legal JSON whitespace but not YAML indentation, are turned into spaces first (a tab inside
    a JSON string must be escaped, so this cannot change a value). ``max_nodes`` (default
    :data:`MAX_EXPANDED_NODES`) caps the nodes of the file and the expanded nodes of a document.
    """
    cap = MAX_EXPANDED_NODES if max_nodes is None else max_nodes
    if is_json:
        # JSON is stricter than YAML's flow style (`"b": }` is valid YAML): check it with the
        # C JSON parser first, so a broken .json file is reported as broken JSON, with its line.
        try:
            json.loads(text)
        except json.JSONDecodeError as exc:
            raise YamlLoadError(*json_error(exc)) from exc
        except RecursionError as exc:
            raise YamlLoadError("document is nested too deeply to load", 1) from exc
        text = _json_for_libyaml(text.replace("\t", " "))
    loader = LineLoader(text)
    loader.source_lines = re.split("\r\n|\r|\n", text)
    try:
        _check_node_count(text, cap)
        docs = []
        while loader.check_data():  # type: ignore[no-untyped-call]
            docs.append(loader.get_data())
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if "maximum nesting depth" in problem:  # libyaml's own depth limit (newer builds)
            raise YamlLoadError("document is nested too deeply to load", _error_line(exc)) from exc
        raise YamlLoadError(f"invalid {'JSON' if is_json else 'YAML'}: {problem}", _error_line(exc)) from exc
    except RecursionError as exc:
        raise YamlLoadError("document is nested too deeply to load", 1) from exc
    except MemoryError as exc:
        raise YamlLoadError("out of memory while reading", 1) from exc
    finally:
        loader.dispose()
    for doc in docs:
        size = expanded_size(doc, cap)
        if size > cap:
            line = getattr(doc, "line", 1) or 1
            raise YamlLoadError(
                f"document's aliases expand it to more than {cap:,} nodes (a YAML alias bomb; "
                "the --max-yaml-nodes limit); not loaded",
                line,
                limit=True,
            )
    return docs


def expanded_size(root: Any, cap: int = MAX_EXPANDED_NODES) -> int:
    """Nodes a full walk would visit, counted with memoisation so aliases cost nothing."""
    memo: dict[int, int] = {}

    def size(obj: Any, depth: int) -> int:
        if depth > 500:
            raise YamlLoadError("document is nested too deeply to load", getattr(obj, "line", 1) or 1)
        if isinstance(obj, dict):
            children: Iterator[Any] = iter(obj.values())
        elif isinstance(obj, list):
            children = iter(obj)
        else:
            return 1
        key = id(obj)
        if key in memo:
            return memo[key]
        total = 1
        for child in children:
            total += size(child, depth + 1)
            if total > cap:
                break
        memo[key] = total
        return total

    return size(root, 0)


def kind_name(value: Any) -> str:
    """What a YAML/JSON value is, in the user's words (never an internal class like LineList)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return "a " + type(value).__name__.lower()


_TYPE_WORDS = {str: "string", int: "whole number", float: "number", bool: "boolean"}


def type_word(kind: type) -> str:
    """``str`` -> "string": a Python type as a user reads it."""
    return _TYPE_WORDS.get(kind, kind.__name__)


def line_of(container: Any, key: Any, fallback: int = 1) -> int:
    """The line of ``container[key]`` (mapping key or list index), or ``fallback``."""
    if isinstance(container, LineDict):
        return container.line_of(key, fallback)
    if isinstance(container, LineList) and isinstance(key, int):
        return container.line_of(key)
    return getattr(container, "line", fallback) or fallback


def pin_lines(value: Any, line: int) -> Any:
    """A copy of a document with every node on ``line``: for documents whose own lines belong
    to another file or string (a Terraform ``file()`` manifest, JSON inside a plan string)."""
    if isinstance(value, dict):
        out = LineDict((k, pin_lines(v, line)) for k, v in value.items())
        out.line = out.end_line = line
        out.key_lines = dict.fromkeys(out, line)
        return out
    if isinstance(value, list):
        items = LineList(pin_lines(v, line) for v in value)
        items.line = items.end_line = line
        items.item_lines = [line] * len(items)
        return items
    return value
