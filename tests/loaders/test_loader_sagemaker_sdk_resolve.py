"""Static value resolution in the SageMaker SDK loader, one trap per test (inline snippets)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from finlint.ir import TrainingJob, Unknown
from finlint.loaders.sagemaker_sdk.loader import load_file

HEADER = "from sagemaker.pytorch import PyTorch\n"


def jobs(code: str, name: str = "launch.py") -> list[TrainingJob]:
    text = textwrap.dedent(code)
    result = load_file(Path(name), name, text, {})
    assert not result.errors, result.errors
    return [r for r in result.records if isinstance(r, TrainingJob)]


def one(code: str) -> TrainingJob:
    (job,) = jobs(code)
    return job


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ("3600 * 4", 14400),
        ("10*86400+20", 864020),
        ("48 * 60 * 60", 172800),
        ("int(7200 / 2)", 3600),
        ("2 ** 3 * 3600", 28800),
        ("HOURS * 2", 7200),
        ("-(-3600)", 3600),
        ("max(3600, 7200)", 7200),
        ("CFG['max_run']", 5400),
        ("CFG.get('missing', 900)", 900),
    ],
)
def test_constant_folding(expr: str, expected: int) -> None:
    job = one(
        HEADER + "HOURS = 3600\nCFG = {'max_run': 5400}\n"
        f"est = PyTorch(entry_point='t.py', instance_type='ml.g5.xlarge', max_run={expr})\n"
    )
    assert job.max_runtime_s == expected
    assert job.attr_lines["max_runtime_s"] == 4


@pytest.mark.parametrize(
    "expr",
    [
        "os.environ['MAX_RUN']",
        "int(os.environ.get('MAX_RUN', '3600'))",
        "compute_runtime()",
        "2 ** 100000",
        "RUN if os.environ.get('X') else 7200",
        "undefined_name",
        "[3600][i]",
    ],
)
def test_unresolvable_values_are_unknown_not_absent(expr: str) -> None:
    job = one(
        "import os\n" + HEADER + "RUN = 3600\ni = 0\ni += 1\n"
        f"est = PyTorch(entry_point='t.py', max_run={expr})\n"
    )
    assert isinstance(job.max_runtime_s, Unknown), job.max_runtime_s


def test_conditional_with_agreeing_branches_is_known() -> None:
    job = one(HEADER + "import os\nest = PyTorch(max_run=3600 if os.environ.get('A') else 3600)\n")
    assert job.max_runtime_s == 3600


def test_rebinding_follows_statement_order_and_branches_merge() -> None:
    job = one(
        """\
        import os
        from sagemaker.pytorch import PyTorch
        max_run = 3600
        max_run = max_run * 2
        itype = "ml.g5.xlarge"
        if os.environ.get("BIG"):
            itype = "ml.p5.48xlarge"
        count = 1
        if os.environ.get("BIG"):
            count = 1
        est = PyTorch(max_run=max_run, instance_type=itype, instance_count=count)
        """
    )
    assert job.max_runtime_s == 7200
    assert isinstance(job.instance_type, Unknown)
    assert job.instance_count == 1


def test_dead_branch_of_a_constant_test_is_skipped() -> None:
    job = one(
        """\
        from sagemaker.pytorch import PyTorch
        USE_SPOT = False
        CKPT = None
        if USE_SPOT:
            CKPT = "s3://b/ckpt"
        est = PyTorch(use_spot_instances=USE_SPOT, checkpoint_s3_uri=CKPT)
        """
    )
    assert job.spot is False and job.checkpoint_s3_uri is None


def test_fully_qualified_and_module_alias_imports() -> None:
    found = jobs(
        """\
        import sagemaker
        import sagemaker.huggingface as smhf
        from sagemaker import estimator as est_mod
        a = sagemaker.pytorch.PyTorch(entry_point="a.py", instance_type="ml.g5.xlarge")
        b = smhf.HuggingFace(entry_point="b.py", instance_type="ml.g5.2xlarge")
        c = est_mod.Estimator("img", "role", 2, "ml.c5.xlarge")
        """
    )
    assert [(j.address, j.extra["sdk_class"], j.instance_type) for j in found] == [
        ("launch:a", "PyTorch", "ml.g5.xlarge"),
        ("launch:b", "HuggingFace", "ml.g5.2xlarge"),
        ("launch:c", "Estimator", "ml.c5.xlarge"),
    ]
    assert found[2].instance_count == 2  # positional instance_count of Estimator


def test_try_except_import_fallback_keeps_the_class() -> None:
    job = one(
        """\
        try:
            from sagemaker.train import ModelTrainer
        except ImportError:
            from sagemaker.modules.train import ModelTrainer
        from sagemaker.modules.configs import Compute
        trainer = ModelTrainer(compute=Compute(instance_type="ml.g5.xlarge"))
        """
    )
    assert job.launcher == "sdk-model-trainer" and job.instance_type == "ml.g5.xlarge"


def test_subclass_of_an_sdk_estimator_is_an_estimator() -> None:
    job = one(
        HEADER
        + """\
