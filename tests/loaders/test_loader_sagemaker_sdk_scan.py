"""End to end: the core rules fire through the SageMaker SDK loader at the right lines."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from tests.conftest import FIXTURES, scan_files, scan_paths

from finlint.cli import main

SDK = FIXTURES / "sagemaker-sdk"


def test_fixture_findings_are_exactly_these() -> None:
    result = scan_paths([SDK])
    got = sorted((Path(f.file).name, f.line, f.rule_id) for f in result.findings)
    assert got == [
        ("boto3_request.py", 23, "FIN204"),  # spot on 2 x p4d
        ("boto3_request.py", 24, "FIN201"),
        ("boto3_request.py", 24, "FIN203"),  # spot with no MaxWaitTimeInSeconds
        ("boto3_request.py", 26, "FIN101"),
        ("conditional_spot.py", 39, "FIN201"),
        ("estimator_spot_no_checkpoint.py", 15, "FIN101"),
        ("estimator_spot_no_checkpoint.py", 23, "FIN201"),
        ("estimator_v1_names.py", 19, "FIN102"),  # train_max_run=10 * 86400 on p5
        ("estimator_v1_names.py", 19, "FIN205"),  # ... on managed spot
        ("estimator_v1_names.py", 21, "FIN202"),
        ("kwargs_helper.py", 26, "FIN205"),  # kwargs["max_run"] = 48 h, spot
        ("kwargs_helper.py", 35, "FIN204"),  # spot on 4 instances (checkpointed: info)
        ("llama3_spot_finetune.ipynb", 80, "FIN101"),
        ("llama3_spot_finetune.ipynb", 89, "FIN201"),
        ("model_trainer_v3.py", 15, "FIN301"),
        ("model_trainer_v3.py", 17, "FIN203"),  # Compute spot, no max_wait_time_in_seconds
        ("model_trainer_v3.py", 21, "FIN101"),
        ("model_trainer_v3.py", 25, "FIN202"),
        ("remote_decorator.py", 14, "FIN201"),
        ("remote_decorator.py", 32, "FIN101"),
        ("side_effects.py", 13, "FIN101"),
        ("syntax_error.py", 7, "FIN000"),
    ]


def test_fin101_names_the_sdk_default() -> None:
    result = scan_paths([SDK], select=("FIN101",))
    messages = {Path(f.file).name: f.message for f in result.findings}
    assert "Estimator default max_run of 86,400 s" in messages["estimator_spot_no_checkpoint.py"]
    assert "ModelTrainer default stopping condition of 3,600 s" in messages["model_trainer_v3.py"]
    assert "@remote default max_runtime_in_seconds of 86,400 s" in messages["remote_decorator.py"]


def test_pipeline_step_estimator_names_the_estimator_default(tmp_path: Path) -> None:
    code = (
        "from sagemaker.pytorch import PyTorch\n"
        "from sagemaker.workflow.steps import TrainingStep\n"
        "est = PyTorch(entry_point='train.py', instance_type='ml.g5.xlarge', instance_count=1)\n"
        "step = TrainingStep(name='Train', step_args=est.fit('s3://bucket/train'))\n"
    )
    result = scan_files(tmp_path, {"pipeline.py": code}, select=("FIN101",))
    (finding,) = result.findings
    assert finding.line == 3 and "Estimator default max_run of 86,400 s" in finding.message


def test_fin301_uses_the_default_runtime_and_tuner_does_not_hide_it(tmp_path: Path) -> None:
    code = (
        "from sagemaker.pytorch import PyTorch\n"
        "from sagemaker.tuner import HyperparameterTuner\n"
        "big = PyTorch(entry_point='t.py', instance_type='ml.p5.48xlarge', instance_count=8)\n"
        "small = PyTorch(entry_point='t.py', instance_type='ml.p5.48xlarge', instance_count=1,\n"
        "                max_run=3600 * 2)\n"
        "HyperparameterTuner(small, 'loss', {}, max_jobs=50)\n"
    )
    result = scan_files(tmp_path, {"p5.py": code}, select=("FIN301",))
    # big: 8 x 8 GPUs x 24 h default = 1,536 GPU-hours per run: justified; small: 16 per run
    assert [(f.line, f.resource) for f in result.findings] == [(4, "p5:small")]


def test_cli_json_for_a_notebook(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "out.json"
    res = runner.invoke(
        main, ["scan", str(SDK / "llama3_spot_finetune.ipynb"), "--format", "json", "--output", str(out)]
    )
    assert res.exit_code == 1, res.output
    data = json.loads(out.read_text())
    lines = sorted((f["rule_id"], f["line"], f["end_line"]) for f in data["findings"])
    assert lines == [("FIN101", 80, 92), ("FIN201", 89, 89)]
    assert {f["resource"] for f in data["findings"]} == {"llama3_spot_finetune:huggingface_estimator"}


def test_negative_fixtures_are_clean() -> None:
    names = ["negative_recommendations.py", "negative_unrelated_estimator.py", "test_training_configs.py"]
    result = scan_paths([SDK / n for n in names])
    assert result.findings == [] and result.errors == []


def test_demo_python_launcher() -> None:
    result = scan_paths([FIXTURES / "demo" / "python"])
    got = sorted((f.line, f.rule_id, f.resource) for f in result.findings)
    assert got == [
        (21, "FIN601", "finetune_lora:DataLoader"),  # scripts/finetune_lora.py, finetune's entry point
        (38, "FIN301", "launch_finetune:finetune"),
        (46, "FIN101", "launch_finetune:evaluator"),
        (54, "FIN201", "launch_finetune:evaluator"),
    ]
    (evaluator,) = [r for r in result.records if r.address == "launch_finetune:evaluator"]
    assert evaluator.runs_multiplier == 12  # type: ignore[attr-defined]


def _notebook(cells: list[str]) -> str:
    return json.dumps(
        {"cells": [{"cell_type": "code", "source": c.splitlines(True)} for c in cells], "nbformat": 4},
        indent=1,
    )


def test_suppression_comments_in_py_and_notebook(tmp_path: Path) -> None:
    launch = (
        "# finlint: ignore[FIN101] the sweep is stopped by the orchestrator\n"
        "est = PyTorch(entry_point='t.py', instance_type='ml.g5.xlarge')\n"
    )
    files = {
        "launch.py": "from sagemaker.pytorch import PyTorch\n" + launch,
        "nb.ipynb": _notebook(["from sagemaker.pytorch import PyTorch\n", launch]),
        "open.ipynb": _notebook(["from sagemaker.pytorch import PyTorch\n", launch.split("\n", 1)[1]]),
    }
    result = scan_files(tmp_path, files, select=("FIN101",))
    active = [(Path(f.file).name, f.line) for f in result.findings if not f.suppressed]
    suppressed = sorted(Path(f.file).name for f in result.findings if f.suppressed)
    open_line = next(i for i, ln in enumerate(files["open.ipynb"].splitlines(), 1) if "est = PyTorch" in ln)
    assert active == [("open.ipynb", open_line)]
    assert suppressed == ["launch.py", "nb.ipynb"]
