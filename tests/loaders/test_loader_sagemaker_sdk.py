"""SageMaker Python SDK / notebook loader: records, exact lines and Unknowns, over the fixtures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from finlint.ir import TrainingJob, Unknown
from finlint.loaders.sagemaker_sdk.loader import load_file

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "sagemaker-sdk"


def load(name: str) -> list[TrainingJob]:
    path = FIXTURES / name
    result = load_file(path, name, path.read_text(encoding="utf-8"), {})
    assert not result.errors, result.errors
    records = [r for r in result.records if isinstance(r, TrainingJob)]
    assert len(records) == len(result.records)
    return records


def only(name: str) -> TrainingJob:
    records = load(name)
    assert len(records) == 1, [r.address for r in records]
    return records[0]


def test_framework_estimator_through_alias() -> None:
    job = only("estimator_spot_no_checkpoint.py")
    assert job.launcher == "sdk-estimator"
    assert job.source_format == "sagemaker-python"
    assert job.address == "estimator_spot_no_checkpoint:estimator"
    assert (job.location.line, job.location.end_line) == (15, 27)
    assert job.extra["sdk_class"] == "PyTorch"
    assert job.instance_type == "ml.g5.2xlarge" and job.instance_count == 1
    assert job.spot is True and job.max_wait_s == 129600
    assert job.max_runtime_s is None and job.max_runtime_default_s == 86400
    assert job.checkpoint_s3_uri is None
    assert job.checkpoint_local_path_default == "/opt/ml/checkpoints"
    assert job.attr_lines == {
        "instance_count": 21,
        "instance_type": 22,
        "spot": 23,
        "max_wait_s": 24,
        "framework": 15,
        "entry_point": 16,
        "source_dir": 17,
    }
    assert job.framework == "pytorch"


def test_v1_argument_names_and_constant_arithmetic() -> None:
    job = only("estimator_v1_names.py")
    assert job.extra["sdk_class"] == "Estimator"
    assert job.instance_type == "ml.p5.48xlarge" and job.instance_count == 1
    assert job.max_runtime_s == 864000 and job.max_wait_s == 864020
    assert job.spot is True
    assert job.checkpoint_s3_uri == "s3://ml-training/detectron2/checkpoints"
    assert job.checkpoint_local_path is None
    assert job.name == "detectron2-p5"
    assert job.attr_lines["max_runtime_s"] == 19 and job.attr_lines["checkpoint_s3_uri"] == 21


def test_kwargs_dict_amended_before_the_call_and_explicit_override() -> None:
    job = only("kwargs_helper.py")
    assert job.address == "kwargs_helper:huggingface_estimator"
    assert job.max_runtime_s == 48 * 3600
    assert job.attr_lines["max_runtime_s"] == 26  # the kwargs["max_run"] = ... line
    assert job.instance_count == 4 and job.attr_lines["instance_count"] == 35  # explicit wins
    assert job.instance_type == "ml.p4d.24xlarge" and job.attr_lines["instance_type"] == 23
    assert job.checkpoint_local_path == "/opt/ml/checkpoints"
    assert job.max_wait_s == 72 * 3600


def test_model_trainer_v3_compute_variable_and_defaults() -> None:
    job = only("model_trainer_v3.py")
    assert job.launcher == "sdk-model-trainer"
    assert job.extra["sdk_class"] == "ModelTrainer"
    assert job.max_runtime_default_s == 3600 and job.max_runtime_s is None
    assert job.spot is True and job.attr_lines["spot"] == 17  # inside Compute(...)
    assert job.instance_type == "ml.p5.48xlarge" and job.attr_lines["instance_type"] == 15
    assert job.keep_alive_s == 1800
    assert job.checkpoint_s3_uri == "s3://ml-training/llama/checkpoints"
    assert job.checkpoint_local_path is None
    assert (job.location.line, job.location.end_line) == (21, 27)


def test_model_trainer_built_by_helper_with_deprecated_configs() -> None:
    job = only("model_trainer_deprecated_configs.py")
    assert job.address == "model_trainer_deprecated_configs:_trainer"
    assert job.max_runtime_s == 12 * 3600 and job.attr_lines["max_runtime_s"] == 19
    assert job.instance_type == "ml.g5.12xlarge" and job.instance_count == 2
    assert job.spot is None


def test_pipeline_parameters_tuner_and_step_give_one_record() -> None:
    job = only("pipeline_tuning.py")
    assert job.launcher == "pipeline-step"
    assert job.extra["sdk_class"] == "XGBoost"
    assert job.extra["pipeline_step"] == "HPTuning" and job.extra["tuner"] == "tuner"
    assert job.instance_type == "ml.m5.2xlarge" and job.instance_count == 2
    assert job.runs_multiplier == 20 and job.attr_lines["runs_multiplier"] == 39
    assert job.max_runtime_s == 7200 and job.max_runtime_default_s == 86400
    assert "Estimator" in str(job.default_note)


def test_argparse_defaults_and_same_condition_guard() -> None:
    job = only("argparse_launcher.py")
    assert job.max_runtime_s == 432000  # default "432000" converted by type=int
    assert job.instance_count == 2
    assert job.spot is False  # store_true default
    assert job.checkpoint_s3_uri is None  # ... if args.spot else None, with spot off
    assert job.instance_type is None  # --instance-type has no default: argparse gives None


def test_conditional_spot() -> None:
    guarded, unguarded = load("conditional_spot.py")
    assert guarded.address == "conditional_spot:make_estimator"
    assert isinstance(guarded.spot, Unknown) and isinstance(guarded.checkpoint_s3_uri, Unknown)
    assert guarded.location.line == 27
    assert unguarded.address == "conditional_spot:make_cheap_estimator"
    # a flag the scan cannot resolve stays unknown: FIN201 decides that it may be on
    assert isinstance(unguarded.spot, Unknown) and "use_spot" in unguarded.spot.reason
    assert "spot_conditional" not in unguarded.extra
    assert unguarded.checkpoint_s3_uri is None and unguarded.attr_lines["spot"] == 39


def test_remote_decorator_lines_and_call_time_checkpoint() -> None:
    spot, resumable, evaluate = load("remote_decorator.py")
    assert [r.launcher for r in (spot, resumable, evaluate)] == ["sdk-remote"] * 3
    assert spot.address == "remote_decorator:train_on_spot"
    assert (spot.location.line, spot.location.end_line) == (12, 17)
    assert spot.spot is True and spot.checkpoint_s3_uri is None and spot.max_runtime_s == 14400
    assert isinstance(resumable.checkpoint_s3_uri, Unknown)
    assert evaluate.location.line == 32 and evaluate.max_runtime_s is None
    assert evaluate.max_runtime_default_s == 86400


def test_boto3_request_dict_and_keywords() -> None:
    handler, nightly = load("boto3_request.py")
    assert handler.launcher == "api-request" and handler.source_format == "sagemaker-python"
    assert handler.address == "boto3_request:handler"
    assert (handler.location.line, handler.location.end_line) == (26, 26)
    assert handler.instance_type == "ml.p4d.24xlarge" and handler.instance_count == 2
    assert handler.spot is True and handler.attr_lines["spot"] == 24
    assert handler.max_runtime_s is None and handler.checkpoint_s3_uri is None
    assert isinstance(handler.name, Unknown)
    assert nightly.max_runtime_s == 7200 and nightly.attr_lines["max_runtime_s"] == 37
    assert (nightly.location.line, nightly.location.end_line) == (30, 38)


def test_notebook_lines_are_ipynb_file_lines() -> None:
    path = FIXTURES / "llama3_spot_finetune.ipynb"
    result = load_file(path, path.name, path.read_text(encoding="utf-8"), {})
    (job,) = result.records
    assert isinstance(job, TrainingJob)
    text_lines = path.read_text(encoding="utf-8").splitlines()
    assert "HuggingFace(" in text_lines[job.location.line - 1]
    assert (job.location.line, job.location.end_line) == (80, 92)
    assert job.attr_lines["spot"] == 89 and "use_spot_instances" in text_lines[88]
    assert job.attr_lines["instance_type"] == 83
    assert job.address == "llama3_spot_finetune:huggingface_estimator"
    # the unfinished cell is skipped with a notice at its line; magics are not errors
    assert [(n.line, "cell 6" in n.message) for n in result.notices] == [(69, True)]
    assert not result.errors


@pytest.mark.parametrize(
    "name",
    ["negative_recommendations.py", "test_training_configs.py", "negative_unrelated_estimator.py"],
)
def test_negatives_produce_no_record(name: str) -> None:
    assert load(name) == []


def test_syntax_error_is_a_load_error_with_its_line() -> None:
    path = FIXTURES / "syntax_error.py"
    result = load_file(path, "syntax_error.py", path.read_text(encoding="utf-8"), {})
    assert result.records == []
    assert [(e.file, e.line) for e in result.errors] == [("syntax_error.py", 7)]
    assert result.errors[0].message.startswith("invalid Python")


@pytest.mark.parametrize(
    ("line", "version"),
    [
        ("type Vec = list[float]", (3, 12)),
        ("def first[T](xs: list[T]) -> T: return xs[0]", (3, 12)),
        ("class Box[T]: pass", (3, 12)),
    ],
)
def test_newer_syntax_is_named_on_an_older_python(
    line: str, version: tuple[int, int], tmp_path: Path
) -> None:
    """Valid on the project's newer Python: the notice says so instead of only 'invalid'."""
    import sys

    text = f"import sagemaker\n{line}\n"
    result = load_file(tmp_path / "t.py", "t.py", text, {})
    if sys.version_info[:2] >= version:
        assert result.errors == []
        return
    (error,) = result.errors
    assert error.line == 2 and f"Python {version[0]}.{version[1]}+ syntax" in error.message


