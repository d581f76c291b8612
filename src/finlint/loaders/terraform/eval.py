"""Evaluate Terraform expressions statically: values, or :class:`~finlint.ir.Unknown`, never a guess.

What resolves: literals, ``var.*`` (bound by the caller), ``local.*``, ``each.*`` /
``count.index`` when known, references to another resource's literal argument, string
templates, arithmetic / comparison / logic, conditionals, ``for`` expressions and the common
functions. Everything else (data sources, computed attributes such as ``.id``, unknown
functions, template directives) evaluates to ``Unknown(reason)``. A missing attribute or
key is an :class:`EvalError`, as in Terraform, so ``try()`` and ``lookup()`` behave as there.

Objects and tuples written in the source come back as ``LineDict`` / ``LineList`` with
their lines, so an embedded Kubernetes manifest keeps the lines of the .tf file.
"""

from __future__ import annotations

import base64
import json
import math
from typing import Any, Callable, Protocol

from finlint.ir import Alternatives, Unknown, alternatives, plain_unknown
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.options import EvalError as EvalError
from finlint.loaders.terraform.options import contains_unknown as contains_unknown
from finlint.loaders.terraform.options import demote as demote
from finlint.loaders.terraform.options import is_option, lift
from finlint.yamlload import LineDict, LineList

MAX_DEPTH = 64


class Scope(Protocol):
    """What an expression can refer to: implemented by the configuration loader."""

    def variable(self, name: str) -> Any: ...

    def local(self, name: str) -> Any: ...

    def resource_attr(self, rtype: str, name: str, attr: str) -> Any: ...

    def path(self, which: str) -> Any: ...

    def read_file(self, path: str, file: str | None = None, line: int = 1) -> str | None:
        """The text of the file ``file(path)`` reads, or None (missing, unreadable, or outside
        the scan's roots: then a notice at ``file``:``line`` names it)."""
        ...


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown)


