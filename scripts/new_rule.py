"""Scaffold a new rule: ``python scripts/new_rule.py FIN207 spot-without-something training_job``.

A rule is two files, and this writes both (as ruff's ``scripts/add_rule.py`` does):

- ``policies/FIN207-spot-without-something.yaml``: every section a rule needs (params, the
  condition over the rule's fact, message, docs, one fail and one pass example);
- ``src/finlint/rules/<area>/fin207_spot_without_something.py``: the rule's fact (a stub that
  never fires), ``RULE = Rule(...)``, and where its evidence type and price go.

The placeholders are deliberately not a working rule: the example test
(``python -m pytest -k FIN207``) fails until you write the fact and real examples. Then
regenerate ``docs/rules.md`` (``finlint rules --format markdown > docs/rules.md``) and the
rule's snapshot (``FINLINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/rules/test_rule_snapshots.py``).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from finlint.engine.policy import ID_RE, NAME_RE  # noqa: E402
from finlint.ir import RECORD_TYPES  # noqa: E402
from finlint.loaders import example_files  # noqa: E402
from finlint.rules import AREAS  # noqa: E402

TEMPLATE = """\
id: {id}
name: {name}
summary: "TODO one line: what costs money"
severity: medium
applies_to: [{kinds}]
params: {{}}
let:
  evidence: {{fact: {fact}}}
condition:
  # all/any/not over IR fields, lets and fact.NAME (src/finlint/engine/conditions.py); the
  # rule's own logic lives in its fact ({module})
  exists: evidence
at: [evidence]
message: "TODO {{address}} {{evidence}}: what to do"
# cost_model: {cost_model}  (and in the module: cost_model=..., price=price), or say in docs why none
tags: []
docs:
  what: >
    TODO what the rule flags, precisely.
  why: >
    TODO why it costs money, with a sourced figure.
  known_false_positives: >
    TODO when it fires on something that is fine, and how to suppress it.
  remediation: >
    TODO the fix.
  references: []
examples:
  - name: {fmt}_bad
    kind: fail
    format: {fmt}
    lines: [1]
    code: |
      TODO a minimal input where the rule fires on line 1
  - name: {fmt}_good
    kind: pass
    format: {fmt}
    code: |
      TODO the same input, fixed
"""


MODULE = '''"""{id} {name}: TODO one line, as the policy's summary.

The policy is ``policies/{id}-{name}.yaml``; this module holds its facts, its evidence type and
(when it has a dollar figure) its price.
"""

from __future__ import annotations

from typing import Any

from finlint.ir import {kind_class}, Record
from finlint.rules.base import Rule


def {fact}(record: Record) -> Any:
    """Evidence that the rule holds for ``record``: ``Evidence(text, line)``, or None (does not
    apply), or the field's ``Unknown`` (cannot tell statically: never a finding)."""
    if not isinstance(record, {kind_class}):
        return None
    # TODO the check: return Evidence(text, line) from finlint.engine.facts (with data=, a frozen
    # dataclass, when the price needs what the check found)
    return None


# A dollar figure: def price(finding: Finding, ctx: CostContext) -> Cost, reading
# finding.evidence_of(YourEvidence) and ctx.params(finding.record); then
# RULE = Rule("{id}", facts=({fact},), cost_model="{cost_model}", price=price)
RULE = Rule("{id}", facts=({fact},))
'''


#: where a rule of each IR kind goes when --area is not given
DEFAULT_AREA = {
    "compute_pool": "compute",
    "notebook": "notebooks",
    "volume": "storage",
    "file_system": "storage",
}
DEFAULT_AREA |= {"bucket": "storage"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("id", help="FINnnn, unused")
    parser.add_argument("name", help="kebab-case name")
    parser.add_argument("kinds", nargs="+", choices=sorted(RECORD_TYPES), help="IR kinds it applies to")
    parser.add_argument("--format", default="cloudformation", choices=sorted(example_files()))
    parser.add_argument("--area", choices=AREAS, help="the rules/ package it goes in (default: by kind)")
    parser.add_argument("--policy-dir", type=Path, default=REPO / "policies")
    parser.add_argument("--rules-dir", type=Path, default=REPO / "src" / "finlint" / "rules")
    args = parser.parse_args(argv)
    if not ID_RE.match(args.id) or not NAME_RE.match(args.name):
        parser.error("id must look like FIN123 and name like some-rule-name")
    taken = [p.name for p in args.policy_dir.glob("*.yaml") if re.match(rf"{args.id}-", p.name)]
    if taken:
        parser.error(f"{args.id} is taken: {taken[0]}")
    area = args.area or DEFAULT_AREA.get(args.kinds[0], "training")
    slug = args.name.replace("-", "_")
    fact = slug
    module_path = args.rules_dir / area / f"{args.id.lower()}_{slug}.py"
    if module_path.exists():
        parser.error(f"{module_path} exists")
    module = f"finlint.rules.{area}.{module_path.stem}"
    target = args.policy_dir / f"{args.id}-{args.name}.yaml"
    text = TEMPLATE.format(
        id=args.id,
        name=args.name,
        kinds=", ".join(args.kinds),
        fmt=args.format,
        fact=fact,
        module=module,
        cost_model=args.name,
    )
    kind_class = RECORD_TYPES[args.kinds[0]].__name__
    code = MODULE.format(id=args.id, name=args.name, fact=fact, kind_class=kind_class, cost_model=args.name)
    module_path.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")
    module_path.write_text(code, encoding="utf-8")
    print(
        f"wrote {target} and {module_path}; now: write the fact and the examples, "
        f"then `python -m pytest -k {args.id}`"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
