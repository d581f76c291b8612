"""``json.dumps(data, indent=N)``, the same text, about three times faster.

With ``indent``, the standard library falls back from its C encoder to a chain of Python
generators: every token of a report is yielded up through each level it is nested in. This
walks the data once, appending to one list; strings go through the C string encoder, numbers
through the same ``repr`` the standard library uses. Anything it does not handle exactly as
the standard library does (an object ``json`` would refuse, a non-string key, a float that is
not finite, a cycle) is left to ``json.dumps``, so the result is always the standard text (or
its error). ``tests/reporters/test_jsontext.py`` checks it against ``json.dumps`` on real reports.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii
from typing import Any

_INF = float("inf")


class _Fallback(Exception):
    """Something this encoder does not do exactly as ``json.dumps``: let it do the whole."""


def dumps(data: Any, indent: int = 2) -> str:
    """``json.dumps(data, indent=indent)`` (ASCII, keys in their order, NaN allowed)."""
    parts: list[str] = []
    try:
        _encode(data, parts, "\n", " " * indent)
    except (_Fallback, RecursionError):
        return json.dumps(data, indent=indent)
    return "".join(parts)


def _scalar(value: Any) -> str | None:
    """The text of a string, number, bool or None (None: not a scalar this encoder writes)."""
    kind = type(value)
    if kind is str:
        return encode_basestring_ascii(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and value == value and value != _INF and value != -_INF:
        return float.__repr__(value)
    return None


def _encode(value: Any, parts: list[str], newline: str, step: str) -> None:
    """Append ``value``'s text; ``newline`` is the line break plus the current indentation."""
    kind = type(value)
    if kind is dict:
        if not value:
            parts.append("{}")
            return
        inner = newline + step
        separator = "," + inner
        lead = "{" + inner
        for key, item in value.items():
            if type(key) is not str:
                raise _Fallback  # json converts int/float/bool/None keys: let it
            text = _scalar(item)
            if text is not None:
                parts.append(lead + encode_basestring_ascii(key) + ": " + text)
            else:
                parts.append(lead + encode_basestring_ascii(key) + ": ")
                _encode(item, parts, inner, step)
            lead = separator
        parts.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            parts.append("[]")
            return
        inner = newline + step
        separator = "," + inner
        lead = "[" + inner
        for item in value:
            text = _scalar(item)
            if text is not None:
                parts.append(lead + text)
            else:
                parts.append(lead)
                _encode(item, parts, inner, step)
            lead = separator
        parts.append(newline + "]")
    else:
        text = _scalar(value)
        if text is None:
            raise _Fallback  # subclasses, NaN, objects json refuses (its error, not ours)
        parts.append(text)
