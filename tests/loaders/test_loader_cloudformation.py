"""The CloudFormation loader: records, exact lines, Unknown values, Step Functions, bad input."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from finlint import ir
from finlint.loaders import DocContext, cloudformation, document_loader_for
from finlint.loaders.common.yamlload import YamlLoadError, load_all

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "cloudformation"


def load_path(rel: str) -> ir.LoadResult:
    path = ROOT / rel if rel.startswith("fixtures/") else FIXTURES / rel
    text = path.read_text(encoding="utf-8")
    doc = load_all(text, is_json=path.suffix == ".json")[0]
    assert cloudformation.claims(doc)
    return cloudformation.load(doc, DocContext(file=rel, lines=text.splitlines()))


def load_text(text: str, **ctx: Any) -> ir.LoadResult:
    text = textwrap.dedent(text).lstrip("\n")
    doc = load_all(text)[0]
    ctx.setdefault("lines", text.splitlines())
    return cloudformation.load(doc, DocContext(file="t.yaml", **ctx))


def records(result: ir.LoadResult) -> dict[str, Any]:
    assert result.errors == []
    return {r.address: r for r in result.records}


def unknown_reason(value: Any) -> str:
    assert isinstance(value, ir.Unknown), value
    return value.reason


# --------------------------------------------------------------------------------------------
# Fixtures: bad
# --------------------------------------------------------------------------------------------


def test_p5_notebook_follows_parameter_default() -> None:
    nb = records(load_path("bad/p5-notebook.yaml"))["ResearchNotebook"]
    assert isinstance(nb, ir.Notebook)
    assert nb.instance_type == "ml.p5.48xlarge"
    assert nb.attr_lines["instance_type"] == 21  # the property, not the parameter
    assert nb.location == ir.Location("bad/p5-notebook.yaml", 17, 27)
    assert (nb.name, nb.attr_lines["name"]) == ("llm-research", 20)
    assert (nb.volume_size_gb, nb.attr_lines["volume_size_gb"]) == (500, 23)
    assert nb.source_format == "cloudformation"
    assert nb.extra["parameter_defaults"] == ["NotebookInstanceType"]


def test_p5_eks_nodegroup() -> None:
    recs = records(load_path("bad/p5-eks-nodegroup.yaml"))
    ng = recs["GpuNodegroup"]
    assert isinstance(ng, ir.ComputePool)
    assert ng.pool_kind == "eks-nodegroup"
    assert ng.instance_types == ("p5.48xlarge",)
    assert (ng.min_size, ng.desired_size, ng.max_size) == (1, 1, 4)  # DesiredSize "1" is a string
    assert {k: ng.attr_lines[k] for k in ("instance_types", "min_size", "desired_size", "max_size")} == {
        "instance_types": 41,
        "min_size": 46,
        "desired_size": 47,
        "max_size": 48,
    }
    assert (ng.capacity_types, ng.attr_lines["capacity_types"]) == (("on-demand",), 40)
    assert ng.capacity_reservation is None
    assert ng.labels == {"nvidia.com/gpu.present": "true"}
    assert ng.taints == ("nvidia.com/gpu=true:NO_SCHEDULE",)
    assert ng.extra["launch_template"] == "GpuLaunchTemplate"
    assert ng.location.line == 33 and ng.location.end_line == 57
    lt = recs["GpuLaunchTemplate"]
    assert (lt.pool_kind, lt.name, lt.instance_types) == ("launch-template", "training-gpu", None)
    assert (lt.min_size, lt.desired_size) == (None, None)


def test_efs_file_system_access_point_and_mount_targets() -> None:
    recs = records(load_path("bad/efs-checkpoints.yaml"))
    fs = recs["CheckpointFileSystem"]
    assert isinstance(fs, ir.FileSystem)
    assert fs.fs_type == "efs"
    assert (fs.name, fs.attr_lines["name"]) == ("llm-training-checkpoints", 23)
    assert fs.tags == {"Name": "llm-training-checkpoints", "team": "foundation-models"}
    assert fs.attr_lines["tags"] == 21
    assert (fs.throughput_mode, fs.attr_lines["throughput_mode"]) == ("provisioned", 19)
    assert (fs.provisioned_throughput_mibps, fs.attr_lines["provisioned_throughput_mibps"]) == (1024, 20)
    assert fs.ref_ids == ("CheckpointFileSystem",)
    assert fs.creation_token is None
    ap = recs["CheckpointAccessPoint"]
    assert isinstance(ap, ir.Volume)
    assert (ap.volume_kind, ap.is_efs) == ("efs-access-point", True)
    assert (ap.file_system_ref, ap.attr_lines["file_system_ref"]) == ("CheckpointFileSystem", 30)
    assert (ap.root_path, ap.attr_lines["root_path"]) == ("/checkpoints", 35)
    assert (ap.name, ap.attr_lines["name"]) == ("ckpt-writer", 42)
    mt_getatt, mt_ref = recs["MountTargetA"], recs["MountTargetB"]
    assert mt_getatt.file_system_ref == "CheckpointFileSystem"  # !GetAtt FS.FileSystemId
    assert mt_ref.file_system_ref == "CheckpointFileSystem"  # !Ref FS
    assert (mt_getatt.volume_kind, mt_getatt.is_efs) == ("efs-mount-target", True)


def test_step_functions_spot_without_checkpoint_from_sub_block() -> None:
    job = records(load_path("bad/sfn-spot-no-checkpoint.yaml"))["FineTunePipeline/FineTune"]
    assert isinstance(job, ir.TrainingJob)
    assert job.launcher == "step-functions"
    assert job.spot is True and job.attr_lines["spot"] == 41
    assert job.checkpoint_s3_uri is None and "checkpoint_s3_uri" not in job.attr_lines
    assert (job.instance_type, job.attr_lines["instance_type"]) == ("ml.g5.12xlarge", 37)
    assert (job.max_runtime_s, job.attr_lines["max_runtime_s"]) == (28800, 43)
    assert job.location == ir.Location("bad/sfn-spot-no-checkpoint.yaml", 26, 62)
    assert job.extra["state_machine"] == "FineTunePipeline"


def test_json_template_pool_and_join_definition() -> None:
    recs = records(load_path("bad/training-cluster.json"))
    asg = recs["GpuWorkers"]
    assert asg.pool_kind == "autoscaling-group"
    assert (asg.min_size, asg.desired_size, asg.max_size) == (1, 2, 4)  # "1", "2", "4"
    assert (asg.attr_lines["min_size"], asg.attr_lines["desired_size"]) == (34, 35)
    assert asg.instance_types == ("p5.48xlarge",)
    assert asg.attr_lines["instance_types"] == 24  # the launch template's InstanceType
    assert asg.extra["launch_template"] == "GpuLaunchTemplate"
    job = recs["TrainStateMachine/Train"]
    # A Fn::Join definition has no line mapping: everything points at the DefinitionString key.
    assert job.location.line == 48
    assert set(job.attr_lines.values()) == {48}
    assert job.instance_type == "ml.p4d.24xlarge" and job.instance_count == 2
    assert job.max_runtime_s is None and job.max_runtime_default_s == 86_400


def test_definition_object_with_substitutions() -> None:
    job = records(load_path("bad/sfn-definition-object.yaml"))["PretrainStateMachine/Pretrain"]
    # ${TrainInstanceType} -> !Ref InstanceType -> Default; the ARN's ${Partition} (pseudo) is kept.
    assert (job.instance_type, job.attr_lines["instance_type"]) == ("ml.p5.48xlarge", 35)
    assert job.instance_count == 2
    assert job.max_runtime_s is None
    assert job.location.line == 25
    assert job.extra["resource"] == "arn:${Partition}:states:::sagemaker:createTrainingJob.sync"


# --------------------------------------------------------------------------------------------
# Fixtures: good
# --------------------------------------------------------------------------------------------


def test_capacity_block_nodegroup() -> None:
    recs = records(load_path("good/capacity-block-nodegroup.yaml"))
    ng = recs["CapacityBlockNodegroup"]
    assert ng.capacity_types == ("capacity-block",)
    assert (ng.capacity_reservation, ng.attr_lines["capacity_reservation"]) == (True, 38)
    assert (ng.min_size, ng.desired_size, ng.max_size) == (0, 2, 2)
    lt = recs["CapacityBlockLaunchTemplate"]
    assert (lt.capacity_types, lt.capacity_reservation) == (("capacity-block",), True)


def test_parameter_without_default_is_unknown() -> None:
    recs = records(load_path("good/p5-parameter-no-default.yaml"))
    ng = recs["GpuNodegroup"]
    assert len(ng.instance_types) == 1
    assert unknown_reason(ng.instance_types[0]) == "parameter GpuInstanceType has no Default"
    assert ng.attr_lines["instance_types"] == 34
    nb = recs["ExperimentNotebook"]
    assert "Fn::If on condition IsProd" in unknown_reason(nb.instance_type)
    assert nb.attr_lines["instance_type"] == 44


def test_fsx_lustre_and_bucket_lifecycle() -> None:
    recs = records(load_path("good/fsx-lustre-checkpoints.yaml"))
    fsx = recs["CheckpointLustre"]
    assert (fsx.fs_type, fsx.name, fsx.size_gb) == ("fsx-lustre", "llm-checkpoints", 2400)
    assert (fsx.deployment_type, fsx.per_unit_storage_throughput) == ("PERSISTENT_2", 250)
    assert (fsx.attr_lines["size_gb"], fsx.attr_lines["deployment_type"]) == (18, 25)
    bucket = recs["CheckpointArchive"]
    assert "AWS::AccountId" in unknown_reason(bucket.bucket_name)
    assert bucket.attr_lines["lifecycle_rules"] == 37
    tier, abort = bucket.lifecycle_rules
    assert tier == ir.LifecycleRule(
        rule_id="tier-old-checkpoints",
        enabled=True,
        prefix="checkpoints/",
        transitions=((30, "STANDARD_IA"), (90, "GLACIER_IR")),
        expiration_days=365,
    )
    assert (abort.rule_id, abort.transitions, abort.expiration_days) == ("abort-multipart", (), None)


def test_g5_notebook_long_form_intrinsics() -> None:
    nb = records(load_path("good/g5-notebook.yaml"))["ScienceNotebook"]
    assert (nb.instance_type, nb.attr_lines["instance_type"]) == ("ml.g5.xlarge", 10)
    assert nb.location == ir.Location("good/g5-notebook.yaml", 7, 17)


def test_hyperpod_one_pool_per_instance_group() -> None:
    recs = records(load_path("good/hyperpod-training-plan.yaml"))
    assert set(recs) == {"HyperPodCluster/controller", "HyperPodCluster/gpu-workers"}
    gpu = recs["HyperPodCluster/gpu-workers"]
    assert gpu.pool_kind == "hyperpod-instance-group"
    assert gpu.instance_types == ("ml.p5.48xlarge",)
    assert (gpu.min_size, gpu.desired_size, gpu.max_size) == (16, 16, 16)
    assert (gpu.capacity_reservation, gpu.attr_lines["capacity_reservation"]) == (True, 36)
    assert gpu.location == ir.Location("good/hyperpod-training-plan.yaml", 33, 44)
    assert gpu.extra["cluster_name"] == "llm-hyperpod"
    assert gpu.extra["training_plan"].endswith("training-plan/llm-q3")
    controller = recs["HyperPodCluster/controller"]
    assert controller.capacity_reservation is None
    assert controller.location == ir.Location("good/hyperpod-training-plan.yaml", 26, 32)


def test_autoscaling_group_on_capacity_block_launch_template() -> None:
    asg = records(load_path("good/asg-capacity-block.yaml"))["NodeGroup"]
    assert asg.instance_types == ("p5.48xlarge",)  # the template's !Ref NodeInstanceType default
    assert (asg.capacity_types, asg.capacity_reservation) == (("capacity-block",), True)
    assert (asg.min_size, asg.desired_size, asg.max_size) == (0, 2, 2)  # Number parameter default
    assert asg.attr_lines["capacity_reservation"] == 27


def test_batch_vcpus_become_instances() -> None:
    recs = records(load_path("good/batch-scale-to-zero.yaml"))
    assert "FargateEnvironment" not in recs
    p5 = recs["P5ComputeEnvironment"]
    assert (p5.min_size, p5.desired_size, p5.max_size) == (0, None, 4)  # 768 vCPUs / 192
    assert p5.capacity_types == ("on-demand",)
    g5 = recs["G5SpotComputeEnvironment"]
    assert (g5.min_size, g5.desired_size, g5.max_size) == (1, 1, 4)  # 96 vCPUs = one g5.24xlarge
    assert (g5.capacity_types, g5.attr_lines["min_size"]) == (("spot",), 40)


def test_intrinsics_fixture() -> None:
    recs = records(load_path("good/intrinsics.yaml"))
    dev = recs["DevBox"]
    assert (dev.instance_types, dev.attr_lines["instance_types"]) == (("g5.2xlarge",), 78)  # FindInMap
    assert (dev.min_size, dev.desired_size, dev.max_size) == (1, 1, 1)
    assert dev.extra["condition"] == "DevOrKey"
    prod = recs["ProdGpuBox"]
    assert "Fn::If" in unknown_reason(prod.instance_types[0])  # FindInMap with a non-literal key
    bucket = recs["ArtefactBucket"]
    assert bucket.bucket_name == "acme-training-dev"  # !Join with a parameter default
    (rule,) = bucket.lifecycle_rules
    assert rule.enabled is True  # Status behind !If: counted as enabled, never as a missing rule


def test_json_definition_string_with_substitutions() -> None:
    job = records(load_path("good/sfn-checkpointed.json"))["SpotTraining/Train"]
    assert job.checkpoint_s3_uri == "s3://acme-checkpoints/run-42/"  # Fn::Sub in a substitution
    assert job.max_runtime_s == 86400  # a numeric substitution in a number position
    assert job.checkpoint_local_path == "/opt/ml/checkpoints"
    assert set(job.attr_lines.values()) == {16}


def test_sub_list_form_maps_lines() -> None:
    job = records(load_path("good/sfn-sub-forms.yaml"))["SpotTrain/Train"]
    assert job.checkpoint_s3_uri == "s3://acme-training/vision/checkpoints/"  # vars map + parameter
    assert (job.spot, job.attr_lines["spot"]) == (True, 31)
    assert job.attr_lines["checkpoint_s3_uri"] == 33
    assert job.location.line == 24


def test_demo_stack() -> None:
    recs = records(load_path("fixtures/demo/cloudformation/training-stack.yaml"))
    assert recs["ResearchNotebook"].instance_type == "ml.p5.48xlarge"
    assert recs["ResearchNotebook"].attr_lines["instance_type"] == 18
    assert recs["CheckpointStore"].name == "llm-checkpoints"
    assert recs["CheckpointMount"].file_system_ref == "CheckpointStore"


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------

NOTEBOOK = """
Parameters:
  Size: {{Type: String{default}}}
