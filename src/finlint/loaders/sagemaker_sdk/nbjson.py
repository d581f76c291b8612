"""A notebook's cells with their lines, read with ``json``'s C scanner.

The SDK loader needs a code cell's type and source lines, and the ``.ipynb`` line of each.
The line-aware YAML loader gave that, but built every output too (base64 images, tables,
logs) as Python objects with line marks: on aws/amazon-sagemaker-examples (747 notebooks)
that was a third of the scan. Here the document is walked by hand only where the cells are
(the top object, ``cells``/``worksheets``, each cell's keys, ``source``/``input``), and every
other value is parsed by the C scanner and dropped, so the whole file is still checked as
JSON. The result has the same ``LineDict``/``LineList`` shape (and lines) as the YAML loader's
for those parts (``tests/test_nbjson.py`` compares them, on random notebooks too). Lines are
counted by ``\n``, as editors and GitHub count them. Anything this reader refuses is read by
the YAML loader instead, whose error messages say where the file is broken.
"""

from __future__ import annotations

import json
import re
from typing import Any

from finlint.loaders.common.yamlload import LineDict, LineList

_SCAN = json.JSONDecoder().scan_once  # type: ignore[attr-defined]  # the C scanner where available: (value, end) at an index
_SPACE = re.compile(r"[ \t\n\r]*")
#: the keys whose values are walked (with lines); every other value is scanned and dropped
_WALK = {"cells", "worksheets", "source", "input", "cell_type"}
#: below this, values are scanned whatever their key (a cell is at depth 2, or 4 in nbformat 3)
_MAX_DEPTH = 6


class NotSimple(Exception):
    """Not what this reader handles (invalid JSON among them): the YAML loader reads it."""


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self._at = 0  # the line of self._pos is self._line: positions only move forward
        self._line = 1

    def line(self, pos: int) -> int:
        if pos < self._at:
            raise NotSimple  # pragma: no cover - the walk only moves forward
        self._line += self.text.count("\n", self._at, pos)
        self._at = pos
        return self._line

    def space(self, pos: int) -> int:
        match = _SPACE.match(self.text, pos)
        assert match is not None  # the pattern matches the empty string
        return match.end()

    def expect(self, pos: int, char: str) -> int:
        if self.text.startswith(char, pos):
            return pos + 1
        raise NotSimple

    def scan(self, pos: int) -> tuple[Any, int]:
        try:
            return _SCAN(self.text, pos)  # type: ignore[no-any-return]
        except (StopIteration, ValueError, RecursionError) as exc:
            raise NotSimple from exc

    def value(self, pos: int, depth: int) -> tuple[Any, int]:
        """The value at ``pos`` (walked when it holds cells, else scanned) and where it ends."""
        char = self.text[pos : pos + 1]
        if depth > _MAX_DEPTH:
            return self.scan(pos)
        if char == "{":
            return self.mapping(pos, depth)
        if char == "[":
            return self.sequence(pos, depth)
        return self.scan(pos)

    def mapping(self, pos: int, depth: int) -> tuple[LineDict, int]:
        out = LineDict()
        out.line = self.line(pos)
        out.key_lines = {}
        pos = self.space(pos + 1)
        if self.text.startswith("}", pos):
            out.end_line = self.line(pos)
            return out, pos + 1
        while True:
            if not self.text.startswith('"', pos):
                raise NotSimple
            key_line = self.line(pos)
            key, pos = self.scan(pos)
            pos = self.space(self.expect(self.space(pos), ":"))
            if key in _WALK:
                value, pos = self.value(pos, depth + 1)
            else:
                _, pos = self.scan(pos)
                value = None  # not needed: kept out (the key stays, for `in`)
            out[key] = value
            out.key_lines[key] = key_line
            pos = self.space(pos)
            if self.text.startswith(",", pos):
                pos = self.space(pos + 1)
                continue
            out.end_line = self.line(pos)
            return out, self.expect(pos, "}")

    def sequence(self, pos: int, depth: int) -> tuple[LineList, int]:
        out = LineList()
        out.line = self.line(pos)
        out.item_lines = []
        pos = self.space(pos + 1)
        if self.text.startswith("]", pos):
            out.end_line = self.line(pos)
            return out, pos + 1
        while True:
            out.item_lines.append(self.line(pos))
            item, pos = self.value(pos, depth + 1)
            out.append(item)
            pos = self.space(pos)
            if self.text.startswith(",", pos):
                pos = self.space(pos + 1)
                continue
            out.end_line = self.line(pos)
            return out, self.expect(pos, "]")


def read_notebook(text: str) -> LineDict:
    """The notebook's top object, with its cells (values of other keys are None).
    :class:`NotSimple` when this reader does not read it."""
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        raise NotSimple  # lines ended by a lone CR: the YAML loader counts them
    reader = _Reader(text)
    start = reader.space(1 if text.startswith("\ufeff") else 0)
    if not text.startswith("{", start):
        raise NotSimple
    notebook, end = reader.mapping(start, 0)
    if reader.space(end) != len(text):
        raise NotSimple  # something after the object: the YAML loader says what
    return notebook
