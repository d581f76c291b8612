"""Launches in loops (SDK loader): the loop variable over literals is one of its values, and a
launch in loops of known trip counts runs that many times (its cost says so)."""

from __future__ import annotations

import pickle
import textwrap
from pathlib import Path

import pytest
from tests.conftest import scan_files

from finlint.ir import Alternatives, Launches, TrainingJob, Unknown
from finlint.loaders.sagemaker_sdk.loader import load_file

HEADER = "from sagemaker.pytorch import PyTorch\n"


def jobs(code: str) -> list[TrainingJob]:
    result = load_file(Path("launch.py"), "launch.py", textwrap.dedent(code), {})
    assert not result.errors, result.errors
    return [r for r in result.records if isinstance(r, TrainingJob)]


def one(code: str) -> TrainingJob:
    (job,) = jobs(HEADER + textwrap.dedent(code))
    return job


# --- the loop variable ------------------------------------------------------------------------------


def test_a_literal_list_makes_the_loop_variable_its_alternatives() -> None:
    job = one(
        """\
        for itype in ["ml.g5.2xlarge", "ml.p4d.24xlarge"]:
            est = PyTorch(entry_point="t.py", instance_type=itype, max_run=3600)
            est.fit()
        """
    )
    assert isinstance(job.instance_type, Alternatives)
    assert job.instance_type.options == ("ml.g5.2xlarge", "ml.p4d.24xlarge")
    assert "loop over" in job.instance_type.reason
    assert job.attr_lines["instance_type"] == 3


def test_a_name_bound_to_a_tuple_a_set_range_enumerate_and_zip() -> None:
    found = jobs(
        HEADER
        + """\
TYPES = ("ml.g5.2xlarge", "ml.g5.12xlarge")
for itype in TYPES:
    PyTorch(entry_point="t.py", instance_type=itype).fit()
for n in range(1, 3):
    PyTorch(entry_point="t.py", instance_count=n).fit()
for i, itype in enumerate(["ml.g5.xlarge", "ml.p4d.24xlarge"]):
    PyTorch(entry_point="t.py", instance_type=itype, instance_count=i + 1).fit()
for itype, run in zip(["ml.g5.xlarge", "ml.g5.2xlarge"], [3600, 7200]):
    PyTorch(entry_point="t.py", instance_type=itype, max_run=run).fit()
for run in {3600, 3600, 7200}:
    PyTorch(entry_point="t.py", max_run=run).fit()
"""
    )
    named, ranged, enumerated, zipped, a_set = found
    assert isinstance(named.instance_type, Alternatives) and named.launches.count == 2
    assert isinstance(ranged.instance_count, Alternatives) and ranged.instance_count.options == (1, 2)
    assert isinstance(enumerated.instance_type, Alternatives)
    assert type(enumerated.instance_count) is Unknown  # arithmetic on the index: plain unknown
    assert isinstance(zipped.max_runtime_s, Alternatives) and zipped.max_runtime_s.options == (3600, 7200)
    assert isinstance(a_set.max_runtime_s, Alternatives) and a_set.launches.count == 2


def test_tuple_targets_take_each_column_pairing_is_lost() -> None:
    job = one(
        """\
        for name, itype in [("small", "ml.g5.xlarge"), ("big", "ml.p4d.24xlarge")]:
            PyTorch(entry_point="t.py", instance_type=itype, base_job_name=name).fit()
        """
    )
    assert isinstance(job.instance_type, Alternatives)
    assert set(job.instance_type.options) == {"ml.g5.xlarge", "ml.p4d.24xlarge"}


def test_one_item_is_the_value_itself() -> None:
    job = one(
        """\
        for itype in ["ml.p5.48xlarge"]:
            PyTorch(entry_point="t.py", instance_type=itype).fit()
        """
    )
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.launches.count == 1  # one trip: one launch


