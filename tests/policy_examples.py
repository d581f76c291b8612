"""How a policy example is run: shared by the example tests (tests/engine/test_policy_examples.py)
and the per-rule snapshots (tests/rules/test_rule_snapshots.py), so both see the same scan."""

from __future__ import annotations

from pathlib import Path

from finlint import loaders
from finlint.engine import EngineConfig, Example, Policy
from finlint.result import ScanResult
from finlint.rules import load_policies
from finlint.scan import ScanOptions, lint

DEFAULT_FILENAMES = loaders.example_files()  # format -> file name, from the loader registry

POLICIES = load_policies()
CASES = [(p, e) for p in POLICIES for e in p.examples]


def case_id(policy: Policy, example: Example) -> str:
    return f"{policy.id}_{example.name}"


def example_filename(example: Example) -> str:
    """The name the example's code is written under (its own ``filename``, else its format's)."""
    return example.filename or DEFAULT_FILENAMES[example.format]


def run_example(policy: Policy, example: Example, directory: Path) -> ScanResult:
    """Write the example's code into ``directory`` (empty) and scan it with only this rule
    selected and the example's params; paths in the result are relative to ``directory``."""
    target = directory / example_filename(example)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(example.code, encoding="utf-8")
    config = EngineConfig(select=(policy.id,), params={policy.id: example.params} if example.params else {})
    return lint(ScanOptions(paths=[directory], engine=config, display_root=directory))
