"""A small abstract interpreter over a module's ``ast``: scopes, statements in order, branches.

Why: "names bound once" is not enough for real launch scripts (``kwargs["max_run"] = ...``
after ``kwargs = dict(...)``, helpers that return an estimator, argparse in ``parse_args()``).
Statements run in source order; an ``if`` whose test is unknown runs both branches and merges
(a name assigned differently becomes Unknown); loops run once (a loop over literals binds its
variable to their alternatives and knows its trip count: :mod:`.loops`). Functions are walked lazily at
their first call (so they see the module state of that moment) and otherwise at the end, each
exactly once. The SDK-specific meaning of calls lives in a subclass (``sagemaker_sdk_launch``).
"""

from __future__ import annotations

import ast
from typing import Any, Callable

from finlint.ir import Unknown
from finlint.loaders.sagemaker_sdk import loops
from finlint.loaders.sagemaker_sdk.folding import (
    BUILTINS,
    builtin_call,
    dict_method,
    dotted,
    fold_unary,
    merge_vars,
    str_format,
    target_name,
    text_of,
    truthy,
)
from finlint.loaders.sagemaker_sdk.scope import ClassVal, FuncVal, Scope
from finlint.loaders.sagemaker_sdk.values import (
    MAX_STR,
    TOO_LARGE,
    CallArgs,
    ConfigVal,
    DictVal,
    NamespaceVal,
    PartialStr,
    Ref,
    fold_binop,
    fold_compare,
    is_known_scalar,
    merge,
    one_of,
    partial_template,
    same,
    text_value,
)


