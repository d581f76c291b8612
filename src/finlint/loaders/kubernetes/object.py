"""What every Kubernetes object shares, for the kind modules: identity, lines, suppressions, values.

:class:`Doc` wraps one parsed object (address ``Kind/namespace/name``, absolute lines shifted
by ``ctx.line_offset``, the record fields every kind gets); the value helpers read a field as
text/integer/boolean/GiB, turning template placeholders (``{{ }}``, ``${...}``, ``$VAR``) into
:class:`Unknown`; :func:`suppressions` reads the ``finlint.io/ignore`` annotation. Kept apart
from ``kubernetes.py`` so the kind modules and the dispatcher import it without a cycle.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

from finlint.domain.quantity import quantity_to_gib
from finlint.ir import Location, Maybe, Suppression, Unknown, distinct_suppressions
from finlint.loaders import DocContext
from finlint.loaders.common import coerce
from finlint.loaders.common.yamlload import LineDict, LineList

Node = dict[Any, Any]  # a parsed mapping (a LineDict when it came from YAML)

FORMAT = "kubernetes"

SUPPRESSION_ANNOTATION = "finlint.io/ignore"

_TEMPLATE = re.compile(r"\{\{|\{%|\$\{|\$[A-Za-z_]")
_RULE_REF = re.compile(r"^\s*([A-Za-z][\w-]*(?:\s*,\s*[A-Za-z][\w-]*)*)\s*(?::\s*(.*))?$", re.DOTALL)


class ShapeError(Exception):
    """A document whose structure the API server would reject (reported as FIN000)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


# --------------------------------------------------------------------------- values


def templated(value: Any) -> bool:
    return isinstance(value, str) and _TEMPLATE.search(value) is not None


def placeholder(what: str, value: Any) -> Unknown:
    template = value if isinstance(value, str) else None
    return Unknown(f"{what} is a template placeholder ({value!r})", template)


def text(value: Any, what: str) -> Maybe[str]:
    if value is None or isinstance(value, Unknown):  # Unknown: from Terraform values
        return value
    if templated(value):
        return placeholder(what, value)
    return coerce.to_str(value, what)


def integer(value: Any, what: str) -> Maybe[int]:
    if value is None or isinstance(value, Unknown):  # Unknown: from Terraform values
        return value
    if templated(value):
        return placeholder(what, value)
    return coerce.to_int(value, what)


def boolean(value: Any, what: str) -> Maybe[bool]:
    if value is None or isinstance(value, (bool, Unknown)):
        return value
    if templated(value):
        return placeholder(what, value)
    return coerce.to_bool(value, what)


def gib(value: Any, what: str) -> Maybe[float]:
    if value is None or isinstance(value, Unknown):  # Unknown: from Terraform values
        return value
    if templated(value):
        return placeholder(what, value)
    size = quantity_to_gib(value)
    return Unknown(f"{what} is not a quantity ({value!r})") if size is None else size


def plain(value: Any) -> Any:
    """LineDict/LineList -> dict/list, template placeholders -> Unknown (for ``extra``-like data)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return placeholder("value", value) if templated(value) else value


def child(node: Any, key: str) -> Any:
    return node.get(key) if isinstance(node, dict) else None


def mapping(node: Any, key: str) -> Node | None:
    """``node[key]`` when it is a mapping; None when absent or not a mapping."""
    value = child(node, key)
    return value if isinstance(value, dict) else None


def items(node: Any, key: str) -> Iterator[tuple[int, Any, int]]:
    """(index, item, raw line) of the list ``node[key]``; nothing when it is not a list."""
    value = child(node, key)
    if isinstance(value, list):
        for index, item in enumerate(value):
            line = value.line_of(index) if isinstance(value, LineList) else raw_line(node, key)
            yield index, item, line


def raw_line(node: Any, key: Any) -> int:
    """The source line of ``node[key]`` (before any offset), or the node's own line."""
    if isinstance(node, LineDict):
        return node.line_of(key)
    return int(getattr(node, "line", 1) or 1)


# --------------------------------------------------------------------------- per-document context


class Doc:
    """One Kubernetes object: its identity, where it is, and the record fields every kind shares."""

    def __init__(self, doc: LineDict, ctx: DocContext) -> None:
        self.doc = doc
        self.ctx = ctx
        self.api_version: str = doc["apiVersion"]
        self.kind: str = doc["kind"]
        self.group, _, self.version = self.api_version.rpartition("/")
        self.metadata = mapping(doc, "metadata") or LineDict()
        self.spec = mapping(doc, "spec")
        raw_name = child(self.metadata, "name")
        self.name: Maybe[str] = text(raw_name, "metadata.name")
        raw_namespace = child(self.metadata, "namespace")
        self.namespace: Maybe[str] = text(raw_namespace, "metadata.namespace")
        if isinstance(raw_name, str):
            self.name_key = raw_name
        elif isinstance(child(self.metadata, "generateName"), str):
            self.name_key = f"{self.metadata['generateName']}*"
        else:
            self.name_key = f"#{ctx.doc_index}"
        self.namespace_key = raw_namespace if isinstance(raw_namespace, str) else "default"

    def line(self, raw: int) -> int:
        return self.ctx.line(raw)

    def line_at(self, node: Any, key: Any) -> int:
        return self.ctx.line(raw_line(node, key))

    def location(self, node: Any = None) -> Location:
        node = self.doc if node is None else node
        start = int(getattr(node, "line", 0) or self.doc.line or 1)
        end = int(getattr(node, "end_line", 0) or start)
        return Location(self.ctx.file, self.ctx.line(start), self.ctx.line(max(start, end)))

    def address(self, *parts: str, namespaced: bool = True) -> str:
        scope = [self.kind, self.namespace_key] if namespaced else [self.kind]
        return self.ctx.address_prefix + "/".join([*scope, self.name_key, *parts])

    def suppressions(self, annotations: Any = None) -> tuple[Suppression, ...]:
        node = mapping(self.metadata, "annotations") if annotations is None else annotations
        return suppressions(node, self.ctx)

    def common(
        self, node: Any = None, *, namespaced: bool = True, lines: dict[str, int] | None = None
    ) -> dict[str, Any]:
        """Keyword arguments every record of this object gets."""
        lines = dict(lines or {})
        if "name" in self.metadata:
            lines.setdefault("name", self.line_at(self.metadata, "name"))
        return {
            "address": self.address(namespaced=namespaced),
            "location": self.location(node),
            "source_format": FORMAT,
            "attr_lines": lines,
            "suppressions": self.suppressions(),
            "name": self.name,
        }

    def error(self, message: str, raw_line: int) -> ShapeError:
        return ShapeError(f"{self.kind} {self.name_key}: {message}", raw_line)


def suppressions(annotations: Any, ctx: DocContext) -> tuple[Suppression, ...]:
    """``finlint.io/ignore: "FIN301: reason; FIN401: other reason"`` (or one per line)."""
    if not isinstance(annotations, dict):
        return ()
    value = annotations.get(SUPPRESSION_ANNOTATION)
    if not isinstance(value, str):
        return ()
    line = ctx.line(raw_line(annotations, SUPPRESSION_ANNOTATION))
    found: list[Suppression] = []
    for entry in re.split(r"[;\n]", value):
        match = _RULE_REF.match(entry) if entry.strip() else None
        if match is None:
            continue
        reason = (match.group(2) or "").strip()
        for rule in match.group(1).split(","):
            found.append(Suppression(rule=rule.strip(), reason=reason, line=line))
    return distinct_suppressions(found)