class TeamEstimator(PyTorch):
    pass

est = TeamEstimator(entry_point="t.py", instance_type="ml.g5.xlarge", max_run=600)
"""
    )
    assert job.extra["sdk_class"] == "TeamEstimator" and job.max_runtime_s == 600


def test_kwargs_update_with_unknown_makes_fields_unknown_not_missing() -> None:
    job = one(
        """\
        from sagemaker.pytorch import PyTorch
        def build(overrides):
            kwargs = dict(instance_type="ml.g5.xlarge", max_run=3600)
            kwargs.update(overrides)
            return PyTorch(entry_point="t.py", **kwargs)
        """
    )
    assert isinstance(job.instance_type, Unknown) and isinstance(job.max_runtime_s, Unknown)
    assert isinstance(job.spot, Unknown) and isinstance(job.checkpoint_s3_uri, Unknown)
    assert job.extra.get("spot_conditional") is None  # unknown kwargs are not a spot flag


def test_kwargs_update_with_known_dict_and_dict_literal_spread() -> None:
    job = one(
        """\
        from sagemaker.pytorch import PyTorch
        BASE = {"instance_type": "ml.g5.xlarge", "max_run": 3600}
        kwargs = {**BASE, "instance_count": 2}
        kwargs.update({"max_run": 7200})
        est = PyTorch(entry_point="t.py", **kwargs)
        """
    )
    assert (job.instance_type, job.instance_count, job.max_runtime_s) == ("ml.g5.xlarge", 2, 7200)
    assert job.attr_lines["max_runtime_s"] == 4


def test_pipeline_parameter_without_default_is_unknown() -> None:
    job = one(
        """\
        from sagemaker.workflow.parameters import ParameterInteger, ParameterString
        from sagemaker.pytorch import PyTorch
        itype = ParameterString(name="InstanceType")
        runtime = ParameterInteger("MaxRun", 5400)
        est = PyTorch(entry_point="t.py", instance_type=itype, max_run=runtime)
        """
    )
    assert isinstance(job.instance_type, Unknown) and job.max_runtime_s == 5400


def test_argparse_parse_known_args_dest_and_set_defaults() -> None:
    job = one(
        """\
        import argparse
        from sagemaker.pytorch import PyTorch
        parser = argparse.ArgumentParser()
        group = parser.add_argument_group("sagemaker")
        group.add_argument("-t", "--instance-type", default="ml.g5.2xlarge")
        parser.add_argument("--runtime", dest="max_run", type=float, default="1.5e4")
        parser.add_argument("--spot", type=bool, default=True)
        parser.set_defaults(count=3)
        args, unknown = parser.parse_known_args()
        est = PyTorch(entry_point="t.py", instance_type=args.instance_type, max_run=args.max_run,
                      instance_count=args.count, use_spot_instances=args.spot, max_wait=args.nope)
        """
    )
    assert (job.instance_type, job.max_runtime_s) == ("ml.g5.2xlarge", 15000)
    assert (job.instance_count, job.spot) == (3, True)
    assert isinstance(job.max_wait_s, Unknown)


def test_fstring_checkpoint_is_present_but_other_partial_strings_are_unknown() -> None:
    job = one(
        """\
        import sagemaker, os
        from sagemaker.pytorch import PyTorch
        bucket = sagemaker.Session().default_bucket()
        est = PyTorch(entry_point="t.py", use_spot_instances=True,
                      checkpoint_s3_uri=os.path.join(f"s3://{bucket}", "ckpt"),
                      checkpoint_local_path="/opt/ml/" + os.environ["SUB"],
                      instance_type=f"ml.{os.environ['FAMILY']}.xlarge")
        """
    )
    assert job.checkpoint_s3_uri == "s3://{bucket}/ckpt"
    assert isinstance(job.checkpoint_local_path, Unknown)
    assert isinstance(job.instance_type, Unknown)


def test_model_trainer_variants() -> None:
    plain, recipe, unknown_compute, dict_compute, default_ckpt = jobs(
        """\
        from sagemaker.modules.train import ModelTrainer
        from sagemaker.modules.configs import CheckpointConfig, Compute, StoppingCondition
        plain = ModelTrainer(training_image="img")
        recipe = ModelTrainer.from_recipe(training_recipe="llama",
                                          compute=Compute(instance_type="ml.p5.48xlarge"),
                                          stopping_condition=StoppingCondition(max_runtime_in_seconds=7200))
        unknown_compute = ModelTrainer(compute=make_compute())
        dict_compute = ModelTrainer(compute={"instance_type": "ml.g5.xlarge",
                                             "enable_managed_spot_training": True})
        stop = StoppingCondition(max_wait_time_in_seconds=900)
        stop.max_runtime_in_seconds = 600
        default_ckpt = ModelTrainer(compute=Compute(enable_managed_spot_training=True),
                                    checkpoint_config=CheckpointConfig(local_path="/opt/ml/ckpt"),
                                    stopping_condition=stop)
        """
    )
    assert plain.instance_type is None and plain.max_runtime_default_s == 3600 and plain.location.line == 3
    assert recipe.extra["sdk_class"] == "ModelTrainer" and recipe.max_runtime_s == 7200
    assert isinstance(unknown_compute.instance_type, Unknown) and isinstance(unknown_compute.spot, Unknown)
    assert dict_compute.spot is True and dict_compute.instance_type == "ml.g5.xlarge"
    # CheckpointConfig without s3_uri: train() fills a default S3 path, so spot is not unprotected
    assert isinstance(default_ckpt.checkpoint_s3_uri, str)
    assert default_ckpt.checkpoint_local_path == "/opt/ml/ckpt"
    assert default_ckpt.max_runtime_s == 600 and default_ckpt.attr_lines["max_runtime_s"] == 11
    assert default_ckpt.max_wait_s == 900


def test_local_mode_and_tests_are_not_launches() -> None:
    assert (
        jobs(
            """\
        from sagemaker.pytorch import PyTorch
        from sagemaker.modules.train import ModelTrainer, Mode
        a = PyTorch(entry_point="t.py", instance_type="local_gpu")
        b = ModelTrainer(training_mode=Mode.LOCAL_CONTAINER)
        def test_estimator():
            PyTorch(entry_point="t.py", instance_type="ml.p5.48xlarge")
        """
        )
        == []
    )
    assert jobs(HEADER + "PyTorch(instance_type='ml.p5.48xlarge')\n", name="conftest.py") == []


def test_tuner_max_jobs_defaults_and_grid() -> None:
    a, b, c, inline = jobs(
        """\
        from sagemaker.pytorch import PyTorch
        from sagemaker.tuner import HyperparameterTuner
        a = PyTorch(entry_point="t.py")
        b = PyTorch(entry_point="t.py")
        c = PyTorch(entry_point="t.py")
        HyperparameterTuner(a, "loss", {})
        HyperparameterTuner(estimator=b, objective_metric_name="loss", hyperparameter_ranges={},
                            strategy="Grid")
        HyperparameterTuner.create(estimator_dict={"c": c, "a2": PyTorch(entry_point="u")}, max_jobs=8)
        """
    )
    assert a.runs_multiplier == 1 and a.launcher == "sdk-estimator"
    assert isinstance(b.runs_multiplier, Unknown)
    assert isinstance(c.runs_multiplier, Unknown) and isinstance(inline.runs_multiplier, Unknown)
    assert inline.address == "launch:PyTorch"  # no variable, no function: named after its class


def test_v3_tuner_takes_a_model_trainer_and_drops_its_checkpoint() -> None:
    """sagemaker-train's HyperparameterTuner(model_trainer=...) runs max_jobs jobs with the
    trainer's spot setting but builds their definition without its checkpoint_config."""
    spot, kept = jobs(
        """\
        from sagemaker.train import ModelTrainer
        from sagemaker.train.configs import CheckpointConfig, Compute
        from sagemaker.train.tuner import HyperparameterTuner
        from sagemaker.tuner import HyperparameterTuner as V2Tuner
        from sagemaker.pytorch import PyTorch
        trainer = ModelTrainer(
            training_image="img",
            compute=Compute(instance_type="ml.p4d.24xlarge", enable_managed_spot_training=True),
            checkpoint_config=CheckpointConfig(s3_uri="s3://b/ckpt"),
        )
        HyperparameterTuner(model_trainer=trainer, objective_metric_name="loss",
                            hyperparameter_ranges={}, max_jobs=10).tune()
        est = PyTorch(entry_point="t.py", use_spot_instances=True, checkpoint_s3_uri="s3://b/c")
        V2Tuner(est, "loss", {}, max_jobs=4).fit()
        """
    )
    assert (spot.launcher, spot.spot, spot.runs_multiplier) == ("sdk-model-trainer", True, 10)
    assert spot.checkpoint_s3_uri is None and spot.checkpoint_local_path is None
    assert "checkpoint_config is dropped by HyperparameterTuner" in spot.finding_note
    # the v2 tuner keeps an estimator's checkpoint (sagemaker.job._Job._load_config)
    assert (kept.checkpoint_s3_uri, kept.runs_multiplier, kept.finding_note) == ("s3://b/c", 4, "")


