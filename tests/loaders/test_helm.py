"""Helm charts rendered offline (issue 11 sections 1-2): renderers, template lines, values.

The ``sdk`` tests need the ``finlint[helm]`` extra (helm-python-sdk) and are skipped without
it; no ``helm`` binary is available from the package registries this project may use (Debian
has no helm package; PyPI ``helm`` is unrelated), so the binary renderer is tested against a
fake ``helm`` that prints ``helm template``'s output format and records its arguments, and
against a real one only when it is on PATH. The tolerant path needs nothing and always runs.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.loaders import REGISTRY, tree_unit
from finlint.loaders.helm import lines as line_map
from finlint.loaders.helm import render
from finlint.result import ScanResult
from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[2]
HELM = REPO / "fixtures" / "helm"
GPU_POOL = HELM / "gpu-pool"
UNLIMITED = HELM / "gpu-pool-envs" / "unlimited.yaml"

needs_sdk = pytest.mark.skipif(
    not render.sdk_available(), reason="needs the finlint[helm] extra (helm-python-sdk)"
)
needs_binary = pytest.mark.skipif(
    shutil.which("helm") is None, reason="no helm binary on PATH (none in Debian or PyPI)"
)


def scan(*paths: Path, **options: object) -> ScanResult:
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        rel = [p.relative_to(REPO) if p.is_absolute() else p for p in paths]
        return lint(ScanOptions(paths=rel, loader_options=dict(options)))
    finally:
        os.chdir(cwd)


def fin(result: ScanResult, rule: str) -> list[tuple[str, int]]:
    return sorted((f.file, f.line) for f in result.findings if f.rule_id == rule)


# --- the registry: a chart is one unit that owns its tree ------------------------------------


def test_a_chart_is_a_tree_unit_of_the_registry() -> None:
    spec = next(s for s in REGISTRY if s.format == "helm")
    assert spec.unit == "directory" and spec.marker_files == ("Chart.yaml",) and spec.suffixes == ()
    cache: dict[Path, object] = {}
    found = tree_unit(GPU_POOL / "templates" / "nodepool.yaml", cache)  # type: ignore[arg-type]
    assert found is not None and found[0] is spec and found[1] == GPU_POOL
    sub = tree_unit(HELM / "with-deps" / "charts" / "storage" / "templates" / "pv.yaml", cache)  # type: ignore[arg-type]
    assert sub is not None and sub[1] == HELM / "with-deps"  # a vendored subchart renders with its parent
    assert tree_unit(REPO / "fixtures" / "templated" / "job-envsubst.yaml", cache) is None  # type: ignore[arg-type]


# --- rendering with helm-python-sdk ------------------------------------------------------------


@needs_sdk
def test_p5_pool_fires_only_when_values_remove_the_limits() -> None:
    assert fin(scan(GPU_POOL, helm_renderer="sdk"), "FIN301") == []
    removed = scan(GPU_POOL, helm_renderer="sdk", helm_values=[str(UNLIMITED)])
    # on the template line of `requirements:` (10), not a line of the rendered text
    assert fin(removed, "FIN301") == [("fixtures/helm/gpu-pool/templates/nodepool.yaml", 10)]
    assert "NodePool/release-name-gpu" in removed.findings[0].resource


@needs_sdk
def test_rendered_lines_land_on_template_lines_and_values_lines() -> None:
    result = scan(GPU_POOL, helm_renderer="sdk")
    (pool,) = result.records
    assert pool.location.file == "fixtures/helm/gpu-pool/templates/nodepool.yaml"
    assert pool.location.line == 1
    assert pool.attr_lines["name"] == 4  # `name: {{ .Release.Name }}-gpu`
    assert pool.attr_lines["requirements"] == 10
    assert pool.attr_lines["capacity_types"] == 15  # the capacity-type requirement item
    assert pool.attr_lines["limits"] == 23  # `limits:` inside `{{- with .Values.limits }}`
    # limits.cpu was written by `toYaml .Values.limits` (template line 24): it came from the
    # values line that set it, and a finding on it points there naming the template
    assert pool.attr_lines["limits.cpu"] == 24
    sources = {s.attr: s for s in pool.value_sources}
    assert {k: (v.file, v.line) for k, v in sources.items()} == {
        "limits.cpu": ("fixtures/helm/gpu-pool/values.yaml", 7),
        "limits.memory": ("fixtures/helm/gpu-pool/values.yaml", 8),
    }
    assert "templates/nodepool.yaml:24" in sources["limits.cpu"].what


@needs_sdk
def test_efs_chart_links_the_rendered_claim_and_points_at_the_mount_line() -> None:
    result = scan(HELM / "efs-training", helm_renderer="sdk")
    assert fin(result, "FIN401") == [("fixtures/helm/efs-training/templates/job.yaml", 16)]
    (finding,) = [f for f in result.findings if f.rule_id == "FIN401"]
    assert "release-name-state" in finding.message


@needs_sdk
def test_values_override_from_config_flips_the_finding(tmp_path: Path) -> None:
    config = tmp_path / ".finlint.yaml"
    config.write_text(
        f"helm:\n  renderer: sdk\n  charts:\n    - path: {GPU_POOL}\n      values: [{UNLIMITED}]\n"
        "      set: {capacityType: on-demand}\n      release: prod\n"
    )
    runner = CliRunner()
    out = runner.invoke(main, ["scan", str(GPU_POOL), str(UNLIMITED.parent), "--config", str(config)])
    assert out.exit_code == 1, out.output
    assert "nodepool.yaml:10: FIN301" in out.output and "NodePool/prod-gpu" in out.output
    # the values file is the renderer's input, never linted (or counted) on its own
    assert "unlimited.yaml" not in out.output
    plain = runner.invoke(main, ["scan", str(GPU_POOL), "--config", str(config).replace(".finlint", "x")])
    assert plain.exit_code == 2  # no such config file: a usage error, not a silent default


@needs_sdk
def test_helm_values_flag() -> None:
    out = CliRunner().invoke(
        main, ["scan", str(GPU_POOL), "--helm-values", str(UNLIMITED), "--format", "json"]
    )
    data = json.loads(out.output)
    assert [(f["rule_id"], f["line"]) for f in data["findings"]] == [("FIN301", 10), ("FIN304", 10)]
    assert any("helm-python-sdk" in n["message"] for n in data["notices"])


@needs_sdk
def test_a_value_set_in_a_values_file_points_there(tmp_path: Path) -> None:
    chart = tmp_path / "c"
    shutil.copytree(GPU_POOL, chart)
    (chart / "values.yaml").write_text(
        "nodeClass: gpu\ncapacityType: on-demand\ninstanceTypes: [p5.48xlarge]\nlimits:\n  cpu: 100000\n"
        "  memory: 100000Gi\n"
    )
    result = lint(ScanOptions(paths=[chart], loader_options={"helm_renderer": "sdk"}))
    (pool,) = result.records
    source = pool.value_source("limits.cpu")
    assert source is not None and source.file.endswith("c/values.yaml") and source.line == 5


@needs_sdk
def test_a_chart_that_fails_to_render_is_one_notice_at_the_template_line() -> None:
    result = scan(HELM / "broken-chart", GPU_POOL, helm_renderer="sdk", helm_values=[str(UNLIMITED)])
    notices = [n for n in result.notices if "not rendered" in n.message]
    assert [(n.file, n.line) for n in notices] == [("fixtures/helm/broken-chart/templates/nodepool.yaml", 9)]
    assert "instanceFamily is required" in notices[0].message
    assert fin(result, "FIN301") == [
        ("fixtures/helm/gpu-pool/templates/nodepool.yaml", 10)
    ]  # the scan goes on
    assert not result.errors


@needs_sdk
def test_vendored_dependency_renders_and_remote_one_is_a_notice() -> None:
    result = scan(HELM / "with-deps", helm_renderer="sdk")
    # the parent's values (storage.driver) reach the vendored subchart: its PV is EFS
    assert ("fixtures/helm/with-deps/templates/job.yaml", 13) in fin(result, "FIN401")
    assert ("fixtures/helm/with-deps/charts/storage/templates/pv.yaml", 4) in fin(result, "FIN401")
    (remote,) = [n for n in result.notices if "dependency" in n.message]
    assert remote.file == "fixtures/helm/with-deps/Chart.yaml" and remote.line == 8
    assert "monitoring" in remote.message and "charts.example.com" in remote.message


@needs_sdk
def test_terraform_helm_release_renders_with_values_and_set() -> None:
    result = scan(HELM / "terraform-release", GPU_POOL, helm_renderer="sdk")
    # values = [file(release-values.yaml)] removes the limits: the release fires, the chart's
    # own render (with its limits) is dropped in favour of the release's
    assert fin(result, "FIN301") == [("fixtures/helm/gpu-pool/templates/nodepool.yaml", 10)]
    (finding,) = [f for f in result.findings if f.rule_id == "FIN301"]
    assert finding.resource.startswith("helm_release.gpu_pool/") and "NodePool/train-gpu" in finding.resource
    (pool,) = [r for r in result.records if r.address.startswith("helm_release.gpu_pool/")]
    assert pool.capacity_types == ("on-demand",)  # set { capacityType = var.capacity_type }
    messages = {n.line: n.message for n in result.notices if n.file.endswith("main.tf")}
    assert "remote chart kube-prometheus-stack" in messages[23]
    assert "not in the scan" in messages[28]


@needs_sdk
def test_set_block_overrides_the_values(tmp_path: Path) -> None:
    chart = tmp_path / "gpu-pool"  # inside the scan: a chart outside its roots is refused
    shutil.copytree(GPU_POOL, chart)
    (tmp_path / "main.tf").write_text(
        'resource "helm_release" "gpu" {\n'
        '  name  = "gpu"\n'
        f'  chart = "{chart}"\n'
        "  values = [yamlencode({ limits = null })]\n"
        "  set {\n"
        '    name  = "capacityType"\n'
        '    value = "spot"\n'
        "  }\n"
        "}\n"
    )
    result = lint(ScanOptions(paths=[tmp_path], loader_options={"helm_renderer": "sdk"}))
    (pool,) = result.records
    assert pool.capacity_types == ("spot",) and pool.limits is None


# --- the helm binary ------------------------------------------------------------------------

FAKE_HELM = """#!{python}
import json, sys
args = sys.argv[1:]
log = {{"args": args, "stdin": sys.stdin.read() if "--values=-" in args else ""}}
open({log!r}, "w").write(json.dumps(log))
if "broken" in " ".join(args):
    sys.stderr.write('Error: execution error at (broken/templates/x.yaml:3:4): boom\\n')
    sys.exit(1)
