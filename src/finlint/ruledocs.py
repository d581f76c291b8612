"""A rule's documentation, written once in its policy file and rendered for each place it shows:
`finlint rule` (text), `finlint rules --format markdown` / docs/rules.md, and SARIF ``help.markdown``.
"""

from __future__ import annotations

import json

from finlint.engine import Example, Policy

SECTIONS = (
    ("What it does", "what"),
    ("Why it costs money", "why"),
    ("Known false positives", "known_false_positives"),
    ("What to do instead", "remediation"),
)
_LANGS = {"terraform": "hcl", "sagemaker-python": "python", "sagemaker-api": "json", "terraform-plan": "json"}


def _example_title(ex: Example) -> str:
    if ex.kind == "fail":
        where = f" at line {', '.join(map(str, ex.lines))}" if ex.lines else ""
        where += f", {ex.severity}" if ex.severity else ""
        return f"Anti-pattern (fires{where}): {ex.name} ({ex.format})"
    return f"Best practice (passes): {ex.name} ({ex.format})"


def severity_cases(policy: Policy) -> list[str]:
    """One line per ``severity_when`` case, then the default: how severe a finding is, when."""
    if not policy.severity_when:
        return []
    out = [f"{case.severity} when {json.dumps(case.when)}" for case in policy.severity_when]
    return [*out, f"{policy.severity} otherwise"]


NO_FIX = "none: edit the source by hand (see What to do instead; docs/fixes.md says why there is no fix)"


def fix_safety(policy: Policy) -> str:
    """ "safe", "unsafe", "safe and unsafe" (by format) or "none": what ``finlint fix`` offers."""
    from finlint.rules import registry

    rule = registry().rules.get(policy.id) if policy.builtin else None
    return rule.fix_safety if rule is not None and rule.fix_safety else "none"


def fix_text(policy: Policy) -> str | None:
    """What ``finlint fix`` does for the rule: its safety, then its fix function's docstring;
    None: no fix."""
    from finlint.rules import registry

    rule = registry().rules.get(policy.id) if policy.builtin else None
    if rule is None or rule.fix is None:
        return None
    doc = " ".join((rule.fix.__doc__ or "a fix").split())
    return f"{fix_safety(policy)}: {doc}"


def rule_text(policy: Policy) -> str:
    """Plain text for the terminal: headings, prose, indented examples."""
    lines = [f"{policy.id} {policy.name} [{policy.severity_label()}]", "", policy.summary, ""]
    for title, key in SECTIONS:
        if policy.docs.get(key):
            lines += [f"## {title}", str(policy.docs[key]).strip(), ""]
    if policy.severity_when:
        lines += ["## Severity", *(f"- {c}" for c in severity_cases(policy)), ""]
    if policy.params:
        lines += ["## Options", *(f"- {k}: {json.dumps(v)}" for k, v in policy.params.items()), ""]
    fix = fix_text(policy)
    lines += ["## Fix (finlint fix)", fix or NO_FIX, ""]
    for ex in policy.examples:
        lines += [f"## {_example_title(ex)}", "", *("    " + c for c in ex.code.splitlines()), ""]
        if ex.fixed is not None:
            lines += ["After `finlint fix`:", "", *("    " + c for c in ex.fixed.splitlines()), ""]
    refs = policy.docs.get("references") or []
    if refs:
        lines += ["## References", *(f"- {r}" for r in refs)]
    return "\n".join(lines).rstrip() + "\n"


def rule_markdown(policy: Policy, level: int = 2) -> str:
    """Markdown: SARIF help (GitHub's "Show more" on an alert) and the rules page."""
    h = "#" * level
    parts = [f"**{policy.id} {policy.name}** ({policy.severity_label()}): {policy.summary}"]
    for title, key in SECTIONS:
        if policy.docs.get(key):
            parts.append(f"{h} {title}\n\n{str(policy.docs[key]).strip()}")
    if policy.severity_when:
        parts.append(f"{h} Severity\n\n" + "\n".join(f"- {c}" for c in severity_cases(policy)))
    if policy.params:
        parts.append(
            f"{h} Options\n\n" + "\n".join(f"- `{k}`: `{json.dumps(v)}`" for k, v in policy.params.items())
        )
    parts.append(f"{h} Fix (finlint fix)\n\n{fix_text(policy) or NO_FIX}")
    for ex in policy.examples:
        lang = _LANGS.get(ex.format, "yaml")
        parts.append(f"{h} {_example_title(ex)}\n\n```{lang}\n{ex.code.rstrip()}\n```")
        if ex.fixed is not None:
            parts.append(f"After `finlint fix`:\n\n```{lang}\n{ex.fixed.rstrip()}\n```")
    refs = policy.docs.get("references") or []
    if refs:
        parts.append(f"{h} References\n\n" + "\n".join(f"- {r}" for r in refs))
    parts.append(f"Suppress with a reason: `# finlint: ignore[{policy.id}] why this is intended`.")
    return "\n\n".join(parts)


def rules_page(policies: list[Policy]) -> str:
    """docs/rules.md: the table of rules, then each rule's documentation."""
    out = [
        "# Rules",
        "",
        "Generated from `policies/` by `finlint rules --format markdown`; do not edit by hand.",
        "",
        "| code | name | severity | fix | summary |",
        "|---|---|---|---|---|",
        *(
            f"| [{p.id}](#{p.id.lower()}-{p.name}) | `{p.name}` | {p.severity_label()} | {fix_safety(p)} "
            f"| {p.summary} |"
            for p in policies
        ),
    ]
    for p in policies:
        out += ["", f"## {p.id} {p.name}", "", rule_markdown(p, level=3)]
    return "\n".join(out) + "\n"
