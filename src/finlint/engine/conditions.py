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
policy fires only when its condition is *known* to be true. A predicate over an
:class:`~finlint.ir.Alternatives` (one of a few known values, by branch) is evaluated on each
option: the same verdict for every option is that verdict, else unknown. A fact sees
alternatives only if it is marked ``exact_alternatives``; for the others they are a plain Unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from finlint.engine.policy import UNARY, Policy
from finlint.ir import Alternatives, Record, Unknown
from finlint.untrusted import bounded


class Env:
    """What a condition sees for one record: fields, params and (lazily computed) lets."""

    def __init__(self, policy: Policy, record: Record, params: dict[str, Any]) -> None:
        self.policy = policy
        self.record = record
        self.params = params
        self.lets: dict[str, Any] = {}
        self.unknowns: list[str] = []  # "ref: reason" for every Unknown a predicate met
        self.unknown_refs: list[str] = []  # the refs and their reasons, in the same order
        self.unknown_reasons: list[str] = []
        #: ref -> the alternatives a predicate decided on (the same verdict for every option)
        self.decided: dict[str, Alternatives] = {}

    def unknown(self, ref: str, value: Unknown) -> None:
        """A predicate met ``ref`` unknown: the verdict depends on it."""
        shown = value.reason
        if isinstance(value, Alternatives):
            shown += f" (one of {value.shown()}: the verdict differs between them)"
        self.unknowns.append(f"{ref}: {shown}")
        self.unknown_refs.append(ref)
        self.unknown_reasons.append(value.reason)

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
                fn = self.policy.facts[spec["fact"]]
                self.lets[ref] = _fact_value(fn, fn(self.record, *args))
            return self.lets[ref]
        if ref.startswith("fact."):
            fn = self.policy.facts[ref[5:]]
            return _fact_value(fn, fn(self.record))
        value: Any = self.record
        for part in _path(ref):
            if isinstance(value, Alternatives):  # options are scalars: nothing to look into
                return Unknown(value.reason)
            if value is None or isinstance(value, Unknown):
                return value
            value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        return value


def _fact_value(fn: Callable[..., Any], value: Any) -> Any:
    """A fact not written for alternatives may pass a field's value through (an instance type
    where a GPU count is expected): its alternatives are then a plain Unknown."""
    if isinstance(value, Alternatives) and not getattr(fn, "exact_alternatives", False):
        return Unknown(value.reason)
    return value


def _over_options(
    env: Env, ref: str, value: Alternatives, verdict: Callable[[Any], bool | None]
) -> bool | None:
    """The verdict when it is the same for every option, else None (reported as unknown)."""
    results = {verdict(option) for option in value.options}
    if len(results) == 1 and None not in results:
        env.decided.setdefault(ref, value)
        return results.pop()
    env.unknown(ref, value)
    return None


@cache
def _path(ref: str) -> tuple[str, ...]:
    return tuple(ref.split("."))


Compiled = Callable[[Env], bool | None]


def evaluate(cond: dict[str, Any], env: Env) -> bool | None:
    """Three-valued: True, False, or None when it depends on an unknown value."""
    return compile_condition(cond)(env)


def compile_condition(cond: dict[str, Any]) -> Compiled:
    """The condition as a function of an :class:`Env`, built once per policy rather than
    interpreted per record (a 10,000-file scan evaluates tens of thousands of them).

    Every operand of ``all``/``any`` is evaluated (no short cut), so the undetermined report
    lists every unknown value a verdict depended on."""
    ((op, arg),) = cond.items()
    if op in ("all", "any"):
        parts = [compile_condition(c) for c in arg]
        decisive = op == "any"  # True decides "any", False decides "all"

        def combine(env: Env) -> bool | None:
            results = [part(env) for part in parts]
            if decisive in results:
                return decisive
            return None if None in results else not decisive

        return combine
    if op == "not":
        inner = compile_condition(arg)

        def negate(env: Env) -> bool | None:
            verdict = inner(env)
            return None if verdict is None else not verdict

        return negate
    if op in UNARY:
        return _unary(op, arg)
    return _binary(op, arg[0], arg[1])


def _unary(op: str, ref: str) -> Compiled:
    def known(value: Any) -> bool:
        if op == "exists":
            return value is not None and value is not False
        if op == "missing":
            return value is None
        return value is True

    def test(env: Env) -> bool | None:
        value = env.ref(ref)
        if isinstance(value, Alternatives):
            return _over_options(env, ref, value, known)
        if isinstance(value, Unknown):
            env.unknown(ref, value)
            return None
        return known(value)

    return test


def _binary(op: str, ref: str, operand: Any) -> Compiled:
    def known(value: Any, target: Any) -> bool | None:
        if value is None:
            return op in ("not_equals", "not_in")
        return _compare(op, value, target)

    def test(env: Env) -> bool | None:
        value = env.ref(ref)
        target = env.param(operand)
        if isinstance(value, Alternatives):
            return _over_options(env, ref, value, lambda option: known(option, target))
        if isinstance(value, Unknown):
            env.unknown(ref, value)
            return None
        return known(value, target)

    return test


def _compare(op: str, value: Any, target: Any) -> bool | None:
    if op == "equals":
        return bool(value == target)
    if op == "not_equals":
        return bool(value != target)
    if op in ("in", "not_in"):
        hit = value in (target or [])
        return hit if op == "in" else not hit
    if op == "matches":
        return isinstance(value, str) and re.search(str(target), bounded(value)) is not None
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
        if isinstance(value, Alternatives):
            return value.shown(spec or "")
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
