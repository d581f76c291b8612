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

from typing import Any, Protocol

from finlint.ir import Alternatives, Unknown, alternatives, plain_unknown
from finlint.loaders.common.yamlload import LineDict, LineList
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.functions import (  # the values, operators and functions
    _UNKNOWN_AWARE,
    _WIDTH,
    FUNCTIONS,
    MAX_ITEMS,
    MAX_TEXT,
    TOO_LARGE,
    _fmt_number,
    _to_bool,
    _to_number,
    binary,
    to_string,
)
from finlint.loaders.terraform.options import EvalError as EvalError
from finlint.loaders.terraform.options import contains_unknown as contains_unknown
from finlint.loaders.terraform.options import demote as demote
from finlint.loaders.terraform.options import is_option, lift

MAX_DEPTH = 64
#: Expression nodes one evaluation may visit (six nested ``for`` over 30 items: 7e8 of them).
MAX_STEPS = 100_000


class _OverBudget(EvalError):
    """One evaluation visited more than :data:`MAX_STEPS` expression nodes."""


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

    def notice(self, file: str, line: int, message: str) -> None:
        """Say ``message`` once (an evaluation over budget)."""
        ...


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown)


class Evaluator:
    """Evaluates expressions against a :class:`Scope` plus local names (``each``, iterators)."""

    def __init__(
        self,
        scope: Scope,
        names: dict[str, Any] | None = None,
        depth: int = 0,
        file: str | None = None,
        steps: list[int] | None = None,
    ) -> None:
        self.scope = scope
        self.names = names or {}
        self.depth = depth
        self.file = file  # the display path of the .tf file being evaluated (for notices)
        self.steps = steps if steps is not None else [0]  # shared with children (MAX_STEPS)

    def child(self, **names: Any) -> Evaluator:
        merged = dict(self.names)
        merged.update(names)
        return Evaluator(self.scope, merged, self.depth + 1, self.file, self.steps)

    # -- entry points ---------------------------------------------------------------------

    def value(self, expr: h.Expr) -> Any:
        """The value of ``expr``; an EvalError becomes Unknown (the resource still loads)."""
        try:
            return self.eval(expr)
        except _OverBudget:
            message = (
                f"an expression {TOO_LARGE} (over {MAX_STEPS:,} steps); values built from it are unknown"
            )
            self.scope.notice(self.file or "", getattr(expr, "line", 1) or 1, message)
            return Unknown(f"{TOO_LARGE} (over {MAX_STEPS:,} steps)")
        except EvalError as exc:
            return Unknown(f"invalid expression: {exc}")
        except RecursionError:
            return Unknown("expression nested too deeply")

    def eval(self, expr: h.Expr) -> Any:  # noqa: C901 - one dispatch over node types
        if self.depth > MAX_DEPTH:
            return Unknown("expression nested too deeply")
        self.steps[0] += 1
        if self.steps[0] > MAX_STEPS:
            raise _OverBudget(TOO_LARGE)
        if isinstance(expr, h.Lit):
            return expr.value
        if isinstance(expr, h.Template):
            return self.bounded(self.template(expr), expr)
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
            return self.bounded(binary(expr.op, self.eval(expr.left), self.eval(expr.right)), expr)
        if isinstance(expr, h.UnOp):
            operand = self.eval(expr.operand)
            if expr.op == "!":
                return lift(lambda x: not _to_bool(x), operand)
            return lift(lambda x: -_to_number(x), operand)
        if isinstance(expr, h.Call):
            return self.bounded(self.call(expr), expr)
        if isinstance(expr, h.ForExpr):
            return self.bounded(self.for_expr(expr), expr)
        return Unknown(getattr(expr, "reason", "unsupported expression"))

    def bounded(self, value: Any, expr: h.Expr) -> Any:
        """``value``, or Unknown (and one notice per file) past :data:`MAX_TEXT` characters or
        :data:`MAX_ITEMS` items."""
        if (
            isinstance(value, Unknown)
            and isinstance(expr, h.Call)
            and (value.reason or "").startswith(_WIDTH)
        ):
            line = getattr(expr, "line", 1) or 1
            self.scope.notice(
                self.file or "", line, f"{expr.name}(): {value.reason}; values built from it are unknown"
            )
            return value
        if isinstance(value, str):
            size, limit, what = len(value), MAX_TEXT, "characters"
        elif isinstance(value, (list, dict)):
            size, limit, what = len(value), MAX_ITEMS, "items"
        else:
            return value
        if size <= limit:
            return value
        message = f"an expression {TOO_LARGE} (over {limit:,} {what}); values built from it are unknown"
        line = getattr(expr, "line", 1) or 1
        self.scope.notice(self.file or "", line, message)
        return Unknown(f"{TOO_LARGE} (over {limit:,} {what})")

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
