"""Notebook lifecycle / Studio idle shutdown, FSx links to S3, file system users and checkpoint
buckets: what each loader supplies (CloudFormation, Terraform HCL and plan, Kubernetes) and
what the storage linking pass adds."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import scan_files

from finlint.ir import Bucket, FileSystem, Notebook, Unknown, Volume


def records(tmp_path: Path, files: dict[str, str], kind: type) -> list[Any]:
    result = scan_files(tmp_path, files, select=("FIN000",))
    assert result.errors == []
    return [r for r in result.records if isinstance(r, kind)]


CFN_NOTEBOOK = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Config:
    Type: AWS::SageMaker::NotebookInstanceLifecycleConfig
    Properties:
      NotebookInstanceLifecycleConfigName: team-config
      OnStart:
        - Content: {content}
  Nb:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.g5.xlarge
      RoleArn: arn:aws:iam::111122223333:role/R
      LifecycleConfigName: {ref}
"""


@pytest.mark.parametrize(
    ("content", "ref", "idle"),
    [
        (
            '{"Fn::Base64": "#!/bin/bash\\nIDLE_TIME=3600\\n"}',
            "!GetAtt Config.NotebookInstanceLifecycleConfigName",
            True,
        ),
        ('{"Fn::Base64": "#!/bin/bash\\npip install torch\\n"}', "team-config", False),  # found by name
        (base64.b64encode(b"python autostop.py --time 3600").decode(), "team-config", True),  # raw base64
        ('{"Fn::Base64": {"Fn::GetAtt": [X, Y]}}', "team-config", None),  # unreadable: unknown
    ],
)
def test_cfn_notebook_lifecycle_script_is_read(tmp_path: Path, content: str, ref: str, idle: Any) -> None:
    (nb,) = records(tmp_path, {"t.yaml": CFN_NOTEBOOK.format(content=content, ref=ref)}, Notebook)
    assert nb.lifecycle_config == "Config"
    if idle is None:
        assert isinstance(nb.idle_shutdown, Unknown)
    else:
        assert nb.idle_shutdown is idle
    assert nb.line_of("idle_shutdown") == 14


def test_cfn_notebook_without_config_and_with_an_external_one(tmp_path: Path) -> None:
    text = CFN_NOTEBOOK.format(content='{"Fn::Base64": "x"}', ref="other-stack-config")
    (nb,) = records(tmp_path, {"t.yaml": text}, Notebook)
    assert isinstance(nb.idle_shutdown, Unknown) and "not defined in this template" in nb.idle_shutdown.reason
    bare = text.replace("      LifecycleConfigName: other-stack-config\n", "")
    (nb,) = records(tmp_path, {"t.yaml": bare}, Notebook)
    assert nb.idle_shutdown is False and nb.lifecycle_config is None


def test_cfn_studio_domain(tmp_path: Path) -> None:
    template = (
        'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  D:\n    Type: AWS::SageMaker::Domain\n'
        "    Properties:\n      DomainName: research\n      DefaultUserSettings:\n"
        "        JupyterLabAppSettings:\n"
        "          DefaultResourceSpec: {InstanceType: ml.g6.xlarge}\n"
        "          AppLifecycleManagement:\n            IdleSettings: {LifecycleManagement: ENABLED}\n"
    )
    (nb,) = records(tmp_path, {"t.yaml": template}, Notebook)
    assert nb.notebook_kind == "studio-domain" and nb.instance_type == "ml.g6.xlarge"
    assert nb.idle_shutdown is True and nb.line_of("idle_shutdown") == 11


