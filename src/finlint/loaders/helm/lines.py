"""Rendered chart output -> the template lines that produced it.

Helm gives, per template file, the rendered text (the SDK keys it by the template's path, the
binary by its ``# Source:`` header) but no line map. The map is recovered by aligning the two
texts: each template line becomes a pattern (its literal text, every ``{{ }}`` a wildcard) and
the rendered lines are matched in order, so literal lines find themselves and lines with a
placeholder find the template line that held it. A rendered line no template line matches was
written by a line that only produces text (``{{- toYaml .Values.x | nindent 4 }}``, an
``include``): it maps to that producing line. Control lines (``{{- if }}``, ``{{ end }}``) produce
nothing and never match. A ``range`` repeats lines: matching wraps to the start of the template.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TAG = re.compile(r"\{\{.*?\}\}", re.DOTALL)
_CONTROL = re.compile(r"^-?\s*(if|else|end|range|with|define|block|/\*|\$[\w.]*\s*:?=)\b")
_VALUES_REF = re.compile(r"\.Values((?:\.[A-Za-z_][\w-]*)+)")
_WITH = re.compile(
    r"\{\{-?\s*(?:with|range)\s+(?:\$\w+\s*(?:,\s*\$\w+\s*)?:=\s*)?\.Values((?:\.[A-Za-z_][\w-]*)+)"
)
_DOT_ONLY = re.compile(r"\{\{-?\s*(?:toYaml|toJson|tpl)\s+\.\s*[|}]")
_DEFINE_OR_END = re.compile(r"\{\{-?\s*(define|end)\b")


@dataclass
class TemplateLine:
    """A template line as a pattern its rendered lines must match (``{{ }}`` as wildcards)."""

    number: int
    pattern: re.Pattern[str] | None  # None: produces nothing (blank, comment, control only)
    producer: bool  # only a tag that writes text of its own (toYaml, include, ...)
    values_path: tuple[str, ...] | None  # the one ``.Values`` path the line reads, if one


def _is_control(tag: str) -> bool:
    body = tag[2:-2].strip()
    return bool(_CONTROL.match(body)) or body.startswith("/*") or body.startswith("- /*")


def analyse(template: str) -> list[TemplateLine]:
    """Each template line as something rendered lines can be matched against."""
    out: list[TemplateLine] = []
    context: list[tuple[str, ...] | None] = []  # the ``with``/``range`` .Values path in effect
    for number, raw in enumerate(template.split("\n"), start=1):
        tags = _TAG.findall(raw)
        for tag in tags:
            body = tag[2:-2].strip().lstrip("-").strip()
            if re.match(r"(if|with|range|define|block)\b", body):
                match = _WITH.match(tag)
                context.append(tuple(match.group(1).split(".")[1:]) if match else None)
            elif re.match(r"end\b", body) and context:
                context.pop()
        output = raw
        for tag in tags:
            if _is_control(tag):
                output = output.replace(tag, "", 1)
        text = output.strip()
        path = _values_path(output, context)
        if not text or text.startswith("#"):
            out.append(TemplateLine(number, None, False, None))
            continue
        rest = _TAG.sub("", text).strip().lstrip("-").strip()
        if not rest:
            out.append(TemplateLine(number, re.compile(r".*"), True, path))
            continue
        parts = _TAG.split(output.rstrip())  # with its indentation: Helm keeps it
        regex = ".*?".join(re.escape(p) for p in parts)
        out.append(TemplateLine(number, re.compile(regex + r"\Z"), False, path))
    return out


def _values_path(line: str, context: list[tuple[str, ...] | None]) -> tuple[str, ...] | None:
    refs = {m.group(1) for m in _VALUES_REF.finditer(line)}
    if len(refs) == 1:
        return tuple(refs.pop().split(".")[1:])
    if not refs and _DOT_ONLY.search(line):
        inner = next((c for c in reversed(context) if c is not None), None)
        return inner
    return None


def align(template: list[TemplateLine], rendered: str) -> dict[int, TemplateLine]:
    """Rendered line number (1-based) -> the template line that produced it."""
    result: dict[int, TemplateLine] = {}
    specific = [t for t in template if t.pattern is not None and not t.producer]
    pointer = 0  # index into ``template``
    last: TemplateLine | None = None
    for number, raw in enumerate(rendered.split("\n"), start=1):
        text = raw.strip()
        if not text or text == "---" or text.startswith("# Source:"):
            continue
        hit = _search(template, pointer, raw.rstrip())
        if (hit is None or hit[1].producer) and specific:
            again = _search(template, 0, raw.rstrip())  # a range: its lines again
            if again is not None and not again[1].producer and again[0] < pointer:
                hit = again
        if hit is not None:
            index, line = hit
            if line.producer:
                result[number] = line
                pointer = index  # a block: stay on the producing line
            else:
                result[number] = line
                pointer = index + 1
            last = line
        elif last is not None:
            result[number] = last
    return result


def _search(template: list[TemplateLine], start: int, text: str) -> tuple[int, TemplateLine] | None:
    """The first specific line from ``start`` that matches; a producing line met first is the
    fallback (it wrote the text when no specific line does)."""
    producer: tuple[int, TemplateLine] | None = None
    for index in range(start, len(template)):
        line = template[index]
        if line.pattern is None:
            continue
        if line.producer:
            if producer is None:
                producer = (index, line)
            continue
        if line.pattern.match(text):
            return index, line
    return producer
