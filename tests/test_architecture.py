"""The structure ARCHITECTURE.md states, checked on the code's imports (runtime imports: an
``if TYPE_CHECKING:`` import is a type, not a dependency).

- the engine imports no rule code; ``cost/`` and ``linking/`` import neither the engine nor rules;
- no import cycle between the top-level packages and modules of ``finlint``;
- no module over about 600 lines;
- a rule is its policy plus one module, and the registry says so;
- nothing writes to interpreter or library internals, and the removed start-up machinery is gone.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path

import pytest

from finlint import rules
from finlint.rules import RegistryError, check, registry

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src"
MAX_LINES = 620  # "about 600": the largest loader modules sit just above it


def _module(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in SRC.rglob("*.py")}


def _imports(path: Path) -> Iterator[str]:
    """The finlint modules ``path`` imports at run time (a ``from X import name`` yields X and X.name)."""
    tree = ast.parse(path.read_text())
    typing_only = {
        id(node)
        for branch in ast.walk(tree)
        if isinstance(branch, ast.If) and "TYPE_CHECKING" in ast.unparse(branch.test)
        for node in ast.walk(branch)
    }
    me = _module(path)
    package = me if path.name == "__init__.py" else me.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.startswith("finlint"))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            if base.startswith("finlint"):
                yield base
                yield from (f"{base}.{a.name}" for a in node.names)


def _edges() -> dict[str, set[str]]:
    """module -> the finlint modules it imports (names resolved to their module)."""
    out: dict[str, set[str]] = defaultdict(set)
    for name, path in MODULES.items():
        for target in _imports(path):
            while target not in MODULES and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in MODULES and target != name:
                out[name].add(target)
    return out


EDGES = _edges()


def _unit(module: str) -> str:
    return ".".join(module.split(".")[:2])  # finlint.engine, finlint.scan, ...


@pytest.mark.parametrize(
    ("source", "forbidden"),
    [
        ("finlint.engine", ("finlint.rules",)),
        ("finlint.cost", ("finlint.engine", "finlint.rules")),
        ("finlint.linking", ("finlint.engine", "finlint.rules", "finlint.cost")),
        ("finlint.loaders", ("finlint.engine", "finlint.rules", "finlint.cost", "finlint.post")),
        ("finlint.domain", ("finlint.engine", "finlint.rules", "finlint.cost", "finlint.loaders")),
        # suggestions read a report, never a scan: no engine, rules, loaders, and no CLI above it
        (
            "finlint.review",
            ("finlint.engine", "finlint.rules", "finlint.cost", "finlint.loaders", "finlint.cli"),
        ),
        # the edit helpers rule fixes use read a file with the loaders' own parsers (HCL, YAML/JSON)
        # and nothing above them; finlint.fixes (which re-lints) sits above scan
        (
            "finlint.textedit",
            ("finlint.engine", "finlint.rules", "finlint.scan", "finlint.linking", "finlint.cli"),
        ),
        ("finlint.fixes", ("finlint.reporters", "finlint.cli")),
    ],
)
def test_layers(source: str, forbidden: tuple[str, ...]) -> None:
    bad = sorted(
        f"{module} -> {target}"
        for module, targets in EDGES.items()
        if _unit(module) == source
        for target in targets
        if _unit(target) in forbidden
    )
    assert bad == []


def test_no_import_cycle_between_top_level_units() -> None:
    graph: dict[str, set[str]] = defaultdict(set)
    for module, targets in EDGES.items():
        graph[_unit(module)].update(_unit(t) for t in targets if _unit(t) != _unit(module))
    state: dict[str, int] = {}  # 1: on the path, 2: done
    cycles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*path[path.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_no_module_is_over_about_600_lines() -> None:
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_nothing_writes_interpreter_or_library_internals() -> None:
    patterns = [
        r"re\._cache",
        r"\b_sre\b",
        r"sys\.modules\[[^\]]+\]\s*=",
        r"dataclasses\._",
        r"marshal\.",
        r"pickle\.",
    ]
    hits = [f"{m}: {rx}" for m, p in MODULES.items() for rx in patterns if re.search(rx, p.read_text())]
    assert hits == []


@pytest.mark.parametrize(
    "removed",
    [
        "fastcli",
        "cli_spec",
        "codecache",
        "regexcache",
        "startup",
        "forkpool",
        "policy_cache",
        "reporters.jsontext",
    ],
)
def test_removed_start_up_machinery_stays_removed(removed: str) -> None:
    assert f"finlint.{removed}" not in MODULES


# --- the rule registry --------------------------------------------------------------------------


def test_every_policy_has_its_module_and_every_module_its_policy() -> None:
    reg = registry()
    policies = {p.stem.split("-", 1)[0] for p in (REPO / "policies").glob("FIN*.yaml")}
    assert set(reg.rules) == policies
    for rule_id, module in reg.modules.items():
        slug = next((REPO / "policies").glob(f"{rule_id}-*.yaml")).stem.split("-", 1)[1]
        assert module.endswith(f".{rule_id.lower()}_{slug.replace('-', '_')}"), module


def test_a_rules_code_is_in_its_module_only() -> None:
    """Each fact a policy names is defined in that rule's module or is a shared fact; each price
    function is its rule module's (or the shared spot model FIN201 and FIN202 use)."""
    reg = registry()
    for rule in reg.rules.values():
        module = reg.modules[rule.id]
        for fn in rule.facts:
            assert fn.__module__ == module, (rule.id, fn.__name__)
        if rule.price is not None:
            assert rule.price.__module__ in (module, "finlint.cost.spot"), (rule.id, rule.price.__module__)


def test_registry_refuses_a_policy_without_module() -> None:
    policies = rules.load_policies()
    reg = registry()
    without = rules.Registry(
        {k: v for k, v in reg.rules.items() if k != "FIN304"},
        {k: v for k, v in reg.modules.items() if k != "FIN304"},
        reg.facts,
        reg.cost_models,
    )
    with pytest.raises(RegistryError, match="no rule module"):
        check(policies, without)


def test_registry_refuses_a_module_without_policy() -> None:
    policies = [p for p in rules.load_policies() if p.id != "FIN304"]
    with pytest.raises(RegistryError, match="fin304_gpu_pool_without_limits has no policy"):
        check(policies, registry())


def test_registry_refuses_a_cost_model_mismatch() -> None:
    import dataclasses

    policies = rules.load_policies()
    changed = [dataclasses.replace(p, cost_model="warm-pool") if p.id == "FIN304" else p for p in policies]
    with pytest.raises(RegistryError, match="cost_model 'warm-pool', its module says 'gpu-pool-ceiling'"):
        check(changed, registry())


def test_user_policy_with_unknown_cost_model_is_a_located_error(tmp_path: Path) -> None:
    from finlint.engine import PolicyError

    (tmp_path / "FIN990-mine.yaml").write_text(
        "id: FIN990\nname: mine\nseverity: low\napplies_to: [notebook]\n"
        "condition: {exists: instance_type}\nmessage: m\ncost_model: nope\ndocs: {what: w}\n"
    )
    with pytest.raises(PolicyError, match="unknown cost_model 'nope'"):
        rules.load_policies([tmp_path])
