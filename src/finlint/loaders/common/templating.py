"""The tolerant reader: YAML with template placeholders, read without rendering it.

Helm/Go templates (``{{ }}``), Jinja (``{{ }}``, ``{% %}``, ``{# #}``), Terraform template
directives (``%{ if }``) and envsubst ``${VAR}`` / ``$VAR`` make a manifest invalid YAML until
something renders it. When nothing can (a ``templates/`` folder without its ``Chart.yaml``, a
Jinja or envsubst manifest, a ``.tpl`` file no ``templatefile()`` in the scan uses), this module
turns the text into YAML that keeps every line number and every literal:

* control lines (``{{- if }}``, ``{{ end }}``, ``{% for %}``, ``%{ endif }``, comments) become
  blank lines; of an ``if``/``else`` only the first branch is kept (both would give duplicate
  keys); ``define`` bodies (named templates, output elsewhere) are blanked;
* a value holding a placeholder becomes one single-quoted string whose text is the template
  text itself, so the loaders see a templated value (:class:`finlint.ir.Unknown`, naming the
  placeholder) and two names written as the same template text stay equal for linking;
* a placeholder alone on a line that is the whole value of the key above it
  (``limits:`` / ``{{- toYaml .Values.limits | nindent 4 }}``) becomes that key's scalar value;
* a placeholder that produces keys or items among literal siblings is dropped where it can
  only add metadata (``labels``, ``annotations``, ...); elsewhere the structure is not
  recoverable and :class:`Unrecoverable` names the line.

Nothing is executed and nothing is rendered: a placeholder's value is never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from finlint.loaders.common.template_text import MAX_TAG_CHARS, MAX_TAG_LINES, Tags, head_key, key_match

_OPEN = re.compile(r"\{\{|\{%|\{#|%\{")
_TAG = Tags
_LIST = re.compile(r"^((?:-\s+)+)(.*)$")
_BLOCK_SCALAR = re.compile(r"[|>][-+0-9]*\s*(#.*)?$")
#: Statements that open a block, and their else/end, in the three template languages.
_GO_OPEN = re.compile(r"^(if|range|with|define|block)\b")
_GO_ELSE = re.compile(r"^else\b")
_GO_END = re.compile(r"^end\b")
_GO_SILENT = re.compile(r"^(/\*|\$[\w.]*\s*:?=|break\b|continue\b)")
_JINJA_OPEN = re.compile(r"^(if|for|macro|call|filter|set\s+\w+\s*$|block|with|raw)\b")
_JINJA_ELSE = re.compile(r"^(elif|else)\b")
_JINJA_END = re.compile(r"^end\w*\b")
_JINJA_OUTPUT = re.compile(r"^(include|import|from)\b")
_TF_OPEN = re.compile(r"^(if|for)\b")
_TF_ELSE = re.compile(r"^else\b")
_TF_END = re.compile(r"^(endif|endfor)\b")
#: Parents whose content only labels or places an object: a template that adds keys or items
#: there can be dropped without changing what any rule reads.
HARMLESS_PARENTS = frozenset(
    {
        "labels",
        "annotations",
        "matchLabels",
        "selector",
        "nodeSelector",
        "tolerations",
        "affinity",
        "podAntiAffinity",
        "topologySpreadConstraints",
        "securityContext",
        "imagePullSecrets",
        "ports",
        "env",
        "envFrom",
        "livenessProbe",
        "readinessProbe",
        "startupProbe",
        "serviceAccountName",
        "extraLabels",
        "podLabels",
        "podAnnotations",
        "commonLabels",
        "tags",
    }
)
#: Keys whose value is a list in the manifests finlint reads: a placeholder that writes their
#: whole value becomes a one-item list of an unknown, so the shape stays right.
LIST_KEYS = frozenset(
    {
        "values",
        "requirements",
        "containers",
        "initContainers",
        "volumes",
        "volumeMounts",
        "args",
        "command",
        "items",
        "accessModes",
        "mountOptions",
        "volumeClaimTemplates",
        "nodeGroups",
        "managedNodeGroups",
        "instanceTypes",
        "subnets",
        "taints",
        "startupTaints",
        "budgets",
    }
)
MARKERS = ("{{", "{%", "{#", "%{")


class Unrecoverable(Exception):
    """The document structure cannot be recovered; ``line`` (1-based) defeated the reader."""

    def __init__(self, line: int, reason: str) -> None:
        super().__init__(f"line {line}: {reason}")
        self.line = line
        self.reason = reason


@dataclass
class Masked:
    """The masked text (same number of lines) and what was done to it."""

    text: str
    placeholders: dict[int, list[str]] = field(default_factory=dict)  # line -> template texts
    dropped: list[int] = field(default_factory=list)  # lines whose output was dropped


def has_markers(text: str) -> bool:
    """Template tags of a language that YAML cannot hold (``${VAR}`` alone usually parses)."""
    return any(m in text for m in MARKERS)


def _kind(tag: str) -> tuple[str, str]:
    """(language, statement) of one tag; statement is the stripped body."""
    if tag.startswith("{{"):
        body = tag[2:-2].strip().lstrip("-").rstrip("-").strip()
        return "go", body
    if tag.startswith("{%"):
        return "jinja", tag[2:-2].strip().strip("-+").strip()
    if tag.startswith("{#"):
        return "comment", ""
    if tag.startswith("${"):  # envsubst / Terraform interpolation: always output
        return "subst", tag
    return "tf", tag[2:-1].strip().strip("~").strip()


def _control(tag: str) -> str | None:
    """'open' / 'else' / 'end' / 'silent' for a tag that outputs nothing, None for output."""
    lang, body = _kind(tag)
    if lang == "subst":
        return None
    if lang == "comment":
        return "silent"
    if lang == "go":
        if body.startswith("/*"):
            return "silent"
        if body.startswith("define"):
            return "define"
        for kind, pattern in (("open", _GO_OPEN), ("else", _GO_ELSE), ("end", _GO_END)):
            if pattern.match(body):
                return kind
        if body.startswith("fail "):  # aborts the render or writes nothing
            return "silent"
        return "silent" if _GO_SILENT.match(body) else None
    if lang == "jinja":
        if _JINJA_OUTPUT.match(body):
            return None
        if body.startswith("set ") and "=" in body:
            return "silent"
        if body.startswith("macro"):
            return "define"
        for kind, pattern in (("end", _JINJA_END), ("else", _JINJA_ELSE), ("open", _JINJA_OPEN)):
            if pattern.match(body):
                return kind
        return "silent"
    for kind, pattern in (("open", _TF_OPEN), ("else", _TF_ELSE), ("end", _TF_END)):
        if pattern.match(body):
            return kind
    return "silent"


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        return v[1:-1]
    return v


def _value(value: str) -> str:
    """A value holding a placeholder as YAML: a flow list keeps its shape, item by item."""
    v = value.strip()
    if v.startswith(("!", "&", "*")):  # a tagged value (`!Sub "${X}"`), an anchor: YAML already
        return v
    if v.startswith("[") and v.endswith("]") and not _TAG.fullmatch(v[1:-1].strip() or "x"):
        items = [part for part in _split_items(v[1:-1]) if part.strip()]
        return "[" + ", ".join(_quote(_unquote(part)) for part in items) + "]"
    if v.startswith("[") and v.endswith("]"):
        return "[" + _quote(v[1:-1].strip()) + "]"
    return _quote(_unquote(v))


def _split_items(text: str) -> list[str]:
    """Comma-separated items of a flow list, never splitting inside a template tag."""
    spans = iter(_TAG.spans(text))
    span = next(spans, None)
    parts, start = [], 0
    for pos, char in enumerate(text):
        while span is not None and span[1] <= pos:
            span = next(spans, None)
        if char == "," and not (span is not None and span[0] <= pos < span[1]):
            parts.append(text[start:pos])
            start = pos + 1
    parts.append(text[start:])
    return parts


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


@dataclass
class _Frame:
    """An open ``{{ if }}``/``{{ define }}`` block while reading a template."""

    define: bool
    in_else: bool = False
    line: int = 0


def mask(text: str) -> Masked:
    """``text`` as YAML a parser accepts, line for line; raises :class:`Unrecoverable`."""
    raw_lines = text.split("\n")
    out: list[str] = []
    result = Masked("")
    stack: list[_Frame] = []
    pending: list[int] = []  # indexes in ``out`` of lines that are only a producing tag
    block_indent: int | None = None  # inside a block scalar: its key's indentation
    i = 0
    while i < len(raw_lines):
        line = raw_lines[i]
        number = i + 1
        # A tag that spans lines (a multi-line comment or statement): join, blank its lines.
        joined, extra = line, 0
        while _OPEN.search(_TAG.sub("", joined)) and i + extra + 1 < len(raw_lines):
            extra += 1
            joined += "\n" + raw_lines[i + extra]
            if extra > MAX_TAG_LINES or len(joined) > MAX_TAG_CHARS:
                raise Unrecoverable(
                    number, f"a template tag left open (over {MAX_TAG_LINES} lines or 64 KiB)"
                )
        if extra:
            tags = _TAG.findall(joined)
            rest = _TAG.sub("", joined).strip()
            if rest or any(_control(t) is None for t in tags):
                raise Unrecoverable(number, "a template tag that spans lines and produces output")
            for t in tags:
                _apply_control(stack, _control(t), number)
            out.extend([""] * (extra + 1))
            i += extra + 1
            continue
        i += 1
        skipping = any(f.in_else or f.define for f in stack)
        if block_indent is not None:
            if not line.strip() or _indent(line) > block_indent:
                out.append("" if skipping else _strip_controls(line, stack, number))
                continue
            block_indent = None
        tags = _TAG.findall(line)
        if not tags:
            out.append("" if skipping else line)
            if not skipping and _BLOCK_SCALAR.search(line.split(":", 1)[-1]) and ":" in line:
                block_indent = _indent(line)
            continue
        controls = [_control(t) for t in tags]
        for c in controls:
            _apply_control(stack, c, number)
        # what the line outputs: the text without its control tags
        kept = line
        for tag, c in zip(tags, controls, strict=True):
            if c is not None:
                kept = kept.replace(tag, "", 1)
        if skipping or any(f.in_else or f.define for f in stack) or not kept.strip():
            out.append("")
            continue
        out.append(_mask_line(kept, number, result, out, pending))
        if ":" in kept and _BLOCK_SCALAR.search(kept.split(":", 1)[-1]):
            block_indent = _indent(kept)
    if stack:  # the template engine itself would refuse it (unexpected EOF)
        raise Unrecoverable(stack[-1].line, "a template block opened here is never closed")
    _resolve_pending(out, pending, raw_lines, result)
    result.text = "\n".join(out)
    return result


def _apply_control(stack: list[_Frame], kind: str | None, line: int = 0) -> None:
    if kind in ("open", "define"):
        stack.append(_Frame(define=kind == "define", line=line))
    elif kind == "else" and stack:
        stack[-1].in_else = True
    elif kind == "end" and stack:
        stack.pop()


def _strip_controls(line: str, stack: list[_Frame], number: int = 0) -> str:
    """A block-scalar line (free text): control tags only move the stack."""
    for tag in _TAG.findall(line):
        _apply_control(stack, _control(tag), number)
    return line


def _mask_line(line: str, number: int, result: Masked, out: list[str], pending: list[int]) -> str:
    indent = line[: _indent(line)]
    body = line[len(indent) :].rstrip()
    if body.startswith("#"):  # a YAML comment: whatever it holds is not content
        return line
    tags = _TAG.findall(body)
    result.placeholders[number] = tags
    if "\x01" in head_key(_TAG.sub("\x01", body)):  # `{{ .Values.key }}: value`: the template writes a key
        pending.append(len(out))
        return f"\x00key\x00{line}"
    match = key_match(body)
    if match and not _TAG.search(match[1]):
        prefix, key, value = match
        if not value.strip():
            return line
        return f"{indent}{prefix}{key}: {_value(value)}"
    if match and _TAG.search(match[1]):
        pending.append(len(out))
        return f"\x00key\x00{line}"
    items = _LIST.match(body)
    if items:
        prefix, value = items.groups()
        return f"{indent}{prefix}{_quote(_unquote(value))}"
    if _TAG.fullmatch(body.strip()) or all(not part.strip() for part in _TAG.split(body)):
        pending.append(len(out))
        return f"\x00block\x00{line}"
    # a scalar continuation or flow text with a placeholder inside: keep it as text
    return f"{indent}{_quote(_unquote(body))}"


def _parent(out: list[str], index: int) -> tuple[int, str] | None:
    """The nearest kept line above ``index`` that opens a mapping key without a value."""
    for j in range(index - 1, -1, -1):
        prev = out[j]
        if not prev.strip() or prev.startswith("\x00") or prev.lstrip().startswith("#"):
            continue
        return j, prev
    return None


def _key_name(line: str) -> str | None:
    match = key_match(line.strip())
    return _unquote(match[1]) if match else None


def _resolve_pending(out: list[str], pending: list[int], raw: list[str], result: Masked) -> None:
    """Decide each line that only produces YAML (a block, or keys): a value, dropped, or fatal."""
    for index in pending:
        marker, line = out[index].split("\x00")[1:]
        number = index + 1
        tag_text = line.strip()
        parent = _parent(out, index)
        ancestor: str | None = None
        if parent is not None:
            j, prev = parent
            key = _key_name(prev)
            opens = prev.rstrip().endswith(":") and key is not None
            if marker == "block" and opens and not _has_children(out, index, _indent(prev)):
                item = "- " if key in LIST_KEYS else ""  # an unknown of the shape the key holds
                out[index] = " " * (_indent(prev) + 2) + item + _quote(tag_text)
                continue
            # the block's parent: the key above it, or the parent of the sibling above it (the
            # tag's own indentation says nothing when `indent N` places its output)
            ancestor = key if opens else _enclosing_key(out, j)
        if ancestor in HARMLESS_PARENTS or _ignored_kind(out, index):
            out[index] = ""
            result.dropped.append(number)
            continue
        what = "produces keys" if marker == "key" else "produces a block of YAML"
        raise Unrecoverable(number, f"`{tag_text[:80]}` {what} among literal content")


def _enclosing_key(out: list[str], index: int) -> str | None:
    """The key of the mapping that holds line ``index``."""
    own = _indent(out[index].replace("- ", "  ", 1))
    for j in range(index - 1, -1, -1):
        prev = out[j]
        if not prev.strip() or prev.startswith("\x00") or prev.lstrip().startswith("#"):
            continue
        if _indent(prev) < own and prev.rstrip().endswith(":"):
            return _key_name(prev)
        if _indent(prev) < own:
            return None
    return None


#: Kinds no finlint rule reads: what a template writes into them cannot change a finding.
IGNORED_KINDS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "Namespace",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Ingress",
        "IngressClass",
        "NetworkPolicy",
        "ServiceMonitor",
        "PodMonitor",
        "PrometheusRule",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "CustomResourceDefinition",
        "PriorityClass",
        "Certificate",
        "Issuer",
    }
)


def _ignored_kind(out: list[str], index: int) -> bool:
    """Whether line ``index`` is in a document whose ``kind`` is one no rule reads."""
    start = index
    while start > 0 and out[start - 1].strip() != "---":
        start -= 1
    end = index
    while end + 1 < len(out) and out[end + 1].strip() != "---":
        end += 1
    for line in out[start : end + 1]:
        match = re.match(r"^kind:\s*['\"]?(\w+)", line)
        if match:
            return match.group(1) in IGNORED_KINDS
    return False


def _has_children(out: list[str], index: int, parent_indent: int) -> bool:
    """Whether the key at ``parent_indent`` has content after ``index`` other than pending lines."""
    for line in out[index + 1 :]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line.startswith("\x00"):
            line = line.split("\x00")[2]
        deeper = _indent(line) > parent_indent
        return deeper or (_indent(line) == parent_indent and line.lstrip().startswith("- "))
    return False


#: File name endings of template files: read only when their content is a manifest.
TEMPLATE_SUFFIXES = (".tpl", ".tmpl", ".j2", ".jinja", ".jinja2", ".yaml-template", ".yml-template")


def template_suffix(name: str) -> bool:
    return name.endswith(TEMPLATE_SUFFIXES)


def skipped_message(line: int | None, reason: str | None) -> str:
    """The "skipped template" notice; names the line that defeated the reader when there is one."""
    base = "skipped template: unrendered {{ }} / {% %} / ${ } placeholders"
    if line is not None and reason:
        base += f"; the tolerant reader cannot recover its structure at line {line} ({reason})"
    return base + "; render it first (e.g. `helm template`, `envsubst`) and scan the output"


def load_tolerant(
    text: str, max_nodes: int | None = None
) -> tuple[list[object], None] | tuple[None, tuple[int, str]]:
    """Documents of a templated YAML text, or (line, reason) when its structure is not recoverable."""
    from finlint.loaders.common.yamlload import YamlLoadError, load_all

    try:
        masked = mask(text)
    except Unrecoverable as exc:
        return None, (exc.line, exc.reason)
    try:
        return load_all(masked.text, max_nodes=max_nodes), None
    except YamlLoadError as exc:
        return None, (exc.line, f"still not YAML after masking: {exc.message}")


def quote_json_placeholders(text: str) -> str | None:
    """A JSON template whose placeholders stand where values go (``"Count": {{ n }}``) as JSON:
    each ``{{ ... }}`` outside a string becomes a string of its own text (lines kept), so the
    loaders see a templated value. None when there is none (or one spans lines)."""
    out: list[str] = []
    in_string = escaped = False
    i = changed = 0
    while i < len(text):
        char = text[i]
        if in_string:  # a quote ends the string unless a backslash escapes it
            in_string = escaped or char != '"'
            escaped = char == "\\" and not escaped
        elif char == '"':
            in_string = True
        elif text.startswith("{{", i):
            end = text.find("}}", i)
            if end < 0 or "\n" in text[i:end]:
                return None
            tag = text[i : end + 2]
            out.append('"' + tag.replace("\\", "\\\\").replace('"', '\\"') + '"')
            i, changed = end + 2, changed + 1
            continue
        out.append(char)
        i += 1
    return "".join(out) if changed else None
