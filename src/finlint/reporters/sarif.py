"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

Choices that matter to users:
- every rule is in ``tool.driver.rules`` with its docs as ``help.markdown``; levels map
  critical/high -> error, medium -> warning, low/info -> note, and ``problem.severity`` (what
  GitHub ranks non-security alerts by) error / warning / recommendation likewise. No
  ``security-severity``: these are cost findings, and GitHub would file them as security alerts.
- ``fullDescription`` stays within GitHub's 1,024 characters (cut at a sentence, else a word,
  with an ellipsis); the whole text is in ``help``.
- paths are relative to the repository root (``GITHUB_WORKSPACE``, else the git root:
  :mod:`finlint.reporters.paths`), which ``%SRCROOT%`` names, so a scan run in a subfolder
  still points code scanning at files that exist; every region has a ``startColumn`` (1: the
  loaders record lines, not columns).
- ``partialFingerprints`` hash rule, file and resource (plus the occurrence), never the line,
  so an alert keeps its identity when unrelated lines move (checkov and Trivy omit them and
  users get duplicate alerts). We also fill ``primaryLocationLineHash`` so upload-sarif does
  not replace it with its own line-content hash.
- suppressed findings stay in the log as ``suppressions: [{kind: inSource, justification}]``;
  with a baseline, results carry ``baselineState`` (new / unchanged).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from finlint import __version__
from finlint.budget import budget_status
from finlint.engine import Policy
from finlint.finding import Finding
from finlint.reporters import sarif_fixes
from finlint.reporters.paths import GITHUB, RepoPaths
from finlint.ruledocs import rule_markdown

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
DEFAULT_URI = "https://github.com/finlint/finlint"  # until pyproject names a Homepage
LEVELS = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
#: GitHub's ``problem.severity`` for alerts that are not security alerts
PROBLEM_SEVERITIES = {
    "critical": "error",
    "high": "error",
    "medium": "warning",
    "low": "recommendation",
    "info": "recommendation",
}
MAX_DESCRIPTION = 1024  # GitHub code scanning refuses a longer fullDescription.text
FINGERPRINT_KEY = "finlint/v1"


def information_uri() -> str:
    """The project's Homepage/Repository URL from the installed metadata, else the default."""
    try:
        from importlib.metadata import metadata

        for entry in metadata("finlint").get_all("Project-URL") or []:
            label, _, url = entry.partition(",")
            if label.strip().lower() in ("homepage", "repository", "source") and url.strip().startswith(
                "https://"
            ):
                return str(url).strip()
    except Exception:  # noqa: BLE001 - metadata is optional here
        pass
    return DEFAULT_URI


def level(severity: str) -> str:
    return LEVELS.get(severity, "warning")


def problem_severity(severity: str) -> str:
    return PROBLEM_SEVERITIES.get(severity, "warning")


def shorten(text: str, limit: int = MAX_DESCRIPTION) -> str:
    """``text`` within ``limit`` characters: cut after the last whole sentence that fits (if that
    keeps at least half of it), else at the last space, and marked with an ellipsis."""
    if len(text) <= limit:
        return text
    room = text[: limit - 2]  # room for " …"
    sentence = room.rfind(". ")
    if sentence >= limit // 2:
        return room[: sentence + 1] + " …"
    word = room.rfind(" ")
    return (room[:word] if word > 0 else room).rstrip(" ,;:") + "…"


def fingerprints(findings: list[Finding]) -> dict[int, str]:
    """``id(finding) -> hex digest`` from (rule, file, resource, occurrence): no line numbers.

    Findings without an IR record (parse errors, meta rules) add their message, since their
    resource is just the file.
    """
    seen: dict[tuple[str, ...], int] = {}
    out: dict[int, str] = {}
    for f in sorted(findings, key=lambda f: (f.rule_id, f.file, f.resource, f.line)):
        key = (f.rule_id, f.file, f.resource) + (() if f.record is not None else (f.message,))
        seen[key] = seen.get(key, 0) + 1
        digest = hashlib.sha256(
            "\x00".join((*key, str(seen[key]))).encode("utf-8", "surrogateescape")
        ).hexdigest()
        out[id(f)] = digest
    return out


class Locations:
    """``artifactLocation`` objects: relative to ``%SRCROOT%`` (the repository root) when the file
    lies under it, else an absolute ``file:`` URI."""

    def __init__(self, paths: RepoPaths) -> None:
        self.paths = paths
        self.srcroot = paths.root or paths.cwd

    def __call__(self, file: str) -> dict[str, str]:
        rel, root = self.paths.locate(file)
        if root == self.paths.root and not os.path.isabs(rel):
            return {"uri": quote(rel, safe="/"), "uriBaseId": "%SRCROOT%"}
        return {"uri": Path(os.path.join(self.paths.cwd, file)).absolute().as_uri()}

    def base_uri(self) -> str:
        return self.srcroot.absolute().as_uri().rstrip("/") + "/"


