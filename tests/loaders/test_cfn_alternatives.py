"""CloudFormation ``!If`` as alternatives: ``!If [Big, ml.p5.48xlarge, ml.g5.2xlarge]`` with a
condition decided at deploy time is one of its literal branches (``AWS::NoValue``: unset on that
branch), and everything the loader derives from such a value maps it option by option or demotes
it to a plain Unknown (never one option's value where another field is meant)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from tests.conftest import scan_files

from finlint import ir
from finlint.ir import Alternatives, Unknown
from finlint.loaders import DocContext, cloudformation
from finlint.loaders.common.yamlload import load_all

REASON = "Fn::If on condition Big is decided at deploy time"

HEAD = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Size:
    Type: String
    AllowedValues: [big, small]
  Other:
    Type: String
Conditions:
  Big: !Equals [!Ref Size, big]
  Huge: !Equals [!Ref Size, huge]
Resources:
"""


def load(resources: str) -> dict[str, ir.Record]:
    text = HEAD + textwrap.indent(textwrap.dedent(resources).lstrip("\n"), "  ")
    doc = load_all(text)[0]
    result = cloudformation.load(doc, DocContext(file="t.yaml", lines=text.splitlines()))
    assert result.errors == []
    return {r.address: r for r in result.records}


def notebook(instance_type: str, volume: str = "50") -> Any:
    records = load(
        f"""
        Nb:
          Type: AWS::SageMaker::NotebookInstance
          Properties:
            RoleArn: arn:aws:iam::123456789012:role/x
            InstanceType: {instance_type}
            VolumeSizeInGB: {volume}
        """
    )
    return records["Nb"]


def options(value: Any) -> set[Any]:
    assert isinstance(value, Alternatives), value
    return set(value.options)


def plain(value: Any) -> bool:
    return type(value) is Unknown


# -- !If gives alternatives ---------------------------------------------------------------------


def test_if_with_literal_branches_is_alternatives_keeping_the_reason() -> None:
    value = notebook("!If [Big, ml.p5.48xlarge, ml.g5.2xlarge]").instance_type
    assert options(value) == {"ml.p5.48xlarge", "ml.g5.2xlarge"}
    assert value.reason == REASON


def test_nested_if_flattens_its_options() -> None:
    value = notebook("!If [Big, !If [Huge, ml.p5.48xlarge, ml.p4d.24xlarge], ml.g5.2xlarge]").instance_type
    assert options(value) == {"ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g5.2xlarge"}


def test_novalue_branch_is_unset_on_that_branch() -> None:
    record = notebook("ml.g5.2xlarge", volume="!If [Big, 100, !Ref AWS::NoValue]")
    assert options(record.volume_size_gb) == {100, None}
    assert record.attr_lines["volume_size_gb"] == 17


def test_options_are_coerced_to_the_field_type() -> None:
    assert options(notebook("ml.g5.2xlarge", volume='!If [Big, "100", 200]').volume_size_gb) == {100, 200}
    assert plain(notebook("ml.g5.2xlarge", volume="!If [Big, 100, lots]").volume_size_gb)


def test_novalue_on_both_branches_is_absent() -> None:
    record = notebook("ml.g5.2xlarge", volume="!If [Big, !Ref AWS::NoValue, !Ref AWS::NoValue]")
    assert record.volume_size_gb is None and "volume_size_gb" not in record.attr_lines


def test_equal_branches_are_the_value() -> None:
    assert notebook("!If [Big, ml.g5.2xlarge, ml.g5.2xlarge]").instance_type == "ml.g5.2xlarge"


def test_non_literal_branches_stay_plain_unknown() -> None:
    for expr in (
        "!If [Big, !Ref Other, ml.g5.2xlarge]",  # a parameter without a default
        "!If [Big, !GetAtt X.Type, ml.g5.2xlarge]",
        "!If [Big, [ml.p5.48xlarge], ml.g5.2xlarge]",  # a list
        "!If [Big, !If [Huge, !Ref Other, ml.p4d.24xlarge], ml.g5.2xlarge]",
    ):
        value = notebook(expr).instance_type
        assert plain(value), (expr, value)
    assert notebook("!If [Big, !Ref Other, ml.g5.2xlarge]").instance_type.reason == REASON


# -- what the evaluator computes from alternatives is a plain Unknown ----------------------------


