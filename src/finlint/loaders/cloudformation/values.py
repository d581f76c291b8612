"""The CloudFormation template value model: parameters, mappings and intrinsic functions.

Every read of a template value goes through :meth:`Template.resolve`: ``!Ref`` to a Parameter
gives its ``Default`` (a list for ``CommaDelimitedList``/``List<...>``), ``!Sub`` / ``!Join`` /
literal ``!FindInMap`` are evaluated when every part is known, ``AWS::NoValue`` is
:data:`NO_VALUE` ("absent"), an ``!If`` whose branches are literals is an
:class:`~finlint.ir.Alternatives` (one of them; NoValue is None, unset on that branch), and
everything decided at deploy time (pseudo parameters, ``!GetAtt``, ``!Select``,
``!ImportValue``, SSM parameters...) is an :class:`~finlint.ir.Unknown` naming why; what is
computed from alternatives (``!Sub``, ``!Join``, a ``!FindInMap`` key) is a plain Unknown.
:class:`Obj` reads a mapping of a resource body with the file line of every key and typed
conversions (alternatives option by option; a list or a mapping that is alternatives is a plain
Unknown); the resource handlers and the Step Functions reader build on it. Function names
CloudFormation does not know become notices (:func:`unknown_functions`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from finlint import ir
from finlint.loaders import DocContext
from finlint.loaders.common import coerce
from finlint.loaders.common.yamlload import LineDict, LineList, type_word

PSEUDO_PARAMETERS = (
    "AWS::AccountId",
    "AWS::NotificationARNs",
    "AWS::Partition",
    "AWS::Region",
    "AWS::StackId",
    "AWS::StackName",
    "AWS::URLSuffix",
)
SUB_VAR = re.compile(r"\$\{([^}]*)\}")
_INT_TEXT = re.compile(r"^\s*[+]?\d+\s*$")
_FLOAT_TEXT = re.compile(r"^\s*[+]?(\d+\.?\d*|\.\d+)\s*$")


class _NoValue:
    """``!Ref AWS::NoValue``: the property is removed, as if absent."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE = _NoValue()


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def is_intrinsic(value: Any) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    key = next(iter(value))
    return isinstance(key, str) and (key in ("Ref", "Condition") or key.startswith("Fn::"))


#: Evaluation budget of one resource: intrinsic functions evaluated, and the longest text a
#: ``Fn::Sub``/``Fn::Join`` may build (1.2 KB of nested ``Fn::Sub`` doubled its text forty times).
MAX_STEPS = 20_000
MAX_TEXT = 65_536
OVER_BUDGET = "too large to evaluate"


