"""The rule registry: every ``rules/<area>/finnnn_slug.py`` module, checked against the policies.

The scan (and every command that loads the pack) goes through :func:`load_policies`, which
hands the engine the fact table (the shared facts plus each rule's own) and afterwards checks
that every built-in policy has its module, every module its policy, and that both name the
same cost model. The engine and the cost stage never import this package: they are given what
it found (:attr:`Registry.facts`, :attr:`Registry.cost_models`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from finlint.engine.facts import SHARED_FACTS
from finlint.engine.policy import Policy, PolicyError
from finlint.engine.policy import load_policies as _load_policies
from finlint.engine.policy import load_policy as _load_policy
from finlint.rules.base import FactFn, PriceFn, Rule

AREAS = ("training", "compute", "notebooks", "storage", "meta")
MODULE_NAME = re.compile(r"fin(\d{3})_[a-z0-9_]+")


#: what a rule's ``fix_safety`` may say (None: no fix)
FIX_SAFETY = (None, "safe", "unsafe", "safe and unsafe")


class RegistryError(Exception):
    """A rule module and the policy pack disagree: a broken installation or checkout (exit 2)."""


@dataclass(frozen=True)
class Registry:
    """What the rule modules declare, indexed: by rule id, by fact name, by cost model name."""

    rules: Mapping[str, Rule]  # id -> rule
    modules: Mapping[str, str]  # id -> module name
    facts: Mapping[str, FactFn]  # every fact a policy may name
    cost_models: Mapping[str, PriceFn]  # cost model name -> price


@functools.cache
def registry() -> Registry:
    """Import every rule module once and index what they declare."""
    rules: dict[str, Rule] = {}
    modules: dict[str, str] = {}
    facts: dict[str, FactFn] = dict(SHARED_FACTS)
    models: dict[str, PriceFn] = {}
    for area in AREAS:
        package = importlib.import_module(f"finlint.rules.{area}")
        for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
            match = MODULE_NAME.fullmatch(info.name)
            if match is None:
                continue  # a helper shared by the area's rules
            name = f"{package.__name__}.{info.name}"
            rule = getattr(importlib.import_module(name), "RULE", None)
            if not isinstance(rule, Rule):
                raise RegistryError(f"{name} defines no RULE = Rule(...)")
            if rule.id != f"FIN{match.group(1)}":
                raise RegistryError(f"{name} declares {rule.id}: a rule module is named after its id")
            if rule.id in rules:
                raise RegistryError(f"{rule.id} has two modules: {modules[rule.id]} and {name}")
            rules[rule.id], modules[rule.id] = rule, name
            for fn in rule.facts:
                if fn.__name__ in facts and facts[fn.__name__] is not fn:
                    raise RegistryError(f"fact {fn.__name__!r} of {name} is already defined elsewhere")
                facts[fn.__name__] = fn
            if (rule.fix is None) != (rule.fix_safety is None) or rule.fix_safety not in FIX_SAFETY:
                raise RegistryError(f"{name}: fix and fix_safety ({', '.join(FIX_SAFETY[1:])}) go together")
            if (rule.cost_model is None) != (rule.price is None):
                raise RegistryError(f"{name}: cost_model and price go together")
            if rule.cost_model is not None and rule.price is not None:
                if rule.cost_model in models:
                    raise RegistryError(f"cost model {rule.cost_model!r} of {name} is defined twice")
                models[rule.cost_model] = rule.price
    return Registry(rules, modules, facts, models)


def load_policies(extra_dirs: Iterable[Path] = ()) -> list[Policy]:
    """The built-in pack plus ``extra_dirs``, validated against the registry's facts."""
    reg = registry()
    policies = _load_policies(extra_dirs, facts=reg.facts)
    check(policies, reg)
    return policies


def load_policy(path: Path, builtin: bool = False) -> Policy:
    """One policy file (a user's, by default), validated against the registry's facts."""
    return _load_policy(path, builtin, registry().facts)


def check(policies: Iterable[Policy], reg: Registry) -> None:
    """Every built-in policy has its module with the same cost model, and every module its policy;
    a user policy may name only a known cost model."""
    builtin = {p.id: p for p in policies if p.builtin}
    for rule_id in sorted(set(reg.rules) - set(builtin)):
        raise RegistryError(f"{reg.modules[rule_id]} has no policy policies/{rule_id}-*.yaml")
    for policy in [*builtin.values(), *(p for p in policies if not p.builtin)]:
        rule = reg.rules.get(policy.id) if policy.builtin else None
        if policy.builtin and rule is None:
            raise RegistryError(f"{policy.path}: no rule module finlint/rules/*/{policy.id.lower()}_*.py")
        if rule is not None and policy.cost_model != rule.cost_model:
            raise RegistryError(
                f"{policy.path}: cost_model {policy.cost_model!r}, its module says {rule.cost_model!r}"
            )
        if not policy.builtin and policy.cost_model and policy.cost_model not in reg.cost_models:
            known = ", ".join(sorted(reg.cost_models))
            raise PolicyError(policy.path, 1, f"unknown cost_model {policy.cost_model!r} (known: {known})")
