"""Differential test: finlint's line-aware loader decodes every CloudFormation fixture exactly
as cfn-lint's decoder does (short-form intrinsics -> long form, scalars, JSON templates).

cfn-lint is only imported here (its import costs ~0.9 s); the test is skipped when it is not
installed (it is in the ``test`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from finlint.loaders import cloudformation
from finlint.loaders.common.yamlload import LineDict, load_all

ROOT = Path(__file__).resolve().parents[2]
CFN_FIXTURES = sorted(
    p for p in (ROOT / "fixtures" / "cloudformation").rglob("*") if p.suffix in (".yaml", ".yml", ".json")
)
SHORT_FORMS = (
    "!Ref",
    "!Sub",
    "!GetAtt",
    "!If",
    "!Join",
    "!Select",
    "!Split",
    "!FindInMap",
    "!Equals",
    "!Not",
    "!And",
    "!Or",
    "!Condition",
    "!ImportValue",
    "!Base64",
    "!Cidr",
    "!GetAZs",
)


def _demo_templates() -> list[Path]:
    """CloudFormation files of the demo folder (found by content, as the scanner does)."""
    found: list[Path] = []
    for path in sorted((ROOT / "fixtures" / "demo").rglob("*")):
        if path.suffix not in (".yaml", ".yml", ".json", ".template"):
            continue
        try:
            docs = load_all(path.read_text(encoding="utf-8"), is_json=path.suffix == ".json")
        except Exception:  # another format's deliberately broken demo file
            continue
        if len(docs) == 1 and cloudformation.claims(docs[0]):
            found.append(path)
    return found


TEMPLATES = CFN_FIXTURES + _demo_templates()


@pytest.fixture(scope="module")
def decode_str() -> Any:
    decode = pytest.importorskip("cfnlint.decode", reason="cfn-lint is not installed (pip install '.[test]')")
    return decode.decode_str


def _plain(value: Any) -> Any:
    """Builtin dict/list/str copies, so a failure diff shows values, not node classes."""
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    return value


def test_fixture_set_is_complete() -> None:
    """The differential only proves something if the fixtures exercise every short form and JSON."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in CFN_FIXTURES if p.suffix != ".json")
    missing = [tag for tag in SHORT_FORMS if f"{tag} " not in text and f"{tag}\n" not in text]
    assert missing == []
    assert "Fn::Sub:\n          - |" in text  # the long list form of Fn::Sub
    assert any(p.suffix == ".json" for p in CFN_FIXTURES)
    assert any("demo" in p.parts for p in TEMPLATES)


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_values_equal_cfn_lint(path: Path, decode_str: Any) -> None:
    text = path.read_text(encoding="utf-8")
    expected, matches = decode_str(text)
    assert matches == [], f"cfn-lint could not decode {path}: {matches}"
    docs = load_all(text, is_json=path.suffix == ".json")
    assert len(docs) == 1
    assert isinstance(docs[0], LineDict)
    assert _plain(docs[0]) == _plain(expected)
    # Same types too (equality alone would accept 1 == 1.0 == True).
    assert repr(_plain(docs[0])) == repr(_plain(expected))


def test_differential_catches_a_difference(decode_str: Any) -> None:
    """Guard against a vacuous comparison: a real difference must be visible."""
    text = "Resources:\n  A:\n    Type: AWS::S3::Bucket\n    Properties:\n      BucketName: !Ref Name\n"
    expected, _ = decode_str(text)
    ours = load_all(text)[0]
    assert _plain(ours) == _plain(expected)
    ours["Resources"]["A"]["Properties"]["BucketName"] = "Name"
    assert _plain(ours) != _plain(expected)
