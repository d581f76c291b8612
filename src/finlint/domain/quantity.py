"""Kubernetes resource quantities (``500m``, ``200Mi``, ``1k``, ``1e3``) as plain numbers.

Karpenter ``spec.limits`` and PVC sizes are written as quantities; rules compare them with
instance specs (vCPU, memory) and file-system sizes, so they need one exact parser. The
grammar is apimachinery's ``resource.Quantity``: a signed decimal number followed by a
binary-SI suffix (``Ki`` .. ``Ei``), a decimal-SI suffix (``n u m k M G T P E``) or a decimal
exponent (``e3``/``E3``). Anything else is not a quantity (``None``): callers decide whether
that makes the value unknown.
"""

from __future__ import annotations

import math
import re
from typing import Any

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
# Sub-unit suffixes divide (500 / 1e3 is exactly 0.5; 500 * 1e-3 is not always exact).
_FRACTIONS = {"n": 1e9, "u": 1e6, "m": 1e3}
_DECIMAL = {
    "": 1.0,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "E": 1e18,
}

# The number part, then either a decimal exponent or one of the suffixes. ``E`` alone is exa,
# ``E3`` an exponent: the exponent alternative must come first and needs digits.
_QUANTITY = re.compile(
    r"""^(?P<number>[+-]?(?:\d+(?:\.\d*)?|\.\d+))
         (?:(?P<exponent>[eE][+-]?\d+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?)$""",
    re.VERBOSE,
)

GIB = float(2**30)
MIB = float(2**20)


def parse_quantity(value: Any) -> float | None:
    """``value`` in base units (cores, bytes, count), or None when it is not a quantity.

    >>> parse_quantity("500m"), parse_quantity("1Gi"), parse_quantity("1k"), parse_quantity(64)
    (0.5, 1073741824.0, 1000.0, 64.0)
    """
    if isinstance(value, bool):  # YAML `true` is not a quantity, although bool is an int
        return None
    if isinstance(value, (int, float)):
        number = float(value)
        return number if math.isfinite(number) else None
    if not isinstance(value, str):
        return None
    match = _QUANTITY.match(value.strip())
    if match is None:
        return None
    number = float(match.group("number"))
    exponent = match.group("exponent")
    if exponent is not None:
        power = int(exponent[1:])
        if abs(power) > 308:  # 10.0 ** 309 overflows a float
            return None
        result = number * 10.0**power
    else:
        suffix = match.group("suffix") or ""
        if suffix in _FRACTIONS:
            result = number / _FRACTIONS[suffix]
        else:
            result = number * (_BINARY.get(suffix) or _DECIMAL[suffix])
    return result if math.isfinite(result) else None


def quantity_to_gib(value: Any) -> float | None:
    """A storage quantity in GiB (what AWS bills as "GB" for EBS, EFS and FSx)."""
    parsed = parse_quantity(value)
    return None if parsed is None else parsed / GIB