def test_v3_tuner_create_with_model_trainer_dict_is_shared() -> None:
    (job,) = jobs(
        """\
        from sagemaker.train import ModelTrainer
        from sagemaker.train.tuner import HyperparameterTuner
        t = ModelTrainer(training_image="img")
        HyperparameterTuner.create(model_trainer_dict={"a": t}, objective_metric_name_dict={},
                                   hyperparameter_ranges_dict={}, max_jobs=6)
        """
    )
    assert job.runs_multiplier == 6


def test_training_step_with_estimator_and_step_args() -> None:
    first, second = jobs(
        """\
        from sagemaker.workflow.steps import TrainingStep
        from sagemaker.pytorch import PyTorch
        from sagemaker.train import ModelTrainer
        est = PyTorch(entry_point="t.py")
        TrainingStep(name="Train", estimator=est)
        trainer = ModelTrainer(training_image="img")
        TrainingStep(name="Train2", step_args=trainer.train())
        """
    )
    assert (first.launcher, first.extra["pipeline_step"]) == ("pipeline-step", "Train")
    assert (second.launcher, second.extra["pipeline_step"], second.max_runtime_default_s) == (
        "pipeline-step",
        "Train2",
        3600,
    )
    assert "ModelTrainer" in str(second.default_note)


def test_remote_bare_decorator_and_remote_executor() -> None:
    bare, executor = jobs(
        """\
        import sagemaker.remote_function as rf
        from sagemaker.remote_function import RemoteExecutor

        @rf.remote
        def f():
            pass

        with RemoteExecutor(instance_type="ml.m5.xlarge", max_runtime_in_seconds=1200) as ex:
            ex.submit(f)
        """
    )
    assert (bare.address, bare.location.line, bare.launcher) == ("launch:f", 4, "sdk-remote")
    assert executor.address == "launch:ex" and executor.max_runtime_s == 1200


