"""HCL text -> a small, line-aware syntax tree (bodies, blocks, attributes, expressions).

Why walk lark's raw parse tree instead of ``hcl2.loads``: the dict output of python-hcl2 8.x
has no line numbers (``with_meta`` is a stub) and turns every expression back into
``"${...}"`` text that would have to be parsed again. ``hcl2.parses_to_tree`` gives lark's
tree with positions for every attribute and sub-expression, costs half of ``loads`` (no
transformer pass) and depends only on the grammar, not on the library's private rule
classes. The expression nodes below are what :mod:`terraform_eval` evaluates.

Parsed files are cached by content hash (bounded by the source bytes held, not a count), so a
module called twice, or a file the module scan read and the load reads again, is parsed once.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any, Union

from finlint.loaders.terraform import heredocs

MAX_FILE_BYTES = 4 * 1024 * 1024
_CACHE_BYTES = 8 * 1024 * 1024  # source bytes whose parse results are kept (trees: ~12x, ~100 MB)


class HclError(Exception):
    """A file that cannot be parsed; ``line`` is 1-based."""

    def __init__(self, message: str, line: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.line = max(1, line)


# --- expressions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Lit:
    """A literal: string, number, bool or null."""

    value: Any  # str | int | float | bool | None
    line: int


@dataclass(frozen=True)
class Template:
    """A quoted string or heredoc: literal text and interpolated expressions."""

    parts: tuple[Union[str, Expr], ...]
    line: int
    directive: bool = False  # %{ if } / %{ for }: not evaluated
    heredoc: bool = False
    body_line: int = 0  # heredoc: line of the first body line


@dataclass(frozen=True)
class TupleExpr:
    """``[a, b]``."""

    items: tuple[Expr, ...]
    line: int
    end_line: int


@dataclass(frozen=True)
class ObjectItem:
    """``key = value`` inside ``{ }``."""

    key: Expr
    value: Expr
    line: int


@dataclass(frozen=True)
class ObjectExpr:
    """``{ k = v, ... }``."""

    items: tuple[ObjectItem, ...]
    line: int
    end_line: int


@dataclass(frozen=True)
class Name:
    """A bare identifier (``var``, ``local``, ``aws_instance``, ``each``...)."""

    name: str
    line: int


@dataclass(frozen=True)
class GetAttr:
    """``obj.name``."""

    obj: Expr
    name: str
    line: int


@dataclass(frozen=True)
class Index:
    """``obj[key]``."""

    obj: Expr
    key: Expr
    line: int


@dataclass(frozen=True)
class Splat:
    """``obj[*]`` / ``obj.*``."""

    obj: Expr
    line: int


@dataclass(frozen=True)
class Call:
    """``name(args...)``, ``expand_last`` for ``f(list...)``."""

    name: str
    args: tuple[Expr, ...]
    line: int
    expand_last: bool = False  # f(list...)


@dataclass(frozen=True)
class Cond:
    """``cond ? if_true : if_false``."""

    cond: Expr
    if_true: Expr
    if_false: Expr
    line: int


@dataclass(frozen=True)
class BinOp:
    """``left op right``."""

    op: str
    left: Expr
    right: Expr
    line: int


@dataclass(frozen=True)
class UnOp:
    """``!x`` / ``-x``."""

    op: str
    operand: Expr
    line: int


@dataclass(frozen=True)
class ForExpr:
    """``[for v in c : e if cond]`` or ``{for k, v in c : ke => ve}``."""

    key_var: str | None
    value_var: str
    collection: Expr
    key_expr: Expr | None  # None: a tuple ``[for ...]``
    value_expr: Expr
    cond: Expr | None
    grouping: bool
    line: int


@dataclass(frozen=True)
class Opaque:
    """Syntax the evaluator does not model; always unknown."""

    reason: str
    line: int


Expr = Union[
    Lit,
    Template,
    TupleExpr,
    ObjectExpr,
    Name,
    GetAttr,
    Index,
    Splat,
    Call,
    Cond,
    BinOp,
    UnOp,
    ForExpr,
    Opaque,
]


# --- structure -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Attribute:
    """``name = expr`` in a body, with its line span."""

    name: str
    expr: Expr
    line: int
    end_line: int


@dataclass(frozen=True)
class Block:
    """``type "label" ... { body }``, with its line span."""

    type: str
    labels: tuple[str, ...]
    body: Body
    line: int
    end_line: int


@dataclass(frozen=True)
class Body:
    """A block's attributes and nested blocks."""

    attrs: dict[str, Attribute] = field(default_factory=dict)
    blocks: tuple[Block, ...] = ()
    duplicates: tuple[tuple[str, int], ...] = ()  # (attribute, line) redefined; last one wins

    def blocks_of(self, type_: str) -> list[Block]:
        return [b for b in self.blocks if b.type == type_]