class Evaluator:
    """Evaluates expressions against a :class:`Scope` plus local names (``each``, iterators)."""

    def __init__(
        self, scope: Scope, names: dict[str, Any] | None = None, depth: int = 0, file: str | None = None
    ) -> None:
        self.scope = scope
        self.names = names or {}
        self.depth = depth
        self.file = file  # the display path of the .tf file being evaluated (for notices)

    def child(self, **names: Any) -> Evaluator:
        merged = dict(self.names)
        merged.update(names)
        return Evaluator(self.scope, merged, self.depth + 1, self.file)

    # -- entry points ---------------------------------------------------------------------

    def value(self, expr: h.Expr) -> Any:
        """The value of ``expr``; an EvalError becomes Unknown (the resource still loads)."""
        try:
            return self.eval(expr)
        except EvalError as exc:
            return Unknown(f"invalid expression: {exc}")
        except RecursionError:
            return Unknown("expression nested too deeply")

    def eval(self, expr: h.Expr) -> Any:  # noqa: C901 - one dispatch over node types
        if self.depth > MAX_DEPTH:
            return Unknown("expression nested too deeply")
        if isinstance(expr, h.Lit):
            return expr.value
        if isinstance(expr, h.Template):
            return self.template(expr)
        if isinstance(expr, h.TupleExpr):
            out = LineList(self.eval(i) for i in expr.items)
            out.line, out.end_line = expr.line, expr.end_line
            out.item_lines = [i.line for i in expr.items]
            return out
        if isinstance(expr, h.ObjectExpr):
            obj = LineDict()
            obj.line, obj.end_line, obj.key_lines = expr.line, expr.end_line, {}
            for item in expr.items:
                key = self.eval(item.key)
                if isinstance(key, Unknown):
                    return Unknown("object key is not known")
                if isinstance(key, (int, float)) and not isinstance(key, bool):
                    key = _fmt_number(key)
                if not isinstance(key, str):
                    raise EvalError("object key must be a string")
                obj[key] = self.eval(item.value)
                obj.key_lines[key] = item.line
            return obj
        if isinstance(expr, (h.Name, h.GetAttr, h.Index)):
            return self.traversal(expr)
        if isinstance(expr, h.Splat):
            base = self.eval(expr.obj)
            return plain_unknown(base) if isinstance(base, Unknown) else Unknown("splat expression")
        if isinstance(expr, h.Cond):
            return self.conditional(expr)
        if isinstance(expr, h.BinOp):
            return binary(expr.op, self.eval(expr.left), self.eval(expr.right))
        if isinstance(expr, h.UnOp):
            operand = self.eval(expr.operand)
            if expr.op == "!":
                return lift(lambda x: not _to_bool(x), operand)
            return lift(lambda x: -_to_number(x), operand)
        if isinstance(expr, h.Call):
            return self.call(expr)
        if isinstance(expr, h.ForExpr):
            return self.for_expr(expr)
        return Unknown(getattr(expr, "reason", "unsupported expression"))

    # -- pieces ---------------------------------------------------------------------------

    def template(self, expr: h.Template) -> Any:
        if expr.directive:
            return Unknown("template directive (%{ })")
        if len(expr.parts) == 1 and not isinstance(expr.parts[0], str):
            # "${x}" alone keeps x's type, as in Terraform
            return self.eval(expr.parts[0])
        values: list[Any] = []
        for part in expr.parts:
            value = part if isinstance(part, str) else self.eval(part)
            if isinstance(value, Unknown) and not isinstance(value, Alternatives):
                return Unknown(f"interpolation: {value.reason}")
            values.append(value)
        # "ml.${var.big ? "p5" : "g5"}.xlarge": the text of each option
        return lift(lambda *parts: "".join(to_string(p) for p in parts), *values)

    def conditional(self, expr: h.Cond) -> Any:
        cond = self.eval(expr.cond)
        if isinstance(cond, Alternatives):
            try:
                sides = {_to_bool(option) for option in cond.options}
            except EvalError:
                return Unknown(f"condition: {cond.reason}")
            if len(sides) == 1:
                return self.eval(expr.if_true) if sides.pop() else self.eval(expr.if_false)
        if isinstance(cond, Unknown):
            a, b = self.value(expr.if_true), self.value(expr.if_false)
            if not contains_unknown(a) and not contains_unknown(b) and a == b and type(a) is type(b):
                return a
            if is_option(a) and is_option(b):
                # one of two literals (or of their alternatives): the value on either branch
                return alternatives([a, b], f"condition: {cond.reason}")
            return Unknown(f"condition: {cond.reason}")
        return self.eval(expr.if_true) if _to_bool(cond) else self.eval(expr.if_false)

    def traversal(self, expr: h.Expr) -> Any:
        steps: list[h.Expr | str] = []
        node = expr
        while isinstance(node, (h.GetAttr, h.Index)):
            steps.append(node.name if isinstance(node, h.GetAttr) else node.key)
            node = node.obj
        steps.reverse()
        if not isinstance(node, h.Name):
            base = self.eval(node)
            return self.apply(base, steps)
        root = node.name
        if root in self.names:
            return self.apply(self.names[root], steps)
        first = steps[0] if steps and isinstance(steps[0], str) else None
        if root == "var" and first:
            return self.apply(self.scope.variable(first), steps[1:])
        if root == "local" and first:
            return self.apply(self.scope.local(first), steps[1:])
        if root == "path" and first:
            return self.scope.path(first)
        if root in ("each", "count"):
            return Unknown(f"{root}.{first} outside a known for_each/count")
        if root in ("data", "module", "terraform", "self"):
            return Unknown(f"{root}.{first or ''} is only known after apply")
        if "_" in root and first and len(steps) >= 2 and isinstance(steps[1], str):
            value = self.scope.resource_attr(root, first, steps[1])
            return self.apply(value, steps[2:])
        return Unknown(f"reference {root}{'.' + first if first else ''}")

    def apply(self, value: Any, steps: list[h.Expr | str]) -> Any:
        for step in steps:
            if isinstance(value, Unknown):
                return plain_unknown(value)  # an attribute of an unknown: none of its options
            key: Any = step if isinstance(step, str) else self.eval(step)
            if isinstance(key, Alternatives):
                value = lift(lambda k, base=value: index(base, k), key)  # local.sizes[var.env]
                continue
            if isinstance(key, Unknown):
                return key
            value = index(value, key)
        return value

    def for_expr(self, expr: h.ForExpr) -> Any:
        coll = self.eval(expr.collection)
        if isinstance(coll, Unknown):
            return plain_unknown(coll)
        if isinstance(coll, dict):
            pairs = [(k, coll[k]) for k in sorted(coll)]
        elif isinstance(coll, list):
            pairs = list(enumerate(coll))
        else:
            raise EvalError("for expression over a non-collection")
        keyed = expr.key_expr is not None
        out_obj: dict[str, Any] = {}
        out_list: list[Any] = []
        for k, v in pairs:
            names = {expr.value_var: v}
            if expr.key_var:
                names[expr.key_var] = k
            ev = self.child(**names)
            if expr.cond is not None:
                c = ev.eval(expr.cond)
                if isinstance(c, Unknown):
                    return Unknown("for expression filter is not known")
                if not _to_bool(c):
                    continue
            if keyed:
                assert expr.key_expr is not None
                key = ev.eval(expr.key_expr)
                if isinstance(key, Unknown):
                    return Unknown("for expression key is not known")
                key = to_string(key)
                val = ev.eval(expr.value_expr)
                if expr.grouping:
                    out_obj.setdefault(key, []).append(val)
                else:
                    out_obj[key] = val
            else:
                out_list.append(ev.eval(expr.value_expr))
        return out_obj if keyed else out_list

    def call(self, expr: h.Call) -> Any:
        name = expr.name.split("::")[-1]
        if name == "try":
            for arg in expr.args:
                try:
                    value = self.eval(arg)
                except EvalError:
                    continue
                return value
            raise EvalError("no argument of try() is valid")
        if name == "can":
            try:
                value = self.eval(expr.args[0])
            except EvalError:
                return False
            return plain_unknown(value) if isinstance(value, Unknown) else True
        if name == "templatefile":
            return self.templatefile(expr)
        if name in ("file", "filebase64"):
            path = self.eval(expr.args[0]) if expr.args else Unknown(f"{name}()")
            if isinstance(path, Unknown):
                return plain_unknown(path)  # a file's text, not the options of its path
            text = self.scope.read_file(str(path), self.file, expr.line)
            if text is not None and name == "filebase64":
                return FUNCTIONS["base64encode"](text)
            return text if text is not None else Unknown(f"{name}({path}) is not in the scanned tree")
        fn = FUNCTIONS.get(name)
        if fn is None:
            return Unknown(f"function {name}() is not evaluated")
        args = [self.eval(a) for a in expr.args]
        if expr.expand_last and args:
            last = args.pop()
            if isinstance(last, Unknown):
                return plain_unknown(last)
            args.extend(last)
        if name not in _UNKNOWN_AWARE:
            for a in args:
                if isinstance(a, Unknown) and not isinstance(a, Alternatives):
                    return a
        try:
            # lower(var.big ? "P5" : "G5"), lookup(local.sizes, var.env ? "a" : "b"): option by
            # option; a result that is not a scalar (a list, a map) is a plain Unknown
            return lift(fn, *args) if any(isinstance(a, Alternatives) for a in args) else fn(*args)
        except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
            # a call Terraform rejects (wrong number or type of arguments, e.g. cf2tf's
            # split("","", x)) costs this value, not the configuration
            raise EvalError(f"{name}() with these arguments: {exc}") from exc

    def templatefile(self, expr: h.Call) -> Any:
        if len(expr.args) != 2:
            return Unknown("templatefile()")
        path = self.eval(expr.args[0])
        variables = self.eval(expr.args[1])
        if isinstance(path, Unknown) or not isinstance(variables, dict):
            return Unknown("templatefile() arguments are not known")
        text = self.scope.read_file(str(path), self.file, expr.line)
        if text is None:
            return Unknown(f"templatefile({path}) is not in the scanned tree")
        parts, directive = h.split_template(text, 1)
        return Evaluator(self.scope, dict(variables), self.depth + 1, self.file).template(
            h.Template(tuple(parts), 1, directive=directive)
        )


