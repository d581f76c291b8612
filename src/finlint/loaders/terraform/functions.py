"""Terraform's values, operators and built-in functions, as the evaluator (:mod:`eval`) uses them.

Each function is total on what it accepts and raises :class:`EvalError` on the wrong type;
the string- and list-building ones stay inside the evaluation budget (:data:`MAX_TEXT`).
"""

from __future__ import annotations

import base64
import json
import math
import re
from typing import Any, Callable

from finlint.ir import Alternatives, Unknown, plain_unknown
from finlint.loaders.terraform.options import EvalError as EvalError
from finlint.loaders.terraform.options import contains_unknown as contains_unknown
from finlint.loaders.terraform.options import demote as demote
from finlint.loaders.terraform.options import lift

#: Evaluation budget: the longest string and the longest list an expression may build. Sixty
#: doubling locals in a 3 KB file were 2 GB, ``format("%1999999999s", ...)`` another 2 GB.
MAX_TEXT = 65_536
MAX_ITEMS = 10_000
TOO_LARGE = "too large to evaluate"
_WIDTH = f"a width or precision {TOO_LARGE}"


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
    from finlint.loaders.common.yamlload import YamlLoadError, load_all

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
    for spec in re.findall(r"%[-+ #0]*(\*|\d*)(?:\.(\*|\d*))?", fmt):  # a width past the budget
        if "*" in spec or any(part and int(part) > MAX_TEXT for part in spec):
            return Unknown(_WIDTH)
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
