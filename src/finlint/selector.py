"""Which rules a selector names: one implementation for the CLI, the config file and the engine.

A selector is an exact id (``FIN301``), an id prefix (``FIN3`` selects FIN301 and FIN302, as
ruff's ``E`` selects E501), or a rule name (``oversized-p5``). Ids are case-insensitive
(``fin301``); names are matched whole, never by prefix, so a typo is an error with a
did-you-mean rather than a selection that silently matches nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Protocol

_ID_PREFIX = re.compile(r"^[A-Za-z]{1,5}\d{0,3}$")


class NamedRule(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


class SelectorError(ValueError):
    """A selector that names no rule; ``str()`` is the one-line message with a suggestion."""

    def __init__(self, selector: str, suggestions: list[str]) -> None:
        self.selector = selector
        self.suggestions = suggestions
        hint = f"; did you mean {' or '.join(repr(s) for s in suggestions)}?" if suggestions else ""
        super().__init__(f"no rule matches {selector!r}{hint} (see `finlint rules`)")


@dataclass(frozen=True)
class RuleSelector:
    """One selector as written (an id, an id prefix or a whole name), matched case-insensitively."""

    text: str

    def matches(self, rule: NamedRule) -> bool:
        text = self.text.strip()
        if text.lower() == rule.name:
            return True
        upper = text.upper()
        return upper == rule.id or (bool(_ID_PREFIX.match(text)) and rule.id.startswith(upper))


def split(values: Iterable[str]) -> tuple[str, ...]:
    """``("FIN1,FIN301", "oversized-p5")`` -> ``("FIN1", "FIN301", "oversized-p5")``."""
    return tuple(v.strip() for value in values for v in value.split(",") if v.strip())


def suggestions(selector: str, rules: Iterable[NamedRule]) -> list[str]:
    rules = list(rules)
    lowered = selector.strip().lower()
    by_prefix = [r.name for r in rules if r.name.startswith(lowered) or lowered in r.name]
    keys = [r.id for r in rules] + [r.name for r in rules]
    import difflib  # only for the did-you-mean of an unknown selector

    close = difflib.get_close_matches(selector.strip(), keys, n=2, cutoff=0.6)
    close += difflib.get_close_matches(selector.strip().upper(), [r.id for r in rules], n=1, cutoff=0.6)
    return list(dict.fromkeys(by_prefix[:2] + close))[:3]


def check(selectors: Iterable[str], rules: Iterable[NamedRule]) -> None:
    """Raise :class:`SelectorError` for the first selector that names no rule."""
    rules = list(rules)
    for text in selectors:
        if not any(RuleSelector(text).matches(r) for r in rules):
            raise SelectorError(text, suggestions(text, rules))


def enabled(rule: NamedRule, select: Iterable[str], ignore: Iterable[str]) -> bool:
    """Selected (or no select given) and not ignored."""
    select = list(select)
    if select and not any(RuleSelector(s).matches(rule) for s in select):
        return False
    return not any(RuleSelector(s).matches(rule) for s in ignore)


def rule_for(key: str, rules: Iterable[NamedRule]) -> NamedRule | None:
    """The rule a config key (``FIN301``, ``fin301``, ``oversized-p5``) names exactly, if any."""
    for rule in rules:
        if key.upper() == rule.id or key.lower() == rule.name:
            return rule
    return None