CFN_FSX = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Fs:
    Type: AWS::FSx::FileSystem
    Properties:
      FileSystemType: LUSTRE
      StorageCapacity: 1200
      LustreConfiguration:
        DeploymentType: SCRATCH_2
{extra}"""


def test_cfn_fsx_data_repository(tmp_path: Path) -> None:
    (fs,) = records(tmp_path, {"t.yaml": CFN_FSX.format(extra="")}, FileSystem)
    assert fs.deployment_type == "SCRATCH_2" and fs.data_repository is False
    export = "        ExportPath: s3://bucket/export\n"
    (fs,) = records(tmp_path, {"t.yaml": CFN_FSX.format(extra=export)}, FileSystem)
    assert fs.data_repository is True and fs.line_of("data_repository") == 10
    dra = (
        "  Dra:\n    Type: AWS::FSx::DataRepositoryAssociation\n    Properties:\n"
        "      FileSystemId: !Ref Fs\n      FileSystemPath: /ckpt\n      DataRepositoryPath: s3://b/ckpt\n"
    )
    (fs,) = records(tmp_path, {"t.yaml": CFN_FSX.format(extra=dra)}, FileSystem)
    assert fs.data_repository is True and fs.extra["data_repository_association"] == "Dra"


TF_NOTEBOOK = """\
resource "aws_sagemaker_notebook_instance_lifecycle_configuration" "cfg" {{
  name     = "team-config"
  on_start = {on_start}
}}