Resources:
  Nb:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: {value}
"""


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("!Ref AWS::Region", "pseudo parameter AWS::Region is known only at deploy time"),
        ("!GetAtt Other.InstanceType", "Fn::GetAtt Other.InstanceType is known only at deploy time"),
        ("!Select [0, [ml.p5.48xlarge]]", "Fn::Select is evaluated at deploy time"),
        ("!ImportValue shared-NotebookType", "Fn::ImportValue is evaluated at deploy time"),
        ("!Ref Size", "parameter Size has no Default"),
        ("!Ref Missing", "Ref to Missing, which the template does not define"),
        (
            "!Sub 'ml.${Family}.48xlarge'",
            "Fn::Sub 'ml.${Family}.48xlarge': Ref to Family, which the template",
        ),
        ("!Join ['', [ml., !Ref AWS::StackName]]", "Fn::Join part: pseudo parameter AWS::StackName"),
        ("!FindInMap [Types, !Ref AWS::Region, Gpu]", "Fn::FindInMap key is not known: pseudo parameter"),
    ],
)
def test_deploy_time_values_are_unknown(value: str, reason: str) -> None:
    nb = records(load_text(NOTEBOOK.format(default="", value=value)))["Nb"]
    assert unknown_reason(nb.instance_type).startswith(reason)
    assert nb.attr_lines["instance_type"] == 7


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("!Ref Size", "ml.p5.48xlarge"),
        ("!Sub 'ml.${Family}.48xlarge'", "ml.p5.48xlarge"),
        ("!Sub ['ml.${F}.48xlarge', {F: p5}]", "ml.p5.48xlarge"),
        ("!Sub 'ml.p5.${!Literal}'", "ml.p5.${Literal}"),
        ("!Join ['.', [ml, p5, 48xlarge]]", "ml.p5.48xlarge"),
        ("!FindInMap [Types, prod, Gpu]", "ml.p5.48xlarge"),
        ("!If [C, ml.p5.48xlarge, ml.p5.48xlarge]", "ml.p5.48xlarge"),
    ],
)
def test_resolvable_values(value: str, expected: str) -> None:
    text = NOTEBOOK.format(default=", Default: ml.p5.48xlarge", value=value)
    text = text.replace(
        "Resources:",
        "  Family: {Type: String, Default: p5}\nMappings:\n  Types:\n"
        "    prod: {Gpu: ml.p5.48xlarge}\nResources:",
    )
    nb = records(load_text(text))["Nb"]
    assert nb.instance_type == expected


def test_no_value_is_absent() -> None:
    nb = records(load_text(NOTEBOOK.format(default="", value="!Ref AWS::NoValue")))["Nb"]
    assert nb.instance_type is None
    assert "instance_type" not in nb.attr_lines


def test_ssm_parameter_default_is_not_the_value() -> None:
    text = """
    Parameters:
      Type: {Type: "AWS::SSM::Parameter::Value<String>", Default: /ml/notebook/type}
    Resources:
      Nb:
        Type: AWS::SageMaker::NotebookInstance
        Properties: {InstanceType: !Ref Type}
    """
    nb = records(load_text(text))["Nb"]
    assert unknown_reason(nb.instance_type) == "parameter Type is read from SSM at deploy time"


def test_numbers_as_strings_and_garbage() -> None:
    text = """
    Parameters:
      Min: {Type: Number, Default: 2}
    Resources:
      Asg:
        Type: AWS::AutoScaling::AutoScalingGroup
        Properties:
          MinSize: !Ref Min
          DesiredCapacity: "3"
          MaxSize: lots
          LaunchTemplate: {LaunchTemplateId: lt-0123456789abcdef0, Version: "1"}
    """
    asg = records(load_text(text))["Asg"]
    assert (asg.min_size, asg.desired_size) == (2, 3)
    assert unknown_reason(asg.max_size) == "Properties.MaxSize is not an integer: 'lots'"
    # A launch template outside the template: the types are unknown, not absent.
    assert "defined outside this template" in unknown_reason(asg.instance_types)
    assert asg.attr_lines["instance_types"] == 10


def test_comma_delimited_list_parameter() -> None:
    text = """
    Parameters:
      Types: {Type: CommaDelimitedList, Default: "p5.48xlarge, p4d.24xlarge"}
    Resources:
      Ng:
        Type: AWS::EKS::Nodegroup
        Properties:
          InstanceTypes: !Ref Types
          ScalingConfig: {MinSize: 0, DesiredSize: 0, MaxSize: 2}
    """
    ng = records(load_text(text))["Ng"]
    assert ng.instance_types == ("p5.48xlarge", "p4d.24xlarge")
    assert ng.attr_lines["instance_types"] == 7


def test_optional_block_behind_if_loads_like_a_conditional_resource() -> None:
    text = """
    Conditions:
      WantGpu: !Equals [a, a]
    Resources:
      Cluster:
        Type: AWS::SageMaker::Cluster
        Properties:
          InstanceGroups:
            - InstanceGroupName: cpu
              InstanceType: ml.m5.xlarge
              InstanceCount: 1
            - !If
              - WantGpu
              - InstanceGroupName: gpu
                InstanceType: ml.p5.48xlarge
                InstanceCount: 2
              - !Ref AWS::NoValue
    """
    recs = records(load_text(text))
    gpu = recs["Cluster/gpu"]
    assert gpu.instance_types == ("ml.p5.48xlarge",)
    assert (gpu.min_size, gpu.attr_lines["min_size"]) == (2, 15)


def test_instance_groups_behind_if_are_unknown() -> None:
    text = """
    Resources:
      Cluster:
        Type: AWS::SageMaker::Cluster
        Properties:
          InstanceGroups: !If [Big, [{InstanceType: ml.p5.48xlarge}], [{InstanceType: ml.g5.xlarge}]]
    """
    (pool,) = load_text(text).records
    assert pool.address == "Cluster"
    assert unknown_reason(pool.instance_types).startswith("Fn::If on condition Big")
    assert isinstance(pool.min_size, ir.Unknown)
    assert pool.attr_lines["instance_types"] == 5


def test_mixed_instances_policy() -> None:
    text = """
    Resources:
      Lt:
        Type: AWS::EC2::LaunchTemplate
        Properties:
          LaunchTemplateData: {ImageId: ami-123}
      Asg:
        Type: AWS::AutoScaling::AutoScalingGroup
        Properties:
          MinSize: 0
          MaxSize: 8
          MixedInstancesPolicy:
            InstancesDistribution:
              OnDemandBaseCapacity: 1
              OnDemandPercentageAboveBaseCapacity: 0
            LaunchTemplate:
              LaunchTemplateSpecification:
                LaunchTemplateId: !Ref Lt
                Version: !GetAtt Lt.LatestVersionNumber
              Overrides:
                - InstanceType: p5.48xlarge
                - InstanceRequirements: {VCpuCount: {Min: 8}, MemoryMiB: {Min: 32768}}
    """
    asg = records(load_text(text))["Asg"]
    assert asg.instance_types[0] == "p5.48xlarge"
    assert "InstanceRequirements" in unknown_reason(asg.instance_types[1])
    assert asg.attr_lines["instance_types"] == 19
    assert (asg.capacity_types, asg.attr_lines["capacity_types"]) == (("on-demand", "spot"), 14)


def test_ec2_instance_targeted_reservation_and_launch_template_types() -> None:
    text = """
    Resources:
      Lt:
        Type: AWS::EC2::LaunchTemplate
        Properties:
          LaunchTemplateName: gpu
          LaunchTemplateData:
            InstanceType: p5.48xlarge
            InstanceMarketOptions: {MarketType: spot}
      Reserved:
        Type: AWS::EC2::Instance
        Properties:
          InstanceType: p5.48xlarge
          CapacityReservationSpecification:
            CapacityReservationTarget: {CapacityReservationId: cr-0123}
      FromTemplate:
        Type: AWS::EC2::Instance
        Properties:
          LaunchTemplate: {LaunchTemplateName: gpu, Version: "1"}
    """
    recs = records(load_text(text))
    reserved = recs["Reserved"]
    assert (reserved.capacity_reservation, reserved.attr_lines["capacity_reservation"]) == (True, 14)
    from_lt = recs["FromTemplate"]  # found by LaunchTemplateName
    assert (from_lt.instance_types, from_lt.attr_lines["instance_types"]) == (("p5.48xlarge",), 7)
    assert from_lt.capacity_types == ("spot",)
    assert from_lt.capacity_reservation is None


def test_types_from_launch_configuration_and_nodegroup_launch_template() -> None:
    text = """
    Resources:
      Lc:
        Type: AWS::AutoScaling::LaunchConfiguration
        Properties: {InstanceType: p5.48xlarge, ImageId: ami-1}
      Asg:
        Type: AWS::AutoScaling::AutoScalingGroup
        Properties: {MinSize: 1, MaxSize: 1, LaunchConfigurationName: !Ref Lc}
      Lt:
        Type: AWS::EC2::LaunchTemplate
        Properties:
          LaunchTemplateData:
            InstanceType: p5e.48xlarge
            CapacityReservationSpecification: {CapacityReservationPreference: capacity-reservations-only}
      Ng:
        Type: AWS::EKS::Nodegroup
        Properties:
          ScalingConfig: {MinSize: 1, DesiredSize: 1, MaxSize: 1}
          LaunchTemplate: {Id: !GetAtt Lt.LaunchTemplateId}
    """
    recs = records(load_text(text))
    assert (recs["Asg"].instance_types, recs["Asg"].attr_lines["instance_types"]) == (("p5.48xlarge",), 4)
    ng = recs["Ng"]
    assert (ng.instance_types, ng.attr_lines["instance_types"]) == (("p5e.48xlarge",), 12)
    assert (ng.capacity_reservation, ng.attr_lines["capacity_reservation"]) == (True, 13)


def test_sam_state_machine_definition() -> None:
    text = """
    Transform: AWS::Serverless-2016-10-31
    Resources:
      Pipeline:
        Type: AWS::Serverless::StateMachine
        Properties:
          Definition:
            StartAt: T
            States:
              T:
                Type: Task
                Resource: arn:aws:states:::sagemaker:createTrainingJob.sync
                Parameters:
                  ResourceConfig: {InstanceType: ml.g5.2xlarge, InstanceCount: 1}
                End: true
    """
    job = records(load_text(text))["Pipeline/T"]
    assert (job.instance_type, job.attr_lines["instance_type"]) == ("ml.g5.2xlarge", 13)
    assert job.extra["resource_type"] == "AWS::Serverless::StateMachine"


def test_batch_several_types_or_unknown_type() -> None:
    text = """
    Resources:
      Ce:
        Type: AWS::Batch::ComputeEnvironment
        Properties:
          Type: MANAGED
          ComputeResources:
            Type: EC2
            MinvCpus: 192
            MaxvCpus: 384
            InstanceTypes: [p5.48xlarge, p4d.24xlarge]
      Family:
        Type: AWS::Batch::ComputeEnvironment
        Properties:
          Type: MANAGED
          ComputeResources: {Type: SPOT, MinvCpus: 8, MaxvCpus: 64, InstanceTypes: [optimal]}
      Unmanaged:
        Type: AWS::Batch::ComputeEnvironment
        Properties: {Type: UNMANAGED}
    """
    recs = records(load_text(text))
    assert "spread over several" in unknown_reason(recs["Ce"].min_size)
    assert "optimal are not in the catalog" in unknown_reason(recs["Family"].min_size)
    assert "Unmanaged" not in recs


def test_suppressions_from_metadata() -> None:
    text = """
    Resources:
      Nb:
        Type: AWS::SageMaker::NotebookInstance
        Metadata:
          finlint:
            ignore:
              - id: FIN301
                reason: load-testing box, deleted Friday
              - oversized-p5
        Properties: {InstanceType: ml.p5.48xlarge}
    """
    nb = records(load_text(text))["Nb"]
    assert nb.suppressions == (
        ir.Suppression("FIN301", "load-testing box, deleted Friday", 7),
        ir.Suppression("oversized-p5", "", 9),
    )


def test_location_ends_at_last_content_line_and_offsets_apply() -> None:
    text = """
    Resources:
      Nb:
        Type: AWS::SageMaker::NotebookInstance
        Properties:
          InstanceType: ml.p5.48xlarge

      # the next resource

      Other:
        Type: AWS::SageMaker::NotebookInstance
        Properties: {InstanceType: ml.g5.xlarge}
    """
    nb = records(load_text(text))["Nb"]
    assert (nb.location.line, nb.location.end_line) == (2, 5)
    shifted = records(load_text(text, line_offset=10, address_prefix="module.ml/"))["module.ml/Nb"]
    assert (shifted.location.line, shifted.location.end_line) == (12, 15)
    assert shifted.attr_lines["instance_type"] == 15


# --------------------------------------------------------------------------------------------
# Step Functions
# --------------------------------------------------------------------------------------------

MACHINE = """
Parameters:
  UseSpot: {{Type: String}}
