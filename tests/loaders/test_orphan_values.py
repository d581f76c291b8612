"""A Helm values file of a chart that is not in the scan is reported, never skipped silently."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

GPU_VALUES = """\
worker:
  replicas: 4
  resources:
    limits:
      nvidia.com/gpu: 8
  nodeSelector:
    node.kubernetes.io/instance-type: p5.48xlarge
"""


def test_example_values_of_a_chart_not_in_the_scan_get_a_notice(tmp_path: Path) -> None:
    files = {
        "examples/values-p5.yaml": GPU_VALUES,
        "examples/gpu.values.yaml": GPU_VALUES,
        "examples/values-web.yaml": "image: nginx\nreplicas: 2\n",  # nothing a rule reads
        "examples/settings.yaml": GPU_VALUES,  # not named as a values file
    }
    result = scan_files(tmp_path, files)
    shown = sorted((Path(n.file).name, n.line) for n in result.notices)
    assert shown == [("gpu.values.yaml", 1), ("values-p5.yaml", 1)]
    assert all("no chart in the scan is rendered with" in n.message for n in result.notices)
    assert "--helm-values" in result.notices[0].message


def test_a_chart_in_the_scan_reads_its_own_values_without_a_notice(tmp_path: Path) -> None:
    files = {
        "chart/Chart.yaml": "apiVersion: v2\nname: train\nversion: 0.1.0\n",
        "chart/values.yaml": GPU_VALUES,
        "chart/templates/job.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    }
    result = scan_files(tmp_path, files)
    assert [n for n in result.notices if "no chart in the scan" in n.message] == []
