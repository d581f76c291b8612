"""The interpreter one hop further: helpers called with their arguments, ``self``, config files.

:class:`~.interp.Interpreter` walks each function once with its parameters unknown (that walk
finds the launches inside functions). This layer adds, without running anything:

- **call-site evaluation**: a call to a function of the file whose arguments (or ``self``) are
  known is evaluated again with them bound, in *shadow* mode (no launches recorded, only the
  return value kept), so ``Estimator(**build_args("ml.p5.48xlarge"))`` and
  ``PyTorch(**self._estimator_args())`` see the dict the helper builds. Depth and total work
  are bounded (:data:`MAX_CALL_DEPTH`, :data:`MAX_SHADOW_CALLS`); recursion gives Unknown.
- **instances**: ``Workflow(conf)`` evaluates ``__init__`` with ``conf`` bound and keeps the
  ``self.x = ...`` attributes; methods called on it (and the methods' own once-walk) see them.
  Static methods get no ``self``; class methods get the class.
- **config files** (:mod:`.sources`): ``open()``, ``yaml.safe_load``/``yaml.load``,
  ``json.load(s)``, ``OmegaConf.load``, ``tomllib.load``, with paths from literals,
  ``__file__``, ``Path(__file__).parent / "x"``, ``os.path.join/dirname/abspath``.
- **sibling modules**: ``from config import X`` / ``import settings`` resolved by walking the
  module file of the scanned tree (cycles and depth bounded).
- **``.get(key, default)``** on anything not known is Unknown, never the default; on a known
  mapping (dict, config, ``vars(args)``) it is the value or the default; ``getattr(args,
  "x", d)`` likewise.
"""

from __future__ import annotations

import ast
import posixpath
from dataclasses import replace
from typing import Any

from finlint.ir import Unknown
from finlint.loaders.sagemaker_sdk.folding import dotted, text_of
from finlint.loaders.sagemaker_sdk.interp import Interpreter
from finlint.loaders.sagemaker_sdk.scope import ClassVal, FuncVal, Scope
from finlint.loaders.sagemaker_sdk.sources import (
    FileVal,
    ModuleVal,
    PathVal,
    Sources,
    module_source,
)
from finlint.loaders.sagemaker_sdk.values import CallArgs, DictVal, NamespaceVal, Ref, fold_binop, merge

MAX_CALL_DEPTH = 4
MAX_SHADOW_CALLS = 400

#: Functions that parse an opened file or a path: qualified name -> (format, takes a path).
_LOADERS: dict[str, tuple[str | None, bool]] = {
    "yaml.safe_load": ("yaml", False),
    "yaml.load": ("yaml", False),
    "yaml.full_load": ("yaml", False),
    "json.load": ("json", False),
    "json.loads": ("json", False),
    "tomllib.load": ("toml", False),
    "tomli.load": ("toml", False),
    "toml.load": ("toml", True),
    "omegaconf.OmegaConf.load": (None, True),
}


class InstanceVal:
    """An object of a class defined in the file: attributes set through ``self``."""

    def __init__(self, cls: ClassVal) -> None:
        self.cls = cls
        self.attrs: dict[str, Any] = {}


