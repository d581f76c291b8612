"""SageMaker API-spec loader: requests, Step Functions ASL, pipeline definitions, HyperPod."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from finlint import ir
from finlint.loaders import DocContext, document_loader_for
from finlint.loaders import sagemaker_api as sm
from finlint.loaders.common.yamlload import load_all

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "sagemaker-api"


def load_text(text: str, file: str = "spec.json", **ctx: Any) -> ir.LoadResult:
    docs = load_all(text, is_json=file.endswith(".json"))
    result = ir.LoadResult()
    for index, doc in enumerate(docs):
        assert sm.claims(doc), f"document {index} of {file} not claimed"
        result.extend(sm.load(doc, DocContext(file=file, doc_index=index, **ctx)))
    return result


def load_fixture(rel: str) -> ir.LoadResult:
    path = FIX / rel
    return load_text(path.read_text("utf-8"), f"fixtures/sagemaker-api/{rel}")


def only_job(result: ir.LoadResult) -> ir.TrainingJob:
    assert not result.errors
    assert len(result.records) == 1
    job = result.records[0]
    assert isinstance(job, ir.TrainingJob)
    return job


def jobs_by_address(result: ir.LoadResult) -> dict[str, ir.TrainingJob]:
    return {r.address: r for r in result.records if isinstance(r, ir.TrainingJob)}


# ---------------------------------------------------------------------------------------------
# CreateTrainingJob requests
# ---------------------------------------------------------------------------------------------


def test_request_without_stopping_condition() -> None:
    job = only_job(load_fixture("bad/request-no-stopping-condition.json"))
    assert job.address == "bert-finetune-2024-06-01"
    assert job.name == "bert-finetune-2024-06-01"
    assert (job.launcher, job.source_format) == ("api-request", "sagemaker-api")
    assert job.location == ir.Location("fixtures/sagemaker-api/bad/request-no-stopping-condition.json", 1, 28)
    assert job.max_runtime_s is None
    assert job.max_runtime_default_s == 86400
    assert "1-day (86,400 s) default" in str(job.default_note)
    assert "max_runtime_s" not in job.attr_lines
    assert (job.instance_type, job.instance_count, job.volume_size_gb) == ("ml.g5.12xlarge", 1, 100)
    assert job.attr_lines == {
        "name": 2,
        "instance_type": 24,
        "instance_count": 25,
        "volume_size_gb": 26,
        "training_image": 4,
    }
    assert str(job.training_image).endswith("/pytorch-training:2.3.0-gpu-py311-cu121-ubuntu20.04-sagemaker")
    assert job.spot is None and job.checkpoint_s3_uri is None
    assert job.file_system_mounts == ()  # an S3 channel is not a mount


def test_yaml_request_spot_without_checkpoint() -> None:
    job = only_job(load_fixture("bad/spot-no-checkpoint.yaml"))
    assert job.location.line == 3  # the mapping starts after the comment lines
    assert job.location.end_line == 17
    assert job.spot is True and job.attr_lines["spot"] == 14
    assert (job.max_runtime_s, job.max_wait_s) == (86400, 172800)
    assert (job.attr_lines["max_runtime_s"], job.attr_lines["max_wait_s"]) == (16, 17)
    assert job.checkpoint_s3_uri is None and job.checkpoint_local_path is None
    assert job.checkpoint_local_path_default == "/opt/ml/checkpoints"


def test_spot_checkpoint_without_local_path() -> None:
    job = only_job(load_fixture("bad/spot-checkpoint-no-local-path.json"))
    assert job.checkpoint_s3_uri == "s3://example-ml-artifacts/resnet50/checkpoints/"
    assert job.attr_lines["checkpoint_s3_uri"] == 22
    assert job.checkpoint_local_path is None
    assert "checkpoint_local_path" not in job.attr_lines


def test_p5_two_hour_request() -> None:
    job = only_job(load_fixture("bad/p5-two-hours.json"))
    assert (job.instance_type, job.instance_count, job.max_runtime_s) == ("ml.p5.48xlarge", 1, 7200)
    assert (job.attr_lines["instance_type"], job.attr_lines["max_runtime_s"]) == (12, 17)


def test_numbers_as_strings_and_fsx_mount() -> None:
    job = only_job(load_fixture("good/request-complete.json"))
    assert job.max_runtime_s == 14400 and job.attr_lines["max_runtime_s"] == 45
    assert job.volume_size_gb == 100
    assert job.keep_alive_s == 600 and job.attr_lines["keep_alive_s"] == 38
    assert job.file_system_mounts == (
        ir.Mount(
            volume="FSxLustre",
            mount_path="/opt/ml/input/data/reference",
            file_system_ref="fs-0123456789abcdef0",
            line=22,
            is_efs=False,
        ),
    )


def test_efs_channel_mount() -> None:
    job = only_job(load_fixture("bad/efs-checkpoint-channel.json"))
    (mount,) = job.file_system_mounts
    assert (mount.volume, mount.is_efs, mount.file_system_ref) == ("EFS", True, "fs-0abc1234def567890")
    assert mount.mount_path == "/opt/ml/input/data/shared" and mount.line == 12
    assert job.checkpoint_local_path == "/opt/ml/input/data/shared/run-42"


def test_good_fixtures_load_cleanly() -> None:
    assert (
        only_job(load_fixture("good/spot-with-checkpoints.yaml")).checkpoint_local_path
        == "/opt/ml/checkpoints"
    )
    job = only_job(load_fixture("good/p5-16x-five-days.json"))
    assert (job.instance_count, job.max_runtime_s) == (16, 432000)


def test_templated_and_invalid_values_are_unknown() -> None:
    text = """
