"""The resource types checkov scans that finlint reads: IR fields -> checkov attribute names, per source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Mapping

Level = Literal["full", "weaker", "nothing"]


SEVERITY = {"info": "INFO", "low": "LOW", "medium": "MEDIUM", "high": "HIGH", "critical": "CRITICAL"}


#: checkov's category enum has no cost category; CONVENTION is the closest (a practice, not a threat).
CATEGORY = "CONVENTION"


#: checkov requires custom graph-check ids of the form CKV2_<provider>_<n>.
ID_PREFIX = "CKV2_FIN_"


#: SageMaker's default max runtime when a Terraform or Kubernetes training job sets no stopping
#: condition (those loaders' ``max_runtime_default_s``).
SAGEMAKER_DEFAULT_MAX_RUNTIME_S = 86400


#: FIN301 on training jobs is translated exactly for jobs of up to this many instances.
MAX_EXACT_INSTANCE_COUNT = 16


NOT_CHECKOV_INPUTS = (
    "SageMaker API requests, Step Functions ASL files, pipeline definitions, SDK code and notebooks "
    "are not checkov inputs; checkov's results carry no dollar figure, no computed facts in the "
    "message and no finlint suppressions"
)


class Untranslatable(Exception):
    """A condition checkov's YAML policy language cannot express for one resource type."""


@dataclass(frozen=True)
class Attr:
    """Where checkov finds one IR field: one path, or several spellings of it (the first present
    is the value); ``boolean`` fields are tested with ``equals: true``."""

    paths: tuple[str, ...]
    boolean: bool = False

    @property
    def path(self) -> str:
        return self.paths[0]


@dataclass(frozen=True)
class Source:
    """A Terraform/CloudFormation/Kubernetes resource type finlint reads into IR ``kind``.

    ``fields`` maps IR field names to checkov attributes; ``None`` means checkov cannot judge
    this resource type the way finlint does, and ``gap`` says why.
    """

    framework: str  # terraform | cloudformation | kubernetes
    resource_type: str
    kind: str
    fields: Mapping[str, Attr] | None
    gap: str = ""
    #: attribute paths of which one must exist for finlint to read the resource as ``kind``
    #: (a Kubernetes ``TrainingJob`` without SageMaker's fields is another operator's CRD)
    guard: tuple[str, ...] = ()


#: Why resources whose facts come from other resources are not translated.
_JOINED = (
    "finlint joins it with other resources (notebook lifecycle configurations and their scripts, "
    "FSx data repository associations, S3 lifecycle configurations, jobs' checkpoint URIs); "
    "checkov's attribute conditions judge one resource at a time"
)


def _a(*paths: str, boolean: bool = False) -> Attr:
    return Attr(paths, boolean)


_K8S_IN_TF = (
    "a Kubernetes object in a YAML string (`yaml_body`), which checkov's Terraform graph does not "
    "parse; finlint reads it as Kubernetes (Karpenter requirements against its instance catalog, "
    "TrainingJob fields, PVC -> EFS links)"
)


_K8S_STORAGE = (
    "Kubernetes storage and workloads: finlint follows workload -> PVC -> StorageClass/PV -> EFS "
    "across resources and files; checkov's attribute conditions judge one resource at a time"
)


_ASL = (
    "training jobs are task states inside the state machine's definition (JSON): checkov's "
    "conditions cannot select the SageMaker task states and test each one"
)


LAUNCH_TEMPLATE = (
    "instance types, market options and capacity reservations come from a launch template or "
    "launch configuration (another resource), which finlint follows and checkov's attribute "
    "conditions do not"
)