# --- parsing -------------------------------------------------------------------------------

_cache: dict[str, tuple[Body | HclError, int]] = {}  # content hash -> (result, text length)
_cached = [0]  # source bytes held


def parse_text(text: str) -> Body:
    """Parse HCL text (cached by content hash, oldest out past ``_CACHE_BYTES``); raises HclError."""
    key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    result: Body | HclError
    if key in _cache:
        result = _cache[key][0]
    else:
        try:
            result = _parse_uncached(text)
        except HclError as exc:
            result = exc
        while _cache and _cached[0] + len(text) > _CACHE_BYTES:
            _cached[0] -= _cache.pop(next(iter(_cache)))[1]
        if len(text) <= _CACHE_BYTES:
            _cache[key], _cached[0] = (result, len(text)), _cached[0] + len(text)
    if isinstance(result, HclError):
        raise result
    return result


def parse_count() -> int:
    """How many distinct texts are cached (for tests of the cache)."""
    return len(_cache)


def clear_cache() -> None:
    _cache.clear()
    _cached[0] = 0


def hcl2_module() -> Any:
    """Import python-hcl2 lazily and refuse checkov's fork, which shares the package name."""
    try:
        import hcl2
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise HclError(f"python-hcl2 is not installed ({exc}); install finlint's dependencies") from exc
    version = str(getattr(hcl2, "__version__", ""))
    if version.startswith("0.") or not hasattr(hcl2, "parses_to_tree"):
        raise HclError(
            f"the installed 'hcl2' package is version {version or 'unknown'} (checkov's bc-python-hcl2?), "
            "not python-hcl2 8.x; install finlint in its own environment (pipx install finlint)"
        )
    return hcl2


