"""Helm charts are untrusted input (docs/security.md, docs/limits.md#helm).

* no repository text becomes a ``helm`` flag: release names are validated as Helm does, every
  path is absolute, flags are ``--flag=value`` and the positional arguments follow ``--``;
* a chart folder, a configured values file, a file in a chart or a Terraform ``helm_release``
  chart path that resolves outside the scan roots is refused, and its content never reaches
  a record or a notice (the renderers read a private, bounded copy of the chart);
* the helm-python-sdk render runs in a child with a memory limit and a timeout: a template that
  loops, includes itself or eats memory ends in one short notice and the scan goes on.

The binary renderer is checked on the argv it would run (``subprocess.run`` replaced): no helm
binary is available here. The child tests run the scan in a harness process so that, before the
fix, a Go fatal error or a hang fails the test instead of killing or stalling pytest.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import types
from pathlib import Path
from typing import Any

import pytest

import finlint
from finlint.confine import Roots
from finlint.loaders.helm import chart as helm_chart
from finlint.loaders.helm import render
from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[2]
GPU_POOL = REPO / "fixtures" / "helm" / "gpu-pool"
SRC = Path(finlint.__file__).resolve().parents[1]  # the finlint under test, for the harness

needs_sdk = pytest.mark.skipif(
    not render.sdk_available(), reason="needs the finlint[helm] extra (helm-python-sdk)"
)

RENDERED = """---
# Source: gpu-pool/templates/nodepool.yaml
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: rel-gpu
spec:
  template:
    spec:
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["p5.48xlarge"]
"""

SECRET_POOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: topsecret-pool
spec:
  template:
    spec:
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["p5.48xlarge"]
"""


def show(path: Path) -> str:
    return str(path)