@pytest.mark.parametrize(
    "loop",
    [
        "for itype in args.types:",  # not a literal
        "for itype in get_types():",  # a call
        "for itype in TYPES:",  # a list the file mutates
        "for itype in ['ml.g5.xlarge'] + EXTRA:",  # an expression
        "for itype in [f'ml.g5.{s}' for s in SIZES]:",  # a comprehension
        "for itype in BIG:",  # more than 8 values
        "for itype in [args.a, args.b]:",  # items that are not literals
    ],
)
def test_non_literal_iterables_keep_an_unknown_loop_variable(loop: str) -> None:
    code = (
        HEADER
        + "TYPES = ['ml.g5.xlarge']\nTYPES.append('ml.p5.48xlarge')\nEXTRA = []\nSIZES = ['xlarge']\n"
        + "BIG = "
        + repr([f"ml.c5.{i}xlarge" for i in range(9)])
        + "\n"
        + loop
        + "\n    PyTorch(entry_point='t.py', instance_type=itype).fit()\n"
    )
    (job,) = jobs(code)
    assert type(job.instance_type) is Unknown
    assert job.launches is not None  # a launch in a loop is recorded either way
    if loop in ("for itype in BIG:", "for itype in [args.a, args.b]:"):
        assert job.instance_type.reason == "loop variable"
        assert job.launches.count in (9, 2)  # the trip count of a literal is known
    else:
        assert job.launches.count is None and "not over literal values" in str(job.launches.why)


# --- rules on loop alternatives --------------------------------------------------------------------

GPU_LOOP = (
    HEADER
    + """\
for itype in ["ml.p4d.24xlarge", "ml.g5.12xlarge"]:
    est = PyTorch(
        entry_point="train.py",
        instance_type=itype,
        max_run=MAX_RUN,
    )
    est.fit()
"""
)


def test_a_rule_decided_for_every_item_fires_at_its_line(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"launch.py": GPU_LOOP.replace("MAX_RUN", "10 * 86400")}, ("FIN102",))
    (finding,) = result.findings  # one finding per launch site, not one per trip
    assert finding.line == 6  # the max_run= argument
    assert "[for each possible value: " in finding.message and "loop over" in finding.message


def test_a_rule_passes_when_no_item_matches(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"launch.py": GPU_LOOP.replace("MAX_RUN", "3600")}, ("FIN301", "FIN102"))
    assert result.findings == [] and result.undetermined == []


def test_a_differing_verdict_stays_undetermined_naming_the_items(tmp_path: Path) -> None:
    text = GPU_LOOP.replace('["ml.p4d.24xlarge", "ml.g5.12xlarge"]', '["ml.p5.48xlarge", "ml.g5.12xlarge"]')
    result = scan_files(tmp_path, {"launch.py": text.replace("MAX_RUN", "3600")}, ("FIN301",))
    assert result.findings == []
    (entry,) = result.undetermined
    assert entry.line == 5  # instance_type=
    assert "loop over" in entry.reasons[0] and "one of p5 or g5: the verdict differs" in entry.reasons[0]


# --- multiplicity --------------------------------------------------------------------------------------

SPOT = """\
    est = PyTorch(
        entry_point="train.py",
        instance_type="ml.p4d.24xlarge",
        use_spot_instances=True,
        max_run=86400,
        max_wait=2 * 86400,
    )
    est.fit()
"""


def _spot(tmp_path: Path, head: str, indent: str = "    ") -> object:
    body = textwrap.indent(textwrap.dedent(SPOT), indent) if indent else textwrap.dedent(SPOT)
    result = scan_files(tmp_path, {"launch.py": HEADER + head + body}, ("FIN201",))
    (finding,) = result.findings
    return finding


