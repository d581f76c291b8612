"""Subtraction without spaces, which python-hcl2 8.x's lexer reads as a negative literal.

python-hcl2 8.1's grammar has ``INT_LITERAL: NEGATIVE_DECIMAL? DECIMAL+`` (``-`` and at least
two digits), and lark's lexer takes the longest match, so in ``2*(1024-128)`` it reads ``1024``
then the literal ``-128``: no operator between two operands, "unexpected '-128'". HCL itself
(hashicorp/hcl) lexes ``-`` as an operator and gives 1792. :func:`split_minus` is the narrow
workaround: given the parser's own error, when its token is such a literal right after the end
of an operand (a digit, a name, ``)``, ``]``, ``}`` or a quote), it puts one space after that
``-`` so the library's lexer reads ``- 128``. Only that character moves, and only on its line:
every line number stays where it was. Nothing else is rewritten, and the library parses again.
"""

from __future__ import annotations

import string
from typing import Any

#: Characters that end an operand: after one of them a ``-`` is subtraction, never a sign.
_OPERAND_END = frozenset(string.ascii_letters + string.digits + "_)]}\"'")

#: How many such subtractions one file may hold before its error is reported as it is (each
#: costs one more parse of the file).
MAX_SPLITS = 64


def split_minus(text: str, exc: Any) -> str | None:
    """``text`` with the ``-`` of the literal the parser refused read as an operator, or None."""
    token = getattr(exc, "token", None)
    if getattr(token, "type", None) != "INT_LITERAL" or not str(token).startswith("-"):
        return None
    pos = getattr(token, "start_pos", None)
    if not isinstance(pos, int) or not 0 < pos < len(text) or text[pos] != "-":
        return None
    before = pos - 1
    while before >= 0 and text[before] in " \t":
        before -= 1
    if before < 0 or text[before] not in _OPERAND_END:
        return None
    return text[: pos + 1] + " " + text[pos + 1 :]