TrainingJobName: "train-{{ ds }}"
RoleArn: arn:aws:iam::111122223333:role/r
ResourceConfig:
  InstanceType: ${INSTANCE_TYPE}
  InstanceCount: four
  VolumeSizeInGB: 30.0
StoppingCondition:
  MaxRuntimeInSeconds: "{{ max_run }}"
EnableManagedSpotTraining: "True"
CheckpointConfig: !If [UseCkpt, {S3Uri: s3://b/c}, !Ref AWS::NoValue]
"""
    job = only_job(load_text(text, "jobs/nightly.yaml"))
    assert job.address == "nightly"  # the name is templated: the file stem is stable
    assert isinstance(job.name, ir.Unknown)
    assert isinstance(job.instance_type, ir.Unknown) and job.attr_lines["instance_type"] == 5
    assert isinstance(job.instance_count, ir.Unknown) and "not an integer" in job.instance_count.reason
    assert job.volume_size_gb == 30
    assert isinstance(job.max_runtime_s, ir.Unknown) and job.attr_lines["max_runtime_s"] == 9
    assert job.spot is True
    assert isinstance(job.checkpoint_s3_uri, ir.Unknown)
    assert isinstance(job.checkpoint_local_path, ir.Unknown)
    assert job.attr_lines["checkpoint_s3_uri"] == 11


def test_block_of_wrong_type_is_a_load_error() -> None:
    text = (
        '{\n "TrainingJobName": "x",\n "ResourceConfig": {"InstanceType": "ml.g5.xlarge"},\n'
        ' "StoppingCondition": 3600\n}'
    )
    result = load_text(text)
    assert [(e.line, e.message) for e in result.errors] == [(4, "StoppingCondition must be an object")]
    (job,) = result.records
    assert isinstance(job, ir.TrainingJob) and isinstance(job.max_runtime_s, ir.Unknown)


def test_instance_groups_take_the_most_accelerated_group() -> None:
    text = """{
  "TrainingJobName": "hetero",
  "RoleArn": "arn:aws:iam::111122223333:role/r",
  "ResourceConfig": {
    "InstanceGroups": [
      {"InstanceGroupName": "cpu", "InstanceType": "ml.c5.18xlarge", "InstanceCount": 4},
      {"InstanceGroupName": "gpu", "InstanceType": "ml.p5.48xlarge", "InstanceCount": 2}
    ],
    "VolumeSizeInGB": 50
  },
  "StoppingCondition": {"MaxRuntimeInSeconds": 3600}
}"""
    job = only_job(load_text(text))
    assert (job.instance_type, job.instance_count) == ("ml.p5.48xlarge", 2)
    assert (job.attr_lines["instance_type"], job.attr_lines["instance_count"]) == (7, 7)
    assert job.extra["instance_groups"] == [
        {"name": "cpu", "instance_type": "ml.c5.18xlarge", "instance_count": 4},
        {"name": "gpu", "instance_type": "ml.p5.48xlarge", "instance_count": 2},
    ]


def test_instance_group_with_unknown_type_makes_the_job_type_unknown() -> None:
    req = {
        "TrainingJobName": "hetero",
        "ResourceConfig": {
            "InstanceGroups": [
                {"InstanceGroupName": "a", "InstanceType": "ml.g5.xlarge", "InstanceCount": 1},
                {"InstanceGroupName": "b", "InstanceType": ir.Unknown("var"), "InstanceCount": 1},
            ]
        },
    }
    job = sm.training_job_from_request(
        req, DocContext(file="x.py"), launcher="api-request", address="a", source_format="python"
    )
    assert isinstance(job.instance_type, ir.Unknown)


def test_training_plan_is_read() -> None:
    req = {
        "TrainingJobName": "planned",
        "ResourceConfig": {
            "InstanceType": "ml.p5.48xlarge",
            "InstanceCount": 1,
            "TrainingPlanArn": "arn:aws:sagemaker:us-east-1:111122223333:training-plan/p",
        },
    }
    job = sm.training_job_from_request(
        req, DocContext(file="x.py"), launcher="api-request", address="a", source_format="python"
    )
    assert job.training_plan == "arn:aws:sagemaker:us-east-1:111122223333:training-plan/p"


def test_multi_document_yaml_addresses_are_distinct() -> None:
    text = "RoleArn: r\nResourceConfig: {InstanceType: ml.g5.xlarge}\n---\nRoleArn: r\nResourceConfig: {}\n"
    result = load_text(text, "dir/jobs.yaml")
    assert [r.address for r in result.records] == ["jobs", "jobs#1"]
    assert [r.location.line for r in result.records] == [1, 4]


# ---------------------------------------------------------------------------------------------
# Public helpers used by other loaders
# ---------------------------------------------------------------------------------------------


def test_request_from_plain_dict_uses_fallback_line_and_keeps_unknowns() -> None:
    req = {
        "TrainingJobName": "sdk-job",
        "ResourceConfig": {"InstanceType": "ml.p5.48xlarge", "InstanceCount": "2"},
        "StoppingCondition": {"MaxRuntimeInSeconds": ir.Unknown("args.max_run")},
        "EnableManagedSpotTraining": True,
        "CheckpointConfig": {"S3Uri": "s3://b/ckpt"},
    }
    job = sm.training_job_from_request(
        req,
        DocContext(file="train.py"),
        launcher="sdk-estimator",
        address="train.py:est",
        source_format="sagemaker-sdk",
        fallback_line=42,
    )
    assert job.location == ir.Location("train.py", 42, 42)
    assert set(job.attr_lines.values()) == {42}
    assert (job.launcher, job.source_format, job.address) == (
        "sdk-estimator",
        "sagemaker-sdk",
        "train.py:est",
    )
    assert job.instance_count == 2
    assert job.max_runtime_s == ir.Unknown() and job.max_runtime_s.reason == "args.max_run"
    assert job.checkpoint_s3_uri == "s3://b/ckpt" and job.checkpoint_local_path is None


def test_request_from_linedict_applies_line_offset() -> None:
    (doc,) = load_all('{"RoleArn": "r",\n "ResourceConfig": {"InstanceType": "ml.g5.xlarge"}}', is_json=True)
    job = sm.training_job_from_request(
        doc,
        DocContext(file="main.tf", line_offset=10),
        launcher="terraform",
        address="x",
        source_format="terraform",
    )
    assert job.location == ir.Location("main.tf", 11, 12)
    assert job.attr_lines == {"instance_type": 12}


def test_request_without_lines_or_fallback_uses_line_1() -> None:
    job = sm.training_job_from_request(
        {"ResourceConfig": {"InstanceType": "ml.g5.xlarge"}},
        DocContext(file="f"),
        launcher="api-request",
        address="a",
        source_format="sagemaker-api",
    )
    assert job.location.line == 1 and job.attr_lines == {"instance_type": 1}


# ---------------------------------------------------------------------------------------------
# Step Functions
# ---------------------------------------------------------------------------------------------


def test_asl_parallel_branches() -> None:
    result = load_fixture("bad/parallel-branch.asl.json")
    jobs = jobs_by_address(result)
    assert sorted(jobs) == ["TrainBaseline", "TrainCandidate"]
    cand = jobs["TrainCandidate"]
    assert (cand.launcher, cand.source_format) == ("step-functions", "step-functions")
    assert cand.location.line == 32 and cand.location.end_line == 47
    assert cand.spot is True and cand.attr_lines["spot"] == 44
    assert cand.max_runtime_s is None and cand.max_runtime_default_s == 86400
    assert cand.checkpoint_s3_uri is None
    assert isinstance(cand.name, ir.Unknown) and cand.attr_lines["name"] == 36
    assert cand.extra["state_path"] == "TrainVariants/Branches[1]/TrainCandidate"
    base = jobs["TrainBaseline"]
    assert (base.max_runtime_s, base.attr_lines["max_runtime_s"]) == (3600, 23)


def test_asl_dynamic_fields_are_unknown() -> None:
    job = only_job(load_fixture("good/dynamic-instance-type.asl.json"))
    assert job.address == "Train"
    assert isinstance(job.instance_type, ir.Unknown) and "$.instanceType" in job.instance_type.reason
    assert job.attr_lines["instance_type"] == 17
    assert job.instance_count == 1
    assert isinstance(job.max_runtime_s, ir.Unknown) and job.attr_lines["max_runtime_s"] == 21
    assert isinstance(job.max_wait_s, ir.Unknown)


ASL_VARIANTS = """
StartAt: Fan
QueryLanguage: JSONPath
States:
  Fan:
    Type: Map
    ItemProcessor:
      ProcessorConfig: {Mode: INLINE}
      StartAt: TrainItem
      States:
        TrainItem:
          Type: Task
          Resource: arn:${AWS::Partition}:states:::sagemaker:createTrainingJob.waitForTaskToken
          Parameters:
            ResourceConfig: {InstanceType: ml.g5.xlarge, InstanceCount: 1}
            StoppingCondition: {MaxRuntimeInSeconds: 600}
          End: true
    Next: Legacy
  Legacy:
    Type: Map
    Iterator:
      StartAt: TrainOld
      States:
        TrainOld:
          Type: Task
          Resource: !Sub arn:${AWS::Partition}:states:::sagemaker:createTrainingJob
          Parameters:
            ResourceConfig: {InstanceType: ml.g5.xlarge}
          End: true
    Next: Lambda
  Lambda:
    Type: Task
    Resource: arn:aws:states:::lambda:invoke
    Parameters: {FunctionName: f}
    Next: Tune
  Tune:
    Type: Task
    Resource: arn:aws:states:::sagemaker:createHyperParameterTuningJob.sync
    Parameters:
      HyperParameterTuningJobName: tune
      HyperParameterTuningJobConfig:
        Strategy: Bayesian
        ResourceLimits: {MaxNumberOfTrainingJobs: 20, MaxParallelTrainingJobs: 2}
      TrainingJobDefinition:
        ResourceConfig: {InstanceType: ml.g5.2xlarge, InstanceCount: 1}
        StoppingCondition: {MaxRuntimeInSeconds: 1800}
    Next: Jsonata
  Jsonata:
    Type: Task
    QueryLanguage: JSONata
    Resource: arn:${Partition}:states:::sagemaker:createTrainingJob.sync
    Arguments:
      TrainingJobName: "{% 'job-' & $states.context.Execution.Name %}"
      ResourceConfig: {InstanceType: "{% $states.input.type %}", InstanceCount: 2}
    Next: WholeArgs
  WholeArgs:
    Type: Task
    QueryLanguage: JSONata
    Resource: arn:aws-us-gov:states:::sagemaker:createTrainingJob.sync
    Arguments: "{% $states.input.request %}"
    End: true
"""


def test_asl_map_iterators_partitions_tuning_and_jsonata() -> None:
    jobs = jobs_by_address(load_text(ASL_VARIANTS, "sfn/train.asl.yaml", address_prefix="sm/"))
    assert sorted(jobs) == ["sm/Jsonata", "sm/TrainItem", "sm/TrainOld", "sm/Tune", "sm/WholeArgs"]
    item = jobs["sm/TrainItem"]
    assert (item.max_runtime_s, item.attr_lines["max_runtime_s"], item.location.line) == (600, 16, 11)
    assert jobs["sm/TrainOld"].max_runtime_s is None
    tune = jobs["sm/Tune"]
    assert (tune.runs_multiplier, tune.attr_lines["runs_multiplier"]) == (20, 43)
    assert (tune.instance_type, tune.max_runtime_s) == ("ml.g5.2xlarge", 1800)
    jsonata = jobs["sm/Jsonata"]
    assert isinstance(jsonata.instance_type, ir.Unknown) and jsonata.instance_count == 2
    assert isinstance(jsonata.name, ir.Unknown)
    assert jsonata.max_runtime_s is None  # absent in Arguments, not dynamic
    whole = jobs["sm/WholeArgs"]
    for value in (whole.instance_type, whole.max_runtime_s, whole.spot, whole.checkpoint_s3_uri):
        assert isinstance(value, ir.Unknown)


def test_asl_ignores_other_tasks_and_unknown_resources() -> None:
    text = json.dumps(
        {
            "StartAt": "A",
            "States": {
                "A": {
                    "Type": "Task",
                    "Resource": "arn:aws:states:::sagemaker:createTransformJob.sync",
                    "Next": "B",
                },
                "B": {"Type": "Task", "Resource": "${TrainResourceArn}", "Next": "C"},
                "C": {"Type": "Pass", "End": True},
            },
        }
    )
    result = load_text(text, "x.asl.json")
    assert result.records == [] and result.errors == []


def test_training_jobs_from_asl_plain_dict_fallback_line() -> None:
    asl = {
        "StartAt": "Train",
        "States": {
            "Train": {
                "Type": "Task",
                "Resource": "arn:aws:states:::sagemaker:createTrainingJob.sync",
                "Parameters": {
                    "ResourceConfig": {"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1},
                    "StoppingCondition": {"MaxRuntimeInSeconds": "${MaxRuntime}"},
                },
                "End": True,
            }
        },
    }
    (job,) = sm.training_jobs_from_asl(
        asl, DocContext(file="template.yaml"), "StateMachine/", fallback_line=12
    )
    assert job.address == "StateMachine/Train"
    assert job.location == ir.Location("template.yaml", 12, 12)
    assert set(job.attr_lines.values()) == {12}
    assert isinstance(job.max_runtime_s, ir.Unknown)  # an unresolved ${...} substitution
    assert job.instance_type == "ml.p5.48xlarge"


# ---------------------------------------------------------------------------------------------
# Pipeline definitions
# ---------------------------------------------------------------------------------------------


def test_pipeline_parameter_default_resolves() -> None:
    job = only_job(load_fixture("bad/pipeline-p5-parameter-default.json"))
    assert job.address == "TrainChurnModel"
    assert (job.launcher, job.source_format) == ("pipeline-step", "sagemaker-pipeline")
    assert job.location.line == 14
    assert (job.instance_type, job.attr_lines["instance_type"]) == ("ml.p5.48xlarge", 27)
    assert (job.instance_count, job.max_runtime_s) == (1, 3600)
    assert job.extra["resolved_from"]["instance_type"] == "Parameters.TrainingInstanceType default (line 5)"


def test_pipeline_parameter_without_default_is_unknown() -> None:
    job = only_job(load_fixture("good/pipeline-parameter-without-default.json"))
    assert isinstance(job.instance_type, ir.Unknown) and "has no default" in job.instance_type.reason
    assert job.max_runtime_s == 7200  # an Integer parameter's default


PIPELINE_NESTED = {
    "Version": "2020-12-01",
    "Parameters": [{"Name": "Spot", "Type": "Boolean", "DefaultValue": True}],
    "Steps": [
        {"Name": "Prep", "Type": "Processing", "Arguments": {}},
        {
            "Name": "CheckAccuracy",
            "Type": "Condition",
            "Arguments": {
                "Conditions": [],
                "IfSteps": [
                    {
                        "Name": "Tune",
                        "Type": "Tuning",
                        "Arguments": {
                            "HyperParameterTuningJobConfig": {
                                "ResourceLimits": {
                                    "MaxNumberOfTrainingJobs": 50,
                                    "MaxParallelTrainingJobs": 5,
                                }
                            },
                            "TrainingJobDefinition": {
                                "ResourceConfig": {
                                    "InstanceType": {
                                        "Std:Join": {"On": "", "Values": ["ml.", "p5.48xlarge"]}
                                    },
                                    "InstanceCount": 1,
                                },
                                "EnableManagedSpotTraining": {"Get": "Parameters.Spot"},
                                "StoppingCondition": {"MaxRuntimeInSeconds": {"Get": "Steps.Prep.Foo"}},
                            },
                        },
                    }
                ],
                "ElseSteps": [{"Name": "Retrain", "Type": "Training", "Arguments": {"ResourceConfig": {}}}],
            },
        },
    ],
}


def test_pipeline_condition_and_tuning_steps() -> None:
    text = json.dumps(PIPELINE_NESTED, indent=1)
    jobs = jobs_by_address(load_text(text, "pipeline.json"))
    assert sorted(jobs) == ["Retrain", "Tune"]
    tune = jobs["Tune"]
    assert tune.runs_multiplier == 50
    assert tune.spot is True
    assert isinstance(tune.instance_type, ir.Unknown) and "Std:Join" in tune.instance_type.reason
    assert isinstance(tune.max_runtime_s, ir.Unknown)
    lines = text.splitlines()
    assert lines[tune.attr_lines["runs_multiplier"] - 1].strip().startswith('"MaxNumberOfTrainingJobs"')
    assert (
        lines[tune.location.line - 1].strip() == "{"
        and lines[tune.location.line].strip() == '"Name": "Tune",'
    )


# ---------------------------------------------------------------------------------------------
# HyperPod
# ---------------------------------------------------------------------------------------------


def test_hyperpod_instance_groups() -> None:
    result = load_fixture("good/hyperpod-training-plan.json")
    pools = {r.address: r for r in result.records}
    assert sorted(pools) == ["llm-hyperpod/controller", "llm-hyperpod/workers"]
    workers = pools["llm-hyperpod/workers"]
    assert isinstance(workers, ir.ComputePool)
    assert workers.pool_kind == "hyperpod-instance-group" and workers.source_format == "sagemaker-api"
    assert workers.instance_types == ("ml.p5.48xlarge",)
    assert (workers.min_size, workers.desired_size, workers.max_size) == (4, 4, 4)
    assert workers.capacity_reservation is True and workers.attr_lines["capacity_reservation"] == 25
    assert workers.location == ir.Location("fixtures/sagemaker-api/good/hyperpod-training-plan.json", 15, 26)
    controller = pools["llm-hyperpod/controller"]
    assert isinstance(controller, ir.ComputePool) and controller.capacity_reservation is None


def test_hyperpod_without_plan_yaml() -> None:
    (pool,) = load_fixture("good/hyperpod-p5-no-plan.yaml").records
    assert isinstance(pool, ir.ComputePool)
    assert pool.address == "research-sandbox/gpu-workers"
    assert (pool.instance_types, pool.min_size, pool.capacity_reservation) == (("ml.p5.48xlarge",), 2, None)
    assert (pool.attr_lines["instance_types"], pool.attr_lines["min_size"]) == (7, 8)


# ---------------------------------------------------------------------------------------------
# Detection
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", sorted(p.relative_to(FIX).as_posix() for p in FIX.rglob("*.*") if p.suffix != ".md")
)
def test_every_fixture_is_claimed_without_errors(path: str) -> None:
    result = load_fixture(path)
    assert result.records and not result.errors


NOT_CLAIMED = {
    "package.json": '{"name": "web", "version": "1.0.0", "scripts": {"test": "jest"}, "dependencies": {}}',
    "workflow.yaml": "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n"
    "      - uses: actions/checkout@v4\n      - run: make test\n",
    "cfn.yaml": "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  SM:\n"
    "    Type: AWS::StepFunctions::StateMachine\n    Properties:\n      Definition:\n"
    "        StartAt: A\n        States: {A: {Type: Pass, End: true}}\n",
    "cfn-cluster.json": '{"Resources": {}, "ClusterName": "c", "InstanceGroups": '
    '[{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1}]}',
    "k8s.yaml": "apiVersion: sagemaker.services.k8s.aws/v1alpha1\nkind: TrainingJob\nmetadata: {name: t}\n"
    "spec:\n  trainingJobName: t\n  resourceConfig: {instanceType: ml.p5.48xlarge}\n",
    "plan.json": '{"format_version": "1.2", "terraform_version": "1.8.0", "planned_values": {}}',
    "settings.json": '{"RoleArn": "arn:aws:iam::1:role/x", "Region": "us-east-1"}',
    "steps.yaml": "Version: 1\nSteps: [build, test]\n",
}


@pytest.mark.parametrize("name", sorted(NOT_CLAIMED))
def test_unrelated_documents_are_not_claimed(name: str) -> None:
    (doc,) = load_all(NOT_CLAIMED[name], is_json=name.endswith(".json"))
    assert not sm.claims(doc)


def test_document_loader_dispatch_finds_this_loader() -> None:
    (doc,) = load_all((FIX / "bad/p5-two-hours.json").read_text(), is_json=True)
    assert document_loader_for(doc) is sm


def test_tuning_job_request() -> None:
    text = """HyperParameterTuningJobName: xgb-tune
HyperParameterTuningJobConfig:
  Strategy: Bayesian
  ResourceLimits:
    MaxNumberOfTrainingJobs: "30"
    MaxParallelTrainingJobs: 3
TrainingJobDefinitions:
  - DefinitionName: small
    ResourceConfig: {InstanceType: ml.g5.xlarge, InstanceCount: 1}
    StoppingCondition: {MaxRuntimeInSeconds: 3600}
  - ResourceConfig: {InstanceType: ml.g5.2xlarge, InstanceCount: 1}
"""
    result = load_text(text, "tune.yaml")
    jobs = jobs_by_address(result)
    assert sorted(jobs) == ["xgb-tune/1", "xgb-tune/small"]
    small = jobs["xgb-tune/small"]
    assert (small.launcher, small.source_format) == ("api-request", "sagemaker-api")
    assert (small.runs_multiplier, small.attr_lines["runs_multiplier"]) == (30, 5)
    assert (small.max_runtime_s, small.attr_lines["max_runtime_s"]) == (3600, 10)
    assert jobs["xgb-tune/1"].max_runtime_s is None


# ---------------------------------------------------------------------------------------------
# End to end: the core rules fire through these formats at the right lines
# ---------------------------------------------------------------------------------------------

CORE = ("FIN000", "FIN101", "FIN201", "FIN202", "FIN301", "FIN401")
EXPECTED = {
    "fixtures/sagemaker-api/bad/request-no-stopping-condition.json": [("FIN101", 1)],
    "fixtures/sagemaker-api/bad/spot-no-checkpoint.yaml": [("FIN201", 14)],
    "fixtures/sagemaker-api/bad/spot-checkpoint-no-local-path.json": [("FIN202", 22)],
    "fixtures/sagemaker-api/bad/p5-two-hours.json": [("FIN301", 12)],
    "fixtures/sagemaker-api/bad/parallel-branch.asl.json": [("FIN101", 32), ("FIN201", 44)],
    "fixtures/sagemaker-api/bad/pipeline-p5-parameter-default.json": [("FIN301", 27)],
    "fixtures/sagemaker-api/bad/efs-checkpoint-channel.json": [("FIN401", 38)],
    "fixtures/demo/sagemaker-api/train-request.json": [("FIN101", 1)],
    "fixtures/demo/sagemaker-api/training.asl.json": [("FIN201", 17), ("FIN202", 36)],
}


def test_core_rules_end_to_end(monkeypatch: pytest.MonkeyPatch) -> None:
    from finlint.engine import EngineConfig
    from finlint.scan import ScanOptions, lint

    monkeypatch.chdir(ROOT)
    paths = [Path("fixtures/sagemaker-api"), Path("fixtures/demo/sagemaker-api")]
    result = lint(ScanOptions(paths=paths, engine=EngineConfig(select=CORE)))
    assert not result.errors
    found: dict[str, list[tuple[str, int]]] = {}
    for finding in result.findings:
        found.setdefault(finding.file, []).append((finding.rule_id, finding.line))
    assert {f: sorted(v) for f, v in found.items()} == EXPECTED  # good/ files: no finding at all


@pytest.mark.parametrize("params", [ir.Unknown("Fn::Sub piece"), "${Params}", {"Fn::If": ["C", {}, {}]}])
def test_asl_unresolvable_parameters_make_every_field_unknown(params: Any) -> None:
    asl = {
        "StartAt": "Train",
        "States": {
            "Train": {
                "Type": "Task",
                "Resource": "arn:aws:states:::sagemaker:createTrainingJob.sync",
                "Parameters": params,
                "End": True,
            }
        },
    }
    (job,) = sm.training_jobs_from_asl(asl, DocContext(file="t.yaml"), fallback_line=3)
    assert isinstance(job.max_runtime_s, ir.Unknown)  # never "missing": FIN101 must stay silent
    assert isinstance(job.spot, ir.Unknown) and isinstance(job.instance_type, ir.Unknown)


def test_pipeline_step_with_function_arguments_is_unknown() -> None:
    doc = {
        "Version": "2020-12-01",
        "Steps": [{"Name": "T", "Type": "Training", "Arguments": {"Get": "Steps.X"}}],
    }
    (job,) = sm.load(doc, DocContext(file="p.json")).records
    assert isinstance(job, ir.TrainingJob) and isinstance(job.max_runtime_s, ir.Unknown)
