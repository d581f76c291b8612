"""``finlint suggest``: fixes -> whole-line suggestions on the diff, posted to a loopback stand-in
for the GitHub and GitLab APIs that checks method, path, auth header and JSON payload."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.finding import Finding, Fix, TextEdit, fix_from_json, fix_to_json
from finlint.reporters import sarif, sarif_fixes
from finlint.reporters.paths import RepoPaths
from finlint.review.suggestions import Fixable, added_lines, fence, to_suggestions

FILE = "infra/a.yaml"
TEXT = "kind: X\nspec:\n  size: 10\n  name: a\n"
# size: 10 -> size: 2 (line 3), and a line appended after line 4 (an insertion at 4:9)
FIX = Fix(
    "cap size",
    True,
    (TextEdit(FILE, 3, 8, 3, 10, "2"), TextEdit(FILE, 4, 9, 4, 9, "\n  limit: 1 ```")),
)
PATCH = "@@ -1,2 +1,5 @@\n kind: X\n-spec: {}\n+spec:\n+  size: 10\n+  name: a\n"


def finding(fix: Fix | None = FIX) -> Finding:
    return Finding("FIN101", "slug", "high", FILE, 3, 4, "X/a", "too big", fix=fix)


def test_fix_json_round_trip_and_malformed() -> None:
    doc = finding().to_json()
    assert doc["fix"]["edits"][0] == {
        "file": FILE, "start_line": 3, "start_col": 8, "end_line": 3, "end_col": 10, "new_text": "2"
    }  # fmt: skip
    assert fix_from_json(json.loads(json.dumps(doc["fix"]))) == FIX
    assert "fix" not in finding(None).to_json()
    bad = fix_to_json(FIX)
    bad["edits"][0]["start_line"] = True
    assert fix_from_json(bad) is None
    assert fix_from_json({"description": "d", "safe": "yes", "edits": []}) is None


def test_sarif_fixes_are_artifact_changes_with_1_based_columns() -> None:
    uri = sarif.Locations(RepoPaths((), Path.cwd()))  # no repository root: relative to the CWD
    (fix,) = sarif_fixes.fixes(finding(), uri)
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": FILE, "uriBaseId": "%SRCROOT%"}
    first = change["replacements"][0]
    assert first["deletedRegion"] == {"startLine": 3, "startColumn": 9, "endLine": 3, "endColumn": 11}
    assert first["insertedContent"] == {"text": "2"}
    assert sarif_fixes.fixes(finding(None), uri) == []


def test_whole_line_suggestion_and_fence(tmp_path: Path) -> None:
    (tmp_path / "infra").mkdir()
    (tmp_path / FILE).write_text(TEXT, encoding="utf-8")
    (s,) = to_suggestions(Fixable("FIN101", "m", FIX), tmp_path)
    assert (s.start_line, s.end_line) == (3, 4)
    assert s.new_lines == ("  size: 2", "  name: a", "  limit: 1 ```")
    assert fence(s.new_lines, "suggestion").startswith("````suggestion\n")
    stale = Fix("d", True, (TextEdit(FILE, 9, 0, 9, 1, "x"),))
    assert to_suggestions(Fixable("FIN101", "m", stale), tmp_path) == []
    escape = Fix("d", True, (TextEdit("../outside.yaml", 1, 0, 1, 0, "x"),))
    assert to_suggestions(Fixable("FIN101", "m", escape), tmp_path) == []


def test_added_lines() -> None:
    assert added_lines(PATCH) == {1, 2, 3, 4}
    assert added_lines("@@ -10,2 +20,2 @@\n a\n-b\n+c\n") == {20, 21}
    assert added_lines("@@ -10,2 +20,2 @@\n a\n-b\n+c\n", context=False) == {21}


class Stand:
    """A loopback API: canned answers by (method, path); records every request."""

    def __init__(self, answers: dict[tuple[str, str], Any]) -> None:
        self.answers, self.seen = answers, []  # type: ignore[var-annotated]
        stand = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                size = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(size)) if size else None
                stand.seen.append((self.command, self.path, dict(self.headers), body))
                answer = stand.answers.get((self.command, self.path))
                code = 404 if answer is None else 200
                data = json.dumps(answer if answer is not None else {"message": "Not Found"}).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _serve

            def log_message(self, *args: object) -> None:
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    (tmp_path / "infra").mkdir()
    (tmp_path / FILE).write_text(TEXT, encoding="utf-8")
    outside = Fix("d", True, (TextEdit("infra/b.yaml", 1, 0, 1, 1, "z"),))
    other = Finding("FIN102", "slug", "low", "infra/b.yaml", 1, 1, "X/b", "m", fix=outside)
    report = {"findings": [finding().to_json(), other.to_json(), finding(None).to_json()]}
    (tmp_path / "infra" / "b.yaml").write_text("y\n", encoding="utf-8")
    (tmp_path / "report.json").write_text(json.dumps(report), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def test_github_review_posted(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pr = "/repos/o/r/pulls/7"
    stand = Stand(
        {
            ("GET", f"{pr}/files?per_page=100&page=1"): [{"filename": FILE, "patch": PATCH}],
            ("GET", pr): {"head": {"sha": "abc123"}},
            ("POST", f"{pr}/reviews"): {"id": 1},
        }
    )
    env = {"GITHUB_API_URL": stand.url, "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "tok-secret"}
    try:
        result = CliRunner().invoke(main, ["suggest", "report.json", "--github", "--pr", "7"], env=env)
    finally:
        stand.close()
    assert result.exit_code == 0, result.output
    assert "tok-secret" not in result.output
    method, path, headers, body = stand.seen[-1]
    assert (method, path) == ("POST", f"{pr}/reviews")
    assert headers["Authorization"] == "Bearer tok-secret"
    assert body["commit_id"] == "abc123" and body["event"] == "COMMENT"
    (comment,) = body["comments"]  # infra/b.yaml is outside the diff: not posted
    assert {k: comment[k] for k in ("path", "start_line", "line", "side", "start_side")} == {
        "path": FILE, "start_line": 3, "line": 4, "side": "RIGHT", "start_side": "RIGHT"
    }  # fmt: skip
    assert "````suggestion\n  size: 2\n  name: a\n  limit: 1 ```\n````" in comment["body"]


def test_github_http_failure_is_exit_2_one_line(tree: Path) -> None:
    stand = Stand({})
    env = {"GITHUB_API_URL": stand.url, "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "tok-secret"}
    try:
        result = CliRunner().invoke(main, ["suggest", "report.json", "--github", "--pr", "7"], env=env)
    finally:
        stand.close()
    assert result.exit_code == 2
    assert "HTTP 404" in result.output and "tok-secret" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_gitlab_discussion_posted(tree: Path) -> None:
    mr = "/projects/42/merge_requests/5"
    shas = {"base_commit_sha": "b", "start_commit_sha": "s", "head_commit_sha": "h"}
    stand = Stand(
        {
            ("GET", f"{mr}/diffs?per_page=100&page=1"): [{"new_path": FILE, "diff": PATCH}],
            ("GET", f"{mr}/versions"): [shas],
            ("POST", f"{mr}/discussions"): {"id": "d"},
        }
    )
    env = {
        "CI_API_V4_URL": stand.url,
        "CI_PROJECT_ID": "42",
        "CI_MERGE_REQUEST_IID": "5",
        "GITLAB_TOKEN": "glt",
    }
    try:
        result = CliRunner().invoke(main, ["suggest", "report.json", "--gitlab"], env=env)
    finally:
        stand.close()
    assert result.exit_code == 0, result.output
    posts = [s for s in stand.seen if s[0] == "POST"]
    assert len(posts) == 1
    _, path, headers, body = posts[0]
    assert path == f"{mr}/discussions" and headers["Private-Token"] == "glt"
    assert body["position"] == {
        "position_type": "text", "base_sha": "b", "start_sha": "s", "head_sha": "h",
        "old_path": FILE, "new_path": FILE, "new_line": 4,
    }  # fmt: skip
    assert "````suggestion:-1+0\n  size: 2\n  name: a\n  limit: 1 ```\n````" in body["body"]


def test_dry_run_posts_nothing(tree: Path) -> None:
    result = CliRunner().invoke(main, ["suggest", "report.json", "--github", "--dry-run"], env={})
    assert result.exit_code == 0
    assert len(json.loads(result.output)["comments"]) == 2