class FollowingInterpreter(Interpreter):
    def __init__(self, is_test_file: bool = False, sources: Sources | None = None) -> None:
        super().__init__(is_test_file)
        self.sources = sources
        self.shadow = 0  # > 0 while evaluating a call for its value only
        self.call_stack: list[FuncVal] = []
        self.shadow_calls = 0
        self.class_of_scope: dict[int, ClassVal] = {}
        self.instances: dict[int, InstanceVal] = {}  # class scope id -> attributes of all instances
        self.blank_instances: dict[int, InstanceVal] = {}  # classes not instantiated in the file
        self.reading_module = False  # walking a sibling module for its constants only

    # -- statements --------------------------------------------------------------------------
    def exec_stmt(self, stmt: ast.stmt, scope: Scope) -> None:
        super().exec_stmt(stmt, scope)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) and self.sources is not None:
            self._resolve_imports(stmt, scope)

    def exec_def(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        if not self.shadow:
            super().exec_def(stmt, scope)
            return
        scope.vars[stmt.name] = FuncVal(stmt, scope, tuple(self.context), self.in_test)

    def exec_class(self, stmt: ast.ClassDef, scope: Scope) -> None:
        super().exec_class(stmt, scope)
        cls = scope.vars.get(stmt.name)
        if isinstance(cls, ClassVal):
            self.class_of_scope[id(cls.scope)] = cls

    def branch_objects(self, scope: Scope) -> list[Any]:
        """The instances named in ``scope`` and the scopes around it (``self`` in a method)."""
        found: dict[int, InstanceVal] = {}
        current: Scope | None = scope
        while current is not None:
            for value in current.vars.values():
                if isinstance(value, InstanceVal):
                    found.setdefault(id(value), value)
            current = current.parent
        return list(found.values())

    def bind(self, target: ast.expr, value: Any, scope: Scope, value_node: ast.expr | None) -> None:
        if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            try:
                obj = scope.lookup(target.value.id)
            except KeyError:
                obj = None
            if isinstance(obj, InstanceVal):
                obj.attrs[target.attr] = value
                return
        super().bind(target, value, scope, value_node)

    # -- functions ---------------------------------------------------------------------------
    def walk_function(self, func: FuncVal) -> Any:
        """The once-walk finds launches even when first reached from a value-only evaluation
        (it runs with the parameters unknown, so it does not depend on that call)."""
        if func.state != "pending" or not self.shadow or self.reading_module:
            return super().walk_function(func)
        saved = self.shadow
        self.shadow = 0
        try:
            return super().walk_function(func)
        finally:
            self.shadow = saved

    def bind_implicit(self, func: FuncVal, scope: Scope) -> None:
        """The once-walk of a method: ``self`` is the class's instances (their merged attributes)."""
        bound = self._implicit_first(func, None)
        params = func.node.args.posonlyargs + func.node.args.args
        if bound is not None and params:
            scope.vars[params[0].arg] = bound

    def _method_kind(self, func: FuncVal) -> str:
        kinds = {dotted(d) for d in func.node.decorator_list}
        if "staticmethod" in kinds:
            return "static"
        if "classmethod" in kinds:
            return "class"
        return "method"

    def _implicit_first(self, func: FuncVal, receiver: Any) -> Any:
        """What a method's first parameter is bound to (None: not a method / static)."""
        cls = self.class_of_scope.get(id(func.parent))
        if cls is None or not (func.node.args.posonlyargs + func.node.args.args):
            return None
        kind = self._method_kind(func)
        if kind == "static":
            return None
        if kind == "class":
            return cls
        if isinstance(receiver, InstanceVal):
            return receiver
        # The once-walk sees what the instances created so far set, on a copy: its own
        # assignments (from unknown parameters) must not overwrite them.
        view = InstanceVal(cls)
        shared = self.instances.get(id(cls.scope)) or self._blank_instance(cls)
        view.attrs = dict(shared.attrs)
        return view

    def _blank_instance(self, cls: ClassVal) -> InstanceVal:
        """A class never instantiated in this file: what ``__init__`` sets from literals."""
        found = self.blank_instances.get(id(cls.scope))
        if found is not None:
            return found
        blank = self.blank_instances[id(cls.scope)] = InstanceVal(cls)
        init = cls.scope.vars.get("__init__")
        if isinstance(init, FuncVal) and init not in self.call_stack and self.shadow_calls < MAX_SHADOW_CALLS:
            reason = f"a parameter of {cls.name}.__init__ (no {cls.name} is created in this file)"
            self.evaluate_call(init, CallArgs(0, 0), blank, unbound=reason)
        return blank

    def call_function(self, func: FuncVal, args: CallArgs, receiver: Any, node: ast.Call) -> Any:  # noqa: ARG002
        discovered = self.walk_function(func)
        first = self._implicit_first(func, receiver)
        known_args = bool(args.positional or args.keywords) or first is not None
        if (
            not known_args
            or func in self.call_stack
            or len(self.call_stack) >= MAX_CALL_DEPTH
            or self.shadow_calls >= MAX_SHADOW_CALLS
        ):
            return discovered
        return self.evaluate_call(func, args, first)

    def evaluate_call(self, func: FuncVal, args: CallArgs, first: Any, unbound: str | None = None) -> Any:
        """The function's return value with this call's arguments bound (no launches)."""
        self.shadow_calls += 1
        scope = Scope(func.parent, "function", func.node.name)
        self._bind_params(func, args, first, scope, unbound)
        frame = replace(func, returns=[], state="running")
        saved = (self.context, self.current_func, self.loop_depth, self.target_name)
        saved_loops = (self.loops, self.branch_depth)
        self.context = [*func.context, func.node.name]
        self.current_func = frame
        self.loop_depth, self.loops, self.branch_depth = 0, [], 0
        self.shadow += 1
        self.call_stack.append(func)
        try:
            self.exec_block(func.node.body, scope)
        finally:
            self.call_stack.pop()
            self.shadow -= 1
            self.context, self.current_func, self.loop_depth, self.target_name = saved
            self.loops, self.branch_depth = saved_loops
        result: Any = None
        for i, value in enumerate(frame.returns):
            result = value if i == 0 else merge(result, value, f"{func.node.name}() returns different values")
        return result

    def _bind_params(
        self, func: FuncVal, args: CallArgs, first: Any, scope: Scope, unbound_reason: str | None = None
    ) -> None:
        spec = func.node.args
        positional = spec.posonlyargs + spec.args
        values = list(args.positional)
        if first is not None and positional:
            scope.vars[positional[0].arg] = first
            positional = positional[1:]
        defaults: dict[str, ast.expr] = {}
        for param, default in zip(
            positional[len(positional) - len(spec.defaults) :], spec.defaults, strict=False
        ):
            defaults[param.arg] = default
        for param, kw_default in zip(spec.kwonlyargs, spec.kw_defaults, strict=False):
            if kw_default is not None:
                defaults[param.arg] = kw_default
        unbound = Unknown("may be passed through *args/**kwargs") if args.open else None
        for i, param in enumerate(positional + spec.kwonlyargs):
            if i < len(positional) and i < len(values):
                scope.vars[param.arg] = values[i]
            elif param.arg in args.keywords:
                scope.vars[param.arg] = args.keywords[param.arg][0]
            elif unbound is not None:
                scope.vars[param.arg] = unbound
            elif unbound_reason is not None:
                scope.vars[param.arg] = Unknown(f"'{param.arg}' is {unbound_reason}")
            elif param.arg in defaults:
                scope.vars[param.arg] = self.eval(defaults[param.arg], func.parent)
            else:
                scope.vars[param.arg] = Unknown(f"parameter '{param.arg}' of {func.node.name}() not passed")
        if spec.vararg:
            extra = values[len(positional) :]
            scope.vars[spec.vararg.arg] = tuple(extra) if not args.open else Unknown("*args")
        if spec.kwarg:
            names = {p.arg for p in positional + spec.kwonlyargs}
            rest = DictVal(
                {k: v for k, v in args.keywords.items() if k not in names},
                args.open,
                args.line,
                args.end_line,
            )
            scope.vars[spec.kwarg.arg] = rest

    # -- expressions -------------------------------------------------------------------------
    def eval(self, node: ast.expr, scope: Scope) -> Any:
        if isinstance(node, ast.Name) and node.id == "__file__" and self.sources is not None:
            try:
                return scope.lookup(node.id)
            except KeyError:
                return PathVal(posixpath.normpath(self.sources.script.resolve().as_posix()))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = self.eval(node.left, scope), self.eval(node.right, scope)
            if isinstance(left, PathVal):
                return _join_path(left, right)
            return fold_binop("Div", left, right, text_of(node))
        return super().eval(node, scope)

    def attribute_of(self, base: Any, attr: str, node: ast.Attribute) -> Any:
        if isinstance(base, InstanceVal):
            if attr in base.attrs:
                return base.attrs[attr]
            if attr in base.cls.scope.vars:
                return base.cls.scope.vars[attr]
            if id(base.cls.scope) not in self.instances:
                return Unknown(f"`{text_of(node)}`: no {base.cls.name} is created in this file")
            return Unknown(f"`{text_of(node)}` is not set in {base.cls.name}.__init__")
        if isinstance(base, ModuleVal):
            if attr in base.vars:
                return base.vars[attr]
            return Unknown(f"`{text_of(node)}`: {base.name} defines no {attr} statically")
        if isinstance(base, DictVal) and attr in base.entries:
            # ``cfg.training.instance_type``: OmegaConf/EasyDict/Box configs allow attribute
            # access to keys (on a plain dict it would fail at run time, so no other meaning)
            return base.entries[attr][0]
        if isinstance(base, PathVal):
            if attr == "parent":
                return PathVal(posixpath.dirname(base.path) or "/")
            if attr == "name":
                return posixpath.basename(base.path)
        return super().attribute_of(base, attr, node)

    def follow_call(
        self, callee: Any, method: str | None, args: CallArgs, node: ast.Call, scope: Scope
    ) -> Any:
        if method is None:
            if isinstance(callee, FuncVal):
                receiver: Any = None
                if isinstance(node.func, ast.Attribute):  # Class.method(...)
                    receiver = self.class_of_scope.get(id(callee.parent))
                return self.call_function(callee, args, receiver, node)
            if isinstance(callee, ClassVal) and callee.sdk_base is None:
                return self._instantiate(callee, args)
            if isinstance(callee, Ref):
                return self._ref_call(callee.qualname, args, node)
            return NotImplemented
        if isinstance(callee, InstanceVal):
            found = callee.attrs.get(method, callee.cls.scope.vars.get(method))
            if isinstance(found, FuncVal):
                return self.call_function(found, args, callee, node)
            return Unknown(f"result of `{text_of(node.func)}(...)`")
        if isinstance(callee, ModuleVal):
            if method in callee.vars:
                return Unknown(f"result of `{text_of(node.func)}(...)` (a function of {callee.name})")
            return Unknown(f"`{text_of(node.func)}` is not defined statically in {callee.name}")
        if isinstance(callee, (PathVal, FileVal)):
            return self._path_method(callee, method, args)
        if method == "get" and not isinstance(callee, DictVal):
            if isinstance(callee, NamespaceVal):
                return NotImplemented
            why = callee.reason if isinstance(callee, Unknown) and callee.reason else ""
            target = node.func.value if isinstance(node.func, ast.Attribute) else node.func
            return Unknown(
                f"`{text_of(node)}`: `{text_of(target)}` is not known statically"
                + (f" ({why})" if why else "")
                + ", so the default is not assumed"
            )
        return NotImplemented

    def _instantiate(self, cls: ClassVal, args: CallArgs) -> Any:
        instance = InstanceVal(cls)
        init = cls.scope.vars.get("__init__")
        if (
            isinstance(init, FuncVal)
            and init not in self.call_stack
            and len(self.call_stack) < MAX_CALL_DEPTH
            and self.shadow_calls < MAX_SHADOW_CALLS
        ):
            self.walk_function(init)
            self.evaluate_call(init, args, instance)
        shared = self.instances.get(id(cls.scope))
        if shared is None:
            shared = self.instances[id(cls.scope)] = InstanceVal(cls)
            shared.attrs = dict(instance.attrs)
        else:
            for key in set(shared.attrs) | set(instance.attrs):
                shared.attrs[key] = merge(
                    shared.attrs.get(key, Unknown(f"`self.{key}` is not set by every instance")),
                    instance.attrs.get(key, Unknown(f"`self.{key}` is not set by every instance")),
                    f"`self.{key}` differs between {cls.name} instances",
                )
        return instance

    def _ref_call(self, qualname: str, args: CallArgs, node: ast.Call) -> Any:
        """Library calls this layer models (``open``, config loaders, paths, ``getattr``, ``vars``)."""
        name = qualname.removeprefix("builtins.")
        first = args.positional[0] if args.positional else None
        if name == "getattr" and len(args.positional) >= 2 and isinstance(args.positional[1], str):
            obj, attr = args.positional[0], args.positional[1]
            default = args.positional[2] if len(args.positional) > 2 else Unknown(f"no attribute {attr!r}")
            if isinstance(obj, NamespaceVal):
                return obj.values.get(attr, default)
            if isinstance(obj, InstanceVal):
                return obj.attrs.get(attr, default)
            return Unknown(
                f"`{text_of(node)}`: the object is not known statically, so the default is not assumed"
            )
        if name == "vars" and isinstance(first, NamespaceVal):
            entries = {k: (v, node.lineno) for k, v in first.values.items()}
            return DictVal(entries, False, node.lineno, node.lineno)
        sources = self.sources
        if sources is None:
            return NotImplemented
        if name in _LOADERS or name.endswith("OmegaConf.load"):
            kind = _LOADERS.get(name, (None, True))[0]
            if first is None:
                return Unknown(f"`{text_of(node.func)}()` without a file")
            if isinstance(first, Unknown):
                return Unknown(f"`{text_of(node)}`: {first.reason or 'the file is not known statically'}")
            return sources.load_config(first, kind)
        if name == "open" and qualname.startswith("builtins."):
            path = sources.resolve(first if first is not None else Unknown("open() without a path"))
            return path if isinstance(path, Unknown) else FileVal(path)
        if name in ("pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath") and len(args.positional) == 1:
            return _as_path(first, sources)
        if name in ("os.path.dirname", "os.path.abspath", "os.path.realpath") and isinstance(first, PathVal):
            return PathVal(posixpath.dirname(first.path) or "/") if name.endswith("dirname") else first
        if name == "os.path.join" and isinstance(first, PathVal):
            out: Any = first
            for part in args.positional[1:]:
                out = _join_path(out, part)
            return out
        return NotImplemented

    def _path_method(self, receiver: PathVal | FileVal, method: str, args: CallArgs) -> Any:
        if isinstance(receiver, FileVal):
            return receiver if method in ("read", "__enter__") else Unknown(f"result of file.{method}()")
        if method in ("resolve", "absolute", "expanduser"):
            return receiver
        if method == "joinpath":
            out: Any = receiver
            for part in args.positional:
                out = _join_path(out, part)
            return out
        if method == "open":
            return FileVal(receiver.path)
        if method in ("read_text", "read_bytes"):
            return FileVal(receiver.path)
        return Unknown(f"result of Path.{method}()")

    # -- sibling modules ---------------------------------------------------------------------
    def _resolve_imports(self, stmt: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname is None and "." in alias.name:
                    continue  # `import a.b` binds `a`: keep the Ref
                module = self._module(alias.name, 0)
                if module is not None:
                    scope.vars[alias.asname or alias.name] = module
            return
        module = self._module(stmt.module or "", stmt.level) if (stmt.module or stmt.level) else None
        for alias in stmt.names:
            if alias.name == "*":
                continue
            local = alias.asname or alias.name
            if module is not None and alias.name in module.vars:
                scope.vars[local] = module.vars[alias.name]
            elif module is None and stmt.level and not stmt.module:
                sub = self._module(alias.name, stmt.level)  # from . import settings
                if sub is not None:
                    scope.vars[local] = sub

    def _module(self, dotted_name: str, level: int) -> ModuleVal | None:
        sources = self.sources
        if sources is None:
            return None
        path = sources.find_module(dotted_name, level)
        if path is None:
            return None
        key = path.resolve().as_posix()
        sources.inputs.add(sources.shown(key))  # a change to it changes this file's values
        if key in sources.modules:
            return sources.modules[key]
        if key in sources.importing or len(sources.importing) >= 4:
            return None  # an import cycle, or too deep: names stay unresolved
        sources.modules[key] = None
        tree = module_source(path)
        if tree is None:
            return None
        sub_sources = Sources(
            path, sources.shown(path.resolve().as_posix()), sources.modules, (*sources.importing, key)
        )
        sub_sources.files_read = sources.files_read
        sub_sources.inputs = sources.inputs
        walker = FollowingInterpreter(sources=sub_sources)
        walker.shadow = 1  # a module read for its names: no launches of its own are recorded here
        walker.reading_module = True
        module_scope = walker.run_module(tree)
        # Constants only: a function or class of another file is analysed when that file is
        # scanned, so its launches are never walked (or counted) from here.
        constants = {
            k: v
            for k, v in module_scope.vars.items()
            if not isinstance(v, (FuncVal, ClassVal, InstanceVal, Ref))
        }
        module = ModuleVal(dotted_name or path.stem, constants)
        sources.modules[key] = module
        return module


def _join_path(left: PathVal, right: Any) -> Any:
    if isinstance(right, PathVal):
        return right
    if isinstance(right, str):
        return PathVal(posixpath.normpath(posixpath.join(left.path, right)))
    return Unknown("a path joined with a value not known statically")


def _as_path(value: Any, sources: Sources | None) -> Any:
    if isinstance(value, PathVal):
        return value
    if isinstance(value, str) and sources is not None:
        resolved = sources.resolve(value)
        return PathVal(resolved) if isinstance(resolved, str) else resolved
    return Unknown("a path not known statically")


__all__ = ["FollowingInterpreter", "InstanceVal"]
