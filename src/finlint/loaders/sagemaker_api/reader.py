"""Reading a SageMaker API document with lines: typed values, templated and intrinsic values as Unknown."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from finlint import ir
from finlint.loaders.base import DocContext
from finlint.loaders.common import coerce
from finlint.loaders.common.yamlload import LineDict, LineList, kind_name, type_word

FORMAT = "sagemaker-api"


#: What applies when a request has no StoppingCondition.MaxRuntimeInSeconds.
DEFAULT_MAX_RUNTIME_S = 86_400


DEFAULT_NOTE = (
    "StoppingCondition is required by older API models (the request is rejected) and SageMaker "
    "applies a 1-day (86,400 s) default in newer ones"
)


TEMPLATED = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[^}]*\}|^\$[A-Za-z_]")


_INT_TEXT = re.compile(r"^\s*[+]?\d+\s*$")


_DYNAMIC = object()  # marker: a block whose content is only known at run time


@dataclass
class Reader:
    """Reads fields of a request-shaped mapping in one dialect, with lines in file coordinates."""

    ctx: DocContext
    fallback_line: int | None = None
    dialect: str = "plain"  # plain | jsonpath | jsonata
    resolve_function: Callable[[Mapping[str, Any]], tuple[Any, str]] | None = None
    resolved: dict[str, str] = field(default_factory=dict)  # IR field -> where its value came from

    # -- lines ---------------------------------------------------------------------------------
    def node_line(self, node: Any, parent_line: int) -> int:
        if isinstance(node, (LineDict, LineList)) and node.line:
            return self.ctx.line(node.line)
        return parent_line

    def end_line(self, node: Any, start: int) -> int:
        if isinstance(node, (LineDict, LineList)) and node.end_line:
            return max(start, self.ctx.line(node.end_line))
        return start

    def key_line(self, container: Any, key: Any, parent_line: int) -> int:
        if isinstance(container, LineDict) and container.line:
            return self.ctx.line(container.line_of(key))
        if isinstance(container, LineList) and container.line and isinstance(key, int):
            return self.ctx.line(container.line_of(key))
        return parent_line

    def root_line(self, node: Any) -> int:
        if isinstance(node, (LineDict, LineList)) and node.line:
            return self.ctx.line(node.line)
        return self.fallback_line if self.fallback_line is not None else 1

    # -- raw access ----------------------------------------------------------------------------
    def raw(self, container: Any, key: str, parent_line: int) -> tuple[Any, int | None]:
        """``(value, line)``: the raw value, an Unknown for run-time values, or ``(None, None)``."""
        if isinstance(container, ir.Unknown):
            return ir.Unknown(f"{key}: {container.reason}"), parent_line
        if not isinstance(container, Mapping):
            return None, None
        if key in container and container[key] is not None:
            return container[key], self.key_line(container, key, parent_line)
        dyn = f"{key}.$"
        if self.dialect == "jsonpath" and dyn in container:
            return (
                ir.Unknown(f"{dyn} is a JSONPath value known only at run time ({container[dyn]!s:.60})"),
                self.key_line(container, dyn, parent_line),
            )
        return None, None

    def block(self, container: Any, key: str, parent_line: int) -> tuple[Any, int]:
        """A nested object: a Mapping, an Unknown (dynamic or malformed), or None when absent."""
        value, line = self.raw(container, key, parent_line)
        if value is None or line is None:
            return None, parent_line
        if isinstance(value, ir.Unknown):
            return ir.plain_unknown(value), line  # an object: never one option's scalar
        if isinstance(value, Mapping) and not self._is_function(value):
            if is_intrinsic(value):
                return ir.Unknown(f"{key} is an expression ({next(iter(value))})"), line
            return value, self.node_line(value, line)
        if isinstance(value, Mapping):
            resolved, _ = self._function(value)
            if isinstance(resolved, Mapping):
                return resolved, line
            if isinstance(resolved, ir.Unknown):
                return resolved, line
            return ir.Unknown(f"{key} is not an object"), line
        if isinstance(value, str) and TEMPLATED.search(value):
            return ir.Unknown(f"{key} is an expression: {value:.60}"), line
        return ir.Unknown(f"{key} is not an object ({kind_name(value)})"), line

    def items(self, container: Any, key: str, parent_line: int) -> tuple[Any, int]:
        """A list: a Sequence, an Unknown, or None when absent."""
        value, line = self.raw(container, key, parent_line)
        if value is None or line is None:
            return None, parent_line
        if isinstance(value, list):
            return value, line
        if isinstance(value, ir.Unknown):
            return ir.plain_unknown(value), line  # a list: never one option's scalar
        return ir.Unknown(f"{key} is not a list"), line

    # -- typed scalars -------------------------------------------------------------------------
    def scalar(
        self, container: Any, key: str, parent_line: int, kind: type, target: str | None = None
    ) -> tuple[Any, int | None]:
        value, line = self.raw(container, key, parent_line)
        if line is None:
            return None, None
        return self.convert(value, kind, key, target), line

    def convert(self, value: Any, kind: type, key: str, target: str | None = None) -> Any:
        if isinstance(value, ir.Alternatives):  # one of a few literals (a CloudFormation !If)
            return ir.map_options(value, lambda option: self.convert(option, kind, key))
        if value is None or isinstance(value, ir.Unknown):
            return value
        if isinstance(value, Mapping):
            if self._is_function(value):
                resolved, origin = self._function(value)
                if not isinstance(resolved, ir.Unknown) and target:
                    self.resolved[target] = origin
                return self.convert(resolved, kind, key) if not isinstance(resolved, ir.Unknown) else resolved
            name = next(iter(value), "")
            return ir.Unknown(f"{key} is an expression ({name})")
        if isinstance(value, list):
            return ir.Unknown(f"{key} is a list, not a {type_word(kind)}")
        if isinstance(value, str) and TEMPLATED.search(value):
            return ir.Unknown(f"{key} is templated: {value:.60}")
        if kind is int:
            return coerce.to_int(value, key)
        if kind is bool:
            return coerce.to_bool(value, key)
        if isinstance(value, str):
            return value
        return ir.Unknown(f"{key} is not a string: {value!r:.40}")

    def _is_function(self, value: Mapping[str, Any]) -> bool:
        return self.resolve_function is not None and len(value) == 1 and looks_like_function(value)

    def _function(self, value: Mapping[str, Any]) -> tuple[Any, str]:
        assert self.resolve_function is not None
        return self.resolve_function(value)


def is_intrinsic(value: Mapping[str, Any]) -> bool:
    """A CloudFormation intrinsic or pipeline function object (``{"Fn::If": ...}``, ``{"Ref": x}``)."""
    if len(value) != 1:
        return False
    key = next(iter(value))
    return isinstance(key, str) and (key in ("Ref", "Condition", "Get") or key.startswith(("Fn::", "Std:")))


def looks_like_function(value: Mapping[str, Any]) -> bool:
    key = next(iter(value))
    return isinstance(key, str) and (key == "Get" or key.startswith("Std:"))
