"""Messages a person can act on (issue 10): duplicate keys are findings, a bare NodePool is
FIN000 (not a $24,150 FIN301), and no message names an internal class such as LineList."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import scan_files

DUPLICATE_RESOURCE = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Notebook:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.p5.48xlarge
      RoleArn: arn:aws:iam::111122223333:role/R
  Notebook:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.t3.medium
      RoleArn: arn:aws:iam::111122223333:role/R
"""


def test_cloudformation_duplicate_key_is_a_finding_at_the_second_key(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"t.yaml": DUPLICATE_RESOURCE})
    (finding,) = result.findings
    assert finding.rule_id == "FIN000" and finding.line == 8
    assert "duplicate key 'Notebook' (first at line 3)" in finding.message


def test_duplicate_key_in_json_is_a_finding(tmp_path: Path) -> None:
    text = '{"AWSTemplateFormatVersion": "2010-09-09",\n "Resources": {"A": {"Type": "AWS::S3::Bucket"},\n'
    text += ' "A": {}}}\n'
    (finding,) = scan_files(tmp_path, {"t.json": text}).findings
    assert finding.rule_id == "FIN000" and finding.line == 3 and "duplicate key 'A'" in finding.message


def test_merge_keys_may_still_be_overridden(tmp_path: Path) -> None:
    text = "kind: ConfigMap\nbase: &b {a: 1, c: 2}\nother:\n  <<: *b\n  a: 3\n"
    assert not scan_files(tmp_path, {"cm.yaml": text}).findings


def test_bare_nodepool_is_fin000_not_fin301(tmp_path: Path) -> None:
    result = scan_files(
        tmp_path,
        {
            "named.yaml": "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\n",
            "bare.yaml": "apiVersion: karpenter.sh/v1\nkind: NodePool\n",
        },
    )
    assert {(Path(f.file).name, f.rule_id) for f in result.findings} == {
        ("named.yaml", "FIN000"),
        ("bare.yaml", "FIN000"),
    }
    assert all("has no `spec`" in f.message and f.cost is None for f in result.findings)


def test_messages_never_name_internal_classes(tmp_path: Path) -> None:
    result = scan_files(
        tmp_path,
        {
            "pool.yaml": "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec: [a]\n",
            "job.json": '{"TrainingJobName": "j", "ResourceConfig": [1],\n "StoppingCondition": [2]}\n',
            "cfn.yaml": "Resources:\n  N:\n    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n"
            "      InstanceType: [a, b]\n      RoleArn: r\n",
        },
    )
    texts = [f.message for f in result.findings] + [u for x in result.undetermined for u in x.reasons]
    texts += [n.message for n in result.notices]
    assert any("must be a mapping, not a list" in t for t in texts)
    for text in texts:
        assert not re.search(r"LineList|LineDict|NoneType|\ban? (str|int)\b|\((list|dict)\)", text), text
