"""Loops in launch scripts: the loop variable over a few known values, and how often a launch runs.

``for itype in ["ml.g5.2xlarge", "ml.p4d.24xlarge"]: PyTorch(instance_type=itype, ...).fit()``
starts two jobs, one per value. The body is still interpreted once, but the loop variable is
bound to :func:`finlint.ir.alternatives` of the iterable's items (2..8 distinct literals; one is
just the value; more, or items that are not literals, keep ``Unknown("loop variable")``), so a
rule that gives the same verdict for every item is decided. A tuple target takes each column's
alternatives (``for name, itype in [("a", "ml.g5.xlarge"), ...]``): the pairing between columns
is lost, which is conservative since each column alone is still one of its values.

Iterables read: a list/tuple/set literal, a name bound to one and never mutated in the file
(``.append``, ``x[i] = ...``, ``x += ...``), ``range`` of literal ints, ``enumerate`` and ``zip``
of those. Anything else (an attribute, a call, a config value) has an unknown trip count and an
unknown variable, as before.

Multiplicity: a ``fit()``/``train()``/``create_training_job`` executed in loops of known trip
counts runs their product of times. The count is unknown inside a ``while`` loop, a
comprehension, a loop over anything else, a loop with ``break``/``continue``/``return``, or
under an ``if`` (or ``except``) inside the loop that the interpreter could not decide.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from finlint.ir import MAX_ALTERNATIVES, Unknown, alternatives
from finlint.loaders.sagemaker_sdk.folding import text_of
from finlint.loaders.sagemaker_sdk.values import Ref

if TYPE_CHECKING:
    from finlint.loaders.sagemaker_sdk.interp import Interpreter
    from finlint.loaders.sagemaker_sdk.scope import Scope

#: Longer loops have an unknown trip count (a ``range(10**9)`` is not a count to multiply by).
MAX_TRIPS = 10_000
_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "clear", "add", "update", "discard"})
UNKNOWN_TRIPS = "the loop's trip count is unknown"


@dataclass
class LoopFrame:
    """A loop being interpreted: its trip count (None: unknown, with why) and source line."""

    trips: int | None
    line: int
    branch_depth: int  # undecided branches around the loop (a deeper one is inside it)
    why: str = ""


@dataclass(frozen=True)
class LaunchSite:
    """Where a launch runs from inside loops: how many times (None: unknown) and the loop lines."""

    count: int | None
    lines: tuple[int, ...]
    why: str = ""


def mutated_names(tree: ast.AST) -> frozenset[str]:
    """Names a file mutates in place somewhere: a list bound to them is not a literal to loop over."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _MUTATORS and isinstance(node.func.value, ast.Name):
                out.add(node.func.value.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            out.add(node.target.id)
        elif isinstance(node, (ast.Assign, ast.Delete, ast.AugAssign)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    out.add(target.value.id)
    return frozenset(out)


def exec_for(interp: Interpreter, stmt: ast.For | ast.AsyncFor, scope: Scope) -> None:
    """A ``for`` loop: the items of a literal iterable bind its target; its trip count is known."""
    items = _items(interp, stmt.iter, scope)
    exits = _early_exit(stmt.body)
    text = f"for {text_of(stmt.target)} in {text_of(stmt.iter)}"
    if items is None:
        frame = LoopFrame(None, stmt.lineno, interp.branch_depth, f"`{text}` is not over literal values")
    elif exits:
        frame = LoopFrame(None, stmt.lineno, interp.branch_depth, f"`{text}` may end early ({exits})")
    elif not items:
        frame = LoopFrame(None, stmt.lineno, interp.branch_depth, f"`{text}` runs over nothing")
    else:
        frame = LoopFrame(len(items), stmt.lineno, interp.branch_depth)
    reason = f"loop over `{text_of(stmt.iter)}`"

    def bind() -> None:
        if items:
            for target, value in _bindings(stmt.target, items, reason):
                interp.bind(target, value, scope, None)
        else:
            interp.bind(stmt.target, Unknown("loop variable"), scope, None)

    interp.exec_loop(stmt.body, stmt.orelse, scope, bind, frame)


def launch_site(interp: Interpreter) -> LaunchSite | None:
    """How many times a launch executed now runs (None outside loops of this function)."""
    frames = interp.loops
    if not frames:
        return None
    lines = tuple(f.line for f in frames)
    for frame in frames:
        if frame.trips is None:
            return LaunchSite(None, (frame.line,), frame.why)
    if interp.branch_depth > frames[0].branch_depth:
        return LaunchSite(None, lines, "the launch is under a condition inside the loop")
    count = 1
    for frame in frames:
        count *= frame.trips or 1
    return LaunchSite(count, lines) if count <= MAX_TRIPS else LaunchSite(None, lines, "too many trips")


def launches_of(sites: list[LaunchSite | None]) -> LaunchSite | None:
    """A launch's count over its sites: None when none is in a loop; the unknown one if any,
    else the largest (two sites may be alternatives of each other: never summed)."""
    looped = [s for s in sites if s is not None]
    if not looped:
        return None
    unknown = next((s for s in looped if s.count is None), None)
    if unknown is not None:
        return unknown
    return max(looped, key=lambda s: s.count or 0)


def _items(interp: Interpreter, node: ast.expr, scope: Scope) -> list[Any] | None:
    """The items a ``for`` runs over, when they are known one by one; evaluates ``node`` once."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in ("range", "enumerate", "zip")
        and not any(isinstance(a, ast.Starred) for a in node.args)
    ):
        callee = interp.eval(node.func, scope)
        if isinstance(callee, Ref) and callee.qualname == f"builtins.{node.func.id}":
            values = [interp.eval(a, scope) for a in node.args]
            keywords = {kw.arg: interp.eval(kw.value, scope) for kw in node.keywords}
            return _builtin_items(node.func.id, node.args, values, keywords, interp.mutated)
    return _literal(node, interp.eval(node, scope), interp.mutated)


def _builtin_items(
    name: str, nodes: list[ast.expr], values: list[Any], keywords: dict[Any, Any], mutated: frozenset[str]
) -> list[Any] | None:
    def ints(xs: list[Any]) -> bool:
        return all(isinstance(x, int) and not isinstance(x, bool) for x in xs)

    if name == "range":
        if keywords or not 1 <= len(values) <= 3 or not ints(values) or (len(values) == 3 and values[2] == 0):
            return None
        span = range(*values)
        return list(span) if len(span) <= MAX_TRIPS else None
    if name == "enumerate":
        if not 1 <= len(values) <= 2 or keywords.keys() - {"start"}:
            return None
        start = values[1] if len(values) == 2 else keywords.get("start", 0)
        items = _literal(nodes[0], values[0], mutated)
        if items is None or not ints([start]):
            return None
        return [(start + i, item) for i, item in enumerate(items)]
    if not values or keywords.keys() - {"strict"}:
        return None
    columns = [_literal(n, v, mutated) for n, v in zip(nodes, values, strict=True)]
    known = [c for c in columns if c is not None]
    if len(known) < len(columns):
        return None
    return [tuple(row) for row in zip(*known, strict=False)]


def _literal(node: ast.expr, value: Any, mutated: frozenset[str]) -> list[Any] | None:
    """Items of a sequence literal, or of a name bound to one the file never mutates."""
    if not isinstance(value, tuple):
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        return list(value)
    if isinstance(node, ast.Set):
        out: list[Any] = []
        for item in value:
            if isinstance(item, Unknown) or not isinstance(item, (str, int, float, type(None))):
                return None
            if item not in out:
                out.append(item)
        return out
    if isinstance(node, ast.Name) and node.id not in mutated:
        return list(value)
    return None


def _bindings(target: ast.expr, items: list[Any], reason: str) -> list[tuple[ast.expr, Any]]:
    """What each name of a ``for`` target is over ``items``: alternatives per column."""
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        width = len(target.elts)
        if all(isinstance(row, tuple) and len(row) == width for row in items):
            out: list[tuple[ast.expr, Any]] = []
            for i, elt in enumerate(target.elts):
                out.extend(_bindings(elt, [row[i] for row in items], reason))
            return out
        return [(target, Unknown("loop variable"))]
    if not isinstance(target, ast.Name):
        return [(target, Unknown("loop variable"))]
    return [(target, _column(items, reason))]


def _column(values: list[Any], reason: str) -> Any:
    scalars = all(v is None or isinstance(v, (str, int, float)) for v in values)
    if not scalars or len({(type(v).__name__, v) for v in values}) > MAX_ALTERNATIVES:
        return Unknown("loop variable")
    return alternatives(values, reason)


def _early_exit(body: list[ast.stmt]) -> str:
    """``break``/``continue`` of this loop, or a ``return``, anywhere in its body ('' if none)."""

    def walk(nodes: list[ast.AST], nested_loop: bool) -> str:
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(node, ast.Return):
                return "return"
            if isinstance(node, (ast.Break, ast.Continue)) and not nested_loop:
                return "break" if isinstance(node, ast.Break) else "continue"
            inner = nested_loop or isinstance(node, (ast.For, ast.AsyncFor, ast.While))
            found = walk(list(ast.iter_child_nodes(node)), inner)
            if found:
                return found
        return ""

    return walk(list(body), False)
