"""The shipped instance catalog against figures typed by hand from the instance reference (instances.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from finlint.domain import catalog


@pytest.mark.parametrize(
    ("name", "vcpu", "memory_mib", "gpus", "gpu_name", "gpu_mem"),
    [
        ("p5.48xlarge", 192, 2097152, 8, "h100", 81920),
        ("p5.4xlarge", 16, 262144, 1, "h100", 81920),
        ("p4d.24xlarge", 96, 1179648, 8, "a100", 40960),
        ("p4de.24xlarge", 96, 1179648, 8, "a100", 81920),
        ("p5en.48xlarge", 192, 2097152, 8, "h200", 144384),
        ("p6-b300.48xlarge", 192, 4194304, 8, "b300", 275040),
        ("p3.2xlarge", 8, 62464, 1, "v100", 16384),
        ("g5.12xlarge", 48, 196608, 4, "a10g", 22888),
        ("g5.16xlarge", 64, 262144, 1, "a10g", 22888),
        ("g6e.48xlarge", 192, 1572864, 8, "l40s", 45776),
        ("g4dn.metal", 96, 393216, 8, "t4", 16384),
    ],
)
def test_gpu_types(name: str, vcpu: int, memory_mib: int, gpus: int, gpu_name: str, gpu_mem: int) -> None:
    spec = catalog.lookup(name)
    assert spec is not None
    assert (spec.vcpu, spec.memory_mib, spec.gpu_count, spec.gpu_name, spec.gpu_memory_mib) == (
        vcpu,
        memory_mib,
        gpus,
        gpu_name,
        gpu_mem,
    )
    assert spec.gpu_manufacturer == "nvidia"
    assert spec.accelerator_count == 0 and spec.accelerator_name is None
    assert spec.accelerators == gpus


@pytest.mark.parametrize(
    ("name", "vcpu", "count", "acc_name", "acc_mem"),
    [
        ("trn1.32xlarge", 128, 16, "trainium", 32768),
        ("trn1n.32xlarge", 128, 16, "trainium", 32768),
        ("trn2.48xlarge", 192, 16, "trainium2", 98304),
        ("trn2.3xlarge", 12, 1, "trainium2", 98304),
        ("inf2.24xlarge", 96, 6, "inferentia2", 32768),
    ],
)
def test_neuron_types(name: str, vcpu: int, count: int, acc_name: str, acc_mem: int) -> None:
    spec = catalog.lookup(name)
    assert spec is not None
    assert (spec.vcpu, spec.accelerator_count, spec.accelerator_name, spec.accelerator_memory_mib) == (
        vcpu,
        count,
        acc_name,
        acc_mem,
    )
    assert spec.gpu_count == 0 and spec.gpu_name is None
    assert spec.accelerators == count
    assert spec.label("karpenter.k8s.aws/instance-gpu-name") is None


def test_sagemaker_names_map_to_ec2_twins() -> None:
    assert catalog.ec2_twin("ml.p4d.24xlarge") == "p4d.24xlarge"
    spec = catalog.lookup("ml.p4d.24xlarge")
    assert spec is not None and spec.name == "p4d.24xlarge"
    assert catalog.lookup("ml.trn1.32xlarge") == catalog.lookup("trn1.32xlarge")
    assert catalog.family_of("ml.p6-b200.48xlarge") == "p6-b200"


def test_karpenter_labels() -> None:
    p6 = catalog.lookup("p6-b200.48xlarge")
    gr6 = catalog.lookup("gr6.4xlarge")
    trn1n = catalog.lookup("trn1n.32xlarge")
    assert p6 and gr6 and trn1n
    assert p6.label("karpenter.k8s.aws/instance-generation") == 6
    assert p6.label("karpenter.k8s.aws/instance-family") == "p6-b200"
    assert p6.label("karpenter.k8s.aws/instance-category") == "p"
    assert gr6.label("karpenter.k8s.aws/instance-category") == "gr"  # not "g"
    assert trn1n.label("karpenter.k8s.aws/instance-accelerator-name") == "trainium"
    assert trn1n.label("karpenter.k8s.aws/instance-generation") == 1
    assert trn1n.label("node.kubernetes.io/instance-type") == "trn1n.32xlarge"


def test_generation_five_p_types() -> None:
    """category p + generation > 4 admits p5, p5e, p5en, p6-b200, p6-b300 (reference §2)."""
    fams = {
        s.family
        for s in catalog.all_instances()
        if s.label("instance-category") == "p" and s.label("instance-generation") > 4
    }
    assert fams == {"p5", "p5e", "p5en", "p6-b200", "p6-b300"}


def test_fractional_and_cpu_types() -> None:
    g6f = catalog.lookup("g6f.xlarge")
    m5 = catalog.lookup("m5.xlarge")
    assert g6f and m5
    assert (g6f.gpu_name, g6f.gpu_count, g6f.gpu_memory_mib) == ("l4", 0, 2861)
    assert (m5.vcpu, m5.memory_mib, m5.accelerators) == (4, 16384, 0)


def test_unknown_types() -> None:
    assert catalog.lookup("p6e-gb200.36xlarge") is None  # specs not found in the reference
    assert catalog.lookup("ml.eia1.medium") is None
    assert catalog.family_of("x9z.huge") == "x9z"


def test_every_row_is_consistent() -> None:
    names = [s.name for s in catalog.all_instances()]
    assert len(names) >= 60
    for s in catalog.all_instances():
        assert s.name == f"{s.family}.{s.size}"
        assert not (s.gpu_count and s.accelerator_count)
        assert s.vcpu > 0 and s.memory_mib > 0
    assert "K1" in catalog.source() and "2026-07-11" in catalog.source()


def test_cpu_notebook_types_are_known_to_have_no_accelerators(tmp_path: Path) -> None:
    """ml.t3.medium is the console's default notebook type: a known CPU type, so the notebook
    rules decide (no finding) instead of leaving it undetermined (field test 2026-12)."""
    from finlint.scan import ScanOptions, lint

    for name in ("t2.medium", "t3.medium", "m5.2xlarge", "c5.4xlarge"):
        spec = catalog.lookup(f"ml.{name}")
        assert spec is not None and spec.accelerators == 0 and not spec.gpu_name, name
    (tmp_path / "nb.yaml").write_text(
        "Resources:\n"
        "  Nb:\n"
        "    Type: AWS::SageMaker::NotebookInstance\n"
        "    Properties:\n"
        "      InstanceType: ml.t3.medium\n"
        "      RoleArn: arn:aws:iam::111122223333:role/R\n",
        encoding="utf-8",
    )
    result = lint(ScanOptions(paths=[tmp_path]))
    assert result.records and not result.findings
    assert not result.undetermined
