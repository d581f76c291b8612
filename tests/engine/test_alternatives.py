"""Alternatives: a value set differently on each branch, known to be one of a few literals.

The engine decides a predicate when every option gives the same verdict; anything it cannot
resolve stays a plain Unknown.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import scan_files

from finlint.engine.conditions import Env, evaluate, render_message
from finlint.engine.policy import Policy
from finlint.ir import Alternatives, Location, TrainingJob, Unknown, alternatives
from finlint.loaders.common import coerce
from finlint.loaders.sagemaker_sdk.loader import load_file
from finlint.rules import load_policies, registry


def job(**kw: Any) -> TrainingJob:
    return TrainingJob(address="j", location=Location("f.py", 1, 9), source_format="sagemaker-python", **kw)


def alt(*options: Any) -> Alternatives:
    value = alternatives(options, "depends on `args.big`")
    assert isinstance(value, Alternatives)
    return value


# --- the value ------------------------------------------------------------------------------------


def test_alternatives_collapse_flatten_and_stay_unknown() -> None:
    assert alternatives(["a", "a"], "r") == "a"  # the same on every branch: known
    nested = alternatives([alt(1, 2), 3], "r")
    assert isinstance(nested, Alternatives) and nested.options == (1, 2, 3)
    assert alt(1, True, 1.0).options == (1, True, 1.0)  # strict: a bool is not a number
    unresolved = alternatives([1, Unknown("var.x")], "r")
    assert type(unresolved) is Unknown and unresolved.reason == "var.x"
    assert type(alternatives([1, object()], "r")) is Unknown
    assert type(alternatives(range(20), "r")) is Unknown  # too many to be useful
    with pytest.raises(TypeError):
        bool(alt(1, 2))
    assert isinstance(alt(1, 2), Unknown)
    assert alt(432000, 864000).shown() == "432,000 or 864,000"


def test_coercion_goes_option_by_option() -> None:
    value = coerce.to_int(alt("3600", 7200.0))
    assert isinstance(value, Alternatives) and value.options == (3600, 7200)
    assert coerce.to_int(alt("3600", 3600.0)) == 3600
    not_whole = coerce.to_int(alt("2.7", 3))
    assert type(not_whole) is Unknown and "whole number" in not_whole.reason
    assert coerce.to_bool(alt("true", True)) is True
    assert isinstance(coerce.to_str(alt(1, "x")), Alternatives)


# --- three-valued evaluation ----------------------------------------------------------------------


def _policy() -> Policy:
    return next(p for p in load_policies() if p.id == "FIN102")


def check(cond: dict[str, Any], record: TrainingJob) -> tuple[bool | None, Env]:
    env = Env(_policy(), record, {"limit": 604800})
    return evaluate(cond, env), env


def test_a_predicate_is_decided_only_when_every_option_agrees() -> None:
    over = job(max_runtime_s=alt(864000, 1209600))
    verdict, env = check({"gt": ["max_runtime_s", "$limit"]}, over)
    assert verdict is True and not env.unknowns and "max_runtime_s" in env.decided
    assert check({"gt": ["max_runtime_s", "$limit"]}, job(max_runtime_s=alt(3600, 18000)))[0] is False
    verdict, env = check({"gt": ["max_runtime_s", "$limit"]}, job(max_runtime_s=alt(3600, 864000)))
    assert verdict is None
    assert env.unknowns == [
        "max_runtime_s: depends on `args.big` (one of 3,600 or 864,000: the verdict differs between them)"
    ]
    both = job(instance_type=alt("ml.g5.2xlarge", "ml.p4d.24xlarge"))
    assert check({"in": ["instance_type", ["ml.p5.48xlarge"]]}, both)[0] is False
    assert check({"not": {"matches": ["instance_type", "^ml\\.(g5|p4d)"]}}, both)[0] is False


def test_exists_and_missing_on_alternatives() -> None:
    set_on_every_branch = job(max_runtime_s=alt(3600, 18000))
    assert check({"missing": "max_runtime_s"}, set_on_every_branch)[0] is False
    assert check({"exists": "max_runtime_s"}, set_on_every_branch)[0] is True
    unset_on_one = job(max_runtime_s=alt(None, 18000))  # `max_run=None if debug else 18000`
    assert check({"missing": "max_runtime_s"}, unset_on_one)[0] is None
    assert check({"is_true": "spot"}, job(spot=alt(True, False)))[0] is None
    assert check({"is_true": "spot"}, job(spot=alt(False, None)))[0] is False


def test_facts_see_alternatives_only_when_exact() -> None:
    record = job(instance_type=alt("ml.p4d.24xlarge", "ml.g5.12xlarge"), max_runtime_s=alt(864000, 1209600))
    env = Env(_policy(), record, {})
    gpus = env.ref("fact.accelerators_per_instance")
    assert isinstance(gpus, Alternatives) and gpus.options == (8, 4)
    assert env.ref("fact.instance_family").options == ("p4d", "g5")
    # gpu_hours_per_run passes the instance type's alternatives through: a plain Unknown here
    assert type(env.ref("fact.gpu_hours_per_run")) is Unknown
    assert registry().facts["max_runtime_days"](record).options == (10.0, 14.0)
    assert render_message("{max_runtime_s:,} s ({fact.max_runtime_days:.1f} days)", env) == (
        "864,000 or 1,209,600 s (10.0 or 14.0 days)"
    )
    assert type(env.ref("instance_type.family")) is Unknown  # nothing to look into


# --- the SDK loader -------------------------------------------------------------------------------


def _load(tmp_path: Path, text: str) -> list[TrainingJob]:
    path = tmp_path / "launch.py"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = load_file(path, "launch.py", path.read_text(), {})
    return [r for r in result.records if isinstance(r, TrainingJob)]


def test_sdk_literals_on_branches_are_alternatives(tmp_path: Path) -> None:
    (record,) = _load(
        tmp_path,
        """\
        import os
        from sagemaker.pytorch import PyTorch

        debug = os.environ.get("DEBUG")
        max_run = 3600 if debug else 5 * 3600
        if debug:
            use_spot = True
            itype = "ml.g5.2xlarge"
        else:
            use_spot = True
            itype = "ml.p5.48xlarge"
        PyTorch(entry_point="t.py", instance_type=itype, instance_count=1, max_run=max_run,
                use_spot_instances=use_spot, checkpoint_s3_uri="s3://b/ckpt").fit()
        """,
    )
    assert isinstance(record.max_runtime_s, Alternatives) and record.max_runtime_s.options == (3600, 18000)
    assert "debug" in record.max_runtime_s.reason
    assert isinstance(record.instance_type, Alternatives)
    assert record.instance_type.options == ("ml.g5.2xlarge", "ml.p5.48xlarge")
    assert record.spot is True  # the same on both branches: known, as before


def test_sdk_an_alternative_not_resolved_or_an_operation_gives_a_plain_unknown(tmp_path: Path) -> None:
    first, second = _load(
        tmp_path,
        """\
        import os
        from sagemaker.pytorch import PyTorch

        big = os.environ.get("BIG")
        runtime = 3600 if big else os.environ["RUNTIME"]
        PyTorch(entry_point="t.py", instance_type="ml.g5.2xlarge", instance_count=1, max_run=runtime).fit()
        days = 1 if big else 2
        PyTorch(entry_point="t.py", instance_type="ml.g5.2xlarge", max_run=days * 86400).fit()
        """,
    )
    assert type(first.max_runtime_s) is Unknown
    assert type(second.max_runtime_s) is Unknown  # arithmetic does not keep options


# --- end to end -----------------------------------------------------------------------------------

LAUNCHER = """\
import os

