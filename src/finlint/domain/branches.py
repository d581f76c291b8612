"""A setting that differs between the branches of one conditional: where a leak holds.

``if use_spot: kwargs = {"use_spot_instances": True}`` / ``else: kwargs = {}`` launches one job
two ways. A rule whose leak holds on one branch (spot without a checkpoint; no max runtime)
is a real bug whenever that branch runs, and FIN101 and FIN201 both decide so through
:func:`branches_where`, the one place that says which values a setting may take:

- a known value: itself;
- :class:`~finlint.ir.Alternatives` (every branch assigns a literal, or a loop runs over
  literals): its options;
- a plain :class:`~finlint.ir.Unknown` of a field with a finite domain (a boolean flag is on
  or off): that domain; any other Unknown stays unknown (an unresolved ``max_run`` is set to
  something: it says nothing about a branch that leaves it unset).

The finding carries :class:`OnBranches` (the values it holds on), so its price is that of
the branch that leaks (:func:`finlint.cost.alternatives.on_branches`), never the cheapest of
all of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from finlint.ir import Alternatives, Unknown

#: the values a flag may take when the scan cannot resolve it (unset means off)
BOOLEAN = (True, False)


@dataclass(frozen=True)
class OnBranches:
    """A finding that holds only where ``field`` takes one of ``options`` (``reason``: the
    conditional that sets it differently)."""

    field: str
    options: tuple[Any, ...]
    reason: str


def branches_where(value: Any, holds: Callable[[Any], bool], domain: tuple[Any, ...] = ()) -> Any:
    """``(hits, every)``: the values ``value`` may take on which ``holds`` is true, and whether
    it is true on all of them; the Unknown itself when those values are not known (see the
    module docstring)."""
    if isinstance(value, Alternatives):
        options = value.options
    elif isinstance(value, Unknown):
        if not domain:
            return value
        options = domain
    else:
        options = (value,)
    hits = tuple(option for option in options if holds(option))
    return hits, len(hits) == len(options)
