"""Python built-ins and str/dict methods the interpreter folds statically (never by calling them)."""

from __future__ import annotations

import ast
import builtins
from typing import Any

from finlint.ir import Unknown
from finlint.loaders.sagemaker_sdk.scope import ClassVal, FuncVal, Scope
from finlint.loaders.sagemaker_sdk.values import (
    MAX_STR,
    TOO_LARGE,
    CallArgs,
    DictVal,
    PartialStr,
    Ref,
    is_known_scalar,
    merge,
    text_value,
)

BUILTINS = frozenset(dir(builtins))


def str_format(template: str | PartialStr, args: CallArgs) -> Any:
    """``"s3://{}/{}/ckpt".format(bucket, prefix)``: the text when every argument is known, else a
    PartialStr (present, partly dynamic), as for the equivalent f-string."""
    text = template.template if isinstance(template, PartialStr) else template
    values = [*args.positional, *(value for value, _ in args.keywords.values())]
    known = not args.open and not isinstance(template, PartialStr)
    known = known and all(isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in values)
    size = _format_size(text)
    if size == "huge":  # "{:>1999999999}" allocated 2 GB
        return Unknown(f"`{text[:60]}.format()` {TOO_LARGE}")
    if known and size == "small":
        try:
            result = text.format(*args.positional, **{k: v for k, (v, _) in args.keywords.items()})
        except (IndexError, KeyError, ValueError, AttributeError, TypeError):
            pass
        else:
            return text_value(result, True, "str.format()")
    return text_value(text, False, "str.format()")


def _format_size(template: str) -> str:
    """``"huge"`` when a field of ``template`` pads or truncates past :data:`MAX_STR`,
    ``"open"`` when a width comes from an argument (``"{:{w}}"``) or the template is malformed,
    else ``"small"``."""
    import re
    import string

    try:
        fields = list(string.Formatter().parse(template))
    except ValueError:
        return "open"
    specs = [spec for _, _, spec, _ in fields if spec]
    if any(int(n) > MAX_STR for spec in specs for n in re.findall(r"\d+", spec)):
        return "huge"
    return "open" if any("{" in spec for spec in specs) else "small"


def dict_method(d: DictVal, method: str, args: CallArgs, node: ast.Call, scope: Scope) -> Any:
    if method == "get" and args.positional:
        key = args.positional[0]
        default = args.positional[1] if len(args.positional) > 1 else None
        if is_known_scalar(key):
            found = d.lookup(key, node.lineno)
            return found[0] if found is not None else default
    if method == "copy":
        return d.copy()
    if method == "update" and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
        from finlint.loaders.sagemaker_sdk.interp import Interpreter  # the interpreter imports this module

        updated = d.copy()
        for value in args.positional:
            Interpreter.merge_into(updated, value, node.lineno, "update() with a value not known")
        for key, entry in args.keywords.items():
            updated.entries[key] = entry
        updated.open = updated.open or args.open
        name = node.func.value.id
        target = scope
        while name not in target.vars and target.parent is not None:
            target = target.parent
        target.vars[name] = updated
        return None
    return Unknown(f"result of dict.{method}()")


def builtin_call(name: str, args: CallArgs, node: ast.Call) -> Any:
    if name == "dict":
        from finlint.loaders.sagemaker_sdk.interp import Interpreter  # the interpreter imports this module

        out = DictVal(line=node.lineno, end_line=node.end_lineno or node.lineno)
        for value in args.positional:
            Interpreter.merge_into(out, value, node.lineno, "dict() of a value not known")
        out.entries.update(args.keywords)
        out.open = out.open or args.open
        return out
    if name in ("int", "float", "str", "bool") and len(args.positional) == 1 and not args.keywords:
        value = args.positional[0]
        if is_known_scalar(value) and value is not None:
            try:
                return {"int": int, "float": float, "str": str, "bool": bool}[name](value)
            except (TypeError, ValueError):
                return Unknown(f"{name}() of {value!r} fails")
    if name in ("min", "max") and args.positional and not args.open:
        values = args.positional[0] if len(args.positional) == 1 else tuple(args.positional)
        if (
            isinstance(values, tuple)
            and values
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        ):
            return min(values) if name == "min" else max(values)
    return Unknown(f"result of {name}()")


def fold_unary(node: ast.UnaryOp, operand: Any) -> Any:
    if isinstance(node.op, ast.Not) and (is_known_scalar(operand) or isinstance(operand, tuple)):
        return not truthy(operand)
    if isinstance(operand, (int, float)) and not isinstance(operand, bool):
        if isinstance(node.op, ast.USub):
            return -operand
        if isinstance(node.op, ast.UAdd):
            return operand
    return Unknown(f"`{text_of(node)}` depends on a value not known statically")


def truthy(value: Any) -> bool:
    if isinstance(value, DictVal):
        return bool(value.entries) or value.open
    return bool(value)


def merge_vars(results: list[dict[str, Any]], reason: str) -> dict[str, Any]:
    """Names after branches. Definitions (imports, defs, classes) made on only some branches
    (``try: from a import X`` / ``except ImportError: from b import X``) stay usable."""
    out: dict[str, Any] = {}
    names: set[str] = set()
    for r in results:
        names.update(r)
    for name in names:
        present = [r[name] for r in results if name in r]
        if all(isinstance(v, (Ref, FuncVal, ClassVal)) for v in present):
            refs = [v for v in present if isinstance(v, Ref)]
            if len(refs) == len(present) and len({v.last for v in refs}) == 1:
                out[name] = present[0]
                continue
            if len(present) < len(results) and len({id(v) for v in present}) == 1:
                out[name] = present[0]
                continue
        values = [r[name] if name in r else Unknown(reason) for r in results]
        merged = values[0]
        for value in values[1:]:
            merged = merge(merged, value, reason)
        out[name] = merged
    return out


def target_name(target: ast.expr) -> str | None:
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    if isinstance(target, ast.Subscript):
        key = target.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            return key.value
        return target_name(target.value)
    return None


def dotted(node: ast.AST) -> str:
    """``a.b.c`` for a name or attribute chain, else ""."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ""


def text_of(node: ast.AST) -> str:
    """Short source text for messages; long expressions are not unparsed (that would make deep
    chains such as ``a + b + c + ...`` quadratic)."""
    line, end = getattr(node, "lineno", None), getattr(node, "end_lineno", None)
    col, end_col = getattr(node, "col_offset", 0), getattr(node, "end_col_offset", 0)
    if line is not None and (end != line or (end_col or 0) - (col or 0) > 120):
        return f"<{type(node).__name__.lower()} expression>"
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - unparse of odd nodes must not break a scan
        return "<expression>"
    return text if len(text) <= 80 else text[:77] + "..."
