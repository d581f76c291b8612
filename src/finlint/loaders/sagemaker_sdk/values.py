"""Abstract values for the SageMaker SDK loader's static interpreter.

Why a value model and not just ``ast.literal_eval``: real launch scripts build arguments from
constants, arithmetic, ``dict(...)`` kwargs amended before the call, argparse defaults and
pipeline parameters. Each of those is represented here; anything else is an ``ir.Unknown``,
which never fires a rule. Nothing here imports or runs user code.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable

from finlint.ir import MAX_ALTERNATIVES, Alternatives, Unknown, alternatives

#: Guards against constant folding that would eat memory or time (``"a" * 10**9``).
MAX_STR = 10_000
#: how the reason of a value too large to fold ends (the interpreter says so once per file)
TOO_LARGE = "is too large to fold"
MAX_INT_BITS = 256


@dataclass(frozen=True)
class Ref:
    """An imported module, class or function, by qualified name (``sagemaker.pytorch.PyTorch``)."""

    qualname: str

    @property
    def last(self) -> str:
        return self.qualname.rsplit(".", 1)[-1]


@dataclass(frozen=True)
class PartialStr:
    """A string whose text is partly dynamic (``f"s3://{bucket}/ckpt"``): present, not None."""

    template: str


#: Different literals on different branches (``"local"`` or ``"local_gpu"``, ``3600`` or
#: ``5 * 86400``): :class:`finlint.ir.Alternatives`, Unknown to everything that does not read its
#: ``options`` (the engine evaluates a rule on each; local mode is recognised on every option).
OneOf = Alternatives

#: More alternatives than this are just Unknown.
MAX_OPTIONS = MAX_ALTERNATIVES


def _option(value: Any) -> tuple[bool, Any]:
    """``(True, plain value)`` for a literal an alternative can be: str, int, float, bool or None
    (a config file's value without its origin), else ``(False, None)``."""
    if value is None or isinstance(value, Alternatives):
        return True, value
    kind = _plain(value)
    if kind in (bool, str, int, float) and not isinstance(value, Unknown):
        return True, kind(value)
    return False, None


def one_of(a: Any, b: Any, reason: str) -> Any:
    """``a`` or ``b`` when both are literals (or alternatives of them): an Alternatives (or the
    value, when they are equal as plain values); None when either is anything else."""
    options = []
    for value in (a, b):
        ok, option = _option(value)
        if not ok:
            return None
        options.append(option)
    merged = alternatives(options, reason)
    if isinstance(merged, Unknown) and not isinstance(merged, Alternatives):
        return None  # too many: the caller's plain Unknown
    return merged


@dataclass(eq=False)
class DictVal:
    """A dict built in the source: key -> (value, line). ``open``: other keys may be present."""

    entries: dict[Any, tuple[Any, int]] = field(default_factory=dict)
    open: bool = False
    line: int = 0
    end_line: int = 0

    def copy(self) -> DictVal:
        return DictVal(dict(self.entries), self.open, self.line, self.end_line)

    def lookup(self, key: Any, line: int) -> tuple[Any, int] | None:
        """``(value, line)`` of ``key``; an Unknown when the dict is open; None when absent."""
        if key in self.entries:
            return self.entries[key]
        if self.open:
            return Unknown(f"'{key}' may come from a dict built elsewhere"), line
        return None


@dataclass(eq=False)
class CallArgs:
    """Evaluated arguments of one call: positionals, keywords with lines, ``**`` openness."""

    line: int
    end_line: int
    positional: list[Any] = field(default_factory=list)
    keywords: dict[str, tuple[Any, int]] = field(default_factory=dict)
    open: bool = False  # **kwargs we could not see through, or *args
    open_reason: str = ""

    def get(self, *names: str) -> tuple[Any, int] | None:
        for name in names:
            if name in self.keywords:
                return self.keywords[name]
        if self.open:
            return Unknown(self.open_reason or "may be passed through **kwargs"), self.line
        return None

    def pos(self, index: int) -> tuple[Any, int] | None:
        if index < len(self.positional):
            return self.positional[index], self.line
        return None


@dataclass(eq=False)
class ConfigVal:
    """A modelled SDK config object (``Compute``, ``StoppingCondition``, ``CheckpointConfig``...)."""

    kind: str
    class_name: str
    args: CallArgs


@dataclass(eq=False)
class ParserVal:
    """An ``argparse.ArgumentParser`` and the defaults of the arguments added so far."""

    defaults: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class NamespaceVal:
    """What ``parser.parse_args()`` returns: attribute -> default."""

    values: dict[str, Any]


@dataclass(eq=False)
class ClientVal:
    """A boto3 client (``boto3.client("sagemaker")``)."""

    service: Any


@dataclass(eq=False)
class ObjVal:
    """An SDK object the interpreter tracks by identity: a launch, a tuner, ``fit()``'s result."""

    kind: str  # launch | tuner | fit | local_session
    launches: list[Any]  # sagemaker_sdk_launch.Launch


def same(a: Any, b: Any) -> bool:
    """Strict equality for merging branches: ``1`` and ``True`` differ, objects by identity."""
    if isinstance(a, Unknown) or isinstance(b, Unknown):
        return False
    if type(a) is not type(b) and _plain(a) is not _plain(b):
        return False
    if isinstance(a, (int, float, str, bytes, bool, Ref, PartialStr)) or a is None:
        return bool(a == b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=False))
    return a is b


def _plain(value: Any) -> type[Any]:
    """``str`` for a str subclass (a config value that remembers its file), etc."""
    if getattr(value, "is_bool", False):  # sources.OriginBool: a config true/false
        return bool
    for base in (bool, str, float, int):
        if isinstance(value, base):
            return base
    return type(value)