sys.stdout.write(open({output!r}).read())
"""

RENDERED = """---
# Source: gpu-pool/templates/nodepool.yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: rel-gpu
  labels:
    app.kubernetes.io/name: gpu-pool
spec:
  template:
    spec:
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values:
            - p5.48xlarge
        - key: karpenter.sh/capacity-type
          operator: In
          values: ["on-demand"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: gpu
"""


def test_helm_template_output_is_split_by_source_header() -> None:
    out = render.split_sources(
        RENDERED + "---\n# Source: c/templates/b.yaml\nkind: A\n---\n# Source: c/templates/b.yaml\nkind: B\n"
    )
    assert sorted(out) == ["c/templates/b.yaml", "gpu-pool/templates/nodepool.yaml"]
    assert (
        out["c/templates/b.yaml"]
        == "# Source: c/templates/b.yaml\nkind: A\n---\n# Source: c/templates/b.yaml\nkind: B\n"
    )


def test_binary_renderer_runs_helm_template_offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Our side of the contract with `helm template`: arguments, stdin values, output, errors."""
    bin_dir, log, output = tmp_path / "bin", tmp_path / "log.json", tmp_path / "out.yaml"
    bin_dir.mkdir()
    output.write_text(RENDERED)
    helm = bin_dir / "helm"
    helm.write_text(FAKE_HELM.format(python=sys.executable, log=str(log), output=str(output)))
    helm.chmod(helm.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    assert render.choose(None) == "binary"
    result = lint(
        ScanOptions(
            paths=[GPU_POOL], loader_options={"helm_values": [str(UNLIMITED)], "helm_renderer": "binary"}
        )
    )
    args = json.loads(log.read_text())["args"]
    # flags as --flag=value with absolute paths, then `--` and the release and the chart's
    # private copy (tests/security/test_helm_safety.py)
    assert args[:4] == ["template", "--namespace=default", f"--values={UNLIMITED}", "--values=-"]
    assert args[4:6] == ["--", "release-name"] and Path(args[6]).is_absolute() and len(args) == 7
    assert json.loads(json.loads(log.read_text())["stdin"]) == {"limits": None}
    assert not any(a in args for a in ("--validate", "--dependency-update", "--repo"))
    assert any("helm binary" in n.message for n in result.notices)
    (pool,) = result.records
    assert pool.location.file.endswith("gpu-pool/templates/nodepool.yaml")
    assert pool.attr_lines["requirements"] == 10 and pool.attr_lines["name"] == 4
    failure = render.render("binary", Path("broken"), "r", {}, [])
    assert failure.failure is not None
    assert (failure.failure.source, failure.failure.line) == ("broken/templates/x.yaml", 3)


@needs_binary
def test_real_helm_binary_renders_the_fixture() -> None:
    removed = scan(GPU_POOL, helm_renderer="binary", helm_values=[str(UNLIMITED)])
    assert fin(removed, "FIN301") == [("fixtures/helm/gpu-pool/templates/nodepool.yaml", 10)]


# --- no renderer: the tolerant reader -------------------------------------------------------


def test_without_a_renderer_charts_are_read_tolerantly_and_it_says_so() -> None:
    result = scan(HELM, helm_renderer="tolerant")
    renderer_notices = [n for n in result.notices if "tolerant template reader" in n.message]
    assert len(renderer_notices) == 1 and "finlint[helm]" in renderer_notices[0].message
    names = {str(r.name.template) if hasattr(r.name, "template") else r.name for r in result.records}
    assert "{{ .Release.Name }}-gpu" in names  # the template text, on the template's own lines
    assert not result.errors
    storage = [
        r
        for r in result.records
        if "PersistentVolumeClaim" in r.address and "efs-training" in r.location.file
    ]
    assert storage and storage[0].is_efs is True  # {{ .Release.Name }}-efs-sc links by its text


def test_choose_prefers_binary_then_sdk_then_tolerant(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render.shutil, "which", lambda _name: None)
    monkeypatch.setattr(render, "sdk_available", lambda: False)
    assert render.choose(None) == "tolerant" and render.choose("sdk") == "tolerant"
    monkeypatch.setattr(render, "sdk_available", lambda: True)
    assert render.choose(None) == "sdk" and render.choose("tolerant") == "tolerant"
    monkeypatch.setattr(render.shutil, "which", lambda _name: "/usr/bin/helm")
    assert render.choose(None) == "binary" and render.choose("sdk") == "sdk"


# --- line alignment, config validation ----------------------------------------------------------


def test_align_maps_range_repeats_and_producer_blocks() -> None:
    template = (
        "items:\n"  # 1
        "{{- range .Values.pools }}\n"  # 2
        "  - name: {{ .name }}\n"  # 3
        "    limits:\n"  # 4
        "      {{- toYaml .limits | nindent 6 }}\n"  # 5
        "{{- end }}\n"  # 6
    )
    rendered = "items:\n  - name: a\n    limits:\n      cpu: 1\n  - name: b\n    limits:\n      cpu: 2\n"
    aligned = {n: t.number for n, t in line_map.align(line_map.analyse(template), rendered).items()}
    assert aligned == {1: 1, 2: 3, 3: 4, 4: 5, 5: 3, 6: 4, 7: 5}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("helm: [a]\n", "expected a mapping"),
        ("helm:\n  render: sdk\n", "unknown key 'render'"),
        ("helm:\n  renderer: magic\n", "expected one of"),
        ("helm:\n  charts:\n    - path: nowhere\n", "no Chart.yaml"),
        ("helm:\n  charts:\n    - path: gpu-pool\n      values: [missing.yaml]\n", "no such file"),
        ("helm:\n  charts:\n    - path: gpu-pool\n      sett: {}\n", "unknown key 'sett'"),
        (f"helm:\n  charts:\n    - path: {GPU_POOL}\n", "resolves outside the repository"),
    ],
)
def test_helm_config_is_validated_with_lines(tmp_path: Path, body: str, message: str) -> None:
    from finlint.config import ConfigError, load_config

    shutil.copytree(GPU_POOL, tmp_path / "gpu-pool")  # a repository's config names its own charts
    path = tmp_path / ".finlint.yaml"
    path.write_text("select: [FIN301]\n" + body)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert message in str(info.value) and info.value.line >= 2


@needs_sdk
def test_helm_values_flag_on_cost_and_diff() -> None:
    """`cost` (and `diff`) render charts with --helm-values like `scan` does."""
    base = CliRunner().invoke(main, ["cost", str(GPU_POOL), "--format", "json"])
    lifted = CliRunner().invoke(
        main, ["cost", str(GPU_POOL), "--helm-values", str(UNLIMITED), "--format", "json"]
    )
    (pool,) = json.loads(base.output)["resources"]
    (unlimited,) = json.loads(lifted.output)["resources"]
    assert "its limits (cpu 384) admit 2 node(s)" in pool["quantity"]
    assert "its limits" not in unlimited["quantity"]  # the values file removed them
    assert "--helm-values" in CliRunner().invoke(main, ["diff", "--help"]).output
