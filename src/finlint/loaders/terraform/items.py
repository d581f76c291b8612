"""A Terraform resource ready for mapping (an Item) and typed access to its values with lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders.common import coerce


@dataclass
class Item:
    """One Terraform resource (or one for_each instance of it), ready for mapping."""

    rtype: str
    address: str
    values: dict[str, Any]
    location: ir.Location
    source_format: str = "terraform"
    multiplier: Any = 1  # count / number of instances; Unknown when count is not known
    refs: dict[str, str] = field(default_factory=dict)  # "launch_template.id" -> address
    extra: dict[str, Any] = field(default_factory=dict)
    finding_note: str = ""  # -> Record.finding_note (module defaults the group does not set)


def get(values: Any, path: str) -> tuple[Any, int | None]:
    """``(value, line)`` at a dotted path; blocks (lists) step into their first element.

    Absent -> ``(None, None)``; an unknown step -> ``(Unknown, line)``.
    """
    node = values
    line: int | None = getattr(values, "line", None)
    for part in path.split("."):
        if isinstance(node, list):
            if not node:
                return None, line
            node = node[0]
        if isinstance(node, Unknown):
            return ir.plain_unknown(node), line  # inside an unknown: none of its options
        if not isinstance(node, dict) or part not in node:
            return None, None
        key_lines = getattr(node, "key_lines", None) or {}
        line = key_lines.get(part, line)
        node = node[part]
    if isinstance(node, list) and node and isinstance(node[0], dict) and not isinstance(node, str):
        return node, line
    return node, line


def as_int(value: Any) -> Any:
    return coerce.to_int(value)


def as_float(value: Any) -> Any:
    return coerce.to_float(value)


def as_str(value: Any) -> Any:
    return coerce.to_str(value)


def as_bool(value: Any) -> Any:
    return coerce.to_bool(value)


def as_str_tuple(value: Any) -> Any:
    """A list field (``instance_types``): alternatives of a scalar, or an element that is one,
    are a plain Unknown (a tuple field never holds one option's string)."""
    if value is None or isinstance(value, Unknown):
        return ir.plain_unknown(value)
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(ir.plain_unknown(as_str(v)) for v in value)
    return Unknown("not a list of strings")


def times(value: Any, multiplier: Any) -> Any:
    """A per-instance size times the instances (``count``): alternatives of the size are
    multiplied option by option; with an unknown count the product is a plain Unknown."""
    if value is None:
        return None
    if isinstance(value, Unknown):
        if isinstance(multiplier, Unknown) or not isinstance(value, ir.Alternatives):
            return ir.plain_unknown(value)
        return ir.map_options(value, lambda option: None if option is None else option * multiplier)
    if isinstance(multiplier, Unknown):
        return Unknown(f"count/for_each: {multiplier.reason}")
    return value * multiplier


def tags_of(values: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    tags, _ = get(values, "tags")
    if isinstance(tags, Unknown):
        return {}, Unknown(f"tags: {tags.reason}")
    if not isinstance(tags, dict):
        return {}, None
    return dict(tags), as_str(tags.get("Name"))


class Lines:
    """Collects ``attr_lines`` while fields are read."""

    def __init__(self, values: dict[str, Any]) -> None:
        self.values = values
        self.lines: dict[str, int] = {}

    def read(self, field_name: str, path: str) -> Any:
        value, line = get(self.values, path)
        if line is not None and value is not None:
            self.lines[field_name] = line
        return value


def common_fields(item: Item, lines: Lines, name: Any = None) -> dict[str, Any]:
    extra = dict(item.extra)
    extra["tf_address"] = item.address
    extra["tf_type"] = item.rtype
    if item.multiplier != 1:
        extra["count"] = item.multiplier
    return {
        "address": item.address,
        "location": item.location,
        "source_format": item.source_format,
        "attr_lines": lines.lines,
        "name": name,
        "extra": extra,
        "finding_note": item.finding_note,
    }