#: Every Terraform/CloudFormation/Kubernetes resource type finlint reads, by IR kind.
SOURCES: tuple[Source, ...] = (
    Source(
        "terraform",
        "aws_sagemaker_training_job",
        "training_job",
        {
            "instance_type": _a("resource_config.instance_type"),
            "instance_count": _a("resource_config.instance_count"),
            "volume_size_gb": _a("resource_config.volume_size_in_gb"),
            "keep_alive_s": _a("resource_config.keep_alive_period_in_seconds"),
            "spot": _a("enable_managed_spot_training", boolean=True),
            "max_runtime_s": _a("stopping_condition.max_runtime_in_seconds"),
            "max_wait_s": _a("stopping_condition.max_wait_time_in_seconds"),
            "checkpoint_s3_uri": _a("checkpoint_config.s3_uri"),
            "checkpoint_local_path": _a("checkpoint_config.local_path"),
        },
    ),
    Source("terraform", "aws_sfn_state_machine", "training_job", None, _ASL),
    Source("cloudformation", "AWS::StepFunctions::StateMachine", "training_job", None, _ASL),
    Source("cloudformation", "AWS::Serverless::StateMachine", "training_job", None, _ASL),
    Source(
        "kubernetes",
        "TrainingJob",
        "training_job",
        {
            "instance_type": _a("spec.resourceConfig.instanceType"),
            "instance_count": _a("spec.resourceConfig.instanceCount"),
            "volume_size_gb": _a("spec.resourceConfig.volumeSizeInGB"),
            "keep_alive_s": _a("spec.resourceConfig.keepAlivePeriodInSeconds"),
            "training_plan": _a("spec.resourceConfig.trainingPlanARN", "spec.resourceConfig.trainingPlanArn"),
            "spot": _a("spec.enableManagedSpotTraining", boolean=True),
            "max_runtime_s": _a("spec.stoppingCondition.maxRuntimeInSeconds"),
            "max_wait_s": _a("spec.stoppingCondition.maxWaitTimeInSeconds"),
            # ACK spells it s3URI, the original operator s3Uri
            "checkpoint_s3_uri": _a(
                "spec.checkpointConfig.s3URI", "spec.checkpointConfig.s3Uri", "spec.checkpointConfig.S3Uri"
            ),
            "checkpoint_local_path": _a("spec.checkpointConfig.localPath"),
        },
        guard=(
            "spec.resourceConfig",
            "spec.stoppingCondition",
            "spec.algorithmSpecification",
            "spec.trainingJobName",
        ),
    ),
    Source(
        "kubernetes",
        "HyperParameterTuningJob",
        "training_job",
        None,
        "one training job per definition, several in a list (`trainingJobDefinitions`) whose items "
        "checkov's conditions cannot test one by one; not translated",
    ),
    Source(
        "terraform",
        "aws_sagemaker_notebook_instance",
        "notebook",
        {"instance_type": _a("instance_type"), "volume_size_gb": _a("volume_size"), "name": _a("name")},
    ),
    Source(
        "cloudformation",
        "AWS::SageMaker::NotebookInstance",
        "notebook",
        {
            "instance_type": _a("InstanceType"),
            "volume_size_gb": _a("VolumeSizeInGB"),
            "name": _a("NotebookInstanceName"),
        },
    ),
    Source(
        "terraform",
        "aws_eks_node_group",
        "compute_pool",
        {
            "instance_types": _a("instance_types"),
            "min_size": _a("scaling_config.min_size"),
            "desired_size": _a("scaling_config.desired_size"),
            "max_size": _a("scaling_config.max_size"),
            "name": _a("node_group_name"),
        },
    ),
    Source(
        "cloudformation",
        "AWS::EKS::Nodegroup",
        "compute_pool",
        {
            "instance_types": _a("InstanceTypes"),
            "min_size": _a("ScalingConfig.MinSize"),
            "desired_size": _a("ScalingConfig.DesiredSize"),
            "max_size": _a("ScalingConfig.MaxSize"),
            "name": _a("NodegroupName"),
        },
    ),
    Source("terraform", "aws_autoscaling_group", "compute_pool", None, LAUNCH_TEMPLATE),
    Source("cloudformation", "AWS::AutoScaling::AutoScalingGroup", "compute_pool", None, LAUNCH_TEMPLATE),
    Source("terraform", "aws_instance", "compute_pool", None, LAUNCH_TEMPLATE),
    Source("cloudformation", "AWS::EC2::Instance", "compute_pool", None, LAUNCH_TEMPLATE),
    Source("terraform", "aws_batch_compute_environment", "compute_pool", None, LAUNCH_TEMPLATE),
    Source("cloudformation", "AWS::Batch::ComputeEnvironment", "compute_pool", None, LAUNCH_TEMPLATE),
    Source(
        "terraform",
        "awscc_sagemaker_cluster",
        "compute_pool",
        None,
        "HyperPod instance groups are a list of groups inside one resource (and exempt by default)",
    ),
    Source(
        "cloudformation",
        "AWS::SageMaker::Cluster",
        "compute_pool",
        None,
        "HyperPod instance groups are a list of groups inside one resource (and exempt by default)",
    ),
    Source("terraform", "kubectl_manifest", "compute_pool", None, _K8S_IN_TF),
    Source("terraform", "kubectl_manifest", "volume", None, _K8S_IN_TF),
    Source("terraform", "kubectl_manifest", "training_job", None, _K8S_IN_TF),
    Source("terraform", "kubernetes_* (PVC, PV, StorageClass, workloads)", "volume", None, _K8S_STORAGE),
    Source(
        "kubernetes",
        "NodePool, Provisioner",
        "compute_pool",
        None,
        "finlint evaluates Karpenter requirements against its instance catalog (which p5-class "
        "types they admit, whether spec.limits fit one); checkov's conditions cannot",
    ),
    Source(
        "kubernetes",
        "ClusterConfig (eksctl)",
        "compute_pool",
        None,
        "node groups are a list inside one eksctl document, each with its own sizes and types",
    ),
    Source("kubernetes", "PVC, PV, StorageClass, workloads", "volume", None, _K8S_STORAGE),
    Source(
        "terraform",
        "aws_efs_file_system",
        "file_system",
        {
            "creation_token": _a("creation_token"),
            "name": _a("tags.Name"),
            "throughput_mode": _a("throughput_mode"),
        },
    ),
    Source(
        "cloudformation",
        "AWS::EFS::FileSystem",
        "file_system",
        {"throughput_mode": _a("ThroughputMode")},
    ),
    Source(
        "terraform",
        "aws_efs_access_point",
        "volume",
        {"root_path": _a("root_directory.path"), "name": _a("tags.Name")},
    ),
    Source("cloudformation", "AWS::EFS::AccessPoint", "volume", {"root_path": _a("RootDirectory.Path")}),
    # Facts finlint joins across resources (issue 14): checkov judges one resource at a time.
    Source("terraform", "aws_sagemaker_domain", "notebook", None, _JOINED),
    Source("cloudformation", "AWS::SageMaker::Domain", "notebook", None, _JOINED),
    Source("terraform", "aws_fsx_lustre_file_system", "file_system", None, _JOINED),
    Source("cloudformation", "AWS::FSx::FileSystem", "file_system", None, _JOINED),
    Source("terraform", "aws_s3_bucket", "bucket", None, _JOINED),
    Source("cloudformation", "AWS::S3::Bucket", "bucket", None, _JOINED),
)
