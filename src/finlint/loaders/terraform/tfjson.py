"""Terraform's JSON syntax (``*.tf.json``), read as the same HCL body the native syntax gives.

The JSON document is parsed (line-aware) and written out as native syntax, each block and
argument on the line it has in the JSON file, so every line a finding names is the JSON
file's own. Strings are templates in both syntaxes (``"${var.x}"``); only quotes and
backslashes outside ``${ }`` are escaped. Without a provider schema a nested object cannot
be told from a nested block, so it becomes an object argument: the mapping reads both shapes
the same way (``resource_config.instance_type``). A minified file (one line) keeps its values
but every line is 1.
"""

from __future__ import annotations

import json
from typing import Any

from finlint.loaders.common.yamlload import LineDict, YamlLoadError, load_all
from finlint.loaders.terraform.hcl import HclError

#: Top-level block type -> number of labels (``resource`` "type" "name").
_LABELS = {
    "resource": 2,
    "data": 2,
    "module": 1,
    "variable": 1,
    "output": 1,
    "provider": 1,
    "locals": 0,
    "terraform": 0,
}


def json_to_hcl(text: str) -> str:
    try:
        docs = load_all(text, is_json=True)
    except YamlLoadError as exc:
        raise HclError(exc.message, exc.line) from exc
    if not docs or not isinstance(docs[0], dict):
        raise HclError("a .tf.json file holds one JSON object", 1)
    out = _Writer()
    root = docs[0]
    for block_type, value in root.items():
        labels = _LABELS.get(str(block_type))
        if labels is None or not isinstance(value, dict):
            continue  # "//" comments and unknown keys
        out.blocks(str(block_type), value, labels, _line(root, block_type))
    return out.text()


class _Writer:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def at(self, line: int, text: str) -> None:
        """Write ``text`` starting on ``line`` (or the next free line)."""
        while len(self.lines) < line - 1:
            self.lines.append("")
        self.lines.append(text)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def blocks(self, block_type: str, value: dict[str, Any], labels: int, line: int) -> None:
        if labels == 0:
            for body in value if isinstance(value, list) else [value]:
                self.body(f"{block_type} {{", body, line)
            return
        for name, inner in value.items():
            at = _line(value, name, line)
            if labels == 2 and isinstance(inner, dict):
                for rname, body in inner.items():
                    head = f"{block_type} {_quote(str(name))} {_quote(str(rname))} {{"
                    for one in body if isinstance(body, list) else [body]:
                        self.body(head, one, _line(inner, rname, at))
            elif labels == 1:
                for one in inner if isinstance(inner, list) else [inner]:
                    self.body(f"{block_type} {_quote(str(name))} {{", one, at)

    def body(self, head: str, body: Any, line: int) -> None:
        self.at(line, head)
        if isinstance(body, dict):
            for key, value in body.items():
                if key == "//":
                    continue
                self.at(_line(body, key, line), f"  {_key(str(key))} = {_expr(value)}")
        self.at(getattr(body, "end_line", 0) or line, "}")


def _line(container: Any, key: Any, default: int = 1) -> int:
    if isinstance(container, LineDict):
        return container.line_of(key, default)
    return default


def _key(key: str) -> str:
    return key if key.replace("_", "a").replace("-", "a").isalnum() and not key[:1].isdigit() else _quote(key)


def _expr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return _template(value)
    if isinstance(value, list):
        return "[" + ", ".join(_expr(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_quote(str(k))} = {_expr(v)}" for k, v in value.items()) + " }"
    return "null"


def _quote(text: str) -> str:
    return json.dumps(text).replace("${", "$${").replace("%{", "%%{")


def _template(text: str) -> str:
    """A JSON string as a native template: escape outside ``${ }``/``%{ }`` only."""
    out: list[str] = ['"']
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if depth == 0 and text.startswith(("${", "%{"), i) and not text.startswith(("$${", "%%{"), i):
            out.append(text[i : i + 2])
            depth, i = 1, i + 2
            continue
        if depth:
            depth += {"{": 1, "}": -1}.get(ch, 0)
            out.append(ch.replace("\n", " "))
        else:
            out.append({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(ch, ch))
        i += 1
    out.append('"')
    return "".join(out)
