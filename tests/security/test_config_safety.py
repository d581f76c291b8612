"""The scanned repository's own config, policies, usage, pricing and baseline files are untrusted
(issue 24): a hostile one is a one-line ``file:line: message`` and exit 2, or a finding, never a
traceback, a hang or an unbounded read. Every run is the real CLI in a subprocess with a time
limit and an address-space limit (a read of /dev/zero must fail the test, not the machine)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs (POSIX)")

BUCKET = 'resource "aws_s3_bucket" "ckpt" {{\n  bucket = "{name}"\n}}\n'
USER_POLICY = """\
id: TST{number}
name: {name}
severity: medium
applies_to: [bucket]
params: {{pattern: {default}}}
condition:
  matches: [bucket_name, {operand}]
message: "{{address}} matched"
docs: {{what: w, why: y, known_false_positives: k, remediation: r, references: ["https://example.com"]}}
"""


def _limits() -> None:  # pragma: no cover - runs in the child
    import resource

    gib = 1024 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (2 * gib, 2 * gib))


def finlint(repo: Path, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """``python -m finlint ARGS`` in ``repo`` (no policy cache: the policies this test writes are read)."""
    env = {**os.environ, "FINLINT_CACHE_DIR": "off", "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "finlint", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=_limits if sys.platform != "darwin" else None,
    )


def repo_with(tmp_path: Path, config: str, files: dict[str, str] | None = None) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / ".finlint.yaml").write_text(config, "utf-8")
    for name, text in (files or {"s3.tf": BUCKET.format(name="my-checkpoints")}).items():
        target = repo / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    return repo


def usage_error(result: subprocess.CompletedProcess[str], where: str) -> str:
    """Exit 2 with one ``finlint: error: WHERE:LINE: message`` line, no traceback; the message."""
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    match = re.fullmatch(rf"finlint: error: (\S*/)?{re.escape(where)}:(\d+): (.+)", lines[0])
    assert match is not None, lines[0]
    return match.group(3)


def scan_json(repo: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = finlint(repo, "scan", ".", "--format", "json", *args)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode in (0, 1), (result.returncode, result.stderr[-2000:])
    return result.returncode, json.loads(result.stdout)


# --- policy directories ----------------------------------------------------------------------


def test_policy_dir_root_is_not_walked(tmp_path: Path) -> None:
    """``policy_dir: /`` lists one directory (or is refused as outside the repository)."""
    repo = repo_with(tmp_path, "policy_dir: /\n")
    started = time.monotonic()
    result = finlint(repo, "scan", ".")
    assert time.monotonic() - started < 20
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    if result.returncode == 2:  # refused: then by the config file, at the key's line
        usage_error(result, ".finlint.yaml")
    else:
        assert result.returncode in (0, 1), result.stderr


def test_policy_dir_subdirectories_are_not_read(tmp_path: Path) -> None:
    """A FIFO named like a policy below the policy directory would hang an rglob-and-read."""
    repo = repo_with(tmp_path, "policy_dirs: [rules]\n")
    (repo / "rules" / "deep").mkdir(parents=True)
    os.mkfifo(repo / "rules" / "deep" / "TST001-x.yaml")
    result = finlint(repo, "scan", ".")
    assert result.returncode in (0, 1), result.stderr[-2000:]


def test_fifo_policy_is_a_usage_error(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "policy_dirs: [rules]\n")
    (repo / "rules").mkdir()
    os.mkfifo(repo / "rules" / "TST001-x.yaml")
    message = usage_error(finlint(repo, "scan", "."), "rules/TST001-x.yaml")
    assert "not a regular file" in message


def test_missing_policy_dir_names_the_config_line(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "region: us-east-1\npolicy_dirs: [nope]\n")
    assert "not a directory" in usage_error(finlint(repo, "scan", "."), ".finlint.yaml")


# --- regular expressions -----------------------------------------------------------------------


def test_bad_pattern_param_is_a_usage_error(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, 'rules:\n  FIN402:\n    params:\n      pattern: "("\n')
    result = finlint(repo, "scan", ".")
    message = usage_error(result, ".finlint.yaml")
    assert "rules.FIN402.params.pattern: invalid regular expression" in message
    assert result.stderr.startswith("finlint: error: .finlint.yaml:4:")


def test_catastrophic_pattern_param_is_refused(tmp_path: Path) -> None:
    """``(a+)+$`` on a bucket named a...a! backtracks for hours: refused before it runs."""
    repo = repo_with(
        tmp_path,
        'rules:\n  FIN402:\n    params:\n      pattern: "(a+)+$"\n',
        {"s3.tf": BUCKET.format(name="a" * 40 + "!")},
    )
    message = usage_error(finlint(repo, "scan", ".", timeout=20), ".finlint.yaml")
    assert "exponential or polynomial time" in message


def test_catastrophic_regex_in_a_user_policy_is_refused(tmp_path: Path) -> None:
    policy = USER_POLICY.format(number=901, name="user-rule", default='"x"', operand='"(a|aa)*$"')
    repo = repo_with(
        tmp_path,
        "policy_dirs: [rules]\n",
        {"s3.tf": BUCKET.format(name="a" * 40 + "!"), "rules/TST901-user-rule.yaml": policy},
    )
    message = usage_error(finlint(repo, "scan", ".", timeout=20), "rules/TST901-user-rule.yaml")
    assert "alternation inside a repeat" in message


def test_catastrophic_regex_param_default_in_a_user_policy_is_refused(tmp_path: Path) -> None:
    policy = USER_POLICY.format(number=902, name="user-rule", default='"(a+)+$"', operand="$pattern")
    repo = repo_with(
        tmp_path,
        "policy_dirs: [rules]\n",
        {"s3.tf": BUCKET.format(name="a" * 40 + "!"), "rules/TST902-user-rule.yaml": policy},
    )
    message = usage_error(finlint(repo, "scan", ".", timeout=20), "rules/TST902-user-rule.yaml")
    assert "repeat inside a repeat" in message


def test_user_policy_regex_param_override_is_checked(tmp_path: Path) -> None:
    """A config value for a policy's ``matches`` param is checked like FIN402's ``pattern``."""
    policy = USER_POLICY.format(number=903, name="user-rule", default='"ckpt"', operand="$pattern")
    repo = repo_with(
        tmp_path,
        'policy_dirs: [rules]\nrules:\n  TST903:\n    params:\n      pattern: "\\\\s*\\\\s*x"\n',
        {"s3.tf": BUCKET.format(name=" " * 4000), "rules/TST903-user-rule.yaml": policy},
    )
    message = usage_error(finlint(repo, "scan", ".", timeout=20), ".finlint.yaml")
    assert "more than one unbounded repeat" in message


def test_safe_user_regex_runs_on_bounded_text(tmp_path: Path) -> None:
    """``\\s*x`` passes the check; on a 400 KB name it is quadratic, so it only sees the first KiB."""
    policy = USER_POLICY.format(number=904, name="user-rule", default='"ckpt"', operand='"\\\\s*x"')
    repo = repo_with(
        tmp_path,
        "policy_dirs: [rules]\nselect: [TST904]\n",
        {"s3.tf": BUCKET.format(name=" " * 400_000 + "x"), "rules/TST904-user-rule.yaml": policy},
    )
    started = time.monotonic()
    code, doc = scan_json(repo)
    assert time.monotonic() - started < 20
    assert code == 0 and doc["findings"] == []  # the x is past the text a regex sees


@pytest.mark.parametrize(
    "pattern",
    ["(a+)+$", "(a*)*b", "(a|aa)+$", "(x+x+)+y", "\\s*\\s*x", "a.*b.*c", "(a*)\\1", "(", "x" * 1001],
)
def test_regex_problem_refuses(pattern: str) -> None:
    from finlint.untrusted import regex_problem

    assert regex_problem(pattern) is not None


@pytest.mark.parametrize(
    "pattern",
    [
        "(?i)checkpoint|ckpt",
        "(?i)train|checkpoint|ckpt|dataset|model",
        "^ml\\.trn",
        "[a-z]+-\\d{1,8}",
        "(?:ab)+",
    ],
)
def test_regex_problem_accepts(pattern: str) -> None:
    from finlint.untrusted import MATCH_TEXT_LIMIT, regex_problem

    assert regex_problem(pattern) is None
    assert MATCH_TEXT_LIMIT >= 1024


# --- usage, pricing and baseline files ---------------------------------------------------------


@pytest.mark.parametrize("key", ["usage_file", "pricing_file", "baseline"])
def test_fifo_named_by_the_config_is_a_usage_error(tmp_path: Path, key: str) -> None:
    repo = repo_with(tmp_path, f"{key}: named.json\n")
    os.mkfifo(repo / "named.json")
    result = finlint(repo, "scan", ".", timeout=20)
    assert "Traceback" not in result.stderr and result.returncode == 2, result.stderr[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.mark.parametrize("key", ["usage_file", "pricing_file", "baseline"])
def test_dev_zero_named_by_the_config_is_not_read(tmp_path: Path, key: str) -> None:
    """A symlink to /dev/zero: refused (outside the repository, or not a regular file)."""
    repo = repo_with(tmp_path, f"{key}: zero.yml\n")
    (repo / "zero.yml").symlink_to("/dev/zero")
    result = finlint(repo, "scan", ".", timeout=20)
    assert "Traceback" not in result.stderr and result.returncode == 2, result.stderr[-2000:]
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_usage_file_dev_zero_on_the_command_line(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "region: us-east-1\n")
    message = usage_error(finlint(repo, "scan", ".", "--usage-file", "/dev/zero", timeout=20), "/dev/zero")
    assert "not a regular file" in message


def _baseline(repo: Path, findings: Any, **extra: Any) -> Path:
    path = repo / "base.json.txt"  # not .json: the scan must not lint the baseline itself
    if isinstance(findings, str):
        path.write_text(findings, "utf-8")
    else:
        path.write_text(json.dumps({"finlint_baseline": 1, "findings": findings, **extra}), "utf-8")
    return path


@pytest.mark.parametrize(
    "text",
    [
        '{"findings": ' + "[" * 100_000 + "]" * 100_000 + "}",
        '{"findings": [{"rule_id": "FIN402", "file": "s3.tf", "resource": "r", "line": 1e999999}]}',
        '{"findings": [{"rule_id": "FIN402", "file": "s3.tf", "resource": "r", "monthly_usd": 1e999999}]}',
        '{"findings": [{"rule_id": "FIN402", "file": "s3.tf", "resource": "r", "line": ' + "9" * 5000 + "}]}",
        '{"findings": [{"rule_id": "FIN402", "file": "s3.tf", "resource": "r", "line": "two"}]}',
        '{"findings": [], "finlint_baseline": ' + "9" * 5000 + "}",
        '{"findings": [], "finlint_baseline": NaN}',
    ],
    ids=["deep", "inf-line", "inf-dollars", "huge-int", "string-line", "huge-version", "nan"],
)
def test_hostile_baseline_is_a_usage_error(tmp_path: Path, text: str) -> None:
    repo = repo_with(tmp_path, "region: us-east-1\n")
    _baseline(repo, text)
    result = finlint(repo, "scan", ".", "--baseline", "base.json.txt")
    message = usage_error(result, "base.json.txt")
    assert len(message) < 300, message


def test_duplicate_baseline_entries_count_once(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "region: us-east-1\n")
    written = finlint(repo, "scan", ".", "--write-baseline", "first.json.txt")
    assert written.returncode == 0, written.stderr
    doc = json.loads((repo / "first.json.txt").read_text("utf-8"))
    (entry,) = doc["findings"]
    _baseline(repo, [entry] * 20_000)
    _, report = scan_json(repo, "--baseline", "base.json.txt")
    comparison = report["comparison"]
    assert (comparison["new"], comparison["unchanged"], comparison["fixed"]) == (0, 1, [])
    assert comparison["base_monthly_usd"] == entry["monthly_usd"]
    assert comparison["delta_monthly_usd"] == 0


# --- suppressions ---------------------------------------------------------------------------


def _meta(doc: dict[str, Any], rule_id: str) -> list[dict[str, Any]]:
    return [f for f in doc["findings"] if f["rule_id"] == rule_id]


def test_a_rule_listed_20000_times_counts_once(tmp_path: Path) -> None:
    rules = ",".join(["FIN301"] * 20_000)
    text = f"# finlint: ignore[{rules}] reserved\n" + BUCKET.format(name="my-checkpoints")
    repo = repo_with(tmp_path, "region: us-east-1\n", {"s3.tf": text})
    _, doc = scan_json(repo)
    unused = _meta(doc, "FIN901")
    assert len(unused) == 1 and "FIN301" in unused[0]["message"], unused[:3]


def test_a_suppression_of_too_many_rules_says_so(tmp_path: Path) -> None:
    rules = ",".join(f"rule-{n}" for n in range(500))
    text = f"# finlint: ignore[{rules}] reserved\n" + BUCKET.format(name="my-checkpoints")
    repo = repo_with(tmp_path, "region: us-east-1\n", {"s3.tf": text})
    _, doc = scan_json(repo)
    unused = _meta(doc, "FIN901")
    assert len(unused) == 101, len(unused)  # the first 100 names, and one line for the rest
    assert any("400 after them are not read" in f["message"] for f in unused)


@pytest.mark.parametrize(
    "comment",
    [
        "# finlint: ignore FIN402 reserved",
        "# finlint: ignore[FIN402 reserved",
        "# finlint: disable[FIN402] x",
    ],
)
def test_a_malformed_suppression_is_reported_at_its_line(tmp_path: Path, comment: str) -> None:
    text = BUCKET.format(name="my-checkpoints").replace("\n", f"  {comment}\n", 1)
    repo = repo_with(tmp_path, "region: us-east-1\n", {"s3.tf": text})
    code, doc = scan_json(repo)
    (notice,) = _meta(doc, "FIN901")
    assert notice["file"] == "s3.tf" and notice["line"] == 1
    assert "malformed suppression" in notice["message"]
    (kept,) = _meta(doc, "FIN402")
    assert "suppressed" not in kept
    assert code == 1


def test_prose_mentioning_finlint_is_not_a_suppression(tmp_path: Path) -> None:
    text = "# finlint: scanned in CI\n" + BUCKET.format(name="my-checkpoints")
    repo = repo_with(tmp_path, "region: us-east-1\n", {"s3.tf": text})
    _, doc = scan_json(repo)
    assert _meta(doc, "FIN901") == []


def test_a_suppression_followed_by_spaces_is_linear(tmp_path: Path) -> None:
    """The old directive pattern was cubic in the spaces after the rule list."""
    comment = "# finlint: ignore[FIN402] -" + " " * 4000 + "why" + " " * 4000 + "not"
    text = BUCKET.format(name="my-checkpoints").replace("\n", f"  {comment}\n", 1)
    repo = repo_with(tmp_path, "region: us-east-1\n", {"s3.tf": text})
    started = time.monotonic()
    _, doc = scan_json(repo)
    assert time.monotonic() - started < 20
    (kept,) = _meta(doc, "FIN402")
    assert kept["suppressed"] == {"justification": "why" + " " * 4000 + "not"}


def test_suppression_reason_is_cut_as_before() -> None:
    from finlint.post.suppressions import parse_comments

    lines = [
        "a: 1  # finlint: ignore[FIN1]: - the reason  ",
        "b: 2  # finlint: ignore[FIN2] \u2014 why */",
        "c: 3  # finlint: ignore[fin3, FIN3 ,FIN4]",
    ]
    entries = parse_comments("f.yaml", lines)
    assert [(e.rules, e.reason) for e in entries] == [
        (("FIN1",), "- the reason"),
        (("FIN2",), "why"),
        (("fin3", "FIN4"), ""),
    ]


# --- the config file itself -------------------------------------------------------------------


def test_pyproject_of_blank_lines_is_linear(tmp_path: Path) -> None:
    """``^\\s*\\[`` with re.M crossed lines: quadratic on a pyproject.toml of blank lines."""
    repo = repo_with(tmp_path, "region: us-east-1\n")
    (repo / ".finlint.yaml").unlink()
    (repo / "pyproject.toml").write_text("\n" * 2_000_000, "utf-8")
    started = time.monotonic()
    result = finlint(repo, "scan", ".", timeout=20)
    assert time.monotonic() - started < 20
    assert result.returncode in (0, 1), result.stderr[-2000:]


def test_toml_error_line_is_found_in_linear_time(tmp_path: Path) -> None:
    """Finding the line of a bad value reads every line: a key-like line of spaces was quadratic."""
    repo = repo_with(tmp_path, "region: us-east-1\n")
    (repo / ".finlint.yaml").unlink()
    spaces = " " * 1_000_000
    text = f'[tool.finlint]\nregion = "nowhere"\n\n[tool.other]\nx = """\na{spaces}b\n[a{spaces}b\n"""\n'
    (repo / "pyproject.toml").write_text(text, "utf-8")
    message = usage_error(finlint(repo, "scan", ".", timeout=20), "pyproject.toml")
    assert message.startswith("region: expected an AWS region")


def test_config_fifo_on_the_command_line_is_a_usage_error(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "region: us-east-1\n")
    os.mkfifo(repo / "fifo.yaml")
    message = usage_error(finlint(repo, "scan", ".", "--config", "fifo.yaml", timeout=20), "fifo.yaml")
    assert "not a regular file" in message


# --- issue 24, hole 4: a repository's config names only the repository's files ----------------

OUTSIDE = {
    "usage_file": "usage.yaml",
    "pricing_file": "pricing.json",
    "baseline": "baseline.json",
}


@pytest.mark.parametrize("key", sorted(OUTSIDE))
@pytest.mark.parametrize("how", ["dotdot", "absolute", "symlink"])
def test_a_config_path_outside_the_repository_is_refused(tmp_path: Path, key: str, how: str) -> None:
    secret = tmp_path / OUTSIDE[key]
    secret.write_text("{}\n")
    value = {"dotdot": f"../{secret.name}", "absolute": str(secret), "symlink": "inside"}[how]
    repo = repo_with(tmp_path, f"region: us-east-1\n{key}: {value}\n")
    if how == "symlink":
        (repo / "inside").symlink_to(secret)
    message = usage_error(finlint(repo, "scan", "."), ".finlint.yaml")
    assert "resolves outside the repository" in message and key in message


def test_a_policy_dir_outside_the_repository_is_refused(tmp_path: Path) -> None:
    (tmp_path / "rules").mkdir()
    repo = repo_with(tmp_path, "policy_dirs: [../rules]\n")
    assert "outside the repository" in usage_error(finlint(repo, "scan", "."), ".finlint.yaml")


def test_helm_chart_and_values_outside_the_repository_are_refused(tmp_path: Path) -> None:
    chart = tmp_path / "chart"
    chart.mkdir()
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    repo = repo_with(tmp_path, "helm:\n  charts:\n    - path: ../chart\n")
    assert "outside the repository" in usage_error(finlint(repo, "scan", "."), ".finlint.yaml")
    (repo / "chart").mkdir()
    (repo / "chart" / "Chart.yaml").write_text("apiVersion: v2\nname: c\nversion: 0.1.0\n")
    (tmp_path / "values.yaml").write_text("x: 1\n")
    (repo / ".finlint.yaml").write_text(
        "helm:\n  charts:\n    - path: chart\n      values: [../values.yaml]\n"
    )
    assert "outside the repository" in usage_error(finlint(repo, "scan", "."), ".finlint.yaml")


def test_a_config_given_on_the_command_line_is_the_users_own(tmp_path: Path) -> None:
    """--config is the user's: its paths may lead anywhere (here, a usage file beside it)."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "usage.yaml").write_text("defaults: {}\n")
    (mine / "finlint.yaml").write_text("usage_file: usage.yaml\n")
    repo = repo_with(tmp_path, "region: us-east-1\n")
    result = finlint(repo, "scan", ".", "--config", str(mine / "finlint.yaml"))
    assert result.returncode in (0, 1), result.stderr[-2000:]


def test_resource_suppressions_name_each_rule_once_and_at_most_100(tmp_path: Path) -> None:
    """A Kubernetes annotation or CloudFormation Metadata naming rules 20,000 times: each rule
    once, at most 100 rules (it was one suppression, and one FIN901, per mention)."""
    from finlint.ir import MAX_SUPPRESSIONS
    from finlint.scan import ScanOptions, lint

    names = ", ".join(["FIN301"] * 20_000 + [f"FIN{n}" for n in range(1000, 1300)])
    (tmp_path / "pool.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: p\n"
        f'  annotations:\n    finlint.io/ignore: "{names}: accepted"\n'
        "spec:\n  template:\n    spec:\n      requirements: []\n      nodeClassRef: {name: x}\n"
    )
    ignores = [{"id": "FIN302", "reason": "r"}] * 20_000 + [
        {"id": f"FIN{n}", "reason": "r"} for n in range(300)
    ]
    template = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "Nb": {
                "Type": "AWS::SageMaker::NotebookInstance",
                "Metadata": {"finlint": {"ignore": ignores}},
                "Properties": {"InstanceType": "ml.p5.48xlarge", "RoleArn": "r"},
            }
        },
    }
    (tmp_path / "t.json").write_text(json.dumps(template))
    result = lint(ScanOptions(paths=[tmp_path]))
    capped = {Path(r.location.file).name for r in result.records if len(r.suppressions) == MAX_SUPPRESSIONS}
    assert capped == {"pool.yaml", "t.json"}  # both loaders read them, and capped them
    for record in result.records:
        rules = [s.rule for s in record.suppressions]
        assert len(rules) == len(set(rules)) <= MAX_SUPPRESSIONS, record.address
    assert sum(1 for f in result.findings if f.rule_id == "FIN901") <= 2 * MAX_SUPPRESSIONS
