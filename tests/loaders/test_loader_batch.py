"""AWS Batch: job definitions (CloudFormation, Terraform, API) and compute environments (API)."""

from __future__ import annotations

from pathlib import Path

from finlint import ir
from finlint.loaders import DocContext, batch_api
from finlint.loaders.common.yamlload import load_all
from finlint.options import ScanOptions
from finlint.scan import lint

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures" / "aws-batch"


def records(path: Path) -> list[ir.Record]:
    return list(lint(ScanOptions(paths=[path], display_root=ROOT)).records)


def jobs(path: Path) -> dict[str, ir.TrainingJob]:
    return {r.address: r for r in records(path) if isinstance(r, ir.TrainingJob)}


def test_cloudformation_job_definitions() -> None:
    found = jobs(FIX / "bad" / "batch-stack.yaml")
    assert set(found) == {"TrainJobDef", "MnpJobDef"}  # the CPU job definition is not training
    train, mnp = found["TrainJobDef"], found["MnpJobDef"]
    assert train.launcher == "aws-batch" and train.max_runtime_s is None and train.extra["gpus_per_node"] == 8
    assert mnp.max_runtime_s == 86400 and mnp.line_of("max_runtime_s") == 24
    assert mnp.instance_count == 4 and mnp.instance_type == "p4d.24xlarge"
    assert isinstance(mnp.extra["gpus_per_node"], ir.Unknown)  # !Ref without a default


def test_terraform_job_definitions() -> None:
    found = jobs(FIX / "bad" / "main.tf")
    train = found["aws_batch_job_definition.train"]
    assert train.max_runtime_s is None and train.extra["gpus_per_node"] == 8
    capped = found["aws_batch_job_definition.capped"]
    assert capped.max_runtime_s == 43200 and capped.line_of("max_runtime_s") == 21
    mnp = found["aws_batch_job_definition.mnp"]
    assert (
        mnp.instance_count == 2 and mnp.instance_type == "p5.48xlarge" and mnp.line_of("instance_count") == 31
    )


def test_api_requests() -> None:
    found = jobs(FIX / "bad" / "register-job-definition.json")
    (job,) = found.values()
    assert job.address == "JobDefinition/llm-finetune" and job.source_format == "aws-batch-api"
    assert job.max_runtime_s is None and job.extra["gpus_per_node"] == 8
    pools = [
        r for r in records(FIX / "bad" / "create-compute-environment.json") if isinstance(r, ir.ComputePool)
    ]
    (pool,) = pools
    assert pool.min_size == 1 and pool.max_size == 4 and pool.instance_types == ("p5.48xlarge",)
    assert pool.line_of("min_size") == 7 and pool.capacity_types == ("on-demand",)


def test_cpu_job_definition_and_other_json_are_not_claimed() -> None:
    assert not jobs(FIX / "good" / "cpu-job-definition.json")
    assert not batch_api.claims({"jobDefinitionName": "x"})
    assert not batch_api.claims({"computeEnvironmentName": "x", "computeResources": "no"})


def test_bad_values_are_unknown_not_errors() -> None:
    (doc,) = load_all(
        '{"jobDefinitionName": "x", "timeout": {"attemptDurationSeconds": "soon"},'
        ' "containerProperties": {"resourceRequirements": [{"type": "GPU", "value": "1"}]}}',
        is_json=True,
    )
    result = batch_api.load(doc, DocContext(file="x.json"))
    (job,) = result.records
    assert isinstance(job, ir.TrainingJob) and isinstance(job.max_runtime_s, ir.Unknown)


def test_terraform_plan_job_definitions() -> None:
    found = jobs(FIX / "bad" / "plan" / "plan.json")
    assert found["aws_batch_job_definition.plan_train"].max_runtime_s is None  # "timeout": [] is absent
    assert found["aws_batch_job_definition.plan_capped"].max_runtime_s == 3600


