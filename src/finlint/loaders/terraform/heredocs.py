"""Heredoc delimiters HCL accepts and python-hcl2's grammar does not.

HCL's scanner reads a heredoc introducer as ``'<<' '-'? Ident Newline`` with
``Ident = (ID_Start | '_') (ID_Continue | '-')*`` (hashicorp/hcl ``scan_tokens.rl``), so
``<<_DATA`` is valid Terraform. python-hcl2 8.x's ``HEREDOC_TEMPLATE`` wants a letter first, and
the whole file fails to parse ("invalid HCL"). :func:`letter_delimiters` renames such a
delimiter, at its introducer and at its closing line, to a same-length name that starts with a
letter and occurs nowhere else in the text, so every line and column stays where it was.
"""

from __future__ import annotations

import re
from typing import Any

from finlint.loaders.terraform import minus

#: A heredoc introducer (its delimiter in group 2); bodies are skipped, so a shell ``<<_EOF``
#: inside a heredoc's text is left as written.
_INTRODUCER = re.compile(r"<<(-?)([A-Za-z_][\w.-]*)(\r?\n)")
_LETTERS = "ZQXJKV"


def letter_delimiters(text: str) -> str | None:
    """``text`` with every ``_``-led heredoc delimiter renamed, or None when there is none."""
    out: list[str] = []
    pos = changed = 0
    while (m := _INTRODUCER.search(text, pos)) is not None:
        name = m.group(2)
        closer = re.compile(rf"^[ \t]*{re.escape(name)}[ \t]*\r?$", re.M)
        end = closer.search(text, m.end())
        if end is None:
            break  # an unterminated heredoc: the parser reports it
        if name.startswith("_"):
            new = next((c + name[1:] for c in _LETTERS if (c + name[1:]) not in text), None)
            if new is None:
                break
            out.append(text[pos : m.start(2)] + new + text[m.end(2) : end.start()])
            out.append(end.group(0).replace(name, new, 1))
            changed += 1
        else:
            out.append(text[pos : end.end()])
        pos = end.end()
    if not changed:
        return None
    out.append(text[pos:])
    return "".join(out)


def parse_tree(hcl2: Any, text: str) -> Any:
    """python-hcl2's tree of ``text``; if it fails, with ``_``-led heredoc delimiters renamed and
    subtractions without spaces read as such (:mod:`.minus`), then parsed again."""
    from lark.exceptions import UnexpectedInput

    renamed = False
    for _ in range(minus.MAX_SPLITS + 1):
        try:
            return hcl2.parses_to_tree(text)
        except UnexpectedInput as exc:
            split = minus.split_minus(text, exc)
            if split is None and not renamed and "<<" in text:
                split, renamed = letter_delimiters(text), True
            if split is None:
                raise
            text = split
    return hcl2.parses_to_tree(text)