def test_a_launch_in_a_loop_costs_n_times_and_says_so(tmp_path: Path) -> None:
    single = _spot(tmp_path / "a", "", indent="")
    looped = _spot(tmp_path / "b", "for seed in range(4):\n")
    assert single.cost.monthly_usd and looped.cost.monthly_usd  # type: ignore[attr-defined]
    assert looped.cost.monthly_usd == pytest.approx(4 * single.cost.monthly_usd)  # type: ignore[attr-defined]
    assert looped.cost.per_run_usd == pytest.approx(4 * single.cost.per_run_usd)  # type: ignore[attr-defined]
    assert "x 4 launches (the loop at line 2)" in looped.cost.basis  # type: ignore[attr-defined]
    assert looped.line == single.line + 1  # still one finding, at the launch site


def test_nested_loops_multiply(tmp_path: Path) -> None:
    single = _spot(tmp_path / "a", "", indent="")
    nested = _spot(tmp_path / "b", "for lr in [1e-3, 3e-4]:\n    for seed in range(3):\n", indent="        ")
    assert nested.cost.monthly_usd == pytest.approx(6 * single.cost.monthly_usd)  # type: ignore[attr-defined]
    assert "x 6 launches (the loops at lines 2 and 3)" in nested.cost.basis  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("head", "why"),
    [
        ("while True:\n", "a `while` loop"),
        ("for seed in args.seeds:\n", "is not over literal values"),
        ("for seed in range(4):\n    if seed == 2:\n        break\n", "may end early (break)"),
        ("for seed in range(4):\n  if args.run:\n", "under a condition inside the loop"),
    ],
)
def test_an_unknown_trip_count_prices_one_launch_and_says_so(tmp_path: Path, head: str, why: str) -> None:
    single = _spot(tmp_path / "a", "", indent="")
    indent = "    " if not head.endswith("if args.run:\n") else "    " * 2
    head = head.replace("  if args.run", "    if args.run")
    looped = _spot(tmp_path / "b", head, indent=indent)
    assert looped.cost.monthly_usd == pytest.approx(single.cost.monthly_usd)  # type: ignore[attr-defined]
    basis = looped.cost.basis  # type: ignore[attr-defined]
    assert "Per launch; the loop's trip count is unknown (the loop at line 2" in basis
    assert why in basis


def test_a_helper_called_in_a_loop_is_one_launch_and_fit_outside_is_not_multiplied() -> None:
    helper, outside = jobs(
        HEADER
        + """\
def run(itype):
    PyTorch(entry_point="t.py", instance_type=itype).fit()

for itype in ["ml.g5.xlarge", "ml.g5.2xlarge"]:
    run(itype)

for seed in range(3):
    last = PyTorch(entry_point="t.py", instance_type="ml.g5.xlarge")
last.fit()
"""
    )
    assert helper.launches is None
    assert outside.launches is None


def test_boto3_and_tuners_in_loops() -> None:
    api, tuned = jobs(
        """\
import boto3
from sagemaker.pytorch import PyTorch
from sagemaker.tuner import HyperparameterTuner
sm = boto3.client("sagemaker")
for name in ["a", "b", "c"]:
    sm.create_training_job(
        TrainingJobName=name,
        AlgorithmSpecification={"TrainingImage": "img", "TrainingInputMode": "File"},
        ResourceConfig={"InstanceType": "ml.g5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
        StoppingCondition={"MaxRuntimeInSeconds": 3600},
    )
est = PyTorch(entry_point="t.py", instance_type="ml.g5.xlarge")
for metric in ["loss", "acc"]:
    HyperparameterTuner(est, "loss", {}, max_jobs=5).fit()
"""
    )
    assert api.launches == Launches(3, (5,))
    assert tuned.launches.count == 2 and tuned.runs_multiplier == 5


def test_records_with_loop_values_pickle() -> None:
    job = one(
        """\
        for itype in ["ml.g5.2xlarge", "ml.p4d.24xlarge"]:
            PyTorch(entry_point="t.py", instance_type=itype).fit()
        """
    )
    back = pickle.loads(pickle.dumps(job))
    assert isinstance(back.instance_type, Alternatives)
    assert back.instance_type.options == job.instance_type.options  # type: ignore[union-attr]
    assert back.launches.count == 2
