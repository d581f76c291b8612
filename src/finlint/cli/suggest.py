"""``finlint suggest REPORT --github|--gitlab``: a JSON report's fixes as review suggestions.

Network only here, and only when asked; the API URL, the repository, the PR/MR and the token
come from the CI environment. ``--dry-run`` fetches nothing and prints the payload (every
suggestion, unfiltered by the diff) so a user can see what would be posted.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from finlint.escape import clean

if TYPE_CHECKING:
    from finlint.review.suggestions import Suggestion

# finlint.review.hosts (urllib.request: http.client, email, ssl; ~25 ms) is imported by the
# functions that post, not here: every command line imports this module to declare the command.

EXIT_OK, EXIT_ERROR = 0, 2


def _pr_number() -> int | None:
    """The pull request of a ``pull_request`` event (GITHUB_EVENT_PATH), else None."""
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return None
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
        number = event.get("pull_request", {}).get("number") or event.get("number")
    except (OSError, ValueError, AttributeError):
        return None
    return number if isinstance(number, int) else None


def _fail(message: str) -> NoReturn:
    click.echo(f"finlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _github(suggestions: list[Suggestion], number: int | None, dry_run: bool) -> None:
    from finlint.review import hosts

    repo = os.environ.get("GITHUB_REPOSITORY", "")
    number = number or _pr_number()
    if dry_run:
        payload = hosts.github_payload(suggestions, os.environ.get("GITHUB_SHA", "HEAD"))
        click.echo(json.dumps(payload, indent=2))
        return
    token = os.environ.get("GITHUB_TOKEN")
    if not repo or number is None or not token:
        _fail(
            "--github needs GITHUB_REPOSITORY, GITHUB_TOKEN and a pull request (--pr or a pull_request event)"
        )
    api = hosts.Api(
        os.environ.get("GITHUB_API_URL", "https://api.github.com"),
        {"Authorization": f"Bearer {token}", "X-GitHub-Api-Version": "2022-11-28"},
    )
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", repo):
        _fail(f"GITHUB_REPOSITORY is not owner/name: {clean(repo)}")
    path = f"/repos/{repo}/pulls/{number}"
    kept = hosts.keep_in_diff(suggestions, hosts.github_diff(api, repo, number))
    if kept:
        api.call("POST", f"{path}/reviews", hosts.github_payload(kept, hosts.github_head(api, repo, number)))
    click.echo(
        f"finlint: posted {len(kept)} suggestion(s); {len(suggestions) - len(kept)} outside the diff",
        err=True,
    )


def _gitlab(suggestions: list[Suggestion], number: int | None, dry_run: bool) -> None:
    from finlint.review import hosts

    project = os.environ.get("CI_PROJECT_ID", "")
    iid = number or int(os.environ.get("CI_MERGE_REQUEST_IID", "0") or 0)
    if dry_run:
        shas = {k: "HEAD" for k in ("base_commit_sha", "start_commit_sha", "head_commit_sha")}
        click.echo(json.dumps(hosts.gitlab_payloads(suggestions, shas), indent=2))
        return
    token = os.environ.get("GITLAB_TOKEN")
    if not project or not iid or not token:
        _fail("--gitlab needs CI_PROJECT_ID, CI_MERGE_REQUEST_IID (or --pr) and GITLAB_TOKEN (api scope)")
    api = hosts.Api(
        os.environ.get("CI_API_V4_URL", "https://gitlab.com/api/v4"), {"PRIVATE-TOKEN": str(token)}
    )
    kept = hosts.keep_in_diff(suggestions, hosts.gitlab_diff(api, project, iid))
    shas = hosts.gitlab_versions(api, project, iid) if kept else {}
    for payload in hosts.gitlab_payloads(kept, shas):
        api.call("POST", f"/projects/{hosts._q(project)}/merge_requests/{iid}/discussions", payload)
    click.echo(
        f"finlint: posted {len(kept)} suggestion(s); {len(suggestions) - len(kept)} outside the diff",
        err=True,
    )


@click.command("suggest")
@click.argument("report", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--github", "host", flag_value="github", help="Post a pull-request review (GitHub REST API).")
@click.option("--gitlab", "host", flag_value="gitlab", help="Post merge-request discussions (GitLab API).")
@click.option(
    "--root",
    type=click.Path(path_type=Path, file_okay=False),
    default=Path("."),
    show_default=True,
    help="The scan root the report's paths are relative to.",
)
@click.option("--pr", "number", type=int, help="The PR/MR number (default: from the CI environment).")
@click.option("--dry-run", is_flag=True, help="Print the payload; fetch and post nothing.")
def suggest_cmd(report: Path, host: str | None, root: Path, number: int | None, dry_run: bool) -> None:
    """Post REPORT's (``finlint scan --format json``) fixes as suggestions on the changed lines.

    Exit 0 when posted (or nothing to post), 2 on a usage or HTTP error.
    """
    from finlint.review import hosts
    from finlint.review.suggestions import load_report, to_suggestions, unique

    if host is None:
        _fail("choose --github or --gitlab")
    try:
        fixable = load_report(report)
    except ValueError as exc:
        _fail(clean(str(exc)))
    suggestions = unique([s for f in fixable for s in to_suggestions(f, root)])
    try:
        (_github if host == "github" else _gitlab)(suggestions, number, dry_run)
    except hosts.HostError as exc:
        _fail(str(exc))
    sys.exit(EXIT_OK)
