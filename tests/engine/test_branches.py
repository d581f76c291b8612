"""One rule for a setting that differs between the branches of one ``if`` (issue 27): FIN101 and
FIN201 decide on the same branches through ``engine.facts.on_a_branch``, and price the branch
that leaks (``cost.alternatives.on_branches``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import scan_files

from finlint.domain.branches import BOOLEAN, OnBranches, branches_where
from finlint.ir import Alternatives, TrainingJob, Unknown

BRANCHES = """\
import sys

from sagemaker.pytorch import PyTorch

if "--spot" in sys.argv:
    extra = {"use_spot_instances": True, "max_wait": 8 * 3600, "max_run": 4 * 3600}
else:
    extra = {}
estimator = PyTorch(
    entry_point="train.py",
    role="arn:aws:iam::111122223333:role/SageMakerRole",
    framework_version="2.2",
    py_version="py310",
    instance_type="ml.p4d.24xlarge",
    **extra,
)
"""


def test_branches_where_known_alternatives_and_flags() -> None:
    is_true = lambda value: value is True  # noqa: E731
    assert branches_where(True, is_true) == ((True,), True)
    assert branches_where(None, is_true) == ((), False)
    assert branches_where(Alternatives("if x", (True, None)), is_true) == ((True,), False)
    assert branches_where(Alternatives("if x", (True, True)), is_true) == ((True, True), True)
    flag = Unknown("parameter 'use_spot'")
    assert branches_where(flag, is_true, BOOLEAN) == ((True,), False)  # a flag may be on
    assert branches_where(flag, lambda value: value is None) is flag  # no domain: unknown


def test_one_dict_per_branch_gives_alternatives_not_unknowns(tmp_path: Path) -> None:
    (job,) = [r for r in scan_files(tmp_path, {"launch.py": BRANCHES}).records if isinstance(r, TrainingJob)]
    assert isinstance(job.spot, Alternatives) and job.spot.options == (True, None)
    assert isinstance(job.max_runtime_s, Alternatives) and job.max_runtime_s.options == (14400, None)


def test_fin101_and_fin201_both_decide_on_their_branch(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"launch.py": BRANCHES}, ("FIN101", "FIN201"))
    by_rule = {f.rule_id: f for f in result.findings}
    assert set(by_rule) == {"FIN101", "FIN201"} and result.undetermined == []
    fin101, fin201 = by_rule["FIN101"], by_rule["FIN201"]
    assert (
        "sets no max runtime (on a branch where no max runtime is set: assigned differently" in fin101.message
    )
    assert "spot training (on a branch where spot is on: assigned differently" in fin201.message
    assert fin101.line == 9  # the call: the unset branch has no line of its own
    assert fin201.line == 6  # where spot is turned on
    assert fin101.evidence_of(OnBranches) == OnBranches(
        "max_runtime_s", (None,), fin101.evidence_of(OnBranches).reason
    )
    assert fin201.evidence_of(OnBranches).options == (True,)  # type: ignore[union-attr]


def test_a_branch_finding_is_priced_on_its_branch(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"launch.py": BRANCHES}, ("FIN101", "FIN201"))
    by_rule = {f.rule_id: f for f in result.findings}
    spot = by_rule["FIN201"].cost
    assert spot is not None and spot.monthly_usd is not None and spot.monthly_usd > 0
    # the restart is priced with spot on; the 4 h cap comes from the same dict, whose pairing
    # with spot is lost, so the figure is the cheaper one of the caps, said so
    assert "spot" not in spot.assumptions.get("alternatives", {})
    runaway = by_rule["FIN101"].cost
    assert runaway is not None and runaway.monthly_usd is not None
    assert runaway.assumptions["cap_hours"] == 24  # the branch with no max_run: the 24 h default
    assert "max_runtime_s" not in runaway.assumptions.get("alternatives", {})


def test_no_branch_that_leaks_is_no_finding(tmp_path: Path) -> None:
    text = BRANCHES.replace("extra = {}", 'extra = {"max_run": 3600}').replace(
        'instance_type="ml.p4d.24xlarge",',
        'instance_type="ml.p4d.24xlarge",\n    checkpoint_s3_uri="s3://b/c",',
    )
    result = scan_files(tmp_path, {"launch.py": text}, ("FIN101", "FIN201"))
    assert result.findings == [] and result.undetermined == []