def _parse_uncached(text: str) -> Body:
    if "\x00" in text:
        raise HclError("binary file, not HCL")
    if len(text) > MAX_FILE_BYTES:
        raise HclError(f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; not parsed")
    hcl2 = hcl2_module()
    from lark.exceptions import LarkError, UnexpectedInput

    try:
        tree = heredocs.parse_tree(hcl2, text)
    except UnexpectedInput as exc:
        line = int(getattr(exc, "line", 1) or 1)
        if line < 1:
            line = text.count("\n") + 1
        raise HclError(f"invalid HCL: {_describe(exc)}", line) from None
    except (LarkError, RecursionError, ValueError) as exc:
        raise HclError(
            f"invalid HCL: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        ) from None
    try:
        return _Converter().body(tree.children[0])
    except RecursionError:
        raise HclError("HCL is nested too deeply to load") from None


def _describe(exc: Exception) -> str:
    token = getattr(exc, "token", None)
    if token is not None:
        value = str(token).strip() or repr(str(token))
        if getattr(token, "type", "") == "$END":
            return "unexpected end of file (an unclosed block or bracket?)"
        return f"unexpected {value[:40]!r}"
    char = getattr(exc, "char", None)
    if char is not None:
        return f"unexpected character {char!r}"
    return str(exc).splitlines()[0]


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_ESCAPE_RE = re.compile(r"\\(u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")


def unescape(text: str) -> str:
    def repl(m: re.Match[str]) -> str:
        s = m.group(1)
        if s[0] in "uU" and len(s) > 1:
            return chr(int(s[1:], 16))
        return _ESCAPES.get(s, s)

    return _ESCAPE_RE.sub(repl, text)


def _line(node: Any) -> int:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return int(meta.line)
    return int(getattr(node, "line", 0) or 0)


def _end_line(node: Any) -> int:
    meta = getattr(node, "meta", None)
    if meta is not None and not getattr(meta, "empty", True):
        return int(meta.end_line)
    return _line(node)


class _Converter:
    """lark Tree (hcl2.lark grammar of python-hcl2 8.x) -> the nodes above."""

    def body(self, tree: Any) -> Body:
        attrs: dict[str, Attribute] = {}
        blocks: list[Block] = []
        dups: list[tuple[str, int]] = []
        for child in tree.children:
            data = getattr(child, "data", None)
            if data == "attribute":
                name = self.name_of(child.children[0])
                expr = self.expr(child.children[-1])
                if name in attrs:
                    dups.append((name, _line(child)))
                attrs[name] = Attribute(name, expr, _line(child), _end_line(child))
            elif data == "block":
                blocks.append(self.block(child))
        return Body(attrs, tuple(blocks), tuple(dups))

    def block(self, tree: Any) -> Block:
        labels: list[str] = []
        body: Body | None = None
        for child in tree.children:
            data = getattr(child, "data", None)
            if data in ("identifier", "keyword", "literal_value"):
                labels.append(self.name_of(child))
            elif data == "string":
                labels.append("".join(str(p) for p in self.template(child).parts if isinstance(p, str)))
            elif data == "body":
                body = self.body(child)
        return Block(labels[0], tuple(labels[1:]), body or Body(), _line(tree), _end_line(tree))

    @staticmethod
    def name_of(tree: Any) -> str:
        node = tree
        while hasattr(node, "children"):
            node = node.children[0]
        return str(node)

    def template(self, tree: Any) -> Template:
        parts: list[str | Expr] = []
        directive = False
        for part in tree.children:
            if getattr(part, "data", None) != "string_part":
                continue
            content = part.children[0]
            data = getattr(content, "data", None)
            if data == "interpolation":
                parts.append(self.expr(content.children[1]))
            elif data is not None:
                directive = True  # template_if_start / template_for_start / ...
            elif content.type == "STRING_CHARS":
                parts.append(unescape(str(content)))
            else:  # ESCAPED_INTERPOLATION / ESCAPED_DIRECTIVE: $${ -> ${
                parts.append(str(content)[1:])
        return Template(tuple(parts), _line(tree), directive=directive)

    def expr(self, tree: Any) -> Expr:  # noqa: C901 - one dispatch over the grammar
        line = _line(tree)
        data = getattr(tree, "data", None)
        if data is None:  # a bare token
            return Opaque(f"token {tree.type}", line)
        kids = [c for c in tree.children if getattr(c, "data", None) != "new_line_or_comment"]
        if data == "expr_term":
            inner = [c for c in kids if getattr(c, "type", None) not in ("LPAR", "RPAR")]
            return self.expr(inner[0])
        if data == "conditional":
            exprs = [c for c in kids if hasattr(c, "data")]
            return Cond(self.expr(exprs[0]), self.expr(exprs[1]), self.expr(exprs[2]), line)
        if data == "binary_op":
            term = kids[1]
            term_kids = [c for c in term.children if getattr(c, "data", None) != "new_line_or_comment"]
            op = str(term_kids[0].children[0]).strip()
            return BinOp(op, self.expr(kids[0]), self.expr(term_kids[1]), line)
        if data == "unary_op":
            return UnOp(str(kids[0]).strip(), self.expr(kids[1]), line)
        if data == "int_lit":
            return Lit(int(str(kids[0])), line)
        if data == "float_lit":
            return Lit(float(str(kids[0])), line)
        if data == "literal_value":
            return Lit({"true": True, "false": False, "null": None}[str(kids[0])], line)
        if data in ("identifier", "keyword"):
            return Name(str(kids[0]), line)
        if data == "string":
            return self.template(tree)
        if data in ("heredoc_template", "heredoc_template_trim"):
            return heredoc(str(kids[0]), line, trim=data.endswith("trim"))
        if data == "template_string":
            return Lit(str(kids[0])[2:-2], line)
        if data == "tuple":
            elems = tuple(self.expr(c) for c in kids if hasattr(c, "data"))
            return TupleExpr(elems, line, _end_line(tree))
        if data == "object":
            items: list[ObjectItem] = []
            for elem in kids:
                if getattr(elem, "data", None) != "object_elem":
                    continue
                key_tree = elem.children[0].children[0]
                key: Expr
                if getattr(key_tree, "data", None) == "keyword":
                    key = Lit(self.name_of(key_tree), _line(elem))
                else:
                    key = self.expr(key_tree)
                    if isinstance(key, Name):  # a bare key is a literal string
                        key = Lit(key.name, key.line)
                items.append(ObjectItem(key, self.expr(elem.children[-1]), _line(elem)))
            return ObjectExpr(tuple(items), line, _end_line(tree))
        if data == "function_call":
            names = [self.name_of(c) for c in kids if getattr(c, "data", None) == "identifier"]
            args_tree = next((c for c in kids if getattr(c, "data", None) == "arguments"), None)
            args: tuple[Expr, ...] = ()
            expand = False
            if args_tree is not None:
                args = tuple(
                    self.expr(c)
                    for c in args_tree.children
                    if hasattr(c, "data") and c.data != "new_line_or_comment"
                )
                expand = any(getattr(c, "type", None) == "ELLIPSIS" for c in args_tree.children)
            return Call("::".join(names), args, line, expand)
        if data == "get_attr_expr_term":
            obj = self.expr(kids[0])
            return GetAttr(obj, self.name_of(kids[1].children[1]), line)
        if data == "index_expr_term":
            obj = self.expr(kids[0])
            return self.index(obj, kids[1], line)
        if data in ("attr_splat_expr_term", "full_splat_expr_term"):
            return Splat(self.expr(kids[0]), line)
        if data == "for_tuple_expr":
            return self.for_expr(kids, line, is_object=False)
        if data == "for_object_expr":
            return self.for_expr(kids, line, is_object=True)
        return Opaque(f"expression {data}", line)

    def index(self, obj: Expr, idx: Any, line: int) -> Expr:
        if idx.data == "short_index":
            return Index(obj, Lit(int(str(idx.children[1])), line), line)
        inner = [c for c in idx.children if hasattr(c, "data") and c.data != "new_line_or_comment"]
        return Index(obj, self.expr(inner[0]), line)

    def for_expr(self, kids: list[Any], line: int, is_object: bool) -> Expr:
        intro = next(c for c in kids if getattr(c, "data", None) == "for_intro")
        names = [self.name_of(c) for c in intro.children if getattr(c, "data", None) == "identifier"]
        coll_tree = [
            c
            for c in intro.children
            if hasattr(c, "data") and c.data not in ("identifier", "new_line_or_comment")
        ]
        exprs = [
            c
            for c in kids
            if hasattr(c, "data") and c.data not in ("for_intro", "for_cond", "new_line_or_comment")
        ]
        cond_tree = next((c for c in kids if getattr(c, "data", None) == "for_cond"), None)
        cond = None
        if cond_tree is not None:
            cond_kids = [
                c for c in cond_tree.children if hasattr(c, "data") and c.data != "new_line_or_comment"
            ]
            cond = self.expr(cond_kids[0])
        key_var, value_var = (names[0], names[1]) if len(names) == 2 else (None, names[0])
        grouping = any(getattr(c, "type", None) == "ELLIPSIS" for c in kids)
        collection = self.expr(coll_tree[0])
        if is_object:
            return ForExpr(
                key_var, value_var, collection, self.expr(exprs[0]), self.expr(exprs[1]), cond, grouping, line
            )
        return ForExpr(key_var, value_var, collection, None, self.expr(exprs[0]), cond, False, line)


_HEREDOC_RE = re.compile(r"<<-?([A-Za-z][A-Za-z0-9._-]*)\r?\n(.*?)[ \t]*\1\r?\n?\Z", re.S)


def heredoc(token: str, line: int, trim: bool) -> Expr:
    """A heredoc token -> a Template of its body (python-hcl2 leaves ``${}`` in heredocs unparsed)."""
    m = _HEREDOC_RE.match(token)
    if not m:
        return Opaque("heredoc", line)
    body = m.group(2)
    if body.endswith("\n"):
        body = body[:-1]
    if trim:
        lines = body.split("\n")
        indents = [len(s) - len(s.lstrip(" ")) for s in lines if s.strip()]
        cut = min(indents) if indents else 0
        body = "\n".join(s[cut:] for s in lines)
    parts, directive = split_template(body, line + 1)
    return Template(tuple(parts), line, directive=directive, heredoc=True, body_line=line + 1)


def split_template(text: str, first_line: int) -> tuple[list[str | Expr], bool]:
    """Split template text into literal text and parsed ``${...}`` expressions."""
    parts: list[str | Expr] = []
    directive = False
    buf: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        if text.startswith("$${", i) or text.startswith("%%{", i):
            buf.append(text[i + 1 : i + 3])
            i += 3
            continue
        if text.startswith("%{", i):
            directive = True
        if text.startswith("${", i):
            end = _matching_brace(text, i + 2)
            if end < 0:
                buf.append(text[i:])
                break
            if buf:
                parts.append("".join(buf))
                buf = []
            line = first_line + text.count("\n", 0, i)
            parts.append(parse_expression(text[i + 2 : end], line))
            i = end + 1
            continue
        buf.append(text[i])
        i += 1
    if buf:
        parts.append("".join(buf))
    return parts, directive


def _matching_brace(text: str, start: int) -> int:
    depth = 0
    i = start
    in_str = False
    while i < len(text):
        ch = text[i]
        if in_str:
            if ch == "\\":
                i += 2
                continue
            if ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1


def parse_expression(source: str, line: int) -> Expr:
    """Parse one expression (from a heredoc interpolation or a ``--var``), lines relative to ``line``."""
    source = source.strip().lstrip("~").rstrip("~").strip()
    if not source or "\n" in source:
        return Opaque("multi-line interpolation", line)
    try:
        body = parse_text(f"__x = {source}\n")
    except HclError:
        return Opaque(f"unparsable interpolation {source[:40]!r}", line)
    attr = body.attrs.get("__x")
    if attr is None:
        return Opaque("interpolation", line)
    return _relocate(attr.expr, line - 1)


def _relocate(expr: Expr, delta: int) -> Expr:
    """Shift an expression parsed on line 1 to the line it came from (shallow: the root's line)."""
    if delta == 0:
        return expr
    from dataclasses import replace

    return replace(expr, line=expr.line + delta)
