"""The SDK loader converts literal values through ``coerce`` like every other loader, so a value
means the same whether it is written in Python, YAML, JSON or HCL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.conftest import scan_files

from finlint.ir import TrainingJob, Unknown
from finlint.loaders.common import coerce

LAUNCH = """from sagemaker.estimator import Estimator
est = Estimator(image_uri="x", role="r", instance_type="ml.g5.xlarge", instance_count=1,
                checkpoint_s3_uri="s3://b/ckpt", {kwarg})
est.fit()
"""


def _job(tmp_path: Path, kwarg: str) -> TrainingJob:
    result = scan_files(tmp_path, {"train.py": LAUNCH.format(kwarg=kwarg)})
    (job,) = [r for r in result.records if isinstance(r, TrainingJob)]
    return job


@pytest.mark.parametrize(
    ("kwarg", "field", "literal", "convert"),
    [
        ("max_run='3600'", "max_runtime_s", "3600", coerce.to_int),
        ("max_run=3600.0", "max_runtime_s", 3600.0, coerce.to_int),
        ("max_run='2.7'", "max_runtime_s", "2.7", coerce.to_int),
        ("max_run='1e4'", "max_runtime_s", "1e4", coerce.to_int),
        ("max_run=True", "max_runtime_s", True, coerce.to_int),
        ("use_spot_instances='true'", "spot", "true", coerce.to_bool),
        ("use_spot_instances='yes'", "spot", "yes", coerce.to_bool),
    ],
)
def test_sdk_values_mean_what_coerce_says(
    tmp_path: Path, kwarg: str, field: str, literal: Any, convert: Any
) -> None:
    got = getattr(_job(tmp_path, kwarg), field)
    want = convert(literal, field)
    if isinstance(want, Unknown):
        assert isinstance(got, Unknown) and got.reason == want.reason
    else:
        assert got == want and type(got) is type(want)
