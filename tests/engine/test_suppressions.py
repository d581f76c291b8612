"""Suppressions in every idiom, end to end through the CLI, and the FIN900 / FIN901 meta rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.post.suppressions import parse_comments

CFN = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
{comment_above}  ResearchNotebook:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.p5.48xlarge{trailing}
      RoleArn: arn:aws:iam::111122223333:role/SageMakerNotebookRole
"""
TERRAFORM = """\
{comment}resource "aws_sagemaker_training_job" "finetune" {{
  training_job_name            = "llm-finetune"
  role_arn                     = "arn:aws:iam::111122223333:role/SageMakerTrainingRole"
  enable_managed_spot_training = true
  resource_config {{
    instance_type  = "ml.g5.12xlarge"
    instance_count = 1
  }}
  stopping_condition {{
    max_runtime_in_seconds   = 3600 * 12
    max_wait_time_in_seconds = 3600 * 24
  }}
}}
"""
PYTHON = '''\
"""Launch script. Docs mention `# finlint: ignore[FIN301] like this` but that is a string."""
from sagemaker.pytorch import PyTorch

{comment}estimator = PyTorch(
    entry_point="train.py",
    role="arn:aws:iam::111122223333:role/SageMakerRole",
    framework_version="2.2",
    py_version="py310",
    instance_type="ml.g5.12xlarge",
    instance_count=1,
)
'''
NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu-training
  annotations:
    finlint.io/ignore: "{annotation}"
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}}
      requirements:
        - key: karpenter.k8s.aws/instance-category
          operator: In
          values: ["p"]
        - key: karpenter.k8s.aws/instance-generation
          operator: Gt
          values: ["4"]