class Template:
    """Parameters, mappings and resources of one template, and the intrinsic evaluator."""

    def __init__(self, doc: Mapping[str, Any], ctx: DocContext) -> None:
        self.ctx = ctx
        self.parameters: dict[str, Any] = _mapping(doc.get("Parameters"))
        self.mappings: dict[str, Any] = _mapping(doc.get("Mappings"))
        resources = doc.get("Resources")
        self.resources: Mapping[str, Any] = resources if isinstance(resources, dict) else {}
        self.used_parameters: list[str] = []  # filled while resolving, read per record
        self.steps = 0  # intrinsic functions evaluated for the current resource (MAX_STEPS)
        self.over_budget = False  # a value of the current resource was too large to evaluate

    def line(self, n: int) -> int:
        return self.ctx.line(n)

    # -- Ref ----------------------------------------------------------------------------------
    def ref(self, target: Any) -> Any:
        if not isinstance(target, str):
            return ir.Unknown("Ref to a non-string target")
        if target == "AWS::NoValue":
            return NO_VALUE
        if target in self.parameters:
            return self.parameter_default(target)
        if target in PSEUDO_PARAMETERS or target.startswith("AWS::"):
            return ir.Unknown(f"pseudo parameter {target} is known only at deploy time")
        if target in self.resources:
            return ir.Unknown(f"Ref to resource {target} is known only at deploy time")
        return ir.Unknown(f"Ref to {target}, which the template does not define")

    def parameter_default(self, name: str) -> Any:
        param = self.parameters.get(name)
        if not isinstance(param, dict):
            return ir.Unknown(f"parameter {name} is malformed")
        ptype = param.get("Type")
        ptype = ptype if isinstance(ptype, str) else "String"
        if ptype.startswith("AWS::SSM::Parameter"):
            return ir.Unknown(f"parameter {name} is read from SSM at deploy time")
        if "Default" not in param:
            return ir.Unknown(f"parameter {name} has no Default")
        default = param["Default"]
        if isinstance(default, (dict, list)):
            return ir.Unknown(f"parameter {name} has a non-scalar Default")
        self.used_parameters.append(name)
        if ptype == "CommaDelimitedList" or ptype.startswith("List<"):
            text = "" if default is None else str(default)
            return [part.strip() for part in text.split(",")] if text else []
        return default

    # -- everything ---------------------------------------------------------------------------
    def resolve(self, value: Any) -> Any:
        """A plain value, a (non-intrinsic) dict/list left for the caller, NO_VALUE or Unknown."""
        if not is_intrinsic(value):
            return value
        self.steps += 1
        if self.steps > MAX_STEPS:
            return self._too_large(f"more than {MAX_STEPS:,} intrinsic functions")
        name, arg = next(iter(value.items()))
        if name == "Ref":
            return self.ref(arg)
        if name == "Fn::Sub":
            return self._sub(arg)
        if name == "Fn::Join":
            return self._join(arg)
        if name == "Fn::FindInMap":
            return self._find_in_map(arg)
        if name == "Fn::If":
            return self._if(arg)
        if name == "Fn::GetAtt":
            target = ".".join(str(a) for a in arg) if isinstance(arg, list) else str(arg)
            return ir.Unknown(f"Fn::GetAtt {target} is known only at deploy time")
        if name == "Condition":
            return ir.Unknown(f"condition {arg} is decided at deploy time")
        return ir.Unknown(f"{name} is evaluated at deploy time")

    def _too_large(self, why: str) -> ir.Unknown:
        self.over_budget = True
        return ir.Unknown(f"{OVER_BUDGET} ({why})")

    def _text(self, text: str, function: str) -> Any:
        if len(text) > MAX_TEXT:
            return self._too_large(f"{function} builds more than {MAX_TEXT:,} characters")
        return text

    def _if(self, arg: Any) -> Any:
        if not isinstance(arg, list) or len(arg) != 3:
            return ir.Unknown("malformed Fn::If")
        cond, yes, no = arg[0], self.resolve(arg[1]), self.resolve(arg[2])
        # An optional block (`!If [C, {...}, !Ref AWS::NoValue]`) is treated like a resource with a
        # Condition: it is loaded, since it exists whenever the condition holds.
        if yes is NO_VALUE and isinstance(no, (dict, list)):
            return no
        if no is NO_VALUE and isinstance(yes, (dict, list)):
            return yes
        if known_scalar(yes) and known_scalar(no) and yes == no and type(yes) is type(no):
            return yes
        reason = f"Fn::If on condition {cond} is decided at deploy time"
        if _is_option(yes) and _is_option(no):
            # one of the branches: a literal, alternatives (a nested !If), or unset (NoValue)
            return ir.alternatives([None if v is NO_VALUE else v for v in (yes, no)], reason)
        return ir.Unknown(reason)

    def _find_in_map(self, arg: Any) -> Any:
        if not isinstance(arg, list) or len(arg) < 3:
            return ir.Unknown("malformed Fn::FindInMap")
        keys = [self.resolve(a) for a in arg[:3]]
        for key in keys:
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                reason = key.reason if isinstance(key, ir.Unknown) else "a key is not a string"
                return ir.Unknown(f"Fn::FindInMap key is not known: {reason}")
        node: Any = self.mappings
        for key in keys:
            if not isinstance(node, dict) or str(key) not in node:
                if len(arg) > 3 and isinstance(arg[3], dict) and "DefaultValue" in arg[3]:
                    return self.resolve(arg[3]["DefaultValue"])
                return ir.Unknown(f"Fn::FindInMap {'/'.join(map(str, keys))} is not in Mappings")
            node = node[str(key)]
        return self.resolve(node)

    def _join(self, arg: Any) -> Any:
        if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str):
            return ir.Unknown("malformed Fn::Join")
        parts = self.resolve(arg[1])
        if isinstance(parts, ir.Unknown):
            return ir.Unknown(f"Fn::Join list: {parts.reason}")
        if not isinstance(parts, list):
            return ir.Unknown("Fn::Join of a non-list")
        out: list[str] = []
        for part in parts:
            value = self.resolve(part)
            if value is NO_VALUE:
                continue
            if isinstance(value, ir.Unknown):
                return ir.Unknown(f"Fn::Join part: {value.reason}")
            if not known_scalar(value):
                return ir.Unknown("Fn::Join part is not a string")
            out.append(scalar_text(value))
            if sum(map(len, out)) > MAX_TEXT:
                return self._too_large(f"Fn::Join builds more than {MAX_TEXT:,} characters")
        return self._text(arg[0].join(out), "Fn::Join")

    def _sub(self, arg: Any) -> Any:
        text, variables = sub_args(arg)
        if text is None:
            return ir.Unknown("malformed Fn::Sub")
        reasons: list[str] = []

        def unknown(_original: str, reason: str) -> str:
            reasons.append(reason)
            return ""

        result = self.substitute(text, variables, unknown)
        if reasons:
            if reasons[0].startswith(OVER_BUDGET):
                return ir.Unknown(reasons[0])
            return ir.Unknown(f"Fn::Sub {text[:60]!r}: {reasons[0]}")
        return self._text(result, "Fn::Sub")

    def sub_variable(self, name: str, variables: Mapping[str, Any]) -> Any:
        """The value of ``${name}`` in a Fn::Sub: the vars map, a parameter, or Unknown."""
        if name in variables:
            return self.resolve(variables[name])
        if "." in name:
            return ir.Unknown(f"Fn::GetAtt {name} is known only at deploy time")
        return self.ref(name)

    def substitute(self, text: str, variables: Mapping[str, Any], unknown: Callable[[str, str], str]) -> str:
        """Replace ``${X}`` in ``text``; ``${!X}`` stays literal ``${X}``; ``unknown`` says what
        to put where a variable cannot be resolved (given the original ``${X}`` and a reason)."""

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            value = self.sub_variable(name.strip(), variables)
            if isinstance(value, ir.Unknown):
                return unknown(match.group(0), value.reason)
            if value is NO_VALUE or not known_scalar(value):
                return unknown(match.group(0), f"${{{name}}} is not a string")
            return scalar_text(value)

        return SUB_VAR.sub(one, text)


