"""scripts/new_rule.py writes the two files of a rule (its policy and its module), which load
together, and whose placeholder examples fail their test until the author replaces them (the
scaffold can never pass as a finished rule)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from finlint.engine import EngineConfig
from finlint.engine.policy import load_policy
from finlint.rules import registry
from finlint.rules.base import Rule
from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[1]


def test_scaffold_loads_and_its_placeholder_example_does_not_pass(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "new_rule.py"), "FIN777", "demo-rule", "notebook"]
        + ["--policy-dir", str(tmp_path), "--rules-dir", str(tmp_path / "rules")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    module_path = tmp_path / "rules" / "notebooks" / "fin777_demo_rule.py"
    spec = importlib.util.spec_from_file_location("fin777_demo_rule", module_path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rule = module.RULE
    assert (
        isinstance(rule, Rule) and rule.id == "FIN777" and [f.__name__ for f in rule.facts] == ["demo_rule"]
    )
    facts = {**registry().facts, **{f.__name__: f for f in rule.facts}}
    policy = load_policy(tmp_path / "FIN777-demo-rule.yaml", False, facts)
    assert policy.id == "FIN777" and {e.kind for e in policy.examples} == {"fail", "pass"}
    bad = next(e for e in policy.examples if e.kind == "fail")
    (tmp_path / "case").mkdir()
    (tmp_path / "case" / "template.yaml").write_text(bad.code, encoding="utf-8")
    options = ScanOptions(paths=[tmp_path / "case"], engine=EngineConfig(select=("FIN777",)))
    result = lint(options, policies=[policy])
    assert [f.line for f in result.findings if f.rule_id == "FIN777"] != list(bad.lines)


def test_scaffold_refuses_a_taken_id(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "new_rule.py"), "FIN301", "x-y", "notebook"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2 and "taken" in proc.stderr