def test_duplicate_names_get_numbered_addresses_in_line_order() -> None:
    found = jobs(
        HEADER
        + """\
est = PyTorch(entry_point="a.py")
est = PyTorch(entry_point="b.py")
for i in range(3):
    est = PyTorch(entry_point="c.py")
"""
    )
    assert [j.address for j in found] == ["launch:est", "launch:est#2", "launch:est#3"]
    assert found[2].extra["in_loop"] is True


def test_instance_groups_and_attribute_assignment_after_construction() -> None:
    same, mixed = jobs(
        """\
        from sagemaker.estimator import Estimator
        from sagemaker.instance_group import InstanceGroup
        same = Estimator(image_uri="img", instance_groups=[InstanceGroup("a", "ml.p4d.24xlarge", 2),
                                                           InstanceGroup("b", "ml.p4d.24xlarge", 1)])
        mixed = Estimator(image_uri="img", instance_groups=[InstanceGroup("a", "ml.c5.xlarge", 1),
                                                            InstanceGroup("b", "ml.p4d.24xlarge", 1)])
        same.max_run = 1800
        """
    )
    assert (same.instance_type, same.instance_count, same.max_runtime_s) == ("ml.p4d.24xlarge", 3, 1800)
    assert isinstance(mixed.instance_type, Unknown)


