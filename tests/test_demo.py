"""The bundled demo (README Quick start) shows every core rule firing, at these exact places."""

from __future__ import annotations

import re

from tests.conftest import FIXTURES, scan_paths

from finlint.cost.pricing import usd

EXPECTED = {
    ("FIN301", "cloudformation/training-stack.yaml", 18),
    ("FIN302", "cloudformation/training-stack.yaml", 18),
    ("FIN302", "cloudformation/training-stack.yaml", 26),
    ("FIN401", "cloudformation/training-stack.yaml", 36),
    ("FIN305", "kubernetes/karpenter-g5-nodepool.yaml", 24),
    ("FIN306", "kubernetes/karpenter-g5-nodepool.yaml", 25),
    ("FIN301", "kubernetes/karpenter-gpu-nodepool.yaml", 17),
    ("FIN502", "kubernetes/sagemaker-pretrain.yaml", 15),
    ("FIN501", "kubernetes/sagemaker-pretrain.yaml", 18),
    ("FIN102", "kubernetes/sagemaker-pretrain.yaml", 20),
    ("FIN304", "kubernetes/karpenter-gpu-nodepool.yaml", 17),
    ("FIN401", "kubernetes/shared-storage.yaml", 7),
    ("FIN101", "kubernetes/train-job.yaml", 3),
    ("FIN401", "kubernetes/train-job.yaml", 23),
    ("FIN301", "python/launch_finetune.py", 38),
    ("FIN101", "python/launch_finetune.py", 46),
    ("FIN201", "python/launch_finetune.py", 54),
    ("FIN601", "python/scripts/finetune_lora.py", 21),
    ("FIN101", "sagemaker-api/train-request.json", 1),
    ("FIN204", "sagemaker-api/training.asl.json", 16),
    ("FIN201", "sagemaker-api/training.asl.json", 17),
    ("FIN205", "sagemaker-api/training.asl.json", 18),
    ("FIN202", "sagemaker-api/training.asl.json", 36),
    ("FIN301", "terraform/main.tf", 22),
    ("FIN302", "terraform/main.tf", 22),
    ("FIN101", "terraform/main.tf", 26),
    ("FIN201", "terraform/main.tf", 40),
    ("FIN301", "terraform/main.tf", 59),
    ("FIN401", "terraform/main.tf", 72),
    ("FIN403", "terraform/storage.tf", 5),
    ("FIN402", "terraform/storage.tf", 14),
}


def test_demo_fires_every_core_rule_at_the_documented_lines() -> None:
    result = scan_paths([FIXTURES / "demo"])
    assert result.errors == []
    found = {(f.rule_id, f.file.split("fixtures/demo/", 1)[-1], f.line) for f in result.findings}
    assert found == EXPECTED
    assert {"FIN101", "FIN201", "FIN202", "FIN301", "FIN401"} <= {r for r, _, _ in found}
    # every finding whose rule has a cost model is priced; FIN205, FIN601 and FIN306 have none (docs say why)
    priced = [f for f in result.findings if f.cost_model]
    assert {f.rule_id for f in result.findings if not f.cost_model} == {"FIN205", "FIN601", "FIN306"}
    assert all(f.cost is not None and f.cost.monthly_usd is not None for f in priced)


def test_demo_readme_lists_the_same_findings() -> None:
    readme = (FIXTURES / "demo" / "README.md").read_text(encoding="utf-8")
    for rule, file, line in EXPECTED:
        assert f"| {rule} | `{file}:{line}` |" in readme


def test_demo_readme_dollars_are_the_scan_figures() -> None:
    """Every $/month in the README table is the figure the scan prints for that finding."""
    readme = (FIXTURES / "demo" / "README.md").read_text(encoding="utf-8")
    row = re.compile(r"^\| (FIN\d+) \| `([^`]+):(\d+)` \| .* \| (\$[\d,]+\.\d\d)\b", re.M)
    documented = {(m[1], m[2], int(m[3])): m[4] for m in row.finditer(readme)}
    result = scan_paths([FIXTURES / "demo"])
    actual = {
        (f.rule_id, f.file.split("fixtures/demo/", 1)[-1], f.line): usd(f.cost.monthly_usd)
        for f in result.findings
        if f.cost is not None and f.cost.monthly_usd is not None
    }
    assert documented == actual
