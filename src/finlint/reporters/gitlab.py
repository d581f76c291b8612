"""GitLab Code Quality: the JSON array GitLab reads from ``artifacts:reports:codequality``.

Each entry has ``description``, ``check_name``, ``fingerprint``, ``severity`` and
``location.path`` / ``location.lines.begin`` (GitLab's documented subset of the Code Climate
format; ``tests/reporters/schemas/`` vendors GitLab's own schema). Choices that matter to users:

- the fingerprint is the SARIF one (:func:`finlint.reporters.sarif.fingerprints`: rule, file,
  resource and occurrence, never the line), so GitLab's merge-request widget matches a finding
  across commits that only move lines, and reports it as new or fixed only when it is;
- severities map info -> info, low -> minor, medium -> major, high -> critical,
  critical -> blocker;
- the description carries the dollar figure, since GitLab shows the description only;
- in-source suppressions are left out (they are decisions, not degradations); baselined
  findings stay in, because GitLab compares the report with the target branch's itself;
- paths are relative to the repository (``CI_PROJECT_DIR`` when set, else the git root; the
  rule SARIF and GitHub annotations share, :mod:`finlint.reporters.paths`) with ``/``
  separators and no ``./``, as GitLab links them.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finlint.finding import Finding
from finlint.reporters.markdown import ranked, usd
from finlint.reporters.paths import GITLAB, RepoPaths
from finlint.reporters.sarif import fingerprints

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult

SEVERITIES = {"info": "info", "low": "minor", "medium": "major", "high": "critical", "critical": "blocker"}
MAX_DESCRIPTION = 1000  # GitLab shows one line per finding; the basis belongs in the other reports


def severity(finlint_severity: str) -> str:
    return SEVERITIES.get(finlint_severity, "major")


def repo_path(file: str, root: str | None = None) -> str:
    """``file`` as GitLab links it: relative to the project directory, ``/``-separated.

    ``root`` defaults to ``CI_PROJECT_DIR`` (set in every GitLab job), else the git root; a file
    outside it keeps the path the scan printed.
    """
    if root is not None:
        return RepoPaths((Path(os.path.abspath(root)),), Path.cwd())(file)
    return RepoPaths.for_ci(GITLAB)(file)


def description(f: Finding) -> str:
    text = f"{f.rule_id} {f.rule}: {f.message}"
    if f.cost is not None and f.cost.monthly_usd is not None:
        text += f" (estimated {usd(f.cost.monthly_usd)}/month, {f.cost.kind})"
    elif f.cost is not None:
        text += " (not priced)"
    text = " ".join(text.split())
    return text if len(text) <= MAX_DESCRIPTION else text[: MAX_DESCRIPTION - 1] + "…"


def entry(f: Finding, fingerprint: str, paths: RepoPaths | None = None) -> dict[str, Any]:
    begin = max(f.line, 1)
    return {
        "description": description(f),
        "check_name": f.rule_id,
        "fingerprint": fingerprint,
        "severity": severity(f.severity),
        "location": {
            "path": paths(f.file) if paths is not None else repo_path(f.file),
            "lines": {"begin": begin, "end": max(f.end_line, begin)},
        },
    }


def as_list(result: ScanResult) -> list[dict[str, Any]]:
    reported = [f for f in result.findings if f.suppressed is None]
    digests = fingerprints(result.findings)  # over every finding: same digests as the SARIF log
    paths = RepoPaths.for_ci(GITLAB)
    return [entry(f, digests[id(f)], paths) for f in ranked(reported)]


def render(result: ScanResult, context: ReportContext) -> str:
    return json.dumps(as_list(result), indent=2) + "\n"


__all__ = ["as_list", "description", "entry", "render", "repo_path", "severity"]
