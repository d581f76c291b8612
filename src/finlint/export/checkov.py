"""finlint's rules as checkov YAML custom policies: ``finlint export checkov DIR``.

checkov runs in its own environment (never next to finlint: ``bc-python-hcl2`` and
``python-hcl2`` both install ``hcl2``), so the bridge is files: one ``CKV2_FIN_<n>.yaml`` per
rule, which ``checkov -d infra/ --external-checks-dir DIR --skip-download`` loads. checkov's
graph registry walks the directory for ``.yaml``/``.json`` policies
(``checkov/common/checks_infra/registry.py``); an ``__init__.py`` is only needed for Python
checks, so none is written.

How the two languages meet (checkov 3.3, "YAML Custom Policies" and its solvers):

* A checkov definition describes the *compliant* state: a resource of the listed types fails
  when it is false, passes when it is true, and is left out when it depends on a variable
  checkov could not render. A finlint condition describes the *violation* and never fires on an
  unknown value, so each resource type's violation ``V`` is exported as ``not: V``, and several
  resource types as ``and`` of one ``not`` each.
* ``V`` is built in negation normal form (``not`` pushed to the leaves, whose operators have
  exact opposites: ``exists``/``not_exists``, ``equals``/``not_equals``...): an attribute block
  is false on every other resource type, so ``V`` is false there and its ``not`` leaves the
  verdict to the block of the resource's own type.

What is translated comes from the policy files: a condition over plain IR fields is translated
through :data:`SOURCES` (IR field -> checkov attribute per resource type); rules whose
conditions use finlint's computed facts get a hand translation in :data:`HAND` (per rule id),
which also says where the translation is weaker than the rule. Everything else, and every
resource type finlint reads that checkov cannot judge the same way, is listed as a gap.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from finlint.engine import Policy
from finlint.export.checkov_sources import (
    CATEGORY,
    ID_PREFIX,
    NOT_CHECKOV_INPUTS,
    SEVERITY,
    SOURCES,
    Level,
    Source,
)
from finlint.export.checkov_translate import NOT_APPLICABLE, TargetCoverage, search_regex, translate_source

__all__ = [
    "GENERATED",
    "RuleExport",
    "coverage_markdown",
    "coverage_text",
    "export_rules",
    "search_regex",
    "write",
]


@dataclass(frozen=True)
class RuleExport:
    """One rule as checkov policies: a translation per resource type, or why there is none."""

    policy: Policy
    targets: tuple[TargetCoverage, ...]
    reason: str = ""  # why a rule with no targets is not exported

    @property
    def check_id(self) -> str:
        digits = re.sub(r"\D", "", self.policy.id)
        return f"{ID_PREFIX}{digits}"

    @property
    def exported(self) -> tuple[TargetCoverage, ...]:
        return tuple(t for t in self.targets if t.translation.block is not None)

    @property
    def level(self) -> Level:
        if not self.exported:
            return "nothing"
        if all(t.translation.level == "full" for t in self.targets):
            return "full"
        return "weaker"

    def document(self) -> dict[str, Any]:
        p = self.policy
        blocks = [{"not": t.translation.block} for t in self.exported]
        definition = blocks[0] if len(blocks) == 1 else {"and": blocks}
        return {
            "metadata": {
                "id": self.check_id,
                "name": f"finlint {p.id} {p.name}: {p.summary}",
                "category": CATEGORY,
                "severity": SEVERITY.get(p.severity, p.severity.upper()),
                "guideline": guideline(self),
            },
            "definition": definition,
        }


def export_rule(policy: Policy) -> RuleExport:
    if not policy.applies_to:
        return RuleExport(policy, (), "a meta rule about finlint's own input (parse errors, suppressions)")
    targets = []
    for source in SOURCES:
        if source.kind not in policy.applies_to:
            continue
        translation = translate_source(policy, source)
        if translation is NOT_APPLICABLE:
            continue
        targets.append(TargetCoverage(source, translation))
    return RuleExport(policy, tuple(targets), "" if targets else "no Terraform or CloudFormation input")


def export_rules(policies: list[Policy]) -> list[RuleExport]:
    return [export_rule(p) for p in sorted(policies, key=lambda p: p.id)]


def _paragraph(text: Any) -> str:
    return " ".join(str(text or "").split())


def pricing_text(policy: Policy) -> str:
    """How finlint prices the rule: the cost model and the first sentence of its rule module's
    ``Price (...)`` paragraph."""
    if not policy.cost_model:
        return "finlint attaches no dollar figure to this rule."
    from finlint import rules

    fn = rules.registry().cost_models.get(policy.cost_model)
    doc = sys.modules[fn.__module__].__doc__ if fn is not None else None
    summary = ""
    for block in (doc or "").split("\n\n"):
        if block.strip().startswith("Price ("):
            first = _paragraph(block).split("): ", 1)[-1]
            summary = first.split(": ", 1)[0].split(". ", 1)[0].rstrip(".")
            break
    text = f"How finlint prices it: the `{policy.cost_model}` cost model"
    return f"{text} ({summary})" if summary else f"{text}."


def grouped(export: RuleExport) -> list[tuple[Level, str, list[Source]]]:
    """The rule's resource types grouped by (level, note), in SOURCES order, each type once."""
    groups: dict[tuple[Level, str], list[Source]] = {}
    seen: set[tuple[str, str]] = set()
    for t in export.targets:
        key = (t.source.framework, t.source.resource_type)
        if key in seen:
            continue
        seen.add(key)
        groups.setdefault((t.translation.level, t.translation.note), []).append(t.source)
    return [(level, note, sources) for (level, note), sources in groups.items()]