def test_sub_join_and_findinmap_of_alternatives_are_plain() -> None:
    for expr in (
        "!Sub ['ml.${T}', {T: !If [Big, p5.48xlarge, g5.2xlarge]}]",
        "!Join ['', [ml., !If [Big, p5.48xlarge, g5.2xlarge]]]",
        "!FindInMap [Types, !If [Big, big, small], Type]",
    ):
        records = load(
            f"""
            Nb:
              Type: AWS::SageMaker::NotebookInstance
              Properties:
                InstanceType: {expr}
            """
        )
        value = records["Nb"].instance_type
        assert plain(value), (expr, value)


# -- each place that derives a value demotes -----------------------------------------------------


def test_instance_type_lists_never_hold_one_option() -> None:
    records = load(
        """
        Ec2:
          Type: AWS::EC2::Instance
          Properties:
            InstanceType: !If [Big, p5.48xlarge, g5.2xlarge]
        Lt:
          Type: AWS::EC2::LaunchTemplate
          Properties:
            LaunchTemplateData:
              InstanceType: !If [Big, p5.48xlarge, g5.2xlarge]
              InstanceMarketOptions:
                MarketType: !If [Big, spot, capacity-block]
        Asg:
          Type: AWS::AutoScaling::AutoScalingGroup
          Properties:
            MinSize: !If [Big, 1, 2]
            MaxSize: 4
            LaunchTemplate:
              LaunchTemplateId: !Ref Lt
        Mixed:
          Type: AWS::AutoScaling::AutoScalingGroup
          Properties:
            MinSize: 0
            MaxSize: 4
            MixedInstancesPolicy:
              LaunchTemplate:
                Overrides:
                  - InstanceType: !If [Big, p5.48xlarge, g5.2xlarge]
        Listed:
          Type: AWS::AutoScaling::AutoScalingGroup
          Properties:
            MinSize: 0
            MaxSize: 4
            MixedInstancesPolicy:
              LaunchTemplate:
                Overrides: !If [Big, p5.48xlarge, g5.2xlarge]
        Ng:
          Type: AWS::EKS::Nodegroup
          Properties:
            InstanceTypes: [!If [Big, p5.48xlarge, g5.2xlarge]]
            CapacityType: !If [Big, SPOT, ON_DEMAND]
        Ng2:
          Type: AWS::EKS::Nodegroup
          Properties:
            InstanceTypes: !If [Big, p5.48xlarge, g5.2xlarge]
        """
    )
    for address in ("Ec2", "Mixed", "Ng"):
        (element,) = records[address].instance_types
        assert plain(element), (address, element)
    for address in ("Lt", "Asg", "Listed", "Ng2"):
        assert plain(records[address].instance_types), address
    for address in ("Lt", "Asg", "Ng"):
        assert plain(records[address].capacity_types), address
    assert options(records["Asg"].min_size) == {1, 2}  # a size is the value itself: kept


def test_capacity_reservation_is_never_a_target_or_preference() -> None:
    records = load(
        """
        Target:
          Type: AWS::EC2::Instance
          Properties:
            InstanceType: p5.48xlarge
            CapacityReservationSpecification:
              CapacityReservationTarget: !If [Big, cr-1, cr-2]
        Preference:
          Type: AWS::EC2::Instance
          Properties:
            InstanceType: p5.48xlarge
            CapacityReservationSpecification:
              CapacityReservationPreference: !If [Big, capacity-reservations-only, open]
        Spec:
          Type: AWS::EC2::Instance
          Properties:
            InstanceType: p5.48xlarge
            CapacityReservationSpecification: !If [Big, a, b]
        Lt:
          Type: AWS::EC2::LaunchTemplate
          Properties:
            LaunchTemplateData:
              InstanceType: p5.48xlarge
              CapacityReservationSpecification:
                CapacityReservationPreference: !If [Big, capacity-reservations-only, none]
        """
    )
    for address in ("Target", "Preference", "Spec", "Lt"):
        assert plain(records[address].capacity_reservation), address


def test_launch_template_spec_of_alternatives_is_plain() -> None:
    records = load(
        """
        Ec2:
          Type: AWS::EC2::Instance
          Properties:
            LaunchTemplate: !If [Big, a, b]
        """
    )
    assert plain(records["Ec2"].instance_types)