def sub_args(arg: Any) -> tuple[str | None, Mapping[str, Any]]:
    if isinstance(arg, str):
        return arg, {}
    if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and isinstance(arg[1], dict):
        return arg[0], arg[1]
    return None, {}


def _is_option(value: Any) -> bool:
    """A value an ``!If`` branch can contribute as an alternative: a literal scalar, NoValue, or
    alternatives (never a list, a mapping or a plain Unknown)."""
    return value is NO_VALUE or known_scalar(value) or isinstance(value, ir.Alternatives)


def known_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and not isinstance(value, ir.Unknown)


def scalar_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- typed conversions ------------------------------------------------------------------------


_as_str = coerce.to_str
_as_int = coerce.to_int
_as_float = coerce.to_float
_as_bool = coerce.to_bool


_CONVERT: dict[type, Callable[[Any, str], Any]] = {
    str: _as_str,
    int: _as_int,
    float: _as_float,
    bool: _as_bool,
}


# --------------------------------------------------------------------------------------------
# Reading resource bodies with lines
# --------------------------------------------------------------------------------------------


@dataclass
class Obj:
    """A mapping of a resource body (or an Unknown stand-in) with the file lines of its keys."""

    tpl: Template
    node: Any  # a dict, or an ir.Unknown when the whole mapping is unresolvable
    line: int  # file line of the mapping (or of the key holding it)
    path: str

    def raw(self, key: str) -> tuple[Any, int | None]:
        """``(resolved value, file line of the key)``; ``(None, None)`` when absent or NoValue."""
        if isinstance(self.node, ir.Unknown):
            return ir.Unknown(f"{self.path}: {self.node.reason}"), self.line
        if not isinstance(self.node, dict) or key not in self.node:
            return None, None
        value = self.tpl.resolve(self.node[key])
        if value is NO_VALUE or value is None:
            return None, None
        return value, self.key_line(key)

    def key_line(self, key: str) -> int:
        if isinstance(self.node, LineDict) and self.node.line:
            return self.tpl.line(self.node.line_of(key))
        return self.line

    def get(self, key: str, kind: type = str) -> tuple[Any, int | None]:
        value, line = self.raw(key)
        if line is None:
            return None, None
        if isinstance(value, (dict, list)):
            return ir.Unknown(f"{self.path}.{key} is not a {type_word(kind)}"), line
        return _CONVERT[kind](value, f"{self.path}.{key}"), line

    def obj(self, key: str) -> Obj | None:
        value, line = self.raw(key)
        if line is None:
            return None
        return self._child(value, line, f"{self.path}.{key}")

    def _child(self, value: Any, line: int, path: str) -> Obj:
        if isinstance(value, ir.Unknown):  # a mapping: never one option's scalar
            return Obj(self.tpl, ir.plain_unknown(value), line, path)
        if isinstance(value, dict):
            start = self.tpl.line(value.line) if isinstance(value, LineDict) and value.line else line
            return Obj(self.tpl, value, start, path)
        return Obj(self.tpl, ir.Unknown(f"{path} is not a mapping"), line, path)

    def items(self, key: str) -> tuple[Any, int | None]:
        """``(list of (item, line), key line)``; the list is an Unknown when unresolvable."""
        value, line = self.raw(key)
        if line is None:
            return None, None
        if isinstance(value, ir.Unknown):
            return ir.plain_unknown(value), line  # a list field: never one option's scalar
        if not isinstance(value, list):
            return ir.Unknown(f"{self.path}.{key} is not a list"), line
        out: list[tuple[Any, int]] = []
        for index, item in enumerate(value):
            item_line = (
                self.tpl.line(value.line_of(index)) if isinstance(value, LineList) and value.line else line
            )
            resolved = self.tpl.resolve(item)
            if resolved is NO_VALUE:
                continue
            out.append((resolved, item_line))
        return out, line

    def objs(self, key: str) -> tuple[Any, int | None]:
        """Like :meth:`items`, with mapping items wrapped as :class:`Obj`."""
        items, line = self.items(key)
        if not isinstance(items, list):
            return items, line
        return [
            self._child(item, item_line, f"{self.path}.{key}[{i}]")
            for i, (item, item_line) in enumerate(items)
        ], line

    def str_list(self, key: str) -> tuple[Any, int | None]:
        """A list of strings as a tuple (an item may be Unknown), or an Unknown. An item that is
        alternatives is a plain Unknown (a tuple field never holds one option's string)."""
        items, line = self.items(key)
        if not isinstance(items, list):
            return items, line
        values: list[Any] = []
        for index, (item, _item_line) in enumerate(items):
            values.append(
                ir.plain_unknown(_as_str(item, f"{self.path}.{key}[{index}]"))
                if not isinstance(item, (dict, list))
                else (ir.Unknown(f"{self.path}.{key}[{index}] is not a string"))
            )
        return tuple(values), line

    def end_line(self) -> int:
        if isinstance(self.node, (LineDict, LineList)) and self.node.end_line:
            return max(self.line, self.tpl.line(self.node.end_line))
        return self.line


