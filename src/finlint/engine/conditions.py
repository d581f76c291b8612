"""Conditions: how a policy's declarative condition is evaluated over one IR record.

A policy (one file in ``policies/``) names the IR kinds it applies to, optional ``let``
bindings to derived facts (:mod:`finlint.engine.facts`), and a declarative ``condition``:

    all / any / not                         combine conditions
    exists: REF     missing: REF            present / absent in the source
    is_true: REF                            the value is exactly true
    equals / not_equals: [REF, VALUE]       VALUE may be a literal or $param
    in / not_in: [REF, LIST]
    matches: [REF, REGEX]                   re.search on a string value
    lt / lte / gt / gte: [REF, NUMBER]

REF is an IR field (``max_runtime_s``), a ``let`` name, or ``fact.NAME`` for a fact without
arguments. Evaluation is three-valued: any predicate over an Unknown value is unknown, and a
policy fires only when its condition is *known* to be true.
"""

from __future__ import annotations

import re
from typing import Any

from finlint.engine.facts import FACTS
from finlint.engine.policy import UNARY, Policy
from finlint.ir import Record, Unknown, is_unknown


class Env:
    """What a condition sees for one record: fields, params and (lazily computed) lets."""

    def __init__(self, policy: Policy, record: Record, params: dict[str, Any]) -> None:
        self.policy = policy
        self.record = record
        self.params = params
        self.lets: dict[str, Any] = {}
        self.unknowns: list[str] = []  # "ref: reason" for every Unknown a predicate met

    def param(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("$"):
            return self.params[value[1:]]
        if isinstance(value, list):
            return [self.param(v) for v in value]
        return value

    def ref(self, ref: str) -> Any:
        if ref in self.policy.let:
            if ref not in self.lets:
                spec = self.policy.let[ref]
                args = [self.param(a) for a in spec.get("args") or ()]
                self.lets[ref] = FACTS[spec["fact"]](self.record, *args)
            return self.lets[ref]
        if ref.startswith("fact."):
            return FACTS[ref[5:]](self.record)
        value: Any = self.record
        for part in ref.split("."):
            if value is None or is_unknown(value):
                return value
            value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        return value


def evaluate(cond: dict[str, Any], env: Env) -> bool | None:
    """Three-valued: True, False, or None when it depends on an unknown value."""
    ((op, arg),) = cond.items()
    if op == "all":
        results = [evaluate(c, env) for c in arg]
        if False in results:
            return False
        return None if None in results else True
    if op == "any":
        results = [evaluate(c, env) for c in arg]
        if True in results:
            return True
        return None if None in results else False
    if op == "not":
        inner = evaluate(arg, env)
        return None if inner is None else not inner
    if op in UNARY:
        value = env.ref(arg)
        if isinstance(value, Unknown):
            env.unknowns.append(f"{arg}: {value.reason}")
            return None
        if op == "exists":
            return value is not None and value is not False
        if op == "missing":
            return value is None
        return value is True
    value = env.ref(arg[0])
    target = env.param(arg[1])
    if isinstance(value, Unknown):
        env.unknowns.append(f"{arg[0]}: {value.reason}")
        return None
    if value is None:
        return op in ("not_equals", "not_in")
    if op == "equals":
        return bool(value == target)
    if op == "not_equals":
        return bool(value != target)
    if op in ("in", "not_in"):
        hit = value in (target or [])
        return hit if op == "in" else not hit
    if op == "matches":
        return isinstance(value, str) and re.search(str(target), value) is not None
    try:
        a, b = float(value), float(target)
    except (TypeError, ValueError):
        return None
    return {"lt": a < b, "lte": a <= b, "gt": a > b, "gte": a >= b}[op]


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.]*)(?::([^{}]*))?\}")


def render_message(template: str, env: Env) -> str:
    def sub(match: re.Match[str]) -> str:
        name, spec = match.group(1), match.group(2)
        value = env.params[name] if name in env.params else env.ref(name)
        if isinstance(value, Unknown):
            return "unknown"
        if value is None:
            return "unset"
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value)
        try:
            return format(value, spec) if spec else str(value)
        except (TypeError, ValueError):
            return str(value)

    return _PLACEHOLDER.sub(sub, template)
