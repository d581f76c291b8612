"""Terraform plan JSON loader, finalize() with the configuration, and the core rules end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from finlint import ir
from finlint.loaders import DocContext
from finlint.loaders.common.yamlload import load_all
from finlint.loaders.terraform import plan as tp

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "terraform" / "gpu_platform"


def load_plan(text: str) -> ir.LoadResult:
    doc = load_all(text, is_json=True)[0]
    assert tp.claims(doc)
    return tp.load(doc, DocContext(file="plan.json", lines=text.splitlines()))


def by_address(records: list[ir.Record]) -> dict[str, ir.Record]:
    return {r.address: r for r in records}


def test_plan_records_and_lines() -> None:
    result = load_plan((FIXTURE / "plan.json").read_text())
    records = by_address(result.records)
    nb = records["aws_sagemaker_notebook_instance.research"]
    assert isinstance(nb, ir.Notebook) and nb.instance_type == "ml.p5.48xlarge"
    assert (
        nb.source_format == "terraform-plan"
        and nb.location.line == 110
        and nb.attr_lines["instance_type"] == 119
    )
    h100 = records['module.eks.module.eks_managed_node_group["h100"].aws_eks_node_group.this[0]']
    assert isinstance(h100, ir.ComputePool) and h100.min_size == 1 and h100.location.line == 217
    ap = records["aws_efs_access_point.checkpoints"]
    assert isinstance(ap, ir.Volume)
    assert ap.file_system_ref == "aws_efs_file_system.checkpoints"  # from configuration references
    pool = records["kubectl_manifest.gpu_nodepool/NodePool/gpu-research"]
    assert pool.location.line == 203  # the yaml_body string's line


def test_after_unknown_marks_values_unknown() -> None:
    plan = {
        "format_version": "1.2",
        "planned_values": {
            "root_module": {
                "resources": [
                    {
                        "address": "aws_sagemaker_notebook_instance.nb",
                        "mode": "managed",
                        "type": "aws_sagemaker_notebook_instance",
                        "name": "nb",
                        "values": {"name": "nb"},
                    }
                ]
            }
        },
        "resource_changes": [
            {
                "address": "aws_sagemaker_notebook_instance.nb",
                "change": {"actions": ["create"], "after_unknown": {"instance_type": True}},
            }
        ],
    }
    result = load_plan(json.dumps(plan))  # a single-line plan points at line 1
    (nb,) = result.records
    assert isinstance(nb, ir.Notebook) and isinstance(nb.instance_type, ir.Unknown)
    assert nb.location.line == 1


def test_claims() -> None:
    assert not tp.claims({"format_version": "1.0"})
    assert not tp.claims({"planned_values": {}})
    assert tp.claims({"format_version": "1.2", "resource_changes": []})


# --- end to end through `finlint scan` ---------------------------------------------------------


def scan(path: Path, *args: str) -> dict[str, Any]:
    from finlint.cli import main

    result = CliRunner().invoke(main, ["scan", str(path), "--format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)  # type: ignore[no-any-return]


def findings(report: dict[str, Any], base: Path) -> set[tuple[str, str, int]]:
    out = set()
    for f in report["findings"]:
        out.add((f["rule_id"], Path(f["file"]).resolve().relative_to(base.resolve()).as_posix(), f["line"]))
    return out


EXPECTED = {
    ("FIN101", "training.tf", 2),
    ("FIN201", "training.tf", 26),
    ("FIN205", "training.tf", 39),  # spot with a 48 h cap
    ("FIN301", "training.tf", 62),
    ("FIN301", "eks.tf", 24),
    ("FIN301", "modules/gpu_pool/main.tf", 25),
    ("FIN301", "karpenter.tf", 16),
    ("FIN401", "storage.tf", 8),  # the Name tag that says checkpoints
    ("FIN401", "storage.tf", 16),  # root_directory path
    ("FIN302", "training.tf", 62),  # the p5 notebook has no auto-stop lifecycle configuration
    ("FIN304", "karpenter.tf", 16),  # the unlimited p-category pool admits GPUs
}


def test_core_rules_fire_through_terraform_config_and_plan() -> None:
    # config + plan in one tree: plan records point at the .tf lines, no duplicates
    report = scan(FIXTURE)
    assert report["errors"] == []
    assert findings(report, FIXTURE) == EXPECTED


def test_core_rules_fire_through_plan_alone(tmp_path: Path) -> None:
    shutil.copy(FIXTURE / "plan.json", tmp_path / "plan.json")
    got = findings(scan(tmp_path), tmp_path)
    assert got == {
        ("FIN101", "plan.json", 150),
        ("FIN201", "plan.json", 133),
        ("FIN205", "plan.json", 142),
        ("FIN301", "plan.json", 119),
        ("FIN301", "plan.json", 227),
        ("FIN301", "plan.json", 324),
        ("FIN301", "plan.json", 203),
        ("FIN401", "plan.json", 39),  # the Name tag that says checkpoints
        ("FIN401", "plan.json", 18),
        ("FIN302", "plan.json", 119),
        ("FIN304", "plan.json", 203),
    }


@pytest.mark.parametrize(
    "code",
    [
        # unresolvable instance type: nothing fires
        'variable "t" {}\nresource "aws_sagemaker_notebook_instance" "n" {\n  instance_type = var.t\n}\n',
        # capacity reservation: bought capacity is not flagged
        'resource "aws_instance" "p5" {\n  instance_type = "p5.48xlarge"\n'
        "  capacity_reservation_specification {\n    capacity_reservation_target {\n"
        '      capacity_reservation_id = "cr-0123456789abcdef0"\n    }\n  }\n}\n',
        # stopping condition from an unknown variable: FIN101 must not fire
        'variable "max" {}\nresource "aws_sagemaker_training_job" "t" {\n'
        '  resource_config {\n    instance_type = "ml.g5.xlarge"\n  }\n'
        "  stopping_condition {\n    max_runtime_in_seconds = var.max\n  }\n}\n",
    ],
)
def test_no_finding_on_unknowns_and_reserved_capacity(tmp_path: Path, code: str) -> None:
    (tmp_path / "main.tf").write_text(code)
    report = scan(tmp_path)
    assert report["findings"] == [] and report["errors"] == []


def test_always_on_p5_instance_fires_at_instance_type(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'variable "type" {\n  default = "p5.48xlarge"\n}\n\nresource "aws_instance" "trainer" {\n'
        '  ami           = "ami-0123456789abcdef0"\n  instance_type = var.type\n}\n'
    )
    assert findings(scan(tmp_path), tmp_path) == {("FIN301", "main.tf", 7)}


def test_parse_error_is_fin000(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text('resource "aws_instance" "x" {\n  ami = = 1\n}\n')
    report = scan(tmp_path)
    assert findings(report, tmp_path) == {("FIN000", "main.tf", 2)}


def test_demo_terraform_part() -> None:
    demo = FIXTURE.parent.parent / "demo" / "terraform"
    assert findings(scan(demo), demo) == {
        ("FIN301", "main.tf", 22),
        ("FIN101", "main.tf", 26),
        ("FIN201", "main.tf", 40),
        ("FIN301", "main.tf", 59),
        ("FIN401", "main.tf", 72),  # the Name tag that says checkpoints
        ("FIN302", "main.tf", 22),
        ("FIN403", "storage.tf", 5),
        ("FIN402", "storage.tf", 14),
    }


def test_two_roots_with_the_same_address_keep_both(tmp_path: Path) -> None:
    """Regression: a plan joined the last configuration record of its address in the whole
    scan, and both roots' records of that address were dropped; one folder's FIN101 was lost."""
    from tests.conftest import scan_paths

    shutil.copytree(FIXTURE, tmp_path / "gpu_platform")
    shutil.copytree(FIXTURE.parents[1] / "demo" / "terraform", tmp_path / "terraform")
    result = scan_paths([tmp_path], ("FIN101",))
    hits = sorted(
        (Path(f.file).parent.name, f.line)
        for f in result.findings
        if f.resource == "aws_sagemaker_training_job.pretrain"
    )
    assert hits == [("gpu_platform", 2), ("terraform", 26)]
    alone = scan_paths([tmp_path / "gpu_platform"], ("FIN101",))
    assert [f.line for f in alone.findings if f.resource.endswith(".pretrain")] == [2]