def merge(a: Any, b: Any, reason: str) -> Any:
    """The value of a name after two branches assigned ``a`` and ``b``."""
    if same(a, b):
        return a
    if isinstance(a, DictVal) and isinstance(b, DictVal):
        out = DictVal(open=a.open or b.open, line=a.line, end_line=a.end_line)
        for key in set(a.entries) | set(b.entries):
            ea, eb = a.entries.get(key), b.entries.get(key)
            if ea is not None and eb is not None and same(ea[0], eb[0]):
                out.entries[key] = ea
                continue
            line = (ea or eb)[1]  # type: ignore[index]
            # a key one branch leaves out is unset there (None), unless that dict may hold it
            left = ea[0] if ea is not None else (None if not a.open else Unknown(reason))
            right = eb[0] if eb is not None else (None if not b.open else Unknown(reason))
            options = one_of(left, right, reason)
            out.entries[key] = (options if options is not None else Unknown(reason), line)
        return out
    if (
        isinstance(a, (str, PartialStr))
        and isinstance(b, (str, PartialStr))
        and (isinstance(a, PartialStr) or isinstance(b, PartialStr))
    ):  # a partly dynamic string on every branch is still a string that is present
        return PartialStr(f"{_template(a)} | {_template(b)}")
    options = one_of(a, b, reason)
    if options is not None:
        return options
    for value in (a, b):  # the first unknown, but alternatives no longer tell the whole story
        if isinstance(value, OneOf):
            return Unknown(value.reason)
        if isinstance(value, Unknown):
            return value
    return Unknown(reason)


def is_known_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str, bytes))


_BINOPS: dict[str, Callable[[Any, Any], Any]] = {
    "Add": operator.add,
    "Sub": operator.sub,
    "Mult": operator.mul,
    "Div": operator.truediv,
    "FloorDiv": operator.floordiv,
    "Mod": operator.mod,
    "Pow": operator.pow,
}


def fold_binop(op: str, left: Any, right: Any, text: str) -> Any:
    """Constant arithmetic (``3600 * 4``, ``10 * 86400 + 20``) with size guards."""
    num = (int, float)
    if op == "Add" and _stringish(left) and _stringish(right):
        if isinstance(left, str) and isinstance(right, str):
            return _cap_str(left + right, text)
        return text_value(_template(left) + _template(right), False, text)
    if isinstance(left, Unknown) or isinstance(right, Unknown):
        return Unknown(f"`{text}` depends on a value not known statically")
    fn = _BINOPS.get(op)
    if fn is None:
        return Unknown(f"`{text}` is not folded")
    if isinstance(left, bool) or isinstance(right, bool):
        return Unknown(f"`{text}` mixes booleans into arithmetic")
    if isinstance(left, num) and isinstance(right, num):
        if op == "Pow" and (abs(right) > 64 or abs(left) > 2**32):
            return Unknown(f"`{text}` {TOO_LARGE}")
        try:
            result = fn(left, right)
        except (ArithmeticError, ValueError):
            return Unknown(f"`{text}` cannot be evaluated")
        if isinstance(result, int) and result.bit_length() > MAX_INT_BITS:
            return Unknown(f"`{text}` {TOO_LARGE}")
        return result
    if op == "Mult" and isinstance(left, str) and isinstance(right, int):
        if len(left) * max(right, 0) > MAX_STR:
            return Unknown(f"`{text}` {TOO_LARGE}")
        return left * right
    return Unknown(f"`{text}` is not folded")


def _stringish(value: Any) -> bool:
    return isinstance(value, (str, PartialStr))


def _template(value: Any) -> str:
    return value.template if isinstance(value, PartialStr) else str(value)


def _cap_str(value: str, text: str) -> Any:
    return value if len(value) <= MAX_STR else Unknown(f"`{text}` {TOO_LARGE}")


def text_value(text: str, known: bool, expr: str) -> Any:
    """Folded text: ``text`` (known) or a :class:`PartialStr`, or Unknown past :data:`MAX_STR`
    characters (forty doubling f-strings in a few lines of source were 24 GB)."""
    if len(text) > MAX_STR:
        return Unknown(f"`{expr[:80]}` {TOO_LARGE}")
    return text if known else PartialStr(text)


def partial_template(value: Any, text: str) -> str:
    """Text of a formatted value inside an f-string: known text, or ``{expr}``."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (str, int, float)):
        return str(value)
    if isinstance(value, PartialStr):
        return value.template
    return "{" + text + "}"


_CMPOPS: dict[str, Callable[[Any, Any], Any]] = {
    "Eq": operator.eq,
    "NotEq": operator.ne,
    "Lt": operator.lt,
    "LtE": operator.le,
    "Gt": operator.gt,
    "GtE": operator.ge,
    "Is": operator.is_,
    "IsNot": operator.is_not,
    "In": lambda a, b: operator.contains(b, a),
    "NotIn": lambda a, b: not operator.contains(b, a),
}


def fold_compare(op: str, left: Any, right: Any, text: str) -> Any:
    """Comparison of two known scalars (or tuples of them); anything else is unknown."""

    def known(v: Any) -> bool:
        return is_known_scalar(v) or (isinstance(v, tuple) and all(is_known_scalar(x) for x in v))

    if not (known(left) and known(right)):
        return Unknown(f"`{text}` depends on a value not known statically")
    fn = _CMPOPS.get(op)
    if fn is None:
        return Unknown(f"`{text}` is not folded")
    if op in ("Is", "IsNot") and not (left is None or right is None):
        return Unknown(f"`{text}` compares identity")
    try:
        return bool(fn(left, right))
    except TypeError:
        return Unknown(f"`{text}` cannot be evaluated")
