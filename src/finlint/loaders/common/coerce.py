"""Value coercion with one meaning for every loader: a value, ``None`` (absent) or ``Unknown``.

Every loader turns source values into IR field types through these functions, so the same
text means the same thing in CloudFormation, Terraform, Kubernetes and the SageMaker specs:
``"2"`` and ``2.0`` are the integer 2; ``"2.7"`` is not an integer (Unknown, never truncated
to 2); a boolean is never a number; ``"True"``/``"false"`` are booleans; non-finite numbers
(``inf``, ``nan``) are Unknown, never a figure. An :class:`~finlint.ir.Alternatives` is
coerced option by option: it stays alternatives when every option converts (equal results
collapse to the value), and becomes a plain Unknown when one does not.
"""

from __future__ import annotations

import math
import re
from typing import Any

from finlint.ir import Alternatives, Unknown, map_options
from finlint.loaders.common.yamlload import kind_name

_NUMBER_TEXT = re.compile(r"^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$")


def _short(value: Any) -> str:
    return f"{value!r:.40}"


def to_float(value: Any, what: str = "value") -> float | Unknown | None:
    if isinstance(value, Alternatives):
        options: float | Unknown | None = map_options(value, lambda option: to_float(option, what))
        return options
    if value is None or isinstance(value, Unknown):
        return value
    if isinstance(value, bool):
        return Unknown(f"{what} is a boolean, not a number")
    if isinstance(value, (int, float)) or isinstance(value, str) and _NUMBER_TEXT.match(value):
        number = float(value)
    else:
        return Unknown(f"{what} is not a number: {_short(value)}")
    if not math.isfinite(number):
        return Unknown(f"{what} is not a finite number: {_short(value)}")
    return number


def to_int(value: Any, what: str = "value") -> int | Unknown | None:
    if isinstance(value, Alternatives):
        options: int | Unknown | None = map_options(value, lambda option: to_int(option, what))
        return options
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    number = to_float(value, what)
    if number is None:
        return None
    if isinstance(number, Unknown):
        if isinstance(value, (bool, Unknown)):
            return number
        return Unknown(f"{what} is not an integer: {_short(value)}")
    if not number.is_integer():
        return Unknown(f"{what} is not a whole number: {_short(value)}")
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)  # exact for long digit strings
    return int(number)


def to_bool(value: Any, what: str = "value") -> bool | Unknown | None:
    if isinstance(value, Alternatives):
        options: bool | Unknown | None = map_options(value, lambda option: to_bool(option, what))
        return options
    if value is None or isinstance(value, (bool, Unknown)):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return Unknown(f"{what} is not a boolean: {_short(value)}")


def to_str(value: Any, what: str = "value") -> str | Unknown | None:
    """Numbers and booleans as the text Terraform and CloudFormation convert them to."""
    if isinstance(value, Alternatives):
        options: str | Unknown | None = map_options(value, lambda option: to_str(option, what))
        return options
    if value is None or isinstance(value, (Unknown, str)):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else str(value)
    return Unknown(f"{what} is not a string ({kind_name(value)})")