def test_hyperpod_plan_and_types_demote_counts_map() -> None:
    records = load(
        """
        Cluster:
          Type: AWS::SageMaker::Cluster
          Properties:
            ClusterName: c
            InstanceGroups:
              - InstanceGroupName: workers
                InstanceType: !If [Big, ml.p5.48xlarge, ml.g5.2xlarge]
                InstanceCount: !If [Big, 2, 4]
                TrainingPlanArn: !If [Big, arn:plan/a, arn:plan/b]
        """
    )
    group = records["Cluster/workers"]
    (element,) = group.instance_types
    assert plain(element)
    assert plain(group.capacity_reservation)
    assert group.extra["training_plan"] is None
    assert options(group.min_size) == {2, 4}


def test_batch_vcpus_are_never_instances() -> None:
    records = load(
        """
        Ce:
          Type: AWS::Batch::ComputeEnvironment
          Properties:
            Type: MANAGED
            ComputeResources:
              Type: EC2
              InstanceTypes: [p4d.24xlarge]
              MinvCpus: 0
              MaxvCpus: !If [Big, 192, 384]
        Ce2:
          Type: AWS::Batch::ComputeEnvironment
          Properties:
            Type: MANAGED
            ComputeResources:
              Type: !If [Big, EC2, SPOT]
              InstanceTypes: [!If [Big, p4d.24xlarge, g5.xlarge]]
              MaxvCpus: 96
        """
    )
    assert records["Ce"].min_size == 0
    assert plain(records["Ce"].max_size)
    (element,) = records["Ce2"].instance_types
    assert plain(element)
    assert plain(records["Ce2"].max_size)
    assert plain(records["Ce2"].capacity_types)


def test_notebook_and_storage_booleans_are_never_strings() -> None:
    records = load(
        """
        Domain:
          Type: AWS::SageMaker::Domain
          Properties:
            DomainName: d
            DefaultUserSettings:
              JupyterLabAppSettings:
                DefaultResourceSpec:
                  InstanceType: !If [Big, ml.g5.2xlarge, ml.g5.xlarge]
                AppLifecycleManagement:
                  IdleSettings:
                    LifecycleManagement: !If [Big, ENABLED, DISABLED]
        Fsx:
          Type: AWS::FSx::FileSystem
          Properties:
            FileSystemType: LUSTRE
            StorageCapacity: !If [Big, 2400, 1200]
            LustreConfiguration:
              DeploymentType: SCRATCH_2
              ImportPath: !If [Big, s3://a, s3://b]
        Fsx2:
          Type: AWS::FSx::FileSystem
          Properties:
            FileSystemType: LUSTRE
            LustreConfiguration:
              AutoImportPolicy: !If [Big, NONE, NEW]
        """
    )
    domain = records["Domain"]
    assert options(domain.instance_type) == {"ml.g5.2xlarge", "ml.g5.xlarge"}
    assert plain(domain.idle_shutdown)
    assert plain(records["Fsx"].data_repository)
    assert options(records["Fsx"].size_gb) == {2400.0, 1200.0}
    assert plain(records["Fsx2"].data_repository)


# -- Step Functions: scalars keep their options, the rest demotes --------------------------------

STATE_MACHINE = """
Sm:
  Type: AWS::StepFunctions::StateMachine
  Properties:
    RoleArn: arn:aws:iam::123456789012:role/x
    DefinitionSubstitutions:
      Type: !If [Big, ml.p5.48xlarge, ml.g5.2xlarge]
    Definition:
      StartAt: Train
      States:
        Train:
          Type: Task
          Resource: arn:aws:states:::sagemaker:createTrainingJob.sync
          End: true
          Parameters:
            TrainingJobName: job
            AlgorithmSpecification:
              TrainingImage: img
              TrainingInputMode: File
            ResourceConfig:
              InstanceType: TYPE
              InstanceCount: 1
              VolumeSizeInGB: 50
            InputDataConfig:
              - ChannelName: train
                DataSource:
                  FileSystemDataSource:
                    FileSystemType: !If [Big, EFS, FSxLustre]
                    FileSystemId: fs-1
                    FileSystemAccessMode: ro
                    DirectoryPath: /x
            StoppingCondition:
              MaxRuntimeInSeconds: RUNTIME
            OutputDataConfig:
              S3OutputPath: s3://b/out
"""


def step_functions(instance_type: str, runtime: str) -> str:
    return STATE_MACHINE.replace("TYPE", instance_type).replace("RUNTIME", runtime)