def test_a_plain_syntax_error_gets_no_newer_python_hint(tmp_path: Path) -> None:
    result = load_file(tmp_path / "t.py", "t.py", "import sagemaker\nx = (\n", {})
    (error,) = result.errors
    assert "syntax: finlint runs on" not in error.message


def test_user_code_is_never_executed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = FIXTURES / "side_effects.py"
    result = load_file(path, "side_effects.py", path.read_text(encoding="utf-8"), {})
    assert not (tmp_path / "FINLINT_EXECUTED_USER_CODE").exists()
    (job,) = result.records
    assert isinstance(job, TrainingJob) and job.instance_type == "ml.c5.2xlarge"
    assert job.location.line == 13


def test_unrelated_files_are_not_parsed() -> None:
    text = "def f(:\n    pass\n"  # invalid, but never parsed: no sagemaker mention
    result = load_file(Path("x.py"), "x.py", text, {})
    assert (result.records, result.errors, result.notices) == ([], [], [])


def test_broken_notebook_json_is_a_load_error() -> None:
    text = '{"cells": [{"cell_type": "code", "source": ["import sagemaker\\n"]}\n'
    result = load_file(Path("nb.ipynb"), "nb.ipynb", text, {})
    assert len(result.errors) == 1 and result.errors[0].message.startswith("invalid notebook")


def test_notebook_with_source_as_one_string_and_cell_magic(tmp_path: Path) -> None:
    nb = {
        "cells": [
            {"cell_type": "code", "source": "%%writefile train.py\nimport sagemaker\nx = PyTorch(\n"},
            {
                "cell_type": "code",
                "source": "from sagemaker.pytorch import PyTorch\nest = PyTorch(instance_type='ml.g5.xl')",
            },
        ],
        "nbformat": 4,
    }
    text = json.dumps(nb, indent=1)
    result = load_file(Path("nb.ipynb"), "nb.ipynb", text, {})
    (job,) = result.records
    assert isinstance(job, TrainingJob)
    source_line = next(i for i, ln in enumerate(text.splitlines(), 1) if "est = PyTorch" in ln)
    assert job.location.line == source_line and job.instance_type == "ml.g5.xl"
    assert not result.errors and not result.notices
