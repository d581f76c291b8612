"""Scaffold a new rule: ``python scripts/new_rule.py FIN207 spot-without-something training_job``.

Writes ``policies/FIN207-spot-without-something.yaml`` with every section a rule needs (as
ruff's ``scripts/add_rule.py`` does): params, condition, message, cost model, docs, and one
fail and one pass example. The placeholders are deliberately not a working rule: the example
test (``python -m pytest -k FIN207``) fails until you write a real condition and real examples,
and ``docs/rules.md`` must be regenerated (``finlint rules --format markdown > docs/rules.md``).
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from finlint.engine.policy import ID_RE, NAME_RE  # noqa: E402
from finlint.ir import RECORD_TYPES  # noqa: E402
from finlint.loaders import example_files  # noqa: E402

TEMPLATE = """\
id: {id}
name: {name}
summary: "TODO one line: what costs money"
severity: medium
applies_to: [{kinds}]
params: {{}}
condition:
  # TODO: all/any/not over IR fields, lets and fact.NAME (see src/finlint/engine/conditions.py)
  exists: {field}
at: [{field}]
message: "TODO {{address}}: what is wrong and what to do"
# cost_model: TODO a model name from src/finlint/cost/__init__.py, or leave out and say why in docs
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("id", help="FINnnn, unused")
    parser.add_argument("name", help="kebab-case name")
    parser.add_argument("kinds", nargs="+", choices=sorted(RECORD_TYPES), help="IR kinds it applies to")
    parser.add_argument("--format", default="cloudformation", choices=sorted(example_files()))
    parser.add_argument("--policy-dir", type=Path, default=REPO / "policies")
    args = parser.parse_args(argv)
    if not ID_RE.match(args.id) or not NAME_RE.match(args.name):
        parser.error("id must look like FIN123 and name like some-rule-name")
    taken = [p.name for p in args.policy_dir.glob("*.yaml") if re.match(rf"{args.id}-", p.name)]
    if taken:
        parser.error(f"{args.id} is taken: {taken[0]}")
    fields = [f.name for f in dataclasses.fields(RECORD_TYPES[args.kinds[0]])]
    field = next(f for f in fields if f not in ("address", "location", "source_format", "attr_lines"))
    target = args.policy_dir / f"{args.id}-{args.name}.yaml"
    text = TEMPLATE.format(
        id=args.id, name=args.name, kinds=", ".join(args.kinds), field=field, fmt=args.format
    )
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}; now: write the condition and examples, then `python -m pytest -k {args.id}`")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