def guideline(export: RuleExport) -> str:
    p = export.policy
    covered = [
        f"{s.resource_type} ({level})"
        for level, _, sources in grouped(export)
        if level != "nothing"
        for s in sources
    ]
    missing = [
        s.resource_type for level, _, sources in grouped(export) if level == "nothing" for s in sources
    ]
    gaps = f"; not covered: {', '.join(missing)}" if missing else ""
    return (
        f"finlint {p.id} {p.name}. Why it costs money: {_paragraph(p.docs.get('why'))} "
        f"Fix: {_paragraph(p.docs.get('remediation'))} {pricing_text(p)}. "
        f"This checkov policy is {export.level}: {', '.join(covered)}{gaps} "
        "(finlint's docs/checkov.md says why). "
        "Run `finlint scan` for the dollar figures and the inputs checkov does not read "
        "(SageMaker API requests, SDK code, Step Functions, Karpenter pools)."
    )


GENERATED = "# Generated by `finlint export checkov`"


def write(exports: list[RuleExport], directory: Path) -> tuple[list[Path], list[Path]]:
    """Write one ``CKV2_FIN_<n>.yaml`` per exportable rule into ``directory``.

    Returns (written, removed): a policy this command generated earlier for a rule that is no
    longer exported is removed, so checkov does not keep running a stale check; other files in
    the directory are left alone. Raises ``OSError`` when the directory cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for e in exports:
        if not e.exported:
            continue
        path = directory / f"{e.check_id}.yaml"
        source = Path(e.policy.path).name
        header = (
            f"{GENERATED} from {source}; do not edit.\n"
            f"# Coverage: {e.level}. Run with: checkov -d infra/ "
            f"--external-checks-dir {directory.name} --skip-download\n"
        )
        body = yaml.safe_dump(e.document(), sort_keys=False, allow_unicode=True, width=100)
        path.write_text(header + body, encoding="utf-8")
        written.append(path)
    removed = []
    for old in sorted(directory.glob(f"{ID_PREFIX}*.yaml")):
        if old in written or not old.is_file():
            continue
        try:
            first = old.read_text(encoding="utf-8").split("\n", 1)[0]
        except (OSError, UnicodeDecodeError):
            continue
        if first.startswith(GENERATED):
            old.unlink()
            removed.append(old)
    return written, removed


def _cell(level: Level, note: str, sources: list[Source]) -> str:
    names = ", ".join(f"`{s.resource_type}`" for s in sources)
    return f"{names}: {level}" + (f" ({note})" if note else "")


FRAMEWORKS = {"terraform": "Terraform", "cloudformation": "CloudFormation", "kubernetes": "Kubernetes"}


def coverage_markdown(exports: list[RuleExport]) -> str:
    """The coverage table of docs/checkov.md (``finlint export checkov DIR --markdown``)."""
    lines = [
        "| rule | checkov id | checkov gets | " + " | ".join(FRAMEWORKS.values()) + " |",
        "|---|---|---|" + "---|" * len(FRAMEWORKS),
    ]
    for e in exports:
        cells: dict[str, list[str]] = {framework: [] for framework in FRAMEWORKS}
        for level, note, sources in grouped(e):
            for framework, cell in cells.items():
                mine = [s for s in sources if s.framework == framework]
                if mine:
                    cell.append(_cell(level, note, mine))
        texts = ["<br>".join(cell) or "-" for cell in cells.values()]
        if not e.targets:
            texts[0] = e.reason or "-"
        check_id = e.check_id if e.exported else "-"
        lines.append(
            f"| {e.policy.id} {e.policy.name} | {check_id} | **{e.level}** | " + " | ".join(texts) + " |"
        )
    lines.append("")
    lines.append(f"Never in checkov, for every rule: {NOT_CHECKOV_INPUTS}.")
    return "\n".join(lines) + "\n"


def coverage_text(exports: list[RuleExport]) -> str:
    """The plain-text coverage report ``finlint export checkov`` prints."""
    out = []
    for e in exports:
        target = e.check_id if e.exported else "not exported"
        out.append(f"{e.policy.id} {e.policy.name} -> {target} ({e.level})")
        for level, note, sources in grouped(e):
            names = ", ".join(f"{s.framework} {s.resource_type}" for s in sources)
            out.append(f"    {level}: {names}" + (f": {note}" if note else ""))
        if not e.targets:
            out.append(f"    {e.reason}")
    out.append(f"Never in checkov: {NOT_CHECKOV_INPUTS}.")
    return "\n".join(out) + "\n"