# --------------------------------------------------------------------------------------------
# Function names
# --------------------------------------------------------------------------------------------


#: Every intrinsic and rule function CloudFormation knows (names are case-sensitive).
KNOWN_FUNCTIONS = frozenset(
    f"Fn::{name}"
    for name in (
        *("And", "Base64", "Cidr", "Contains", "EachMemberEquals", "EachMemberIn", "Equals"),
        *("FindInMap", "GetAtt", "GetAZs", "If", "ImportValue", "Join", "Length", "Not", "Or"),
        *("RefAll", "Select", "Split", "Sub", "ToJsonString", "Transform", "ValueOf", "ValueOfAll"),
    )
)


def unknown_functions(doc: Any, ctx: DocContext) -> list[ir.Notice]:
    """`!if` (lowercase) loads as an unknown function that CloudFormation would reject; a value
    built on it is unknown, so say so instead of staying silent."""
    notices: list[ir.Notice] = []
    seen: set[int] = set()
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if id(node) in seen or not isinstance(node, (dict, list)):
            continue
        seen.add(id(node))
        if isinstance(node, list):
            stack.extend(node)
            continue
        for key, value in node.items():
            unknown = isinstance(key, str) and key.startswith("Fn::") and key not in KNOWN_FUNCTIONS
            if unknown and not key.startswith("Fn::ForEach::"):  # language-extension loops
                line = node.line_of(key) if isinstance(node, LineDict) else 1
                hint = next((k for k in KNOWN_FUNCTIONS if k.lower() == key.lower()), None)
                did_you_mean = f"; did you mean {hint}?" if hint else ""
                message = f"unknown CloudFormation function {key} (names are case-sensitive{did_you_mean})"
                message += "; values built on it are not checked"
                notices.append(ir.Notice(ctx.file, ctx.line(line), message))
            stack.append(value)
    return sorted(notices, key=lambda n: n.line)