# --- values ------------------------------------------------------------------------------


def index(value: Any, key: Any) -> Any:
    if isinstance(value, dict):
        if isinstance(key, (int, float)) and not isinstance(key, bool):
            key = _fmt_number(key)
        if key not in value:
            raise EvalError(f"no key {key!r}")
        return value[key]
    if isinstance(value, list):
        i = _to_number(key)
        if not isinstance(i, int) and not float(i).is_integer():
            raise EvalError("index must be a whole number")
        i = int(i)
        if i < 0 or i >= len(value):
            raise EvalError(f"index {i} out of range")
        return value[i]
    if value is None:
        raise EvalError("attribute of null")
    raise EvalError(f"cannot index a {type(value).__name__}")


def _fmt_number(n: float) -> str:
    if isinstance(n, float) and n.is_integer():
        return str(int(n))
    return str(n)


def to_string(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _fmt_number(value)
    if isinstance(value, str):
        return value
    if value is None:
        raise EvalError("null in a string template")
    raise EvalError(f"a {type(value).__name__} in a string template")


def _to_number(value: Any) -> int | float:
    if isinstance(value, bool):
        raise EvalError("bool used as a number")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            try:
                return float(value)
            except ValueError:
                raise EvalError(f"{value!r} is not a number") from None
    raise EvalError("not a number")


def _to_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return bool(value == "true")
    raise EvalError(f"{value!r} is not a bool")


def _normal(n: int | float) -> int | float:
    return int(n) if isinstance(n, float) and n.is_integer() else n


def binary(op: str, a: Any, b: Any) -> Any:
    """``a op b``; over :class:`~finlint.ir.Alternatives` option by option, so ``(var.big ? 8 :
    1) * 2`` is 16 or 2, never 8 or 1; with a plain Unknown operand a plain Unknown."""
    if op in ("&&", "||"):
        # short-circuit on a known deciding side, as Terraform refines unknowns
        for x in (a, b):
            if not isinstance(x, Unknown) and _to_bool(x) == (op == "||"):
                return op == "||"
    unknowns = [x for x in (a, b) if isinstance(x, Unknown)]
    if not unknowns:
        return _known_binary(op, a, b)
    if all(isinstance(x, Alternatives) for x in unknowns):
        return lift(lambda x, y: _known_binary(op, x, y), a, b)
    return plain_unknown(unknowns[0])


def _known_binary(op: str, a: Any, b: Any) -> Any:
    if op in ("&&", "||"):
        return _to_bool(a) and _to_bool(b) if op == "&&" else _to_bool(a) or _to_bool(b)
    if op == "==":
        return _equal(a, b)
    if op == "!=":
        return not _equal(a, b)
    x, y = _to_number(a), _to_number(b)
    if op == "+":
        return _normal(x + y)
    if op == "-":
        return _normal(x - y)
    if op == "*":
        return _normal(x * y)
    if op == "/":
        if y == 0:
            raise EvalError("division by zero")
        return _normal(x / y)
    if op == "%":
        if y == 0:
            raise EvalError("division by zero")
        return _normal(x % y)
    if op == "<":
        return x < y
    if op == ">":
        return x > y
    if op == "<=":
        return x <= y
    if op == ">=":
        return x >= y
    raise EvalError(f"operator {op}")


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) != isinstance(b, bool):
        return False
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return bool(a == b)
    return type(a) is type(b) and a == b or (isinstance(a, dict) and isinstance(b, dict) and a == b)


