"""Terraform values that are one of a few alternatives (``var.big ? "p5.48xlarge" : "g5.xlarge"``):
computing from them option by option, or demoting them to a plain Unknown where the code that
receives them is not written for alternatives. See docs/terraform.md ("Conditionals")."""

from __future__ import annotations

import copy
import itertools
from typing import Any, Callable

from finlint.ir import Alternatives, Unknown, alternatives, plain_unknown

MAX_DEPTH = 64


class EvalError(Exception):
    """An expression that Terraform itself would reject (missing key, wrong type)."""


def contains_unknown(value: Any) -> bool:
    """Whether ``value`` holds an Unknown at any depth (too deep to tell counts as one)."""
    return _contains(value, Unknown, too_deep=True)


def _contains(value: Any, kind: type, too_deep: bool, depth: int = 0) -> bool:
    if isinstance(value, kind):
        return True
    if depth > MAX_DEPTH:
        return too_deep
    if isinstance(value, dict):
        return any(_contains(v, kind, too_deep, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_contains(v, kind, too_deep, depth + 1) for v in value)
    return False


def lift(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn`` over the arguments, option by option where some are
    :class:`~finlint.ir.Alternatives` (every combination: a superset of what the branches can
    give, so a verdict shared by all of them is sound). A plain Unknown argument, or an option
    ``fn`` rejects, makes the result a plain Unknown; so does a result that is not a scalar."""
    plain = next((a for a in args if isinstance(a, Unknown) and not isinstance(a, Alternatives)), None)
    if plain is not None:
        return plain
    alts = [a for a in args if isinstance(a, Alternatives)]
    if not alts:
        return fn(*args)
    reason = alts[0].reason
    choices = [a.options if isinstance(a, Alternatives) else (a,) for a in args]
    results: list[Any] = []
    for combination in itertools.product(*choices):
        try:
            results.append(fn(*combination))
        except (EvalError, TypeError, ValueError, ArithmeticError, LookupError):
            return Unknown(reason)
    return alternatives(results, reason)


def demote(value: Any, depth: int = 0) -> Any:
    """``value`` with every :class:`~finlint.ir.Alternatives` in it (at any depth) a plain
    Unknown: for values handed to code that has not been written for alternatives (embedded
    manifests, Helm values, Step Functions definitions). Copies only what changes."""
    if isinstance(value, Alternatives):
        return plain_unknown(value)
    if depth > MAX_DEPTH or not contains_alternatives(value):
        return value
    out = copy.copy(value)  # keeps LineDict / LineList lines
    if isinstance(out, dict):
        for k in list(out):
            out[k] = demote(out[k], depth + 1)
    elif isinstance(out, list):
        for i, v in enumerate(out):
            out[i] = demote(v, depth + 1)
    return out


def contains_alternatives(value: Any) -> bool:
    """Whether ``value`` holds alternatives at any depth (too deep to tell: no)."""
    return _contains(value, Alternatives, too_deep=False)


def is_option(value: Any) -> bool:
    """A value a conditional's branch can contribute as an alternative: a scalar, null, or
    alternatives of them (never a list or a map, never a plain Unknown)."""
    if isinstance(value, Unknown):
        return isinstance(value, Alternatives)
    return value is None or isinstance(value, (str, int, float, bool))