class Interpreter:
    """Walks a module; subclasses give meaning to calls via :meth:`model_call`."""

    def __init__(self, is_test_file: bool = False) -> None:
        self.pending: list[FuncVal] = []
        self.context: list[str] = []  # enclosing function/class names
        self.in_test = is_test_file
        self.loop_depth = 0
        self.target_name: str | None = None  # name the current statement assigns to
        self.current_func: FuncVal | None = None
        self.loops: list[loops.LoopFrame] = []  # the loops around this statement, in this function
        self.branch_depth = 0  # undecided branches around this statement
        self.mutated: frozenset[str] = frozenset()  # names mutated in place (not literal lists)
        self.notices: list[tuple[int, str]] = []  # (line, message), reported by the loader
        self.over_budget = False  # a string past MAX_STR was not folded (said once per file)

    # -- entry -------------------------------------------------------------------------
    def run_module(self, tree: ast.Module) -> Scope:
        module = Scope(None, "module", "<module>")
        self.mutated = loops.mutated_names(tree)
        self.exec_block(tree.body, module)
        while self.pending:
            func = self.pending.pop(0)
            if func.state == "pending":
                self.walk_function(func)
        return module

    def budgeted(self, value: Any, node: ast.expr) -> Any:
        """``value``; the first string of the file too large to fold is said in a notice."""
        if isinstance(value, Unknown) and (value.reason or "").endswith(TOO_LARGE) and not self.over_budget:
            self.over_budget = True
            self.notices.append(
                (
                    node.lineno,
                    f"`{text_of(node)[:60]}` is too large to evaluate (a string over {MAX_STR:,} "
                    "characters or a huge number); values built from it are unknown",
                )
            )
        return value

    # -- hooks for subclasses ------------------------------------------------------------
    def model_call(
        self, callee: Any, method: str | None, args: CallArgs, node: ast.Call, scope: Scope
    ) -> Any:
        """Meaning of a call: ``callee`` is the evaluated function (or receiver when
        ``method`` is set). Return ``NotImplemented`` to fall back to the generic handling."""
        return NotImplemented

    def on_function(self, func: FuncVal, decorators: list[tuple[Any, ast.expr]]) -> None:
        """Called when a ``def`` is executed, with its evaluated decorators."""

    # -- statements ----------------------------------------------------------------------
    def exec_block(self, stmts: list[ast.stmt], scope: Scope) -> None:
        for stmt in stmts:
            try:
                self.exec_stmt(stmt, scope)
            except RecursionError:
                continue  # absurdly nested expression: skip the statement, keep going

    def exec_stmt(self, stmt: ast.stmt, scope: Scope) -> None:  # noqa: C901 - a dispatch table
        if isinstance(stmt, ast.Assign):
            value = self.eval_named(stmt.value, scope, target_name(stmt.targets[0]))
            for target in stmt.targets:
                self.bind(target, value, scope, stmt.value)
        elif isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                value = self.eval_named(stmt.value, scope, target_name(stmt.target))
                self.bind(stmt.target, value, scope, stmt.value)
        elif isinstance(stmt, ast.AugAssign):
            current = self.eval(stmt.target, scope) if isinstance(stmt.target, ast.Name) else Unknown()
            right = self.eval(stmt.value, scope)
            value = fold_binop(type(stmt.op).__name__, current, right, text_of(stmt))
            self.bind(stmt.target, value, scope, stmt.value)
        elif isinstance(stmt, ast.Expr):
            self.eval(stmt.value, scope)
        elif isinstance(stmt, ast.If):
            self.exec_if(stmt, scope)
        elif isinstance(stmt, (ast.For, ast.AsyncFor)):
            loops.exec_for(self, stmt, scope)
        elif isinstance(stmt, ast.While):
            self.eval(stmt.test, scope)
            frame = loops.LoopFrame(None, stmt.lineno, self.branch_depth, "a `while` loop")
            self.exec_loop(stmt.body, stmt.orelse, scope, None, frame)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                name = target_name(item.optional_vars) if item.optional_vars is not None else None
                value = self.eval_named(item.context_expr, scope, name)
                if item.optional_vars is not None:
                    self.bind(item.optional_vars, value, scope, item.context_expr)
            self.exec_block(stmt.body, scope)
        elif isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
            self.exec_try(stmt, scope)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self.exec_def(stmt, scope)
        elif isinstance(stmt, ast.ClassDef):
            self.exec_class(stmt, scope)
        elif isinstance(stmt, ast.Return):
            value = self.eval_named(stmt.value, scope, None) if stmt.value is not None else None
            if self.current_func is not None:
                self.current_func.returns.append(value)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    scope.vars[alias.asname] = Ref(alias.name)
                else:
                    top = alias.name.split(".", 1)[0]
                    scope.vars[top] = Ref(top)
        elif isinstance(stmt, ast.ImportFrom):
            base = "." * stmt.level + (stmt.module or "")
            for alias in stmt.names:
                if alias.name != "*":
                    scope.vars[alias.asname or alias.name] = Ref(f"{base}.{alias.name}")
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    scope.vars.pop(target.id, None)
        elif isinstance(stmt, ast.Match):
            self.eval(stmt.subject, scope)
            self.exec_branches([case.body for case in stmt.cases] + [[]], scope, "match statement")
        else:  # Raise, Assert, Global, Pass, Break, ...: evaluate expressions for launches
            for child in ast.iter_child_nodes(stmt):
                if isinstance(child, ast.expr):
                    self.eval(child, scope)

    def exec_if(self, stmt: ast.If, scope: Scope) -> None:
        test = self.eval(stmt.test, scope)
        if is_known_scalar(test) or isinstance(test, (tuple, DictVal)):
            self.exec_block(stmt.body if truthy(test) else stmt.orelse, scope)
            return
        self.exec_branches(
            [stmt.body, stmt.orelse], scope, f"assigned differently under `if {text_of(stmt.test)}`"
        )

    def exec_branches(self, bodies: list[list[ast.stmt]], scope: Scope, reason: str) -> None:
        saved = dict(scope.vars)
        objects = self.branch_objects(scope)
        saved_attrs = [dict(obj.attrs) for obj in objects]
        results: list[dict[str, Any]] = []
        attr_results: list[list[dict[str, Any]]] = []
        self.branch_depth += 1
        try:
            for body in bodies:
                scope.vars = dict(saved)
                for obj, attrs in zip(objects, saved_attrs, strict=True):
                    obj.attrs = dict(attrs)
                self.exec_block(body, scope)
                results.append(scope.vars)
                attr_results.append([obj.attrs for obj in objects])
        finally:
            self.branch_depth -= 1
        scope.vars = merge_vars(results, reason)
        for i, obj in enumerate(objects):  # `self.x = ...` on some branches: merged like names
            obj.attrs = merge_vars([branch[i] for branch in attr_results], reason)

    def exec_loop(
        self,
        body: list[ast.stmt],
        orelse: list[ast.stmt],
        scope: Scope,
        bind: Callable[[], None] | None,
        frame: loops.LoopFrame,
    ) -> None:
        saved = dict(scope.vars)
        objects = self.branch_objects(scope)
        saved_attrs = [dict(obj.attrs) for obj in objects]
        if bind is not None:
            bind()  # the loop variable (alternatives over a literal iterable, else unknown)
        self.loop_depth += 1
        self.loops.append(frame)
        try:
            self.exec_block(body, scope)
        finally:
            self.loop_depth -= 1
            self.loops.pop()
        scope.vars = merge_vars([saved, scope.vars], "assigned in a loop")
        for obj, attrs in zip(objects, saved_attrs, strict=True):
            obj.attrs = merge_vars([attrs, obj.attrs], "assigned in a loop")
        self.exec_block(orelse, scope)

    def exec_try(self, stmt: Any, scope: Scope) -> None:
        self.exec_block(stmt.body, scope)
        bodies = [h.body for h in stmt.handlers] + [stmt.orelse]
        self.exec_branches(bodies, scope, "assigned differently in try/except")
        self.exec_block(stmt.finalbody, scope)

    def exec_def(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope) -> None:
        decorators = [(self.eval(d, scope), d) for d in stmt.decorator_list]
        for arg in stmt.args.defaults + [d for d in stmt.args.kw_defaults if d is not None]:
            self.eval(arg, scope)
        is_test = (
            self.in_test
            or stmt.name.startswith("test")
            or any(dotted(getattr(d, "func", d)).endswith("fixture") for _, d in decorators)
        )
        func = FuncVal(stmt, scope, tuple(self.context), is_test)
        scope.vars[stmt.name] = func
        self.pending.append(func)
        self.on_function(func, decorators)

    def exec_class(self, stmt: ast.ClassDef, scope: Scope) -> None:
        bases = [self.eval(b, scope) for b in stmt.bases]
        for kw in stmt.keywords:
            self.eval(kw.value, scope)
        for d in stmt.decorator_list:
            self.eval(d, scope)
        class_scope = Scope(scope, "class", stmt.name)
        sdk_base = next((b for b in bases if isinstance(b, Ref)), None)
        inherited = next((b.sdk_base for b in bases if isinstance(b, ClassVal) and b.sdk_base), None)
        cls = ClassVal(stmt.name, class_scope, sdk_base or inherited)
        saved_test = self.in_test
        self.in_test = (
            self.in_test
            or stmt.name.startswith("Test")
            or any(dotted(b).endswith("TestCase") for b in stmt.bases)
        )
        self.context.append(stmt.name)
        try:
            self.exec_block(stmt.body, class_scope)
        finally:
            self.context.pop()
            self.in_test = saved_test
        scope.vars[stmt.name] = cls

    def walk_function(self, func: FuncVal) -> Any:
        if func.state == "done":
            return func.result
        if func.state == "running":
            return Unknown(f"recursive call of {func.node.name}()")
        func.state = "running"
        scope = Scope(func.parent, "function", func.node.name)
        args = func.node.args
        for arg in args.posonlyargs + args.args + args.kwonlyargs:
            scope.vars[arg.arg] = Unknown(f"parameter '{arg.arg}' of {func.node.name}()")
        if args.vararg:
            scope.vars[args.vararg.arg] = Unknown(f"parameter '*{args.vararg.arg}'")
        if args.kwarg:
            scope.vars[args.kwarg.arg] = Unknown(f"parameter '**{args.kwarg.arg}'")
        self.bind_implicit(func, scope)
        saved = (self.context, self.in_test, self.current_func, self.loop_depth, self.target_name)
        saved_loops = (self.loops, self.branch_depth)  # a launch in a helper is one launch
        self.context = [*func.context, func.node.name]
        self.in_test = func.is_test
        self.current_func = func
        self.loop_depth, self.loops, self.branch_depth = 0, [], 0
        try:
            self.exec_block(func.node.body, scope)
        finally:
            self.context, self.in_test, self.current_func, self.loop_depth, self.target_name = saved
            self.loops, self.branch_depth = saved_loops
        func.state = "done"
        result: Any = None
        for i, value in enumerate(func.returns):
            result = value if i == 0 else merge(result, value, f"{func.node.name}() returns different values")
        func.result = result
        return result

    def bind_implicit(self, func: FuncVal, scope: Scope) -> None:
        """Hook: bind a method's ``self``/``cls`` in its once-walk (see :mod:`.calls`)."""

    def branch_objects(self, scope: Scope) -> list[Any]:
        """Hook: objects with an ``attrs`` dict that statements in ``scope`` may assign to
        (``self.x = ...``); a branch or a loop sets them like names (see :mod:`.calls`)."""
        return []

    def follow_call(
        self, callee: Any, method: str | None, args: CallArgs, node: ast.Call, scope: Scope
    ) -> Any:
        """Hook: a call :meth:`model_call` left alone; ``NotImplemented`` for the generic handling."""
        return NotImplemented

    # -- binding -------------------------------------------------------------------------
    def bind(self, target: ast.expr, value: Any, scope: Scope, value_node: ast.expr | None) -> None:
        if isinstance(target, ast.Name):
            scope.vars[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            starred = any(isinstance(e, ast.Starred) for e in target.elts)
            items = (
                value if isinstance(value, tuple) and len(value) == len(target.elts) and not starred else None
            )
            for i, elt in enumerate(target.elts):
                inner = elt.value if isinstance(elt, ast.Starred) else elt
                self.bind(inner, items[i] if items is not None else Unknown("unpacked value"), scope, None)
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            try:
                container = scope.lookup(target.value.id)
            except KeyError:
                return
            if isinstance(container, DictVal):  # kwargs["max_run"] = ...: a new dict, rebound
                key = self.eval(target.slice, scope)
                updated = container.copy()
                if is_known_scalar(key):
                    updated.entries[key] = (value, target.lineno)
                else:
                    updated.open = True
                scope.vars[target.value.id] = updated
        elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
            try:
                obj = scope.lookup(target.value.id)
            except KeyError:
                return
            if isinstance(obj, ConfigVal):  # compute.enable_managed_spot_training = True
                args = CallArgs(
                    obj.args.line,
                    obj.args.end_line,
                    list(obj.args.positional),
                    dict(obj.args.keywords),
                    obj.args.open,
                    obj.args.open_reason,
                )
                args.keywords[target.attr] = (value, target.lineno)
                scope.vars[target.value.id] = ConfigVal(obj.kind, obj.class_name, args)
            else:
                self.on_attribute_assign(obj, target.attr, value, target.lineno)

    def on_attribute_assign(self, obj: Any, attr: str, value: Any, line: int) -> None:
        """``est.max_run = 7200`` after construction; subclasses may record it."""

    # -- expressions ---------------------------------------------------------------------
    def eval_named(self, node: ast.expr, scope: Scope, name: str | None) -> Any:
        saved = self.target_name
        self.target_name = name
        try:
            return self.eval(node, scope)
        finally:
            self.target_name = saved

    def eval(self, node: ast.expr, scope: Scope) -> Any:  # noqa: C901 - a dispatch table
        if isinstance(node, ast.Constant):
            value = node.value
            return value if is_known_scalar(value) else Unknown("non-scalar constant")
        if isinstance(node, ast.Name):
            try:
                return scope.lookup(node.id)
            except KeyError:
                if node.id in BUILTINS:
                    return Ref(f"builtins.{node.id}")
                return Unknown(f"'{node.id}' is not defined in this file")
        if isinstance(node, ast.Attribute):
            return self.eval_attribute(node, scope)
        if isinstance(node, ast.BinOp):
            left, right = self.eval(node.left, scope), self.eval(node.right, scope)
            return self.budgeted(fold_binop(type(node.op).__name__, left, right, text_of(node)), node)
        if isinstance(node, ast.UnaryOp):
            operand = self.eval(node.operand, scope)
            return fold_unary(node, operand)
        if isinstance(node, ast.BoolOp):
            return self.eval_boolop(node, scope)
        if isinstance(node, ast.Compare):
            left = self.eval(node.left, scope)
            result: Any = True
            for op, comparator in zip(node.ops, node.comparators, strict=False):
                right = self.eval(comparator, scope)
                step = fold_compare(type(op).__name__, left, right, text_of(node))
                if isinstance(step, Unknown) or result is True:
                    result = step
                left = right
            return result
        if isinstance(node, ast.IfExp):
            return self.eval_ifexp(node, scope)
        if isinstance(node, ast.Dict):
            return self.eval_dict(node, scope)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            items = [self.eval(e, scope) for e in node.elts]
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return Unknown("sequence with *unpacking")
            return tuple(items)
        if isinstance(node, ast.JoinedStr):
            return self.budgeted(self.eval_fstring(node, scope), node)
        if isinstance(node, ast.Subscript):
            return self.eval_subscript(node, scope)
        if isinstance(node, ast.Call):
            return self.eval_call(node, scope)
        if isinstance(node, ast.NamedExpr):
            value = self.eval(node.value, scope)
            self.bind(node.target, value, scope, node.value)
            return value
        if isinstance(node, ast.Await):
            return self.eval(node.value, scope)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = Scope(scope, "function", "<comprehension>")
            for gen in node.generators:
                self.eval(gen.iter, inner)
                self.bind(gen.target, Unknown("comprehension variable"), inner, None)
                for cond in gen.ifs:
                    self.eval(cond, inner)
            elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            self.loop_depth += 1
            self.loops.append(loops.LoopFrame(None, node.lineno, self.branch_depth, "a comprehension"))
            try:
                for elt in elts:
                    self.eval(elt, inner)
            finally:
                self.loop_depth -= 1
                self.loops.pop()
            return Unknown("comprehension")
        if isinstance(node, ast.Lambda):
            return Unknown("lambda")
        for child in ast.iter_child_nodes(node):  # Starred, Slice, FormattedValue...: side effects
            if isinstance(child, ast.expr):
                self.eval(child, scope)
        return Unknown(f"`{text_of(node)}` is not evaluated statically")

    def eval_attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        base = self.eval(node.value, scope)
        if isinstance(base, Ref):
            return Ref(f"{base.qualname}.{node.attr}")
        if isinstance(base, NamespaceVal):
            if node.attr in base.values:
                return base.values[node.attr]
            return Unknown(f"`{text_of(node)}` is not an argument defined in this file")
        if isinstance(base, ClassVal):
            if node.attr in base.scope.vars:
                return base.scope.vars[node.attr]
            if base.sdk_base is not None:
                return Ref(f"{base.sdk_base.qualname}.{node.attr}")
        if isinstance(base, ConfigVal) and node.attr in base.args.keywords:
            return base.args.keywords[node.attr][0]
        return self.attribute_of(base, node.attr, node)

    def attribute_of(self, base: Any, attr: str, node: ast.Attribute) -> Any:
        """Attribute of a tracked object; subclasses add SDK objects."""
        return Unknown(f"`{text_of(node)}` is not known statically")

    def eval_boolop(self, node: ast.BoolOp, scope: Scope) -> Any:
        values = [self.eval(v, scope) for v in node.values]
        is_or = isinstance(node.op, ast.Or)
        for value in values[:-1]:
            if not (is_known_scalar(value) or isinstance(value, tuple)):
                return Unknown(f"`{text_of(node)}` depends on a value not known statically")
            if truthy(value) == is_or:
                return value
        return values[-1]

    def eval_ifexp(self, node: ast.IfExp, scope: Scope) -> Any:
        test = self.eval(node.test, scope)
        if is_known_scalar(test) or isinstance(test, tuple):
            return self.eval(node.body if truthy(test) else node.orelse, scope)
        body, orelse = self.eval(node.body, scope), self.eval(node.orelse, scope)
        if same(body, orelse):
            return body
        reason = f"depends on `{text_of(node.test)}`"
        alternatives = one_of(body, orelse, reason)
        return Unknown(reason) if alternatives is None else alternatives

    def eval_dict(self, node: ast.Dict, scope: Scope) -> DictVal:
        out = DictVal(line=node.lineno, end_line=node.end_lineno or node.lineno)
        for key_node, value_node in zip(node.keys, node.values, strict=False):
            value = self.eval(value_node, scope)
            if key_node is None:  # {**other}
                self.merge_into(
                    out, value, value_node.lineno, "dict unpacked from a value not known statically"
                )
                continue
            key = self.eval(key_node, scope)
            if is_known_scalar(key):
                out.entries[key] = (value, key_node.lineno)
            else:
                out.open = True
        return out

    @staticmethod
    def merge_into(out: DictVal, value: Any, line: int, reason: str) -> None:
        if isinstance(value, DictVal):
            out.entries.update(value.entries)
            out.open = out.open or value.open
        else:  # an unknown mapping may override every key set so far
            for key, (_, at) in list(out.entries.items()):
                out.entries[key] = (Unknown(reason), at)
            out.open = True

    def eval_fstring(self, node: ast.JoinedStr, scope: Scope) -> Any:
        parts: list[str] = []
        known = True
        for part in node.values:  # each value is at most MAX_STR: the join is checked once
            if isinstance(part, ast.Constant):
                parts.append(str(part.value))
            elif isinstance(part, ast.FormattedValue):
                value = self.eval(part.value, scope)
                if part.format_spec is not None or part.conversion not in (-1, None):
                    known = False
                    parts.append("{" + text_of(part.value) + "}")
                    continue
                if isinstance(value, (str, int, float)) and not isinstance(value, bool):
                    parts.append(str(value))
                else:
                    known = False
                    parts.append(partial_template(value, text_of(part.value)))
        return text_value("".join(parts), known, text_of(node))

    def eval_subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        base = self.eval(node.value, scope)
        key = self.eval(node.slice, scope)
        if isinstance(base, DictVal) and is_known_scalar(key):
            found = base.lookup(key, node.lineno)
            if found is not None:
                return found[0]
            return Unknown(f"`{text_of(node)}`: no such key")
        index_ok = isinstance(key, int) and not isinstance(key, bool)
        if isinstance(base, tuple) and index_ok and -len(base) <= key < len(base):
            return base[key]
        if isinstance(base, Unknown) and base.reason and base.reason.startswith(("config file", "`")):
            return Unknown(f"`{text_of(node)}`: {base.reason}")  # say why the container is unknown
        return Unknown(f"`{text_of(node)}` is not known statically")

    def eval_args(self, node: ast.Call, scope: Scope) -> CallArgs:
        args = CallArgs(node.lineno, node.end_lineno or node.lineno)
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                self.eval(arg.value, scope)
                args.open, args.open_reason = True, f"*{text_of(arg.value)} is not known statically"
                continue
            args.positional.append(self.eval(arg, scope))
        spread: list[tuple[Any, ast.keyword]] = []
        for kw in node.keywords:
            value = self.eval(kw.value, scope)
            if kw.arg is None:
                spread.append((value, kw))
            else:
                args.keywords[kw.arg] = (value, kw.lineno)
        for value, kw in spread:  # explicit keywords win over **kwargs
            if isinstance(value, DictVal):
                for key, entry in value.entries.items():
                    if isinstance(key, str) and key not in args.keywords:
                        args.keywords[key] = entry if entry[1] else (entry[0], kw.lineno)
                if value.open:
                    args.open, args.open_reason = True, f"**{text_of(kw.value)} may hold more arguments"
            else:
                args.open, args.open_reason = True, f"**{text_of(kw.value)} is not known statically"
        return args

    def eval_call(self, node: ast.Call, scope: Scope) -> Any:
        func = node.func
        method: str | None = None
        if isinstance(func, ast.Attribute):
            receiver = self.eval(func.value, scope)
            if isinstance(receiver, Ref):
                callee: Any = Ref(f"{receiver.qualname}.{func.attr}")
            elif isinstance(receiver, ClassVal) and func.attr in receiver.scope.vars:
                callee = receiver.scope.vars[func.attr]
            elif isinstance(receiver, ClassVal) and receiver.sdk_base is not None:
                callee = Ref(f"{receiver.sdk_base.qualname}.{func.attr}")
            else:
                callee, method = receiver, func.attr
        else:
            callee = self.eval(func, scope)
        args = self.eval_args(node, scope)
        result = self.model_call(callee, method, args, node, scope)
        if result is NotImplemented:
            result = self.follow_call(callee, method, args, node, scope)
        if result is not NotImplemented:
            return result
        if method is None and isinstance(callee, FuncVal):
            return self.walk_function(callee)
        if method is not None and isinstance(callee, DictVal):
            return dict_method(callee, method, args, node, scope)
        if method == "format" and isinstance(callee, (str, PartialStr)):
            return self.budgeted(str_format(callee, args), node)
        if isinstance(callee, Ref) and callee.qualname.startswith("builtins."):
            return builtin_call(callee.last, args, node)
        return Unknown(f"result of `{text_of(node.func)}(...)`")
