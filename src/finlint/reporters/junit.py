"""JUnit XML for CI test-report viewers (GitLab, Jenkins, Azure DevOps).

One test case per rule x file: a rule "passes" on a file that has records of the kinds it
checks and no finding there. Each active finding is its own failing case (``file:line
resource``, one ``<failure>`` each), so ``failures`` counts findings. Suppressed and baselined
findings are skipped cases (with the reason), not failures, since they do not fail the run.
Meta rules (parse errors, suppression hygiene) appear only where they fired.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import TYPE_CHECKING

from finlint.escape import clean
from finlint.finding import Finding

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult


def _cases(result: ScanResult, context: ReportContext) -> dict[str, dict[str, list[Finding]]]:
    """rule id -> file -> findings (an empty list is a passing case)."""
    engine = context.engine
    kinds_by_file: dict[str, set[str]] = defaultdict(set)
    for record in result.records:
        kinds_by_file[record.location.file].add(record.KIND)
    cases: dict[str, dict[str, list[Finding]]] = defaultdict(dict)
    for policy in result.policies:
        if not policy.applies_to or (engine is not None and not engine.enabled(policy)):
            continue
        for file, kinds in kinds_by_file.items():
            if kinds & set(policy.applies_to):
                cases[policy.id][file] = []
    for f in result.findings:
        cases[f.rule_id].setdefault(f.file, []).append(f)
    return cases


def _line(f: Finding) -> str:
    text = f"{f.file}:{f.line}: {f.rule_id} [{f.severity}] {f.resource}: {f.message}"
    if f.cost is not None and f.cost.monthly_usd is not None:
        text += f" (estimated ${f.cost.monthly_usd:,.2f}/month {f.cost.kind}: {f.cost.basis})"
    return text


def render(result: ScanResult, context: ReportContext) -> str:
    names = {p.id: p.name for p in result.policies}
    cases = _cases(result, context)
    root = ET.Element("testsuites", name="finlint")
    totals = {"tests": 0, "failures": 0, "skipped": 0}
    for rule_id in sorted(cases):
        suite = ET.SubElement(root, "testsuite", name=f"{rule_id} {names.get(rule_id, '')}".strip())
        counts = {"tests": 0, "failures": 0, "skipped": 0}
        for file in sorted(cases[rule_id]):
            findings = sorted(cases[rule_id][file], key=lambda f: (f.line, f.resource))
            active = [f for f in findings if f.active]
            for f in active:  # one failing case per finding: a case holds at most one <failure>
                case = ET.SubElement(
                    suite,
                    "testcase",
                    name=f"{file}:{f.line} {f.resource}",
                    classname=f"finlint.{rule_id}",
                    file=file,
                    line=str(f.line),
                )
                counts["tests"] += 1
                counts["failures"] += 1
                failure = ET.SubElement(case, "failure", message=f.message, type=f.severity)
                failure.text = _line(f)
            if active:
                continue
            case = ET.SubElement(suite, "testcase", name=file, classname=f"finlint.{rule_id}", file=file)
            counts["tests"] += 1
            if findings:
                counts["skipped"] += 1
                reasons = sorted(
                    {
                        ("suppressed: " + (f.suppressed or "no reason given"))
                        if f.suppressed is not None
                        else "in baseline"
                        for f in findings
                    }
                )
                ET.SubElement(case, "skipped", message="; ".join(reasons))
        for key, value in counts.items():
            suite.set(key, str(value))
            totals[key] += value
        suite.set("errors", "0")
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("errors", "0")
    for element in root.iter():  # XML 1.0 forbids most control characters; strict UTF-8 no surrogates
        for name in list(element.attrib):
            element.set(name, clean(element.attrib[name]))
        if element.text:
            element.text = clean(element.text)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