# --- functions -----------------------------------------------------------------------------


def _lookup(m: Any, key: Any, *default: Any) -> Any:
    if not isinstance(m, dict):
        raise EvalError("lookup() of a non-map")
    if key in m:
        return m[key]
    if default:
        return default[0]
    raise EvalError(f"lookup(): no key {key!r}")


def _merge(*maps: Any) -> Any:
    out: dict[str, Any] = {}
    for m in maps:
        if isinstance(m, Unknown):
            return Unknown("merge() of an unknown map")
        if m is None:
            continue
        if not isinstance(m, dict):
            raise EvalError("merge() of a non-map")
        out.update(m)
    return out


def _concat(*lists: Any) -> Any:
    out: list[Any] = []
    for lst in lists:
        if not isinstance(lst, list):
            raise EvalError("concat() of a non-list")
        out.extend(lst)
    return out


def _coalesce(*args: Any) -> Any:
    for a in args:
        if isinstance(a, Unknown):
            return a
        if a is not None and a != "":
            return a
    raise EvalError("coalesce(): no non-null argument")


def _toset(value: Any) -> Any:
    if not isinstance(value, list):
        raise EvalError("toset() of a non-list")
    if contains_unknown(value):
        return Unknown("set with unknown elements")
    seen: list[Any] = []
    for v in value:
        if v not in seen:
            seen.append(v)
    try:
        return sorted(seen, key=lambda v: (str(type(v)), v))
    except TypeError:
        return seen


