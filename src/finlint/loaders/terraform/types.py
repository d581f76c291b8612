"""Variable type constraints applied to values, as Terraform applies them before a module reads
them: an ``object({...})`` attribute declared ``optional(type, default)`` that the caller left out
(or set to null) gets its default, or null when none is given.

Without this, ``each.value.capacity_type`` on a node-group object that omits the attribute is
"no key" for the evaluator, although Terraform reads null (terraform-aws-eks v20+, HyperPod
modules with ``training_plan_arn = optional(string, "")``).
"""

from __future__ import annotations

from typing import Any

from finlint.ir import Unknown
from finlint.loaders.common.yamlload import LineDict, LineList
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.eval import EvalError, Evaluator
from finlint.loaders.terraform.tfvars import ConstScope

MAX_DEPTH = 16


def conform(type_expr: h.Expr, value: Any, depth: int = 0) -> Any:
    """``value`` converted by the type constraint ``type_expr`` (only what rules read changes:
    optional attributes and their defaults; everything else is returned as given)."""
    if depth > MAX_DEPTH or value is None or isinstance(value, Unknown):
        return value
    if not isinstance(type_expr, h.Call) or not type_expr.args:
        return value
    name, args = type_expr.name, type_expr.args
    if name in ("map", "list", "set"):
        if isinstance(value, dict):
            return _copy_dict(value, {k: conform(args[0], v, depth + 1) for k, v in value.items()})
        if isinstance(value, list):
            return _copy_list(value, [conform(args[0], v, depth + 1) for v in value])
        return value
    if name == "tuple" and isinstance(args[0], h.TupleExpr) and isinstance(value, list):
        types = args[0].items
        items = [conform(types[i], v, depth + 1) if i < len(types) else v for i, v in enumerate(value)]
        return _copy_list(value, items)
    if name == "object" and isinstance(args[0], h.ObjectExpr) and isinstance(value, dict):
        return _object(args[0], value, depth)
    return value


def _object(spec: h.ObjectExpr, value: dict[Any, Any], depth: int) -> Any:
    out = dict(value)
    for item in spec.items:
        key = _attr_name(item.key)
        if key is None:
            continue
        attr_type = item.value
        if isinstance(attr_type, h.Call) and attr_type.name == "optional" and attr_type.args:
            inner = attr_type.args[0]
            if out.get(key) is None:  # absent or null: the default, else null
                out[key] = _default(attr_type.args[1]) if len(attr_type.args) > 1 else None
            out[key] = conform(inner, out[key], depth + 1)
        elif key in out:
            out[key] = conform(attr_type, out[key], depth + 1)
    return _copy_dict(value, out)


def _attr_name(key: h.Expr) -> str | None:
    if isinstance(key, h.Lit) and isinstance(key.value, str):
        return key.value
    if isinstance(key, h.Name):
        return key.name
    return None


def _default(expr: h.Expr) -> Any:
    try:
        return Evaluator(ConstScope()).value(expr)
    except EvalError as exc:
        return Unknown(f"optional attribute default: {exc}")


def _copy_dict(original: dict[Any, Any], items: dict[Any, Any]) -> dict[Any, Any]:
    if not isinstance(original, LineDict):
        return items
    out = LineDict(items)
    out.line = original.line
    out.end_line = original.end_line
    lines = dict(getattr(original, "key_lines", None) or {})
    for k in items:
        lines.setdefault(k, original.line)  # an added default points at the object
    out.key_lines = lines
    if hasattr(original, "src"):
        out.src = original.src  # type: ignore[attr-defined]
    return out


def _copy_list(original: list[Any], items: list[Any]) -> list[Any]:
    if not isinstance(original, LineList):
        return items
    out = LineList(items)
    out.line = original.line
    out.end_line = original.end_line
    out.item_lines = list(getattr(original, "item_lines", None) or [])
    return out
