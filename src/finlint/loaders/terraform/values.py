"""Resource bodies as plan-JSON-shaped values with lines; references between resources; templates."""

from __future__ import annotations

from typing import Any

from finlint.ir import Unknown
from finlint.loaders.common.yamlload import LineDict, LineList
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.eval import EvalError, Evaluator
from finlint.loaders.terraform.files import _NOT_RESOURCE_ROOTS, META_ARGS, UNKNOWN_TEXT
from finlint.loaders.terraform.functions import to_string

# --- resource bodies -----------------------------------------------------------------------------


def body_values(body: h.Body, ev: Evaluator, src: str) -> LineDict:
    """A block body as plan-JSON-shaped values: arguments, and nested blocks as lists of dicts."""
    out = LineDict()
    out.key_lines = {}
    out.src = src  # type: ignore[attr-defined]
    for name, attr in body.attrs.items():
        if name in META_ARGS:
            continue
        out[name] = ev.value(attr.expr)
        out.key_lines[name] = attr.line
    for block in body.blocks:
        if block.type in META_ARGS:
            continue
        if block.type == "dynamic" and block.labels:
            _dynamic(out, block, ev, src)
            continue
        child = body_values(block.body, ev, src)
        child.line, child.end_line = block.line, block.end_line
        _append_block(out, block.type, child, block.line)
    return out


def _append_block(out: LineDict, name: str, child: Any, line: int) -> None:
    existing = out.get(name)
    if isinstance(existing, Unknown):
        return
    if not isinstance(existing, LineList):
        existing = LineList()
        existing.line = existing.end_line = line
        existing.item_lines = []
        out[name] = existing
        out.key_lines[name] = line
    existing.append(child)
    existing.item_lines.append(line)


def _dynamic(out: LineDict, block: h.Block, ev: Evaluator, src: str) -> None:
    name = block.labels[0]
    for_each = block.body.attrs.get("for_each")
    content = next((b for b in block.body.blocks if b.type == "content"), None)
    if for_each is None or content is None:
        return
    coll = ev.value(for_each.expr)
    iterator = block.body.attrs.get("iterator")
    it_name = iterator.expr.name if iterator and isinstance(iterator.expr, h.Name) else name
    if isinstance(coll, Unknown):
        out[name] = Unknown(f"dynamic {name}: for_each {coll.reason}")
        out.key_lines[name] = block.line
        return
    pairs = [(k, coll[k]) for k in sorted(coll)] if isinstance(coll, dict) else list(enumerate(coll or []))
    for k, v in pairs:
        child = body_values(content.body, ev.child(**{it_name: {"key": k, "value": v}}), src)
        child.line, child.end_line = block.line, block.end_line
        _append_block(out, name, child, block.line)


def ref_address(expr: h.Expr, prefix: str) -> str | None:
    """The managed resource an expression points at (``aws_x.y.id`` -> ``aws_x.y``), syntactically."""
    if isinstance(expr, h.Template) and len(expr.parts) == 1 and not isinstance(expr.parts[0], str):
        expr = expr.parts[0]
    steps: list[str] = []
    node = expr
    while isinstance(node, (h.GetAttr, h.Index)):
        if isinstance(node, h.GetAttr):
            steps.append(node.name)
        node = node.obj
    if not isinstance(node, h.Name) or node.name in _NOT_RESOURCE_ROOTS or "_" not in node.name or not steps:
        return None
    steps.reverse()
    return f"{prefix}{node.name}.{steps[0]}"


def body_refs(body: h.Body, prefix: str, path: str = "") -> dict[str, str]:
    refs: dict[str, str] = {}
    for name, attr in body.attrs.items():
        target = ref_address(attr.expr, prefix)
        if target:
            refs[path + name] = target
    for block in body.blocks:
        for key, target in body_refs(block.body, prefix, f"{path}{block.type}.").items():
            refs.setdefault(key, target)
    return refs


# --- embedded documents: Kubernetes manifests and Step Functions definitions ---------------------


def render(template: h.Template, ev: Evaluator) -> tuple[str, int]:
    """Template text with known interpolations filled in and unknown ones as ``${unknown}``.

    Downstream loaders treat ``${...}`` as a template placeholder (unknown). Outside a quoted
    string the placeholder is quoted, so JSON stays JSON.
    """
    out: list[str] = []
    unknown = 0
    for part in template.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        value = ev.value(part)
        text: str | None = None
        if not isinstance(value, Unknown):
            try:
                text = to_string(value)
            except EvalError:
                text = None
        if text is None:
            unknown += 1
            current = "".join(out).rsplit("\n", 1)[-1]
            in_string = (current.count('"') - current.count('\\"')) % 2 == 1
            text = UNKNOWN_TEXT if in_string else f'"{UNKNOWN_TEXT}"'
        out.append(text)
    return "".join(out), unknown


def with_lines(value: Any, line: int) -> Any:
    """Give computed dicts/lists (merge(), for) the line of the argument they came from."""
    if isinstance(value, dict):
        out = value if isinstance(value, LineDict) else LineDict(value)
        if not isinstance(value, LineDict):
            out.line = out.end_line = line
            out.key_lines = dict.fromkeys(out, line)
        for k in list(out):
            out[k] = with_lines(out[k], getattr(out, "key_lines", {}).get(k, line))
        return out
    if isinstance(value, list):
        items = value if isinstance(value, LineList) else LineList(value)
        if not isinstance(value, LineList):
            items.line = items.end_line = line
            items.item_lines = [line] * len(items)
        for i, v in enumerate(items):
            items[i] = with_lines(v, items.item_lines[i] if i < len(items.item_lines) else line)
        return items
    return value
