"""``--format auto``: the report the CI system in use reads natively.

``github`` (workflow-command annotations and the job summary) when ``GITHUB_ACTIONS=true``,
``gitlab`` (Code Quality JSON) when ``GITLAB_CI=true``, else ``text``. Both runners set these
variables in every job; GitHub wins if both are set.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from finlint.reporters import ReportContext
    from finlint.result import ScanResult


def detect(env: Mapping[str, str] | None = None) -> str:
    """The format ``auto`` stands for in ``env`` (default: the process environment)."""
    values = os.environ if env is None else env
    if values.get("GITHUB_ACTIONS", "").lower() == "true":
        return "github"
    if values.get("GITLAB_CI", "").lower() == "true":
        return "gitlab"
    return "text"


def render(result: ScanResult, context: ReportContext) -> str:
    from finlint.reporters import get_reporter

    return get_reporter(detect()).render(result, context)