Resources:
  Sm:
    Type: AWS::StepFunctions::StateMachine
    Properties:
      DefinitionString: {tag}|
        {{
          "StartAt": "T",
          "States": {{
            "T": {{
              "Type": "Task",
              "Resource": "arn:${{AWS::Partition}}:states:::sagemaker:createTrainingJob.sync",
              "Parameters": {{
                "ResourceConfig": {{"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1}},
                {body}
              }},
              "End": true
            }}
          }}
        }}
"""


def machine(body: str, tag: str = "!Sub ") -> str:
    return MACHINE.format(tag=tag, body=body)


def test_unresolvable_values_in_definition_are_unknown_never_false() -> None:
    text = machine(
        '"EnableManagedSpotTraining": ${UseSpot},\n'
        '                "StoppingCondition": {"MaxRuntimeInSeconds": ${AWS::NoSuchThing}},\n'
        '                "CheckpointConfig": {"S3Uri": "s3://bucket-${AWS::AccountId}/ckpt"}'
    )
    job = records(load_text(text))["Sm/T"]
    assert unknown_reason(job.spot) == "parameter UseSpot has no Default"
    assert isinstance(job.max_runtime_s, ir.Unknown)
    assert "AWS::AccountId" in unknown_reason(job.checkpoint_s3_uri)  # present, so FIN201 cannot fire
    assert (job.attr_lines["spot"], job.attr_lines["checkpoint_s3_uri"]) == (16, 18)


def test_literal_block_maps_lines_and_without_source_lines_falls_back() -> None:
    text = machine('"EnableManagedSpotTraining": true', tag="")
    job = records(load_text(text))["Sm/T"]
    assert (job.location.line, job.attr_lines["instance_type"], job.attr_lines["spot"]) == (11, 15, 16)
    fallback = records(load_text(text, lines=[]))["Sm/T"]
    assert fallback.location.line == 7
    assert set(fallback.attr_lines.values()) == {7}


def test_invalid_definition_json_is_a_load_error_at_its_line() -> None:
    text = machine('"EnableManagedSpotTraining": true,,', tag="")
    result = load_text(text)
    assert result.records == []
    (error,) = result.errors
    assert error.line == 16 and "Sm" in error.message and "not valid JSON" in error.message


def test_definition_in_s3_is_skipped_quietly() -> None:
    text = """
    Resources:
      Sm:
        Type: AWS::StepFunctions::StateMachine
        Properties:
          DefinitionS3Location: {Bucket: b, Key: k.asl.json}
    """
    result = load_text(text)
    assert (result.records, result.errors) == ([], [])


def test_definition_object_with_intrinsics_and_optional_checkpoint() -> None:
    text = """
    Parameters:
      Bucket: {Type: String, Default: acme}
    Conditions:
      Spot: !Equals [a, a]
    Resources:
      Sm:
        Type: AWS::StepFunctions::StateMachine
        Properties:
          Definition:
            StartAt: T
            States:
              T:
                Type: Task
                Resource: !Sub arn:${AWS::Partition}:states:::sagemaker:createTrainingJob.sync
                Parameters:
                  ResourceConfig: {InstanceType: ml.g5.2xlarge, InstanceCount: 1}
                  EnableManagedSpotTraining: true
                  StoppingCondition: {MaxRuntimeInSeconds: 3600, MaxWaitTimeInSeconds: 7200}
                  CheckpointConfig: !If
                    - Spot
                    - S3Uri: !Sub s3://${Bucket}/ckpt/
                    - !Ref AWS::NoValue
                End: true
    """
    job = records(load_text(text))["Sm/T"]
    assert job.checkpoint_s3_uri == "s3://acme/ckpt/"
    assert job.attr_lines["checkpoint_s3_uri"] == 21
    assert job.location.line == 12


def test_escaped_sub_variable_goes_to_definition_substitutions() -> None:
    text = """
    Resources:
      Sm:
        Type: AWS::StepFunctions::StateMachine
        Properties:
          DefinitionSubstitutions: {Type: ml.p5.48xlarge}
          DefinitionString: !Sub >-
            {"StartAt": "T", "States": {"T": {"Type": "Task",
            "Resource": "arn:aws:states:::sagemaker:createTrainingJob.sync",
            "Parameters": {"ResourceConfig": {"InstanceType": "${!Type}", "InstanceCount": 1}}, "End": true}}}
    """
    job = records(load_text(text))["Sm/T"]
    assert job.instance_type == "ml.p5.48xlarge"
    assert job.location.line == 6  # a folded scalar cannot be mapped: the key line


# --------------------------------------------------------------------------------------------
# Detection and bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "claimed"),
    [
        ({"AWSTemplateFormatVersion": "2010-09-09"}, True),
        ({"Resources": {"B": {"Type": "AWS::S3::Bucket"}}}, True),
        (
            {
                "Transform": "AWS::Serverless-2016-10-31",
                "Resources": {"F": {"Type": "AWS::Serverless::Function"}},
            },
            True,
        ),
        ({"Resources": {"C": {"Type": "Custom::Thing"}}}, False),
        ({"apiVersion": "karpenter.sh/v1", "kind": "NodePool"}, False),
        ({"StartAt": "A", "States": {"A": {"Type": "Pass", "End": True}}}, False),
        ({"Resources": ["AWS::S3::Bucket"]}, False),
        ([{"AWSTemplateFormatVersion": "2010-09-09"}], False),
    ],
)
def test_claims(doc: Any, claimed: bool) -> None:
    assert cloudformation.claims(doc) is claimed


def test_registry_dispatches_templates_here() -> None:
    assert document_loader_for({"AWSTemplateFormatVersion": "2010-09-09", "Resources": {}}) is cloudformation


def test_resources_not_a_mapping_is_a_load_error() -> None:
    result = load_text('AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  - Type: AWS::S3::Bucket\n')
    assert result.records == []
    assert [(e.file, e.line, e.message) for e in result.errors] == [
        ("t.yaml", 2, "Resources must be a mapping")
    ]


def test_odd_but_valid_shapes_never_crash() -> None:
    text = """
    AWSTemplateFormatVersion: "2010-09-09"
    Transform: AWS::LanguageExtensions
    Resources:
      Fn::ForEach::Buckets:
        - Name
        - [a, b]
        - ${Name}Bucket: {Type: AWS::S3::Bucket}
      NoType: {Properties: {InstanceType: ml.p5.48xlarge}}
      Scalar: just-a-string
      PropsIf:
        Type: AWS::SageMaker::NotebookInstance
        Properties: !If [C, {InstanceType: ml.p5.48xlarge}, {InstanceType: ml.g5.xlarge}]
      PropsString:
        Type: AWS::EKS::Nodegroup
        Properties: nonsense
      EmptyBucket:
        Type: AWS::S3::Bucket
    """
    recs = records(load_text(text))
    assert set(recs) == {"PropsIf", "PropsString", "EmptyBucket"}
    assert "Fn::If" in unknown_reason(recs["PropsIf"].instance_type)
    assert unknown_reason(recs["PropsString"].instance_types).endswith("Properties is not a mapping")
    assert (recs["EmptyBucket"].bucket_name, recs["EmptyBucket"].lifecycle_rules) == (None, None)


def test_malformed_template_reports_a_line() -> None:
    text = "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  Nb:\n    Type: [unclosed\n"
    with pytest.raises(YamlLoadError) as info:
        load_all(text)
    assert info.value.line == 5


@pytest.mark.parametrize("depth", [150])  # deep, with room for pytest's own stack
def test_deep_nesting_never_raises(depth: int) -> None:
    nested, chain = "x", "ml.g5.xlarge"
    for level in range(depth):
        nested = f"[{nested}]"
        chain = f"!If [C, {chain}, b]" if level < depth // 3 else chain
    text = (
        "Resources:\n  Sm:\n    Type: AWS::StepFunctions::StateMachine\n    Properties:\n"
        f"      Definition: {{StartAt: A, States: {{A: {{Type: Task, Parameters: {nested}}}}}}}\n"
        f"  Nb:\n    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n      InstanceType: {chain}\n"
    )
    result = cloudformation.load(load_all(text)[0], DocContext(file="deep.yaml"))
    (nb,) = result.records
    assert isinstance(nb.instance_type, ir.Unknown)
    assert result.errors == []


# --------------------------------------------------------------------------------------------
# End to end: the core rules fire through CloudFormation at the right lines
# --------------------------------------------------------------------------------------------


def _scan(*rels: str) -> set[tuple[str, str, int, bool]]:
    from finlint.engine import EngineConfig
    from finlint.scan import ScanOptions, lint

    result = lint(ScanOptions(paths=[ROOT / rel for rel in rels], engine=EngineConfig()))
    return {(Path(f.file).name, f.rule_id, f.line, f.active) for f in result.findings}


def test_end_to_end_bad_fixtures() -> None:
    assert _scan("fixtures/cloudformation/bad") == {
        ("efs-checkpoints.yaml", "FIN401", 23, True),  # the Name tag that says checkpoints
        ("efs-checkpoints.yaml", "FIN401", 42, True),  # its access point, named ckpt-writer
        ("efs-checkpoints.yaml", "FIN403", 19, True),  # 1,024 MiB/s provisioned, named for training
        ("p5-eks-nodegroup.yaml", "FIN301", 41, True),
        ("p5-notebook.yaml", "FIN301", 21, True),
        ("p5-notebook.yaml", "FIN302", 21, True),  # no lifecycle configuration stops it
        ("sfn-definition-object.yaml", "FIN101", 25, True),
        ("sfn-definition-object.yaml", "FIN301", 35, True),  # 2 x 8 GPUs x 24 h default < 1000
        ("sfn-spot-no-checkpoint.yaml", "FIN201", 41, True),
        ("training-cluster.json", "FIN301", 24, True),
        ("training-cluster.json", "FIN101", 48, True),
    }


def test_end_to_end_good_fixtures_and_demo() -> None:
    # clean for the core rules; the checkpointed spot job on 4 nodes is a FIN204 advisory (info)
    assert _scan("fixtures/cloudformation/good") == {("sfn-sub-forms.yaml", "FIN204", 30, True)}
    assert _scan("fixtures/demo/cloudformation") == {
        ("training-stack.yaml", "FIN301", 18, True),
        ("training-stack.yaml", "FIN302", 18, True),  # GPU notebooks with no auto-stop
        ("training-stack.yaml", "FIN302", 26, True),
        ("training-stack.yaml", "FIN401", 36, True),  # the Name tag
    }


def test_end_to_end_metadata_suppression(tmp_path: Path) -> None:
    template = tmp_path / "nb.yaml"
    template.write_text(
        "AWSTemplateFormatVersion: '2010-09-09'\nResources:\n  Nb:\n"
        "    Type: AWS::SageMaker::NotebookInstance\n    Metadata:\n      finlint:\n        ignore:\n"
        "          - {id: FIN301, reason: load test until Friday}\n"
        "    Properties: {InstanceType: ml.p5.48xlarge}\n",
        encoding="utf-8",
    )
    from finlint.engine import EngineConfig
    from finlint.scan import ScanOptions, lint

    findings = lint(ScanOptions(paths=[template], engine=EngineConfig(select=("FIN301",)))).findings
    assert [(f.rule_id, f.line, f.active) for f in findings] == [("FIN301", 9, False)]


def test_lowercase_intrinsic_is_a_notice_with_a_hint(tmp_path: Path) -> None:
    """`!if` is not a CloudFormation function: its value stays unknown, and the user is told why."""
    from finlint.scan import ScanOptions, lint

    (tmp_path / "t.yaml").write_text(
        'AWSTemplateFormatVersion: "2010-09-09"\nResources:\n  Nb:\n'
        "    Type: AWS::SageMaker::NotebookInstance\n    Properties:\n"
        "      InstanceType: !if [IsProd, ml.p5.48xlarge, ml.g5.xlarge]\n"
        "      VolumeSizeInGB: !Sub '${Size}'\n"
    )
    result = lint(ScanOptions(paths=[tmp_path]))
    assert [(n.line, "did you mean Fn::If?" in n.message) for n in result.notices] == [(6, True)]
    assert [f.rule_id for f in result.findings] == []