class FakeHelm:
    """``shutil.which`` and ``subprocess.run`` as the binary renderer sees them: argv recorded."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, stdout: str = RENDERED) -> None:
        self.calls: list[list[str]] = []
        self.stdout = stdout
        monkeypatch.setattr(render, "shutil", types.SimpleNamespace(which=lambda _name: "/fake/bin/helm"))
        fake = types.SimpleNamespace(
            run=self.run,
            TimeoutExpired=subprocess.TimeoutExpired,
            CompletedProcess=subprocess.CompletedProcess,
        )
        monkeypatch.setattr(render, "subprocess", fake)

    def run(self, cmd: list[str], **_kwargs: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append(list(cmd))
        return subprocess.CompletedProcess(cmd, 0, stdout=self.stdout, stderr="")

    @property
    def argv(self) -> list[str]:
        (call,) = self.calls
        return call


def chart_in(tree: Path, name: str = "gpu-pool") -> Path:
    chart = tree / name
    shutil.copytree(GPU_POOL, chart)
    return chart


def texts(result: Any) -> str:
    """Everything a report could show of a load: records, notices, errors."""
    parts = [repr(r) for r in result.records]
    parts += [f"{n.file}:{n.line}: {n.message}" for n in result.notices]
    parts += [f"{e.file}:{e.line}: {e.message}" for e in result.errors]
    return "\n".join(parts)


# --- 1. no repository text is ever a helm flag ----------------------------------------------

BAD_NAMES = ["--post-renderer=sh", "-x", "A B", "a" * 54, "gpu_pool", "-", "rel\n--set=x", "-rel"]


@pytest.mark.parametrize("name", BAD_NAMES)
def test_an_invalid_release_name_is_refused_and_never_reaches_helm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    helm = FakeHelm(monkeypatch)
    chart = chart_in(tmp_path)
    options = {
        "helm_renderer": "binary",
        "helm_charts": [{"path": str(chart), "values": [], "release": name}],
    }
    result = helm_chart.load_directory(chart, [], show, options)
    argv = helm.argv
    assert name not in argv and not any(a.startswith(f"{name}=") for a in argv)
    assert argv[argv.index("--") + 1 : -1] == [helm_chart.DEFAULT_RELEASE]
    (notice,) = [n for n in result.notices if "release name" in n.message]
    assert notice.file == str(chart / "Chart.yaml") and notice.line == 1
    assert "refused" in notice.message and "\n" not in notice.message
    assert [r.name for r in result.records] == ["rel-gpu"]  # still rendered, with the safe name


@pytest.mark.parametrize("name", ["prod", "my-release-1", "a", "gpu.pool", "a" * 53])
def test_a_valid_release_name_is_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    helm = FakeHelm(monkeypatch)
    chart = chart_in(tmp_path)
    options = {
        "helm_renderer": "binary",
        "helm_charts": [{"path": str(chart), "values": [], "release": name}],
    }
    result = helm_chart.load_directory(chart, [], show, options)
    assert helm.argv[-2] == name and not [n for n in result.notices if "release name" in n.message]


def test_helm_argv_is_flags_with_absolute_paths_then_dashdash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helm = FakeHelm(monkeypatch)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c").mkdir()
    (tmp_path / "-v.yaml").write_text("a: 1\n")  # a file named like a flag
    render.render("binary", Path("c"), "rel", {"b": 2}, [Path("-v.yaml")])
    argv = helm.argv
    dashdash = argv.index("--")
    assert argv[dashdash + 1 :] == ["rel", str(tmp_path / "c")]
    flags = argv[2:dashdash]
    assert f"--values={tmp_path / '-v.yaml'}" in flags and "--values=-" in flags
    assert all(f.startswith("--") and "=" in f for f in flags)  # no flag takes the next word


def test_a_terraform_release_name_is_refused_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helm = FakeHelm(monkeypatch)
    chart = chart_in(tmp_path)
    (tmp_path / "main.tf").write_text(
        f'resource "helm_release" "gpu" {{\n  name  = "--post-renderer=/bin/sh"\n  chart = "{chart}"\n}}\n'
    )
    result = lint(ScanOptions(paths=[tmp_path], loader_options={"helm_renderer": "binary"}))
    assert all("--post-renderer=/bin/sh" not in a for call in helm.calls for a in call)
    (notice,) = [n for n in result.notices if "release name" in n.message]
    assert notice.file.endswith("main.tf") and notice.line == 2


# --- 2. confinement: nothing outside the roots is read ---------------------------------------


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(SECRET_POOL)
    (tmp_path / "tree").mkdir()
    return tmp_path / "tree"


@pytest.mark.parametrize("renderer", ["tolerant", pytest.param("sdk", marks=needs_sdk)])
def test_a_template_symlinked_out_of_the_tree_is_refused(tree: Path, renderer: str) -> None:
    chart = chart_in(tree)
    os.symlink(tree.parent / "outside" / "secret.yaml", chart / "templates" / "leak.yaml")
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": renderer}))
    assert "topsecret" not in texts(result)
    file_note, chart_note = sorted(
        (n for n in result.notices if "refused" in n.message), key=lambda n: not n.file.endswith("leak.yaml")
    )
    assert file_note.file.endswith("templates/leak.yaml")  # the file, once (discovery, the chart unit)
    assert "outside the scanned tree" in file_note.message
    assert "templates/leak.yaml" in chart_note.message and "outside the scanned tree" in chart_note.message
    assert chart_note.file.endswith("gpu-pool/Chart.yaml")


@needs_sdk
def test_files_get_cannot_read_through_a_symlink(tree: Path) -> None:
    chart = chart_in(tree)
    os.symlink(tree.parent / "outside" / "secret.yaml", chart / "leak.txt")
    (chart / "templates" / "leak.yaml").write_text('{{ .Files.Get "leak.txt" }}\n')
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "sdk"}))
    assert "topsecret" not in texts(result)
    assert any("leak.txt" in n.message and "refused" in n.message for n in result.notices)


def test_a_symlink_inside_the_tree_is_followed(tree: Path) -> None:
    chart = chart_in(tree)
    (tree / "shared.yaml").write_text(SECRET_POOL.replace("topsecret", "shared"))
    os.symlink(tree / "shared.yaml", chart / "templates" / "shared.yaml")
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "tolerant"}))
    assert "shared-pool" in texts(result) and not [n for n in result.notices if "refused" in n.message]


def test_a_chart_folder_symlinked_out_of_the_tree_is_refused(tree: Path) -> None:
    outside_chart = chart_in(tree.parent / "outside")
    (outside_chart / "templates" / "secret.yaml").write_text(SECRET_POOL)
    os.symlink(outside_chart, tree / "chart")
    options = {"helm_renderer": "tolerant", "roots": Roots.of([tree])}
    result = helm_chart.load_directory(tree / "chart", [], show, options)
    assert not result.records and "topsecret" not in texts(result)
    (notice,) = result.notices
    assert "refused" in notice.message and str(tree / "chart") in notice.message


def test_a_configured_values_file_outside_the_tree_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    helm = FakeHelm(monkeypatch)
    chart = chart_in(tree)
    (tree.parent / "outside" / "values.yaml").write_text("limits: null\ntoken: topsecret\n")
    os.symlink(tree.parent / "outside" / "values.yaml", tree / "prod.yaml")
    entry = {"path": str(chart), "values": [str(tree / "prod.yaml")], "release": "prod"}
    options = {"helm_renderer": "binary", "helm_charts": [entry], "roots": Roots.of([tree])}
    result = helm_chart.load_directory(chart, [], show, options)
    assert not helm.calls and not result.records and "topsecret" not in texts(result)
    (notice,) = [n for n in result.notices if "refused" in n.message]
    assert str(tree / "prod.yaml") in notice.message and "values file" in notice.message


@pytest.mark.parametrize("how", ["absolute", "relative"])
def test_a_terraform_chart_path_outside_the_tree_is_refused(tree: Path, how: str) -> None:
    outside_chart = chart_in(tree.parent / "outside", "chart")
    (outside_chart / "templates" / "secret.yaml").write_text(SECRET_POOL)
    infra = tree / "infra"
    infra.mkdir()
    path = str(outside_chart) if how == "absolute" else "../../outside/chart"
    (infra / "main.tf").write_text(
        f'resource "helm_release" "gpu" {{\n  name  = "gpu"\n  chart = "{path}"\n}}\n'
    )
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "tolerant"}))
    assert not result.records and "topsecret" not in texts(result)
    (notice,) = [n for n in result.notices if "outside the scanned tree" in n.message]
    assert notice.file.endswith("infra/main.tf") and notice.line == 3


def test_a_chart_too_large_to_copy_is_refused(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from finlint.loaders.helm import chartcopy

    chart = chart_in(tree)
    for i in range(6):
        (chart / "templates" / f"extra{i}.txt").write_text("x\n")
    monkeypatch.setattr(chartcopy, "MAX_CHART_FILES", 5)
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "tolerant"}))
    assert not result.records
    assert any("more than 5 files" in n.message for n in result.notices)
    monkeypatch.setattr(chartcopy, "MAX_CHART_FILES", 100)
    monkeypatch.setattr(chartcopy, "MAX_CHART_BYTES", 100)
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "tolerant"}))
    assert not result.records and any("larger than" in n.message for n in result.notices)


# --- 3. the SDK render: a bounded child ------------------------------------------------------

HARNESS = """
import json, resource, sys
from pathlib import Path
# a ceiling for the harness itself, so that before the fix a runaway render fails here
# instead of taking the machine's memory (the child lowers its own limit below this)
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))
from finlint.loaders.helm import render
from finlint.scan import ScanOptions, lint
render.SDK_TIMEOUT_S = {timeout}
result = lint(ScanOptions(paths=[Path({tree!r})], loader_options={{"helm_renderer": "sdk"}}))
print(json.dumps({{
    "notices": [[n.file, n.line, n.message] for n in result.notices],
    "records": [r.name if isinstance(r.name, str) else str(r.name) for r in result.records],
}}))
"""


def run_harness(tree: Path, timeout: int = 5) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", HARNESS.format(timeout=timeout, tree=str(tree))],
            capture_output=True,
            text=True,
            timeout=90,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the scan hung: the render is not bounded by a timeout")
    assert proc.returncode == 0, f"the scan process died (exit {proc.returncode}): {proc.stderr[-400:]}"
    data: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return data


def hostile_chart(tree: Path, name: str, template: str, helpers: str = "") -> None:
    chart = tree / name
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"apiVersion: v2\nname: {name}\nversion: 0.1.0\n")
    (chart / "templates" / "cm.yaml").write_text(template)
    if helpers:
        (chart / "templates" / "_helpers.tpl").write_text(helpers)


def render_failures(data: dict[str, Any], name: str) -> list[str]:
    return [m for f, _line, m in data["notices"] if f"/{name}/" in f"/{f}" and "not rendered" in m]


@needs_sdk
@pytest.mark.parametrize(
    ("name", "template", "helpers", "expected"),
    [
        (
            "self-include",
            'x: {{ include "self" . }}\n',
            '{{- define "self" -}}{{ include "self" . }}{{- end -}}\n',
            ("out of stack", "out of memory", "recursion", "nested", "self"),
        ),
        (
            "loop",
            "{{ range until 100000 }}{{ range until 100000 }}{{ end }}{{ end }}\n",
            "",
            ("longer than 3 s", "out of memory"),  # each inner `until` allocates: either limit
        ),
        (
            "memory",
            '{{ $s := "xxxxxxxx" }}{{ range until 40 }}{{ $s = print $s $s }}{{ end }}x: {{ len $s }}\n',
            "",
            ("out of memory", "killed", "longer than"),
        ),
    ],
)
def test_a_runaway_template_ends_in_one_short_notice(
    tmp_path: Path, name: str, template: str, helpers: str, expected: tuple[str, ...]
) -> None:
    tree = tmp_path / "tree"
    hostile_chart(tree, name, template, helpers)
    chart_in(tree)  # a good chart next to it still renders: the scan goes on
    data = run_harness(tree, timeout=3)
    (message,) = render_failures(data, name)
    assert any(word in message for word in expected), message
    assert "\n" not in message and len(message) <= 300 and "goroutine" not in message
    assert "release-name-gpu" in data["records"]


@needs_sdk
def test_a_render_failure_is_one_escaped_line_of_at_most_300_chars(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    long = "boom " * 200
    hostile_chart(tree, "failing", '{{ fail "line one\\nline two \\x1b[31mred\\x1b[0m ' + long + '" }}\n')
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "sdk"}))
    (notice,) = [n for n in result.notices if "not rendered" in n.message]
    assert len(notice.message) <= 300 and "\n" not in notice.message and "\x1b" not in notice.message
    assert "line one" in notice.message and "\\x1b" in notice.message


@needs_sdk
def test_the_sdk_render_keeps_template_lines_through_the_child(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    chart = chart_in(tree)
    (chart / "values.yaml").write_text(
        textwrap.dedent(
            """\
            nodeClass: gpu
            capacityType: on-demand
            instanceTypes: [p5.48xlarge]
            limits:
              cpu: 100000
              memory: 100000Gi
            """
        )
    )
    result = lint(ScanOptions(paths=[tree], loader_options={"helm_renderer": "sdk"}))
    (pool,) = result.records
    assert pool.location.file.endswith("gpu-pool/templates/nodepool.yaml")
    assert pool.attr_lines["requirements"] == 10
    source = pool.value_source("limits.cpu")
    assert source is not None and source.line == 5
