"""Post suggestions: a GitHub pull-request review, GitLab merge-request discussions.

Standard library only (urllib); the API URL and the token come from the CI environment
(``GITHUB_API_URL``/``GITHUB_TOKEN``, ``CI_API_V4_URL``/``GITLAB_TOKEN`` or ``CI_JOB_TOKEN``), the
token is never printed, every request has a bounded timeout, and a failure is one
:class:`HostError` line (the command exits 2 on it, so CI never reads a failed post as clean).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from finlint.escape import clean
from finlint.review.suggestions import Suggestion, added_lines, body, in_diff

TIMEOUT_S = 20
MAX_RESPONSE_BYTES = 16 * 1024 * 1024


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is an error: urllib would resend the token to wherever it points."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


class HostError(Exception):
    """An HTTP failure, as one printable line."""


@dataclass(frozen=True)
class Api:
    """Where to send requests and the headers that authenticate them."""

    base: str
    headers: dict[str, str]

    def call(self, method: str, path: str, payload: object = None) -> Any:
        """One JSON request; the decoded JSON answer."""
        url = self.base.rstrip("/") + path
        if not url.startswith(("https://", "http://")):
            raise HostError(f"API URL must be http(s): {clean(self.base)}")
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        headers = {**self.headers, "Accept": "application/json", "User-Agent": "finlint"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with _OPENER.open(req, timeout=TIMEOUT_S) as resp:
                raw = resp.read(MAX_RESPONSE_BYTES)
        except urllib.error.HTTPError as exc:
            raise HostError(f"{method} {clean(path)}: HTTP {exc.code} {clean(exc.reason)}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise HostError(f"{method} {clean(path)}: {clean(reason)}") from None
        try:
            return json.loads(raw) if raw.strip() else None
        except json.JSONDecodeError:
            raise HostError(f"{method} {clean(path)}: the answer is not JSON") from None


def _q(value: str) -> str:
    return urllib.parse.quote(value, safe="")


def _pages(api: Api, path: str) -> list[dict[str, Any]]:
    """Every item of a paginated list (100 a page, at most 30 pages: 3000 files)."""
    out: list[dict[str, Any]] = []
    sep = "&" if "?" in path else "?"
    for page in range(1, 31):
        got = api.call("GET", f"{path}{sep}per_page=100&page={page}")
        if not isinstance(got, list):
            raise HostError(f"GET {clean(path)}: expected a list")
        out.extend(x for x in got if isinstance(x, dict))
        if len(got) < 100:
            break
    return out


def github_payload(suggestions: list[Suggestion], commit: str) -> dict[str, Any]:
    """The body of ``POST /repos/{repo}/pulls/{n}/reviews``: one comment per suggestion."""
    comments = []
    for s in suggestions:
        c: dict[str, Any] = {"path": s.file, "line": s.end_line, "side": "RIGHT", "body": body(s)}
        if s.start_line != s.end_line:
            c.update(start_line=s.start_line, start_side="RIGHT")
        comments.append(c)
    return {
        "commit_id": commit,
        "event": "COMMENT",
        "body": f"finlint: {len(comments)} suggested edit(s)",
        "comments": comments,
    }


def github_diff(api: Api, repo: str, number: int) -> dict[str, set[int]]:
    """file -> the new-side lines the pull request's diff shows (from its files' patches)."""
    files = _pages(api, f"/repos/{repo}/pulls/{number}/files")
    return {str(f.get("filename")): added_lines(str(f.get("patch") or "")) for f in files}


def github_head(api: Api, repo: str, number: int) -> str:
    """The pull request's head commit: the review is anchored there."""
    pr = api.call("GET", f"/repos/{repo}/pulls/{number}")
    sha = pr.get("head", {}).get("sha") if isinstance(pr, dict) else None
    if not isinstance(sha, str):
        raise HostError("the pull request has no head commit")
    return sha


def gitlab_versions(api: Api, project: str, iid: int) -> dict[str, str]:
    """base/start/head SHAs of the merge request's latest diff version (a position needs all three)."""
    got = api.call("GET", f"/projects/{_q(project)}/merge_requests/{iid}/versions")
    if not isinstance(got, list) or not got or not isinstance(got[0], dict):
        raise HostError("the merge request has no diff version")
    v = got[0]
    shas = {k: v.get(k) for k in ("base_commit_sha", "start_commit_sha", "head_commit_sha")}
    if not all(isinstance(x, str) for x in shas.values()):
        raise HostError("the merge request's version has no SHAs")
    return {k: str(x) for k, x in shas.items()}


def gitlab_diff(api: Api, project: str, iid: int) -> dict[str, set[int]]:
    """file -> the new-side lines the merge request's diff shows."""
    files = _pages(api, f"/projects/{_q(project)}/merge_requests/{iid}/diffs")
    return {str(f.get("new_path")): added_lines(str(f.get("diff") or ""), context=False) for f in files}


def gitlab_payloads(suggestions: list[Suggestion], shas: dict[str, str]) -> list[dict[str, Any]]:
    """One discussion per suggestion, positioned on its last line; ``-N+0`` reaches back to its first."""
    out = []
    for s in suggestions:
        info = f"suggestion:-{s.end_line - s.start_line}+0"
        position = {
            "position_type": "text",
            "base_sha": shas["base_commit_sha"],
            "start_sha": shas["start_commit_sha"],
            "head_sha": shas["head_commit_sha"],
            "old_path": s.file,
            "new_path": s.file,
            "new_line": s.end_line,
        }
        out.append({"body": body(s, info), "position": position})
    return out


def keep_in_diff(suggestions: list[Suggestion], diff: dict[str, set[int]]) -> list[Suggestion]:
    """The suggestions a host accepts: all their lines in the diff."""
    return [s for s in suggestions if in_diff(s, diff)]