def test_step_functions_runtime_is_alternatives_and_derived_values_demote() -> None:
    job = load(step_functions("${Type}", '!If [Big, 1209600, "864000"]'))["Sm/Train"]
    assert isinstance(job, ir.TrainingJob)
    assert options(job.max_runtime_s) == {1209600, 864000}
    assert plain(job.instance_type)  # through DefinitionSubstitutions text: a plain Unknown
    (mount,) = job.file_system_mounts
    assert plain(mount.is_efs)


def test_step_functions_parameters_of_alternatives_are_plain() -> None:
    text = step_functions("ml.g5.2xlarge", "3600").replace(
        "          Parameters:\n", "          Parameters: !If [Big, a, b]\n          Unused:\n", 1
    )
    job = load(text)["Sm/Train"]
    assert isinstance(job, ir.TrainingJob)
    assert plain(job.max_runtime_s) and plain(job.instance_type)


# -- end to end ----------------------------------------------------------------------------------

NOTEBOOK = """\
AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  Size:
    Type: String
Conditions:
  Big: !Equals [!Ref Size, big]
Resources:
  Nb:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      RoleArn: arn:aws:iam::123456789012:role/x
      InstanceType: !If [Big, BIG, ml.g5.2xlarge]
"""


def test_fin301_passes_on_both_branches(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"t.yaml": NOTEBOOK.replace("BIG", "ml.g5.12xlarge")}, select=("FIN301",))
    assert result.findings == [] and result.undetermined == []


def test_fin301_fires_on_both_branches_at_the_instance_type_line(tmp_path: Path) -> None:
    text = NOTEBOOK.replace("BIG, ml.g5.2xlarge", "ml.p5.48xlarge, ml.p5.4xlarge")
    result = scan_files(tmp_path, {"t.yaml": text}, select=("FIN301",))
    (finding,) = result.findings
    assert finding.rule_id == "FIN301" and finding.line == 12
    assert "runs on ml.p5.48xlarge or ml.p5.4xlarge" in finding.message
    assert finding.cost is not None and finding.cost.basis.startswith("Lower bound")


def test_fin301_undetermined_naming_the_options(tmp_path: Path) -> None:
    result = scan_files(tmp_path, {"t.yaml": NOTEBOOK.replace("BIG", "ml.p5.48xlarge")}, select=("FIN301",))
    assert result.findings == []
    (entry,) = result.undetermined
    assert entry.line == 12
    assert "one of p5 or g5: the verdict differs between them" in entry.reasons[0]


def state_machine_template(runtime: str) -> str:
    body = textwrap.indent(step_functions("ml.p4d.24xlarge", runtime).lstrip("\n"), "  ")
    return HEAD + body


def test_fin102_fires_on_both_branches_of_a_runtime(tmp_path: Path) -> None:
    text = state_machine_template("!If [Big, 1209600, 864000]")
    result = scan_files(tmp_path, {"t.yaml": text}, select=("FIN101", "FIN102"))
    (finding,) = result.findings
    assert (
        finding.rule_id == "FIN102"
        and finding.line
        == text.splitlines().index("                MaxRuntimeInSeconds: !If [Big, 1209600, 864000]") + 1
    )
    assert "1,209,600 or 864,000 s" in finding.message
    assert finding.cost is not None and finding.cost.basis.startswith("Lower bound")
    assert result.undetermined == []


def test_fin101_decided_on_a_runtime_set_on_both_branches(tmp_path: Path) -> None:
    text = state_machine_template("!If [Big, 3600, 7200]")
    result = scan_files(tmp_path, {"t.yaml": text}, select=("FIN101", "FIN102"))
    assert result.findings == [] and result.undetermined == []


def test_fin101_fires_on_the_branch_that_removes_the_runtime(tmp_path: Path) -> None:
    """A runtime set on one branch only: the other runs with none, as FIN201 decides spot on one
    branch (``engine.facts.on_a_branch``); the message names the branch."""
    text = state_machine_template("!If [Big, 3600, !Ref AWS::NoValue]")
    result = scan_files(tmp_path, {"t.yaml": text}, select=("FIN101",))
    (finding,) = result.findings
    where = "(on a branch where no max runtime is set: Fn::If on condition Big"
    assert f"sets no max runtime {where}" in finding.message
    assert result.undetermined == []
