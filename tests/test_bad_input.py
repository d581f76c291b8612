"""Bad input: one clear FIN000 with file:line per broken file, the scan goes on, no traceback."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from tests.conftest import scan_paths

GOOD_REQUEST = """{
  "TrainingJobName": "x",
  "RoleArn": "arn:aws:iam::111122223333:role/R",
  "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50}
}
"""


def errors_by_file(tmp_path: Path) -> dict[str, tuple[int, str]]:
    result = scan_paths([tmp_path])
    fin000 = {Path(f.file).name: (f.line, f.message) for f in result.findings if f.rule_id == "FIN000"}
    # the good file next to the broken ones is still scanned
    assert any(f.rule_id == "FIN101" for f in result.findings)
    return fin000


def test_malformed_yaml_json_and_binary(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    (tmp_path / "bad.yaml").write_text("kind: Pod\nmetadata:\n  name: [x\n")
    (tmp_path / "bad.json").write_text('{\n  "TrainingJobName": 1,\n  "b": \n}\n')
    (tmp_path / "blob.yaml").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "latin1.yml").write_bytes(b"name: caf\xe9\n")
    errs = errors_by_file(tmp_path)
    assert errs["bad.yaml"][0] == 4 and "invalid YAML" in errs["bad.yaml"][1]
    assert errs["bad.json"][0] == 4 and "invalid JSON" in errs["bad.json"][1]
    assert "binary" in errs["blob.yaml"][1]
    assert "UTF-8" in errs["latin1.yml"][1]


def test_alias_bomb_is_rejected_fast(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    lines = ["kind: ConfigMap", 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, cur in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{cur}: &{cur} [" + ",".join([f"*{prev}"] * 9) + "]")
    (tmp_path / "bomb.yaml").write_text("\n".join(lines) + "\n")
    errs = errors_by_file(tmp_path)
    assert "alias bomb" in errs["bomb.yaml"][1]


def test_deeply_nested_document(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    deep = "[" * 5000 + "]" * 5000  # a request a loader claims, with one value nested 5,000 deep
    (tmp_path / "deep.json").write_text(GOOD_REQUEST.replace('"x"', f'"x", "HyperParameters": {deep}'))
    errs = errors_by_file(tmp_path)
    assert "nested too deeply" in errs["deep.json"][1]


def test_helm_template_is_a_notice_not_an_error(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    (tmp_path / "nodepool.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\n"
        "{{- if .Values.gpu }}\nmetadata:\n  name: gpu\n{{- end }}\nspec:\n  template: {spec: {}}\n"
    )
    # The tolerant reader (issue 11) reads it; a template it cannot recover is a notice.
    (tmp_path / "blocks.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nspec:\n  limits:\n    cpu: 10\n"
        "    {{- toYaml .Values.more | nindent 4 }}\n"
    )
    result = scan_paths([tmp_path])
    assert not [f for f in result.findings if f.rule_id == "FIN000"]
    assert [r.address for r in result.records if r.location.file.endswith("nodepool.yaml")] == [
        "NodePool/gpu"
    ]
    assert len(result.notices) == 1 and "template" in result.notices[0].message
    assert result.notices[0].file.endswith("blocks.yaml") and result.notices[0].line == 6
    assert "at line 6" in result.notices[0].message


def test_huge_file_is_skipped_with_a_reason(tmp_path: Path) -> None:
    from finlint.loaders.common.discovery import Limits
    from finlint.scan import ScanOptions, lint

    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    (tmp_path / "big.yaml").write_text("a: " + "x" * 2000 + "\n")
    result = lint(ScanOptions(paths=[tmp_path], limits=Limits(max_file_bytes=1000)))
    errs = {Path(f.file).name: f.message for f in result.findings if f.rule_id == "FIN000"}
    assert "too large" in errs["big.yaml"] and "--max-file-mb" in errs["big.yaml"]
    assert any(f.rule_id == "FIN101" for f in result.findings)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and permissions")
def test_symlink_loop_and_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    os.symlink(tmp_path, tmp_path / "loop")  # a directory link back to the root: never followed
    os.symlink(tmp_path / "self.yaml", tmp_path / "self.yaml")  # a file link to itself
    secret = tmp_path / "secret.yaml"
    secret.write_text("a: 1\n")
    secret.chmod(0)
    errs = errors_by_file(tmp_path)
    assert "self.yaml" in errs
    if os.geteuid() != 0:  # root can read anything
        assert "cannot read" in errs["secret.yaml"][1]


def test_missing_path_is_reported(tmp_path: Path) -> None:
    result = scan_paths([tmp_path / "nope"])
    assert result.errors and "no such file" in result.errors[0].message


def test_unclaimed_json_is_checked_but_not_line_loaded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """package-lock.json and friends: validated by the C JSON parser, never walked line by line."""
    import finlint.loaders.common.yamlload

    calls: list[int] = []
    real = finlint.loaders.common.yamlload.load_all
    yamlload = finlint.loaders.common.yamlload
    monkeypatch.setattr(yamlload, "load_all", lambda *a, **k: calls.append(1) or real(*a, **k))
    (tmp_path / "package-lock.json").write_text('{"name": "web", "lockfileVersion": 3, "packages": {}}')
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    result = scan_paths([tmp_path])
    assert calls == [1]  # only the training-job request
    assert result.files_scanned == 2 and not result.errors


def test_valid_json_that_libyaml_refused_is_read_with_its_lines(tmp_path: Path) -> None:
    """JSON allows what libyaml refuses or folds: a surrogate-pair escape (an emoji as
    ``json.dumps`` writes it), raw DEL/C1 controls, U+2028 and U+FFFE in strings. Such files were
    a FIN000 "invalid JSON" (seven real notebooks of aws/amazon-sagemaker-examples were)."""
    request = GOOD_REQUEST.replace(
        '"TrainingJobName": "x",',
        '"TrainingJobName": "x",\n  "Tags": [{"Key": "note", "Value": "'
        + 'done \\ud83d\\ude00 \x7f \x85 \u2028 \ufffe"}],',
    )
    assert request.count("\n") == GOOD_REQUEST.count("\n") + 1
    (tmp_path / "job.json").write_text(request, encoding="utf-8")
    result = scan_paths([tmp_path])
    assert [f.rule_id for f in result.findings] == ["FIN101"]
    assert result.records[0].line_of("instance_type") == 5  # one line down: lines count by \n
