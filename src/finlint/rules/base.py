"""What a rule module declares: its id, the facts its policy names, and how its findings are priced.

A rule is two files: ``policies/FINnnn-slug.yaml`` (what it says and when it fires, with tested
examples) and ``rules/<area>/finnnn_slug.py`` (its facts, its evidence types and its price),
which ends with ``RULE = Rule(...)``. :mod:`finlint.rules` finds the modules and checks that
each built-in policy has one and the reverse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from finlint.cost.common import CostContext
    from finlint.finding import Cost, Finding, Fix

FactFn = Callable[..., Any]
PriceFn = Callable[["Finding", "CostContext"], "Cost"]
#: ``fix(finding, text, usage) -> Fix | None``: the edit that resolves the finding, given the text
#: of ``finding.file`` (finlint.fixes reads it from the scan root and re-lints what a fix makes)
#: and the usage parameters in force for its record (``expected_runtime_hours`` sets a new limit)
FixFn = Callable[["Finding", str, Mapping[str, Any]], "Fix | None"]


@dataclass(frozen=True)
class Rule:
    """One rule's code: ``facts`` its policy names (a fact's name is its function's),
    ``cost_model`` the name its policy gives in ``cost_model:`` (user policies may name it
    too), ``price`` the function that prices a finding of it, ``fix`` the function that edits the
    source so the finding goes away (``finlint fix``), if the remedy is mechanical, and
    ``fix_safety`` whether its fixes are safe, unsafe or both."""

    id: str
    facts: tuple[FactFn, ...] = ()
    cost_model: str | None = None
    price: PriceFn | None = None
    fix: FixFn | None = None
    #: what ``fix`` offers, said by ``finlint rule`` and the rules page: "safe" (behaviour
    #: unchanged), "unsafe" (needs ``--unsafe-fixes``) or "safe and unsafe" (by format)
    fix_safety: str | None = None