resource "aws_sagemaker_notebook_instance" "nb" {{
  name                  = "nb"
  role_arn              = "arn:aws:iam::111122223333:role/R"
  instance_type         = "ml.g5.xlarge"
  lifecycle_config_name = {ref}
}}
"""


@pytest.mark.parametrize(
    ("on_start", "ref", "idle"),
    [
        (
            'base64encode("IDLE_TIME=3600")',
            "aws_sagemaker_notebook_instance_lifecycle_configuration.cfg.name",
            True,
        ),
        ('base64encode("pip install torch")', '"team-config"', False),
        ('filebase64("${path.module}/on-start.sh")', '"team-config"', None),
    ],
)
def test_terraform_notebook_lifecycle(tmp_path: Path, on_start: str, ref: str, idle: Any) -> None:
    (nb,) = records(tmp_path, {"main.tf": TF_NOTEBOOK.format(on_start=on_start, ref=ref)}, Notebook)
    assert nb.lifecycle_config == "aws_sagemaker_notebook_instance_lifecycle_configuration.cfg"
    assert nb.line_of("idle_shutdown") == 10
    if idle is None:
        assert isinstance(nb.idle_shutdown, Unknown)
    else:
        assert nb.idle_shutdown is idle


def test_terraform_fsx_association_and_paths(tmp_path: Path) -> None:
    fsx = (
        'resource "aws_fsx_lustre_file_system" "ckpt" {\n  storage_capacity = 1200\n'
        '  subnet_ids = ["subnet-1"]\n  deployment_type = "SCRATCH_2"\n}\n'
    )
    (fs,) = records(tmp_path, {"main.tf": fsx}, FileSystem)
    assert fs.data_repository is False
    dra = (
        'resource "aws_fsx_data_repository_association" "ckpt" {\n'
        "  file_system_id = aws_fsx_lustre_file_system.ckpt.id\n"
        '  data_repository_path = "s3://b/ckpt"\n  file_system_path = "/ckpt"\n}\n'
    )
    (fs,) = records(tmp_path, {"main.tf": fsx + dra}, FileSystem)
    assert fs.data_repository is True


def test_terraform_training_job_mounts_link_the_file_system(tmp_path: Path) -> None:
    code = (
        'resource "aws_efs_file_system" "data" {\n  throughput_mode = "provisioned"\n'
        "  provisioned_throughput_in_mibps = 64\n}\n"
        'resource "aws_sagemaker_training_job" "t" {\n  training_job_name = "t"\n'
        '  resource_config {\n    instance_type = "ml.g5.xlarge"\n  }\n'
        '  input_data_config {\n    channel_name = "train"\n    data_source {\n'
        "      file_system_data_source {\n        file_system_id = aws_efs_file_system.data.id\n"
        '        file_system_type = "EFS"\n        file_system_access_mode = "ro"\n'
        '        directory_path = "/data"\n      }\n    }\n  }\n'
        '  checkpoint_config {\n    s3_uri = "s3://team-artifacts/ckpt"\n  }\n}\n'
        'resource "aws_s3_bucket" "a" {\n  bucket = "team-artifacts"\n}\n'
    )
    (tmp_path / "main.tf").write_text(code)
    result = scan_files(tmp_path, {}, select=("FIN000",))
    (fs,) = [r for r in result.records if isinstance(r, FileSystem)]
    assert fs.mounted_by == ("aws_sagemaker_training_job.t",)
    (bucket,) = [r for r in result.records if isinstance(r, Bucket)]
    assert bucket.checkpoint_jobs == ("aws_sagemaker_training_job.t",)


def test_plan_json_carries_the_notebook_lifecycle_link(tmp_path: Path) -> None:
    plan = {
        "format_version": "1.2",
        "planned_values": {
            "root_module": {
                "resources": [
                    {
                        "address": "aws_sagemaker_notebook_instance.nb",
                        "mode": "managed",
                        "type": "aws_sagemaker_notebook_instance",
                        "name": "nb",
                        "values": {
                            "name": "nb",
                            "instance_type": "ml.g5.xlarge",
                            "lifecycle_config_name": None,
                        },
                    }
                ]
            }
        },
        "configuration": {"root_module": {}},
    }
    (tmp_path / "plan.json").write_text(json.dumps(plan, indent=1))
    result = scan_files(tmp_path, {}, select=("FIN302",))
    (nb,) = [r for r in result.records if isinstance(r, Notebook)]
    assert nb.idle_shutdown is False
    assert [f.rule_id for f in result.findings] == ["FIN302"]


K8S_FSX = """\
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fsx-ckpt
provisioner: fsx.csi.aws.com
parameters:
  deploymentType: SCRATCH_2
{extra}"""


def test_kubernetes_fsx_storage_class(tmp_path: Path) -> None:
    (sc,) = records(tmp_path, {"sc.yaml": K8S_FSX.format(extra="")}, Volume)
    assert (
        sc.deployment_type == "SCRATCH_2"
        and sc.data_repository is False
        and sc.line_of("deployment_type") == 7
    )
    (sc,) = records(tmp_path, {"sc.yaml": K8S_FSX.format(extra="  s3ImportPath: s3://b\n")}, Volume)
    assert sc.data_repository is True and sc.line_of("data_repository") == 8
    (sc,) = records(tmp_path, {"sc.yaml": K8S_FSX.format(extra="  fileSystemId: fs-0123\n")}, Volume)
    assert sc.data_repository is None  # an existing file system: its links are elsewhere


def test_create_notebook_instance_request(tmp_path: Path) -> None:
    request = {
        "NotebookInstanceName": "research",
        "InstanceType": "ml.g5.2xlarge",
        "RoleArn": "arn:aws:iam::111122223333:role/R",
    }
    (nb,) = records(tmp_path, {"nb.json": json.dumps(request, indent=2)}, Notebook)
    assert nb.address == "research" and nb.idle_shutdown is False and nb.line_of("instance_type") == 3
    request["LifecycleConfigName"] = "auto-stop-idle"
    (nb,) = records(tmp_path, {"nb.json": json.dumps(request, indent=2)}, Notebook)
    assert nb.lifecycle_config == "auto-stop-idle" and isinstance(nb.idle_shutdown, Unknown)
    assert nb.line_of("idle_shutdown") == 5


def test_checkpoint_bucket_linked_across_files_and_formats(tmp_path: Path) -> None:
    """A CreateTrainingJob request checkpoints into a bucket a CloudFormation template declares."""
    bucket = (
        'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  Artifacts:\n    Type: AWS::S3::Bucket\n'
        "    Properties:\n      BucketName: team-artifacts-111122223333\n"
    )
    request = {
        "TrainingJobName": "finetune",
        "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
        "RoleArn": "arn:aws:iam::111122223333:role/R",
        "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
        "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
        "CheckpointConfig": {"S3Uri": "s3://team-artifacts-111122223333/ckpt/finetune"},
    }
    files = {"stack.yaml": bucket, "train.json": json.dumps(request, indent=2)}
    result = scan_files(tmp_path, files, select=("FIN402",))
    (b,) = [r for r in result.records if isinstance(r, Bucket)]
    assert b.checkpoint_jobs == ("finetune",)
    assert [(Path(f.file).name, f.line) for f in result.findings] == [("stack.yaml", 6)]
