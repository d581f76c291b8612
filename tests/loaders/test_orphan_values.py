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
    assert shown == [("gpu.values.yaml", 5), ("values-p5.yaml", 5)]  # the first accelerator line
    assert all(n.message.startswith("undetermined: the chart these values are for") for n in result.notices)
    assert all("is not in the scan" in n.message for n in result.notices)
    assert "--helm-values" in result.notices[0].message


def test_the_notice_names_the_chart_a_helm_command_in_the_file_names(tmp_path: Path) -> None:
    header = "# helm upgrade --install train -f ./values-p5.yaml -n ml eks/aws-training --wait\n"
    result = scan_files(tmp_path, {"examples/values-p5.yaml": header + GPU_VALUES})
    (notice,) = result.notices
    assert notice.line == 6
    assert notice.message.startswith("undetermined: chart eks/aws-training is not in the scan")


def test_a_long_helm_comment_is_read_in_linear_time(tmp_path: Path) -> None:
    header = "# helm install " + "--a b " * 50_000 + "\n"
    result = scan_files(tmp_path, {"values.yaml": header + GPU_VALUES})
    (notice,) = result.notices
    assert "not named in the file" in notice.message


def test_a_chart_in_the_scan_reads_its_own_values_without_a_notice(tmp_path: Path) -> None:
    files = {
        "chart/Chart.yaml": "apiVersion: v2\nname: train\nversion: 0.1.0\n",
        "chart/values.yaml": GPU_VALUES,
        "chart/templates/job.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    }
    result = scan_files(tmp_path, files)
    assert [n for n in result.notices if "is not in the scan" in n.message] == []