from sagemaker.pytorch import PyTorch

if os.environ.get("BIG"):
    max_run = 14 * 86400
    instance_type = "ml.p4d.24xlarge"
else:
    max_run = MAX_RUN_SMALL
    instance_type = "ml.g5.12xlarge"

estimator = PyTorch(
    entry_point="train.py",
    instance_type=instance_type,
    instance_count=1,
    max_run=max_run,
)
estimator.fit("s3://ml-data/train")
"""


def test_fin102_fires_on_alternatives_with_a_lower_bound_cost(tmp_path: Path) -> None:
    text = LAUNCHER.replace("MAX_RUN_SMALL", "10 * 86400")
    result = scan_files(tmp_path, {"launch.py": text}, select=("FIN102", "FIN101"))
    (finding,) = result.findings
    assert finding.rule_id == "FIN102" and finding.line == 16  # the max_run= argument
    assert "864,000 or 1,209,600 s" in finding.message or "1,209,600 or 864,000 s" in finding.message
    assert "[for each possible value: max_runtime_s is" in finding.message
    assert finding.cost is not None and finding.cost.monthly_usd is not None
    assert finding.cost.basis.startswith("Lower bound: the cheapest of 4 alternatives")
    assert finding.cost.assumptions["priced_alternative"] == {
        "instance_type": "ml.g5.12xlarge",
        "max_runtime_s": 864000,
    }
    assert finding.cost.assumptions["lower_bound"] is True


def test_fin101_and_fin102_pass_when_every_branch_sets_a_short_runtime(tmp_path: Path) -> None:
    text = LAUNCHER.replace("14 * 86400", "5 * 3600").replace("MAX_RUN_SMALL", "3600")
    result = scan_files(tmp_path, {"launch.py": text}, select=("FIN101", "FIN102"))
    assert result.findings == []
    assert [u.rule_id for u in result.undetermined] == []


def test_a_verdict_that_differs_by_branch_stays_undetermined_naming_the_options(tmp_path: Path) -> None:
    text = LAUNCHER.replace("MAX_RUN_SMALL", "3600")
    result = scan_files(tmp_path, {"launch.py": text}, select=("FIN102",))
    assert result.findings == []
    (entry,) = result.undetermined
    assert entry.line == 16
    assert "one of 1,209,600 or 3,600" in entry.reasons[0]


def test_fin301_passes_when_no_alternative_is_p5(tmp_path: Path) -> None:
    text = LAUNCHER.replace("MAX_RUN_SMALL", "3600")
    result = scan_files(tmp_path, {"launch.py": text}, select=("FIN301",))
    assert result.findings == [] and result.undetermined == []