def _usd(amount: float) -> str:
    return f"${amount:,.0f}" if amount >= 100 else f"${amount:,.2f}"


def _rule(policy: Policy) -> dict[str, Any]:
    what = " ".join(str(policy.docs.get("what") or policy.summary).split())
    description = shorten(what)
    remediation = " ".join(str(policy.docs.get("remediation", "")).split())
    help_text = f"{policy.summary}. {remediation}".strip()
    if description != what:  # the whole description, where GitHub has no limit
        help_text = f"{policy.summary}. {what} {remediation}".strip()
    return {
        "id": policy.id,
        "name": policy.name,
        "shortDescription": {"text": policy.summary},
        "fullDescription": {"text": description},
        "help": {"text": help_text, "markdown": rule_markdown(policy)},
        "defaultConfiguration": {"level": level(policy.severity)},
        "properties": {
            "tags": ["finops", "cost", *[t for t in policy.tags if t not in ("finops", "cost")]],
            "severity": policy.severity,
            "problem.severity": problem_severity(policy.severity),
            "precision": "high",
        },
    }


def _message(f: Finding) -> str:
    text = f.message
    if f.cost is not None and f.cost.monthly_usd is not None:
        text += f" (estimated {_usd(f.cost.monthly_usd)}/month, {f.cost.kind})"
    return text


def _result(f: Finding, index: dict[str, int], digest: str, baseline: bool, uri: Locations) -> dict[str, Any]:
    # startColumn 1: the loaders record lines, not columns (GitHub wants a column on every region)
    region = {"startLine": max(f.line, 1), "startColumn": 1, "endLine": max(f.end_line, f.line, 1)}
    properties: dict[str, Any] = {
        "severity": f.severity,
        "problem.severity": problem_severity(f.severity),  # this finding's: severity_when may raise it
        "resource": f.resource,
        "rule": f.rule,
    }
    if f.cost is not None:
        properties["monthly_usd"] = None if f.cost.monthly_usd is None else round(f.cost.monthly_usd, 2)
        properties["per_run_usd"] = None if f.cost.per_run_usd is None else round(f.cost.per_run_usd, 2)
        properties["cost_kind"] = f.cost.kind
        properties["cost_basis"] = f.cost.basis or f.cost.reason or ""
        properties["cost"] = f.cost.to_json()
    out: dict[str, Any] = {
        "ruleId": f.rule_id,
        "level": level(f.severity),
        "message": {"text": _message(f)},
        "locations": [
            {
                "physicalLocation": {"artifactLocation": uri(f.file), "region": region},
                "logicalLocations": [{"name": f.resource, "kind": "resource"}],
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: digest, "primaryLocationLineHash": f"{digest[:16]}:1"},
        "properties": properties,
    }
    if f.rule_id in index:
        out["ruleIndex"] = index[f.rule_id]
    if f.suppressed is not None:
        suppression: dict[str, Any] = {"kind": "inSource"}
        if f.suppressed:
            suppression["justification"] = f.suppressed
        out["suppressions"] = [suppression]
    if baseline:
        out["baselineState"] = "unchanged" if f.baseline else "new"
    if fix := sarif_fixes.fixes(f, uri):
        out["fixes"] = fix
    return out


def _notifications(result: ScanResult, uri: Locations) -> list[dict[str, Any]]:
    out = []
    for level_name, items in (("error", result.errors), ("note", result.notices)):
        for item in items:
            out.append(
                {
                    "level": level_name,
                    "message": {"text": item.message},
                    "locations": [
                        {
                            "physicalLocation": {
                                "artifactLocation": uri(item.file),
                                "region": {"startLine": max(item.line, 1), "startColumn": 1},
                            }
                        }
                    ],
                }
            )
    return out


def _budget(result: ScanResult, context: ReportContext) -> list[dict[str, Any]]:
    budget = budget_status(result, context)
    if budget is None:
        return []
    return [
        {
            "level": "error" if budget.exceeded else "note",
            "message": {"text": budget.message()},
            "properties": {"budget": budget.to_json()},
        }
    ]


def as_dict(result: ScanResult, context: ReportContext) -> dict[str, Any]:
    policies = sorted(result.policies, key=lambda p: p.id)
    index = {p.id: i for i, p in enumerate(policies)}
    digests = fingerprints(result.findings)
    with_baseline = context.comparison is not None
    uri = Locations(RepoPaths.for_ci(GITHUB))
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "finlint",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": information_uri(),
                        "rules": [_rule(p) for p in policies],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": uri.base_uri()}},
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": _notifications(result, uri) + _budget(result, context),
                    }
                ],
                "results": [_result(f, index, digests[id(f)], with_baseline, uri) for f in result.findings],
                "properties": {
                    **result.totals().to_json(),
                    "files_scanned": result.files_scanned,
                },
            }
        ],
    }


def render(result: ScanResult, context: ReportContext) -> str:
    return json.dumps(as_dict(result, context), indent=2) + "\n"