def test_boto3_request_built_dynamically_is_a_notice_not_a_record() -> None:
    text = "import boto3\nsm = boto3.client('sagemaker')\ndef go(req):\n    sm.create_training_job(**req)\n"
    result = load_file(Path("l.py"), "l.py", text, {})
    assert result.records == [] and [n.line for n in result.notices] == [4]


def test_boto3_open_request_dict_makes_missing_fields_unknown() -> None:
    job = one(
        """\
        import boto3
        def go(base):
            req = {**base, "ResourceConfig": {"InstanceType": "ml.g5.xlarge", "InstanceCount": 1}}
            boto3.client("sagemaker").create_training_job(**req)
        """
    )
    assert job.instance_type == "ml.g5.xlarge"
    assert isinstance(job.max_runtime_s, Unknown) and isinstance(job.spot, Unknown)


@pytest.mark.parametrize(
    "text",
    [
        "import sagemaker\nx = " + "(" * 300 + "1" + ")" * 300 + "\n",
        "import sagemaker\nx = " + " + ".join(["1"] * 3000) + "\n",
        "import sagemaker\n\x00\n",
        "import sagemaker\nmatch x:\n    case 1:\n        y = 2\n",
        "import sagemaker\nasync def f():\n    async with a as b:\n        await c\n",
    ],
)
def test_odd_input_never_raises(text: str) -> None:
    result = load_file(Path("odd.py"), "odd.py", text, {})
    assert result.records == []


def test_multiline_pytest_fixture_is_a_test() -> None:
    code = """\
        from sagemaker.pytorch import PyTorch
        import pytest
        @pytest.fixture(
            scope="module",
        )
        def est():
            return PyTorch(instance_type="ml.p5.48xlarge")
        """
    assert jobs(code) == []
    assert len(jobs(code.replace("@pytest.fixture(", "@other(", 1))) == 1


def test_long_expression_chains_stay_fast() -> None:
    import time

    chain = " + ".join(f"x{i}" for i in range(800))
    lines = "".join(f"v{n} = {chain}\n" for n in range(30))
    start = time.perf_counter()
    job = one(HEADER + lines + "est = PyTorch(max_run=v29)\n")
    assert isinstance(job.max_runtime_s, Unknown)
    assert time.perf_counter() - start < 3  # was quadratic (unparse at every level): ~30 s