def test_terraform_container_properties_block_form(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(
        'resource "aws_batch_job_definition" "blk" {\n  name = "blk"\n  type = "container"\n'
        '  container_properties {\n    image = "busybox"\n'
        '    resource_requirements {\n      type  = "GPU"\n      value = "1"\n    }\n  }\n'
        "  timeout {\n    attempt_duration_seconds = 600\n  }\n}\n",
        encoding="utf-8",
    )
    (job,) = jobs(tmp_path).values()
    assert job.extra["gpus_per_node"] == 1 and job.max_runtime_s == 600 and job.line_of("max_runtime_s") == 12


def test_efs_volume_and_checkpoint_path_of_a_job_definition() -> None:
    """Issue 27: ``volumes[].efsVolumeConfiguration`` at its ``mountPoints[].containerPath`` is an
    EFS mount of the job; the command's ``--checkpoint-dir`` under it is FIN401's."""
    job = jobs(FIX / "bad" / "efs-job-definition.json")["JobDefinition/llm-train-efs"]
    (mount,) = job.file_system_mounts
    assert (mount.volume, mount.mount_path, mount.file_system_ref, mount.is_efs) == (
        "shared",
        "/mnt/efs",
        "fs-0123456789abcdef0",
        True,
    )
    assert mount.line == 14
    assert job.checkpoint_local_path == "/mnt/efs/ckpt" and job.line_of("checkpoint_local_path") == 6


def test_efs_volume_not_mounted_and_placeholder_paths(tmp_path: Path) -> None:
    """A volume no mount point uses is no mount; an environment path that is a placeholder is
    no checkpoint path (never guessed)."""
    (tmp_path / "jd.json").write_text(
        '{"jobDefinitionName": "j", "containerProperties": {"resourceRequirements": '
        '[{"type": "GPU", "value": "1"}], "volumes": [{"name": "v", "efsVolumeConfiguration": '
        '{"fileSystemId": "fs-1"}}], "environment": [{"name": "CKPT_DIR", "value": "${CKPT}"}]}}'
    )
    job = jobs(tmp_path / "jd.json")["JobDefinition/j"]
    assert job.file_system_mounts == () and job.checkpoint_local_path is None


def test_job_queue_links_a_job_definition_to_its_spot_compute_environment() -> None:
    """Issue 27: the template's one job queue names its compute environment by ``!Ref``; the GPU
    job definition of the same template runs there: its instance type and spot capacity."""
    found = records(FIX / "bad" / "spot-queue-stack.yaml")
    (queue,) = [r for r in found if isinstance(r, ir.JobQueue)]
    assert queue.name == "train-spot" and queue.compute_environments == ("SpotCE",)
    assert queue.line_of("compute_environments") == 23
    job = jobs(FIX / "bad" / "spot-queue-stack.yaml")["FinetuneJobDef"]
    assert job.instance_type == "p4d.24xlarge" and job.capacity_spot is True and job.spot is None
    assert job.line_of("capacity_spot") == job.location.line == 26
    source = job.value_source("instance_type")
    assert source is not None and source.line == 16


def test_api_job_queue_across_files_by_arn() -> None:
    folder = FIX / "good" / "api-queue"
    job = jobs(folder)["JobDefinition/pretrain"]
    assert job.instance_type == "p4d.24xlarge" and job.capacity_spot is True
    assert job.checkpoint_local_path == "/scratch/ckpt"  # a checkpoint path: FIN201 stays quiet
    assert {Path(p).name for p in job.inputs} == {"create-compute-environment.json", "create-job-queue.json"}


TF_QUEUE = """
resource "aws_batch_compute_environment" "spot" {
  compute_environment_name = "gpu-spot"
  type = "MANAGED"
  compute_resources {
    type = "SPOT"
    instance_type = ["p4d.24xlarge"]
    max_vcpus = 384
    subnets = ["subnet-1"]
  }
}
resource "aws_batch_compute_environment" "od" {
  compute_environment_name = "gpu-od"
  type = "MANAGED"
  compute_resources {
    type = "EC2"
    instance_type = ["p4d.24xlarge"]
    max_vcpus = 384
    subnets = ["subnet-1"]
  }
}
resource "aws_batch_job_queue" "train" {
  name = "train"
  priority = 1
  state = "ENABLED"
  compute_environment_order {
    order = 1
    compute_environment = aws_batch_compute_environment.spot.arn
  }
}
resource "aws_batch_job_definition" "train" {
  name = "train"
  type = "container"
  container_properties = jsonencode({
    image = "x"
    resourceRequirements = [{ type = "GPU", value = "8" }]
  })
}
"""


def test_terraform_job_queue_reference_and_list_form(tmp_path: Path) -> None:
    (tmp_path / "main.tf").write_text(TF_QUEUE)
    job = jobs(tmp_path)["aws_batch_job_definition.train"]
    assert job.capacity_spot is True and job.instance_type == "p4d.24xlarge"
    mixed = TF_QUEUE.replace(
        """  compute_environment_order {
    order = 1
    compute_environment = aws_batch_compute_environment.spot.arn
  }""",
        "  compute_environments = [\n    aws_batch_compute_environment.spot.arn,\n"
        "    aws_batch_compute_environment.od.arn,\n  ]",
    )
    (tmp_path / "main.tf").write_text(mixed)
    found = records(tmp_path)
    (queue,) = [r for r in found if isinstance(r, ir.JobQueue)]
    assert queue.compute_environments == (
        "aws_batch_compute_environment.spot",
        "aws_batch_compute_environment.od",
    )
    job = jobs(tmp_path)["aws_batch_job_definition.train"]
    assert isinstance(job.capacity_spot, ir.Unknown) and "mixes" in job.capacity_spot.reason


def test_two_queues_or_an_unscanned_environment_link_nothing(tmp_path: Path) -> None:
    """Which of two queues a job definition is submitted to is not in the template: no guess."""
    second = TF_QUEUE + 'resource "aws_batch_job_queue" "other" {\n  name = "other"\n  priority = 1\n}\n'
    (tmp_path / "main.tf").write_text(second)
    job = jobs(tmp_path)["aws_batch_job_definition.train"]
    assert job.capacity_spot is None and job.instance_type is None
    elsewhere = TF_QUEUE.replace(
        "aws_batch_compute_environment.spot.arn", '"arn:aws:batch:us-east-1:1:compute-environment/absent"'
    )
    (tmp_path / "main.tf").write_text(elsewhere)
    job = jobs(tmp_path)["aws_batch_job_definition.train"]
    assert job.capacity_spot is None and job.instance_type is None


def test_submit_job_timeout_is_the_job_definitions_limit() -> None:
    """Issue 27: ``batch.submit_job(jobDefinition="llm-eval:2", timeout=...)`` with literal names
    limits the scanned job definition it names; the submission itself is no record."""
    found = records(FIX / "good" / "submit")
    (job,) = [r for r in found if isinstance(r, ir.TrainingJob)]
    assert job.address == "JobDefinition/llm-eval" and job.max_runtime_s == 7200
    assert job.batch_job_queue == "gpu-eval" and "max_runtime_s" not in job.attr_lines
    source = job.value_source("max_runtime_s")
    assert source is not None and Path(source.file).name == "launch_eval.py" and source.line == 16
    assert [Path(p).name for p in job.inputs] == ["launch_eval.py"]


def test_submit_job_variable_definition_or_other_names_do_not_apply(tmp_path: Path) -> None:
    (tmp_path / "jd.json").write_text(
        '{"jobDefinitionName": "train", "containerProperties": {"resourceRequirements": '
        '[{"type": "GPU", "value": "8"}]}}'
    )
    (tmp_path / "go.py").write_text(
        "import boto3\nb = boto3.client('batch')\nname = 'train'\n"
        "b.submit_job(jobQueue='q', jobDefinition=name, timeout={'attemptDurationSeconds': 60})\n"
        "b.submit_job(jobQueue='q', jobDefinition='other', timeout={'attemptDurationSeconds': 60})\n"
    )
    found = records(tmp_path)
    (job,) = [r for r in found if isinstance(r, ir.TrainingJob)]
    assert job.max_runtime_s is None  # FIN101 still fires
    (tmp_path / "go.py").write_text(
        "import boto3\nb = boto3.client('batch')\n"
        "b.submit_job(jobQueue='q', jobDefinition='train', timeout={'attemptDurationSeconds': 60})\n"
        "b.submit_job(jobQueue='q', jobDefinition='arn:aws:batch:us-east-1:1:job-definition/train:4')\n"
    )
    job = jobs(tmp_path)["JobDefinition/train"]
    assert isinstance(job.max_runtime_s, ir.Alternatives) and set(job.max_runtime_s.options) == {60, None}


def test_optimal_or_family_environment_links_spot_but_no_instance_type(tmp_path: Path) -> None:
    """``optimal``/``p4d`` admit any size: no instance type is linked (never "any size" noise),
    the spot capacity still is."""
    (tmp_path / "main.tf").write_text(
        TF_QUEUE.replace('instance_type = ["p4d.24xlarge"]', 'instance_type = ["optimal"]', 1)
    )
    job = jobs(tmp_path)["aws_batch_job_definition.train"]
    assert job.instance_type is None and job.capacity_spot is True


def test_a_broken_job_queue_request_is_a_parse_error(tmp_path: Path) -> None:
    (tmp_path / "queue.json").write_text('{"jobQueueName": "q", "computeEnvironmentOrder": [\n')
    result = lint(ScanOptions(paths=[tmp_path], display_root=tmp_path))
    assert [f.rule_id for f in result.findings] == ["FIN000"]