def _jsonencode(value: Any) -> Any:
    if contains_unknown(value):
        return Unknown("jsonencode() of unknown values")
    return json.dumps(value, separators=(",", ":"))


def _decode(text: Any, is_json: bool) -> Any:
    from finlint.yamlload import YamlLoadError, load_all

    if not isinstance(text, str):
        raise EvalError("decode of a non-string")
    try:
        docs = load_all(text, is_json=is_json)
    except YamlLoadError as exc:
        raise EvalError(exc.message) from None
    return docs[0] if docs else None


def _length(value: Any) -> Any:
    if isinstance(value, (list, dict, str)):
        return len(value)
    raise EvalError("length() of a scalar")


def _format(fmt: Any, *args: Any) -> Any:
    if not isinstance(fmt, str):
        raise EvalError("format()")
    py = fmt.replace("%v", "%s").replace("%q", '"%s"')
    try:
        return py % tuple(
            to_string(a) if not isinstance(a, (int, float)) or "%d" not in py else a for a in args
        )
    except (TypeError, ValueError) as exc:
        raise EvalError(f"format(): {exc}") from None


def _contains(lst: Any, value: Any) -> Any:
    if not isinstance(lst, list):
        raise EvalError("contains() of a non-list")
    if value in lst:
        return True
    return Unknown("contains() over unknown elements") if contains_unknown(lst) else False


def _flatten(lst: Any) -> Any:
    if not isinstance(lst, list):
        raise EvalError("flatten() of a non-list")
    out: list[Any] = []
    for v in lst:
        if isinstance(v, Unknown):
            return v
        out.extend(_flatten(v) if isinstance(v, list) else [v])
    return out


def _element(lst: Any, i: Any) -> Any:
    if not isinstance(lst, list) or not lst:
        raise EvalError("element() of an empty or non-list")
    return lst[int(_to_number(i)) % len(lst)]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "lookup": _lookup,
    "merge": _merge,
    "concat": _concat,
    "coalesce": _coalesce,
    "coalescelist": lambda *ls: next((x for x in ls if x), []),
    "tolist": lambda v: list(v) if isinstance(v, list) else _raise("tolist()"),
    "toset": _toset,
    "tomap": lambda v: v if isinstance(v, dict) else _raise("tomap()"),
    "tostring": lambda v: to_string(v) if v is not None else None,
    "tonumber": lambda v: _to_number(v) if v is not None else None,
    "tobool": lambda v: _to_bool(v) if v is not None else None,
    "jsonencode": _jsonencode,
    "base64encode": lambda s: base64.b64encode(to_string(s).encode("utf-8")).decode("ascii"),
    "jsondecode": lambda s: _decode(s, True),
    "yamldecode": lambda s: _decode(s, False),
    "length": _length,
    "upper": lambda s: str(s).upper(),
    "lower": lambda s: str(s).lower(),
    "title": lambda s: str(s).title(),
    "trimspace": lambda s: str(s).strip(),
    "format": _format,
    "join": lambda sep, lst: str(sep).join(to_string(x) for x in lst),
    "split": lambda sep, s: str(s).split(str(sep)),
    "replace": lambda s, a, b: str(s).replace(str(a), str(b)),
    "element": _element,
    "keys": lambda m: sorted(m) if isinstance(m, dict) else _raise("keys()"),
    "values": lambda m: [m[k] for k in sorted(m)] if isinstance(m, dict) else _raise("values()"),
    "contains": _contains,
    "flatten": _flatten,
    "distinct": lambda lst: [v for i, v in enumerate(lst) if v not in lst[:i]],
    "compact": lambda lst: [v for v in lst if v not in (None, "")],
    "min": lambda *xs: _normal(min(_to_number(x) for x in xs)),
    "max": lambda *xs: _normal(max(_to_number(x) for x in xs)),
    "ceil": lambda x: math.ceil(_to_number(x)),
    "floor": lambda x: math.floor(_to_number(x)),
    "abs": lambda x: abs(_to_number(x)),
}
#: Functions that look inside their (possibly partly unknown) arguments themselves.
_UNKNOWN_AWARE = {"coalesce"}


def _raise(what: str) -> Any:
    raise EvalError(f"{what} of the wrong type")
