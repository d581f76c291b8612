"""What the abstract interpreter binds names to: scopes, functions and classes it may follow."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from finlint.loaders.sagemaker_sdk.values import (
    Ref,
)


class Scope:
    """Names visible in a module, class or function body; lookups fall back to the parent."""

    def __init__(self, parent: Scope | None, kind: str, name: str) -> None:
        self.parent = parent
        self.kind = kind  # module | class | function
        self.name = name
        self.vars: dict[str, Any] = {}

    def lookup(self, name: str) -> Any:
        scope: Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return scope.vars[name]
            scope = scope.parent
            while scope is not None and scope.kind == "class":
                scope = scope.parent  # class bodies are not visible from methods
        raise KeyError(name)


@dataclass(eq=False)
class FuncVal:
    """A function defined in the file; its body is walked once, its return value remembered."""

    node: ast.FunctionDef | ast.AsyncFunctionDef
    parent: Scope
    context: tuple[str, ...]  # enclosing function / class names
    is_test: bool
    state: str = "pending"  # pending | running | done
    returns: list[Any] = field(default_factory=list)
    result: Any = None


@dataclass(eq=False)
class ClassVal:
    """A class defined in the file (its body's constants are readable as ``Class.NAME``)."""

    name: str
    scope: Scope
    sdk_base: Ref | None = None  # an SDK class it extends (``class MyEstimator(PyTorch)``)