"""


def scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str], *args: str
) -> tuple[int, Any]:
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    # FIN302 (the p5 notebook has no auto-stop) and FIN304 (the pool has no limits) fire on the
    # same resources as FIN301; these tests are about suppressing FIN301 and the meta rules.
    ignore = ("--ignore", "FIN302,FIN304")
    result = CliRunner().invoke(main, ["scan", ".", "--format", "json", *ignore, *args])
    assert result.exit_code in (0, 1), result.output
    return result.exit_code, json.loads(result.stdout)


def summary(doc: Any) -> list[tuple[str, int, str | None]]:
    """(rule, line, justification or None when active)."""
    return sorted(
        (f["rule_id"], f["line"], f["suppressed"]["justification"] if "suppressed" in f else None)
        for f in doc["findings"]
    )


REASON = "reserved for the quarterly pre-training run"


@pytest.mark.parametrize(
    ("comment_above", "trailing"),
    [
        (f"  # finlint: ignore[FIN301] {REASON}\n", ""),  # line above the resource
        ("", f"  # finlint: ignore[FIN301] {REASON}"),  # on the finding's line
        (f"  # finlint: ignore[oversized-p5]: {REASON}\n", ""),  # slug, punctuation before the reason
        (f"  # finlint: ignore[FIN101, FIN301] -- {REASON}\n  # another comment\n", ""),  # stacked comments
    ],
)
def test_yaml_comment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, comment_above: str, trailing: str
) -> None:
    text = CFN.format(comment_above=comment_above, trailing=trailing)
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": text}, "--select", "FIN301,FIN9")
    findings = [f for f in doc["findings"] if f["rule_id"] == "FIN301"]
    assert [f["suppressed"] for f in findings] == [{"justification": REASON}]
    assert code == 0 and doc["summary"]["findings"] == 0 and doc["summary"]["suppressed"] == 1


def test_comment_too_far_away_does_not_suppress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CFN.format(comment_above=f"  # finlint: ignore[FIN301] {REASON}\n\n", trailing="")
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": text})
    assert summary(doc) == [("FIN301", 8, None), ("FIN901", 3, None)]
    assert "unused suppression: no FIN301 finding here" in doc["findings"][0]["message"]
    assert code == 1


def test_terraform_hash_and_slash_comments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, bare = scan(tmp_path, monkeypatch, {"main.tf": TERRAFORM.format(comment="")}, "--select", "FIN201")
    assert summary(bare) == [("FIN201", 4, None)]
    for comment in (
        f"# finlint: ignore[FIN201] {REASON}\n",
        f"// finlint: ignore[spot-training-without-checkpoint] {REASON}\n",
    ):
        code, doc = scan(
            tmp_path, monkeypatch, {"main.tf": TERRAFORM.format(comment=comment)}, "--select", "FIN201,FIN9"
        )
        assert summary(doc) == [("FIN201", 5, REASON)] and code == 0


def test_python_comment_and_docstring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = {"launch.py": PYTHON.format(comment=f"# finlint: ignore[FIN101] {REASON}\n")}
    code, doc = scan(tmp_path, monkeypatch, files, "--select", "FIN101,FIN9")
    assert summary(doc) == [("FIN101", 5, REASON)] and code == 0  # the docstring is not a suppression
    files = {"launch.py": PYTHON.format(comment="")}
    _, doc = scan(tmp_path, monkeypatch, files, "--select", "FIN101,FIN9")
    assert summary(doc) == [("FIN101", 4, None)]


def test_ignore_file_at_the_top(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    header = f"# Research account.\n# finlint: ignore-file[FIN301] {REASON}\n---\n"
    text = header + CFN.format(comment_above="", trailing="")
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": text})
    assert summary(doc) == [("FIN301", 9, REASON)] and code == 0
    misplaced = CFN.format(comment_above="", trailing="") + f"# finlint: ignore-file[FIN301] {REASON}\n"
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": misplaced})
    assert summary(doc) == [("FIN301", 6, None), ("FIN901", 8, None)] and code == 1
    assert "has no effect here" in doc["findings"][1]["message"]


def test_cloudformation_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CFN.format(comment_above="", trailing="").replace(
        "    Properties:\n",
        f"    Metadata:\n      finlint:\n        ignore:\n          - {{id: FIN301, reason: {REASON}}}\n"
        "    Properties:\n",
    )
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": text})
    assert summary(doc) == [("FIN301", 10, REASON)] and code == 0
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": text.replace(f", reason: {REASON}", "")})
    assert summary(doc) == [("FIN301", 10, ""), ("FIN900", 8, None)] and code == 1


def test_kubernetes_annotation(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, doc = scan(tmp_path, monkeypatch, {"pool.yaml": NODEPOOL.format(annotation=f"FIN301: {REASON}")})
    assert summary(doc) == [("FIN301", 11, REASON)] and code == 0
    code, doc = scan(tmp_path, monkeypatch, {"pool.yaml": NODEPOOL.format(annotation="FIN401: not here")})
    assert summary(doc) == [("FIN301", 11, None), ("FIN901", 6, None)] and code == 1
    assert "no FIN401 finding on NodePool/" in doc["findings"][0]["message"]


def test_without_reason_still_suppresses_but_fin900(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CFN.format(comment_above="  # finlint: ignore[FIN301]\n", trailing="")
    code, doc = scan(tmp_path, monkeypatch, {"t.yaml": text})
    assert summary(doc) == [("FIN301", 7, ""), ("FIN900", 3, None)] and code == 1
    meta = next(f for f in doc["findings"] if f["rule_id"] == "FIN900")
    assert (meta["rule"], meta["severity"]) == ("suppression-without-reason", "low")
    text_out = CliRunner().invoke(main, ["scan", "."]).output
    assert "(suppressed: no reason given)" in text_out


def test_unknown_rule_and_rules_that_did_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CFN.format(comment_above=f"  # finlint: ignore[FIN3O1, FIN101] {REASON}\n", trailing="")
    _, doc = scan(tmp_path, monkeypatch, {"t.yaml": text})
    messages = [f["message"] for f in doc["findings"] if f["rule_id"] == "FIN901"]
    assert messages == [
        "suppression names unknown rule 'FIN3O1' (see `finlint rules`)",
        "unused suppression: no FIN101 finding here to suppress; remove it",
    ]
    _, doc = scan(tmp_path, monkeypatch, {"t.yaml": text}, "--ignore", "FIN101")
    assert [f["message"][:30] for f in doc["findings"] if f["rule_id"] == "FIN901"] == [
        "suppression names unknown rule"
    ]  # FIN101 did not run, so its suppression cannot be judged
    _, doc = scan(tmp_path, monkeypatch, {"t.yaml": text}, "--ignore", "FIN901")
    assert not [f for f in doc["findings"] if f["rule_id"] == "FIN901"]


def test_files_without_records_are_not_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = "name: docs\nexample: |\n  # finlint: ignore[FIN301]\n  Resources: {}\n"
    code, doc = scan(tmp_path, monkeypatch, {"notes.yaml": docs})
    assert doc["findings"] == [] and code == 0


def test_parse_comments_scope() -> None:
    lines = [
        "#!/usr/bin/env x",
        "# finlint: ignore-file[FIN1]",
        "a: 1  # finlint: ignore[FIN2] r",
        "# x",
        "b: 2",
    ]
    entries = parse_comments("f.yaml", lines)
    assert [(e.scope, e.rules, e.misplaced, sorted(e.targets)) for e in entries] == [
        ("file", ("FIN1",), False, []),
        ("line", ("FIN2",), False, [3]),
    ]
    assert parse_comments("f.json", ['{"a": "# finlint: ignore[FIN1] x"}']) == []
