"""Regressions from field test round 3 of the SageMaker loaders (docs/field-test-round3-sdk.md).

Every fixture is a small hand-written reduction of a pattern seen in public code; no public
file is copied here.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from tests.conftest import scan_files

from finlint.ir import DataLoader, TrainingJob, Unknown
from finlint.loaders.sagemaker_sdk.loader import load_file


def _jobs(tmp_path: Path, text: str, name: str = "launch.py") -> list[TrainingJob]:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    result = load_file(path, name, path.read_text(), {})
    assert not result.errors, result.errors
    return [r for r in result.records if isinstance(r, TrainingJob)]


# --- instance attributes set on branches ----------------------------------------------------------

HANDLER = """\
    import sagemaker


    class Handler:
        def __init__(self, role, use_spot: bool, instance_type: str):
            self.role = role
            self.use_spot = use_spot
            self.instance_type = instance_type
            if use_spot:
                self.max_wait = 3600
                self.max_run = 3600
            else:
                self.max_wait = None
                self.max_run = 3600 * 5

        def launch(self):
            est = sagemaker.estimator.Estimator(
                image_uri="img",
                role=self.role,
                instance_count=1,
                instance_type=self.instance_type,
                use_spot_instances=self.use_spot,
                max_run=self.max_run,
                max_wait=self.max_wait,
            )
            est.fit()
    """


def test_attributes_set_differently_under_an_if_in_init_are_unknown(tmp_path: Path) -> None:
    # A handler class sets max_run/max_wait on both branches of `if use_spot:`. The attribute
    # writes went straight into the instance, so the else branch won: max_wait None, max_run
    # 18000, and FIN203 ("spot without max wait") fired on a job that sets 3600 when on spot.
    (job,) = _jobs(tmp_path, HANDLER)
    assert isinstance(job.max_runtime_s, Unknown) and "if use_spot" in job.max_runtime_s.reason
    assert isinstance(job.max_wait_s, Unknown)


def test_attribute_branches_do_not_fire_spot_max_wait(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"handler.py": textwrap.dedent(HANDLER)})
    rules = {f.rule_id for f in result.findings}
    assert "FIN203" not in rules
    assert "FIN201" in rules  # spot on the flag and no checkpoint on any branch: still real
    assert any(u.rule_id == "FIN203" for u in result.undetermined)


def test_attribute_set_the_same_on_every_branch_stays_known(tmp_path: Path) -> None:
    text = """\
        from sagemaker.pytorch import PyTorch


        class Job:
            def __init__(self, fast):
                if fast:
                    self.instance_type = "ml.g5.2xlarge"
                else:
                    self.instance_type = "ml.g5.2xlarge"
                self.max_run = 7200
                for _ in range(2):
                    self.max_run = 7200
                    self.max_wait = 7200

            def run(self):
                PyTorch(entry_point="t.py", instance_type=self.instance_type, instance_count=1,
                        max_run=self.max_run, max_wait=self.max_wait).fit()


        Job(fast=True).run()
        """
    (job,) = _jobs(tmp_path, text)
    assert job.instance_type == "ml.g5.2xlarge"
    assert job.max_runtime_s == 7200
    # set only inside a loop (which may run zero times): unknown, as a name would be
    assert isinstance(job.max_wait_s, Unknown) and "loop" in job.max_wait_s.reason


# --- a job's own configuration, saved as test output ----------------------------------------------


def test_a_job_configuration_with_an_arn_is_not_a_launch(tmp_path: Path) -> None:
    # SageMaker writes the job's configuration into the container
    # (/opt/ml/input/config/trainingjobconfig.json); a library kept one as expected test output.
    # It has TrainingJobArn but no TrainingJobStatus, so it was read as a CreateTrainingJob
    # request and FIN204 (multi-node spot) fired on a file nobody edits to launch anything.
    config = {
        "TrainingJobName": "task1-2020",
        "TrainingJobArn": "arn:aws:sagemaker:us-east-1:111122223333:training-job/task1-2020",
        "RoleArn": "arn:aws:iam::111122223333:role/r",
        "EnableManagedSpotTraining": True,
        "ResourceConfig": {"InstanceCount": 2, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 30},
        "StoppingCondition": {"MaxRuntimeInSeconds": 900, "MaxWaitTimeInSeconds": 900},
        "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
    }
    result = scan_files(tmp_path, {"config/trainingjobconfig.json": json.dumps(config)})
    assert not result.findings and not result.records
    assert [n.message for n in result.notices] == [
        "a created job's configuration (it has a TrainingJobArn), not a request: skipped"
    ]


def test_a_request_without_an_arn_is_still_a_launch(tmp_path: Path) -> None:
    request = {
        "TrainingJobName": "j",
        "RoleArn": "arn:aws:iam::111122223333:role/r",
        "EnableManagedSpotTraining": True,
        "ResourceConfig": {"InstanceCount": 2, "InstanceType": "ml.m5.large", "VolumeSizeInGB": 30},
        "StoppingCondition": {"MaxRuntimeInSeconds": 900, "MaxWaitTimeInSeconds": 900},
        "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
    }
    result = scan_files(tmp_path, {"request.json": json.dumps(request)})
    assert "FIN204" in {f.rule_id for f in result.findings}


# --- DataLoaders in device-agnostic scripts ---------------------------------------------------------

EVALUATION = """\
    import torch


    def eval_loader(dataset, batch_size):
        return torch.utils.data.DataLoader(dataset, batch_size=batch_size, shuffle=True)


    def main():
        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if torch.cuda.device_count() > 1:
            print("gpus", torch.cuda.device_count())
        return device
    """


def test_a_device_chosen_by_availability_is_not_gpu_evidence(tmp_path: Path) -> None:
    # A model-evaluation script run by a ProcessingStep on ml.m5.xlarge picks its device with
    # `"cuda" if torch.cuda.is_available() else "cpu"`: the "cuda" literal made FIN601 report
    # it as a starving GPU loader (4 hits in one repository, all evaluation scripts on CPU).
    result = scan_files(tmp_path, {"evaluation.py": textwrap.dedent(EVALUATION)})
    assert not [f for f in result.findings if f.rule_id == "FIN601"]
    (loader,) = [r for r in result.records if isinstance(r, DataLoader)]
    assert loader.gpu is None


def test_a_device_chosen_the_other_way_round_is_not_evidence_either(tmp_path: Path) -> None:
    agnostic = '"cuda" if torch.cuda.is_available() else "cpu"'
    text = EVALUATION.replace(agnostic, '"cpu" if args.cpu else "cuda"')
    result = scan_files(tmp_path, {"evaluation.py": textwrap.dedent(text)})
    assert not [f for f in result.findings if f.rule_id == "FIN601"]


def test_a_script_that_assumes_cuda_is_still_a_gpu_script(tmp_path: Path) -> None:
    text = EVALUATION + '    state = torch.load("m.pt", map_location={"cuda:0": "cuda:1"})\n'
    result = scan_files(tmp_path, {"train.py": textwrap.dedent(text)})
    (finding,) = [f for f in result.findings if f.rule_id == "FIN601"]
    assert "uses CUDA" in finding.message


# --- JSON templates --------------------------------------------------------------------------------

PIPELINE_TEMPLATE = """\
{
  "Version": "2020-12-01",
  "Parameters": [
    {"Name": "TrainingInstanceType", "Type": "String", "DefaultValue": "{{ trainingInstanceType }}"},
    {"Name": "TrainingInstanceCount", "Type": "Integer", "DefaultValue": {{ trainingInstanceCount }} }
  ],
  "Steps": [
    {
      "Name": "Train",
      "Type": "Training",
      "Arguments": {
        "AlgorithmSpecification": {"TrainingImage": "{{ image }}", "TrainingInputMode": "File"},
        "RoleArn": "{{ roleArn }}",
        "OutputDataConfig": {"S3OutputPath": "s3://{{ bucket }}/models"},
        "ResourceConfig": {
          "InstanceType": {"Get": "Parameters.TrainingInstanceType"},
          "InstanceCount": {"Get": "Parameters.TrainingInstanceCount"},
          "VolumeSizeInGB": 30
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": 86400}
      }
    }
  ]
}
"""


def test_a_pipeline_definition_template_is_read_not_a_parse_error(tmp_path: Path) -> None:
    # A deploy script renders pipeline-template/pipeline.json with Handlebars/Jinja; one
    # placeholder stands bare where a number goes, so the file is not JSON and was a FIN000
    # "invalid JSON". Bare placeholders are now quoted (lines kept) and the step is read, its
    # templated values unknown.
    result = scan_files(tmp_path, {"pipeline-template/pipeline.json": PIPELINE_TEMPLATE})
    assert not result.errors and not result.findings and not result.notices
    (job,) = [r for r in result.records if isinstance(r, TrainingJob)]
    step_open = PIPELINE_TEMPLATE.splitlines().index('      "Name": "Train",')  # the `{` above, 1-based
    assert job.location.line == step_open
    assert isinstance(job.instance_type, Unknown) and "templated" in job.instance_type.reason
    assert isinstance(job.instance_count, Unknown)
    assert job.max_runtime_s == 86400


def test_a_json_template_with_control_tags_is_a_notice_not_fin000(tmp_path: Path) -> None:
    text = PIPELINE_TEMPLATE.replace('"Steps": [', '"Steps": [\n    {% for step in steps %}')
    result = scan_files(tmp_path, {"pipeline.json": text})
    assert not result.errors and not result.findings
    (notice,) = result.notices
    assert notice.message.startswith("skipped template")


def test_broken_json_without_placeholders_is_still_fin000(tmp_path: Path) -> None:
    text = PIPELINE_TEMPLATE.replace("{{ trainingInstanceCount }}", "").replace("{{", "").replace("}}", "")
    result = scan_files(tmp_path, {"pipeline.json": text})
    assert [f.rule_id for f in result.findings] == ["FIN000"]


# --- local mode on every branch -------------------------------------------------------------------


def test_local_or_local_gpu_on_branches_is_local_mode(tmp_path: Path) -> None:
    # A local-mode notebook picks "local_gpu" when nvidia-smi works, else "local". The merge made
    # the instance type Unknown, so the launch was checked: FIN101 on a job that never runs on
    # SageMaker. Alternatives that are all local modes are local mode.
    text = """\
        import subprocess
        from sagemaker.pytorch import PyTorch

        instance_type = "local"
        try:
            if subprocess.call("nvidia-smi") == 0:
                instance_type = "local_gpu"
        except Exception:
            pass

        PyTorch(entry_point="cifar10.py", role="r", instance_count=1, instance_type=instance_type).fit()
        gpu = "local_gpu" if subprocess.call("nvidia-smi") == 0 else "local"
        PyTorch(entry_point="cifar10.py", role="r", instance_count=1, instance_type=gpu).fit()
        """
    assert _jobs(tmp_path, text) == []


def test_local_or_a_real_instance_type_is_still_checked(tmp_path: Path) -> None:
    text = """\
        from sagemaker.pytorch import PyTorch

        if on_studio:
            instance_type = "ml.m4.xlarge"
        else:
            instance_type = "local"
        PyTorch(entry_point="t.py", role="r", instance_count=1, instance_type=instance_type).fit()
        other = "ml.g5.xlarge" if on_studio else "local_gpu"
        PyTorch(entry_point="t.py", role="r", instance_count=1, instance_type=other).fit()
        """
    first, second = _jobs(tmp_path, text)
    assert isinstance(first.instance_type, Unknown) and "on_studio" in first.instance_type.reason
    assert isinstance(second.instance_type, Unknown) and first.max_runtime_default_s == 86400


LOCAL_PIPELINE = """\
    import boto3
    from sagemaker.estimator import Estimator
    from sagemaker.workflow.pipeline_context import LocalPipelineSession, PipelineSession
    from sagemaker.workflow.steps import TrainingStep

    run_locally = RUN_LOCALLY
    if run_locally:
        pipeline_session = LocalPipelineSession(boto_session=boto3.Session())
    else:
        pipeline_session = PipelineSession()

    xgb_train = Estimator(image_uri="img", instance_type="ml.m5.xlarge", instance_count=1,
                          role="r", sagemaker_session=pipeline_session)
    step = TrainingStep(name="Train", step_args=xgb_train.fit({"train": "s3://b/train"}))
    """


def test_an_estimator_on_a_local_pipeline_session_is_local_mode(tmp_path: Path) -> None:
    # Local pipeline mode: the estimator names a real instance type but its session is a
    # LocalPipelineSession, so the training step runs in a local container. FIN101 fired on it.
    assert _jobs(tmp_path, LOCAL_PIPELINE.replace("RUN_LOCALLY", "True")) == []
    text = """\
        from sagemaker.local import LocalSession
        from sagemaker.pytorch import PyTorch

        PyTorch(entry_point="t.py", instance_type="ml.g5.xlarge", instance_count=1,
                sagemaker_session=LocalSession()).fit()
        """
    assert _jobs(tmp_path, text, "local.py") == []


def test_a_session_that_may_be_remote_is_still_checked(tmp_path: Path) -> None:
    (job,) = _jobs(tmp_path, LOCAL_PIPELINE.replace("RUN_LOCALLY", "os.environ.get('LOCAL') == '1'"))
    assert job.instance_type == "ml.m5.xlarge"
    (job,) = _jobs(tmp_path, LOCAL_PIPELINE.replace("RUN_LOCALLY", "False"), "remote.py")
    assert job.instance_type == "ml.m5.xlarge"


# --- notebook cells with continued shell lines ---------------------------------------------------


def test_a_shell_line_continued_with_backslashes_keeps_the_cell(tmp_path: Path) -> None:
    # `%pip install \\` + indented package lines, or `!cmd \\` over several lines: IPython joins
    # them, Python does not, so the whole cell was skipped as "not valid Python" (3 notices in
    # the sample) and a launch in the same cell would have been missed.
    cell = (
        "%pip install --upgrade \\\n"
        '  "transformers==4.44.2" \\\n'
        '  "datasets==2.21.0"\n'
        "!aws s3 cp s3://b/data . \\\n"
        "    --recursive\n"
        "from sagemaker.huggingface import HuggingFace\n"
        "est = HuggingFace(entry_point='train.py', instance_type='ml.g5.2xlarge', instance_count=1)\n"
    )
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "source": cell.splitlines(True)}],
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    result = load_file(path, "nb.ipynb", path.read_text(), {})
    assert not result.notices and not result.errors
    (job,) = [r for r in result.records if isinstance(r, TrainingJob)]
    assert job.instance_type == "ml.g5.2xlarge"
    line = next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if "est = HuggingFace(" in ln)
    assert job.location.line == line


def test_local_alternatives_merged_with_anything_else_are_checked(tmp_path: Path) -> None:
    text = """\
        import sys
        from sagemaker.pytorch import PyTorch

        instance_type = "local"
        if len(sys.argv) > 2:
            instance_type = "local_gpu"
        if len(sys.argv) > 3:
            print("local run")
        else:
            instance_type = sys.argv[1]
        PyTorch(entry_point="t.py", role="r", instance_count=1, instance_type=instance_type).fit()
        """
    (job,) = _jobs(tmp_path, text)
    assert isinstance(job.instance_type, Unknown)


# --- sagemaker_core shapes given to a ModelTrainer ------------------------------------------------


def test_model_trainer_reads_sagemaker_core_shapes(tmp_path: Path) -> None:
    # A notebook of aws/amazon-sagemaker-examples imports StoppingCondition from
    # sagemaker_core.main.shapes (what sagemaker.modules.configs re-exports): the max runtime was
    # "result of StoppingCondition(...)", FIN101/FIN102 undetermined.
    (job,) = _jobs(
        tmp_path,
        """\
        from sagemaker_core.main.shapes import CheckpointConfig, OutputDataConfig, StoppingCondition
        from sagemaker_core.shapes import StoppingCondition as CoreStopping
        from sagemaker.modules.train.model_trainer import ModelTrainer

        trainer = ModelTrainer(
            training_image="img",
            output_data_config=OutputDataConfig(s3_output_path="s3://b/o"),
            stopping_condition=StoppingCondition(max_runtime_in_seconds=600, max_wait_time_in_seconds=1200),
            checkpoint_config=CheckpointConfig(s3_uri="s3://b/ckpt"),
        )
        trainer.train()
        """,
    )
    assert job.max_runtime_s == 600 and job.max_wait_s == 1200
    assert job.checkpoint_s3_uri == "s3://b/ckpt"
    assert job.line_of("max_runtime_s") == 8  # the stopping_condition= line


def test_other_sagemaker_core_classes_are_not_sdk_configs(tmp_path: Path) -> None:
    # only the shapes a ModelTrainer takes as they are; a look-alike name from elsewhere is not
    (job,) = _jobs(
        tmp_path,
        """\
        from mylib.shapes import StoppingCondition
        from sagemaker.modules.train.model_trainer import ModelTrainer

        trainer = ModelTrainer(
            training_image="img", stopping_condition=StoppingCondition(max_runtime_in_seconds=600)
        )
        trainer.train()
        """,
    )
    assert isinstance(job.max_runtime_s, Unknown)
