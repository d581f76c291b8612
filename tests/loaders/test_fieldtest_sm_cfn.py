"""Regressions from the SageMaker SDK / API / CloudFormation field test (docs/field-test-sagemaker-cfn.md).

Each fixture is a small hand-written reduction of a pattern seen in public code."""

from __future__ import annotations

import json
from pathlib import Path

from finlint.ir import TrainingJob
from finlint.loaders.sagemaker_sdk.loader import load_file


def _notebook(*cells: str) -> str:
    nb = {
        "cells": [
            {"cell_type": "code", "metadata": {}, "outputs": [], "source": cell.splitlines(keepends=True)}
            for cell in cells
        ],
        "nbformat": 4,
        "nbformat_minor": 4,
    }
    return json.dumps(nb, indent=1)


def _line_of(text: str, needle: str) -> int:
    return next(i for i, ln in enumerate(text.splitlines(), 1) if needle in ln)


def test_notebook_cell_with_shell_assignment_and_help_is_still_analysed() -> None:
    # `out = !cmd`, `x = %magic` and `obj?` are IPython, not Python: before the fix the whole cell
    # was skipped (a notice) and the launch in it was missed.
    text = _notebook(
        "from sagemaker.pytorch import PyTorch\nfiles = !ls data\n",
        "est = PyTorch(entry_point='t.py', instance_type='ml.g5.2xlarge', instance_count=1,\n"
        "              use_spot_instances=True, max_run=3600, max_wait=7200)\n"
        "env = %env\n"
        "est.fit?\n"
        "?PyTorch\n"
        "est.fit()\n",
    )
    result = load_file(Path("nb.ipynb"), "nb.ipynb", text, {})
    assert not result.notices and not result.errors
    (job,) = result.records
    assert isinstance(job, TrainingJob)
    assert job.location.line == _line_of(text, "est = PyTorch(")
    assert job.spot is True and job.max_runtime_s == 3600 and job.checkpoint_s3_uri is None


def test_notebook_cell_with_real_syntax_error_is_still_a_notice() -> None:
    text = _notebook("import sagemaker\nest = PyTorch(\n")
    result = load_file(Path("nb.ipynb"), "nb.ipynb", text, {})
    assert not result.records and len(result.notices) == 1


def test_python2_launcher_is_a_parse_error_that_says_so() -> None:
    text = (
        "import sagemaker\n"
        "print 'starting'\n"
        "est = sagemaker.estimator.Estimator('img', 'role', 1, 'ml.p3.2xlarge')\n"
    )
    result = load_file(Path("old.py"), "old.py", text, {})
    (error,) = result.errors
    assert error.line == 2 and "Python 2 code is not analysed" in error.message


def test_str_format_checkpoint_uri_counts_as_present() -> None:
    # `"s3://{}/{}/ckpt/{}".format(...)` was an opaque call result (Unknown), so a spot job's
    # checkpoint URI looked unknown and FIN202 (default local path) could never fire.
    text = (
        "import sagemaker\n"
        "from sagemaker.pytorch import PyTorch\n"
        "bucket = sagemaker.Session().default_bucket()\n"
        "ckpt = 's3://{}/{}/checkpoints'.format(bucket, 'demo')\n"
        "name = 'job-{}'.format(3)\n"
        "est = PyTorch(entry_point='t.py', instance_type='ml.g5.2xlarge', instance_count=1,\n"
        "              use_spot_instances=True, max_run=3600, max_wait=7200,\n"
        "              checkpoint_s3_uri=ckpt, base_job_name=name)\n"
    )
    result = load_file(Path("launch.py"), "launch.py", text, {})
    (job,) = result.records
    assert isinstance(job, TrainingJob)
    assert job.checkpoint_s3_uri == "s3://{}/{}/checkpoints"
    assert job.checkpoint_local_path is None
    assert job.attr_lines["checkpoint_s3_uri"] == 8


def test_str_format_with_known_arguments_gives_the_text() -> None:
    text = (
        "from sagemaker.pytorch import PyTorch\n"
        "family = 'g5'\n"
        "est = PyTorch(entry_point='t.py', instance_type='ml.{}.{size}'.format(family, size='2xlarge'),\n"
        "              instance_count=1, max_run=60)\n"
    )
    result = load_file(Path("launch.py"), "launch.py", text, {})
    (job,) = result.records
    assert isinstance(job, TrainingJob) and job.instance_type == "ml.g5.2xlarge"
