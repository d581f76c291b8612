"""The tolerant reader (issue 11 section 3): templated YAML read without rendering it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from finlint.ir import is_unknown
from finlint.loaders.common.templating import Unrecoverable, mask
from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[2]
TEMPLATED = REPO / "fixtures" / "templated"


def scan(*paths: Path, **options: object) -> object:
    return lint(ScanOptions(paths=list(paths), loader_options=dict(options)))


def test_mask_keeps_every_line_and_literal() -> None:
    text = (
        "{{- if .Values.enabled }}\n"
        "apiVersion: karpenter.sh/v1\n"
        "kind: NodePool\n"
        "metadata:\n"
        "  name: {{ .Release.Name }}-gpu\n"
        "  labels:\n"
        '    {{- include "x.labels" . | nindent 4 }}\n'
        "    team: ml\n"
        "spec:\n"
        "  limits:\n"
        "    {{- toYaml .Values.limits | nindent 4 }}\n"
        "  template:\n"
        "    spec:\n"
        "      requirements:\n"
        "        - key: node.kubernetes.io/instance-type\n"
        "          operator: In\n"
        '          values: ["p5.48xlarge", {{ .Values.extra | quote }}]\n'
        "{{- else }}\n"
        "kind: Other\n"
        "{{- end }}\n"
    )
    masked = mask(text)
    assert masked.text.count("\n") == text.count("\n")
    doc = yaml.safe_load(masked.text)
    assert doc["kind"] == "NodePool"  # the else branch is dropped, not merged in
    assert doc["metadata"] == {"name": "{{ .Release.Name }}-gpu", "labels": {"team": "ml"}}
    assert doc["spec"]["limits"] == "{{- toYaml .Values.limits | nindent 4 }}"
    values = doc["spec"]["template"]["spec"]["requirements"][0]["values"]
    assert values == ["p5.48xlarge", "{{ .Values.extra | quote }}"]
    assert masked.dropped == [7]
    lines = masked.text.split("\n")
    assert lines[4] == "  name: '{{ .Release.Name }}-gpu'" and lines[0] == "" and lines[17] == ""


def test_placeholder_writing_a_list_key_keeps_the_list_shape() -> None:
    text = "values:\n  {{- toYaml .Values.types | nindent 2 }}\nother: 1\n"
    assert yaml.safe_load(mask(text).text) == {
        "values": ["{{- toYaml .Values.types | nindent 2 }}"],
        "other": 1,
    }


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        ("spec:\n  limits:\n    cpu: 1\n    {{- toYaml .Values.more | nindent 4 }}\n", 4, "produces a block"),
        ("spec:\n  {{ .Values.key }}: 1\n  b: 2\n", 2, "produces keys"),
        ("a: 1\n{{- if .Values.x }}\nb: 2\n", 2, "never closed"),
        ("a: 1\n{{ .Values.x\n  | quote }}\n", 2, "spans lines"),
    ],
)
def test_unrecoverable_structure_names_the_line(text: str, line: int, why: str) -> None:
    with pytest.raises(Unrecoverable) as info:
        mask(text)
    assert info.value.line == line and why in info.value.reason


def test_jinja_and_terraform_directives_are_control_lines() -> None:
    text = (
        "{# comment #}\n"
        "{% set x = 1 %}\n"
        "a:\n"
        "{% for k in ks %}\n"
        "  - {{ k }}\n"
        "{% endfor %}\n"
        "%{ if spot ~}\n"
        "b: spot\n"
        "%{ else ~}\n"
        "b: on-demand\n"
        "%{ endif ~}\n"
    )
    assert yaml.safe_load(mask(text).text) == {"a": ["{{ k }}"], "b": "spot"}


def test_a_named_template_file_yields_nothing() -> None:
    text = '{{- define "x.labels" -}}\napp: {{ .Chart.Name }}\n{{- end }}\n'
    assert yaml.safe_load(mask(text).text) is None


def test_templated_fixtures_fire_on_their_literals() -> None:
    result = scan(TEMPLATED)
    found = sorted((f.rule_id, Path(f.file).name, f.line) for f in result.findings)
    assert found == [
        ("FIN301", "nodepool.yaml.tpl", 9),  # p5 literal, no limits; a zone placeholder does not hide it
        ("FIN304", "nodepool.yaml.tpl", 9),  # the same pool: accelerated types and no limits
        ("FIN401", "job-envsubst.yaml", 32),  # the mount, linked through run-${RUN_ID}-state
        ("FIN401", "pytorchjob.yaml", 23),  # envsubst-dotenv/: --ckpt-path ${CKPT_DIR}, from its .env
        ("FIN401", "training.yml.j2", 2),
        ("FIN401", "training.yml.j2", 14),
        ("FIN401", "training.yml.j2", 43),  # linked through {{ run_name }}-checkpoints(-pv)
    ]
    assert not result.notices and not result.errors


def test_same_template_text_links_but_different_text_does_not(tmp_path: Path) -> None:
    text = (TEMPLATED / "job-envsubst.yaml").read_text()
    (tmp_path / "same.yaml").write_text(text)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "different.yaml").write_text(
        text.replace("claimName: run-${RUN_ID}-state", "claimName: run-${OTHER}-state")
    )
    result = scan(tmp_path)
    jobs = {Path(r.location.file).name: r for r in result.records if r.address.startswith("Job/")}
    assert jobs["same.yaml"].mounts[0].is_efs is True
    assert is_unknown(jobs["different.yaml"].mounts[0].is_efs)
    assert [Path(f.file).name for f in result.findings if f.rule_id == "FIN401"] == ["same.yaml"]


def test_placeholder_values_are_undetermined_with_the_placeholder(tmp_path: Path) -> None:
    (tmp_path / "pool.yaml.j2").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n"
        "  template:\n    spec:\n      requirements:\n"
        "        - key: node.kubernetes.io/instance-type\n          operator: In\n"
        "          values: [{{ instance_type }}]\n"
    )
    result = scan(tmp_path)
    assert not result.findings
    assert any("{{ instance_type }}" in " ".join(u.reasons) for u in result.undetermined)


def test_content_decides_not_the_extension(tmp_path: Path) -> None:
    (tmp_path / "user-data.sh.tpl").write_text(
        "#!/bin/bash\necho ${name} {{ x }}\nif [ -z %{ a } ]; then :; fi\n"
    )
    (tmp_path / "notes.tmpl").write_text("Hello {{ .Name }}: {\n")
    (tmp_path / "pool.tmpl").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: ${name}\nspec:\n"
        "  template:\n    spec:\n      requirements:\n"
        "        - key: node.kubernetes.io/instance-type\n          operator: In\n"
        '          values: ["p5.48xlarge"]\n'
    )
    result = scan(tmp_path)
    assert [(Path(f.file).name, f.rule_id) for f in result.findings] == [
        ("pool.tmpl", "FIN301"),
        ("pool.tmpl", "FIN304"),
    ]
    assert not result.notices and not result.errors


def test_a_skipped_template_says_which_line_defeated_the_reader(tmp_path: Path) -> None:
    (tmp_path / "pool.yaml").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: x\nspec:\n"
        "  {{ .Values.specKey }}: {}\n  template: {}\n"
    )
    result = scan(tmp_path)
    (notice,) = result.notices
    assert notice.line == 6 and "skipped template" in notice.message and "line 6" in notice.message
    assert "produces keys" in notice.message


def test_a_tpl_used_by_templatefile_is_read_with_terraforms_variables(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'resource "kubectl_manifest" "pool" {\n'
        '  yaml_body = templatefile("${path.module}/pool.yaml.tpl", { name = "gpu", family = "p5" })\n'
        "}\n"
    )
    (tmp_path / "pool.yaml.tpl").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: ${name}\nspec:\n"
        "  template:\n    spec:\n      requirements:\n"
        "        - key: karpenter.k8s.aws/instance-family\n          operator: In\n"
        '          values: ["${family}"]\n'
    )
    result = scan(tmp_path)
    assert [(Path(f.file).name, f.line, f.resource) for f in result.findings if f.rule_id == "FIN301"] == [
        ("main.tf", 2, "kubectl_manifest.pool/NodePool/gpu")
    ]
    # the file's own tolerant copy (family unknown) gives way to the rendered one
    assert [r.address for r in result.records] == ["kubectl_manifest.pool/NodePool/gpu"]
    assert not result.undetermined


def test_a_block_placed_by_indent_n_belongs_to_the_mapping_above_it() -> None:
    # `{{ include ... | indent 4 }}` sits at column 0 but writes into `labels` (harmless)
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app: x\n"
        '{{ include "x.labels" . | indent 4 }}\nspec:\n  replicas: 1\n'
    )
    masked = mask(text)
    assert masked.dropped == [6]
    assert yaml.safe_load(masked.text)["metadata"] == {"labels": {"app": "x"}}


def test_blocks_in_kinds_no_rule_reads_are_dropped_but_not_elsewhere() -> None:
    pdb = (
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nspec:\n  selector: {}\n"
        "{{- toYaml .Values.pdb | nindent 2 }}\n"
    )
    assert mask(pdb).dropped == [5]
    job = pdb.replace("policy/v1", "batch/v1").replace("PodDisruptionBudget", "Job")
    with pytest.raises(Unrecoverable):
        mask(job)


def test_fail_writes_nothing() -> None:
    text = 'a: 1\n{{- if not .Values.tag }}\n{{- fail "tag is required" }}\n{{- end }}\nb: 2\n'
    assert yaml.safe_load(mask(text).text) == {"a": 1, "b": 2}


def test_terraform_interpolation_in_a_flow_list_is_a_placeholder_item(tmp_path: Path) -> None:
    # `values: [${instance_type}]` is not YAML (`{` opens a flow mapping) until Terraform renders it
    (tmp_path / "nodepool.tpl").write_text(
        "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: default\nspec:\n"
        "  template:\n    spec:\n      requirements:\n"
        "        - key: node.kubernetes.io/instance-type\n          operator: In\n"
        "          values: [${instance_type}]\n"
        "  limits:\n    cpu: ${max_cpu}\n"
    )
    result = scan(tmp_path)
    (pool,) = result.records
    assert pool.requirements[0].values == ("${instance_type}",) and pool.requirements[0].line == 9
    assert not result.findings and not result.notices
    assert any("${instance_type}" in " ".join(u.reasons) for u in result.undetermined)


def test_a_tagged_value_keeps_its_tag() -> None:
    text = (
        "Resources:\n  B:\n    Properties:\n      Name: !Sub '${AWS::StackName}-{{ env }}'\n"
        "{% if x %}\n{% endif %}\n"
    )
    assert yaml.safe_load(mask(text).text.replace("!Sub", "")) == {
        "Resources": {"B": {"Properties": {"Name": "${AWS::StackName}-{{ env }}"}}}
    }


def test_json_placeholders_inside_strings_with_escaped_quotes_stay_as_written() -> None:
    """An escaped quote does not end a string; an escaped backslash before a quote does."""
    import json

    from finlint.loaders.common.templating import quote_json_placeholders

    text = '{"a": "say \\"{{ y }}\\"", "b": "c:\\\\", "n": {{ n }}}'
    quoted = quote_json_placeholders(text)
    assert quoted is not None
    assert json.loads(quoted) == {"a": 'say "{{ y }}"', "b": "c:\\", "n": "{{ n }}"}
