"""The intermediate representation: what every loader produces and every rule reads.

Records are frozen dataclasses, independent of the source format. A value a loader could
not know statically (an unresolved ``!Ref``, ``var.x`` without a default, a Helm
placeholder) is an :class:`Unknown`, never a guess: the engine never fires a rule on one.
``None`` means "absent in the source" (so the platform default applies).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, Iterable, Mapping, TypeVar, Union

# side records of Kubernetes workloads, part of the IR (re-exported)
from finlint.ir_workloads import CheckpointPath as CheckpointPath
from finlint.ir_workloads import EnvFrom as EnvFrom
from finlint.ir_workloads import PendingEnv as PendingEnv
from finlint.ir_workloads import PodPlacement as PodPlacement
from finlint.ir_workloads import Requirement as Requirement
from finlint.ir_workloads import RunsScript as RunsScript
from finlint.ir_workloads import ScriptArg as ScriptArg


class Unknown:
    """A value that exists in the source but cannot be resolved statically."""

    __slots__ = ("reason", "template")

    def __init__(self, reason: str = "unresolved", template: str | None = None) -> None:
        self.reason = reason
        #: the template text the value was written as (``run-${RUN_ID}-state``), when it was a
        #: placeholder: two names written as the same text are the same name for linking
        self.template = template

    def __repr__(self) -> str:
        return f"Unknown({self.reason!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unknown)

    def __hash__(self) -> int:
        return hash(Unknown)

    def __bool__(self) -> bool:  # pragma: no cover - guard against accidental truthiness
        raise TypeError("Unknown has no truth value; test with is_unknown()")


class Alternatives(Unknown):
    """Unknown, but one of a finite set of known scalars: a value assigned differently on the
    branches of an ``if`` (``3600 if args.debug else 5 * 86400``, ``var.big ? "ml.p5.48xlarge" :
    "ml.g5.2xlarge"``, ``!If [Big, ..., ...]``). ``options`` are str / int / float / bool, or None
    (absent on that branch). Everything that does not look at ``options`` sees an Unknown (and
    ``bool()`` raises); the engine evaluates a predicate over each option and decides only when
    every option gives the same verdict. Build it with :func:`alternatives`."""

    __slots__ = ("options",)

    def __init__(self, reason: str, options: tuple[Any, ...]) -> None:
        super().__init__(reason)
        self.options = options

    def __repr__(self) -> str:
        return f"Alternatives({self.reason!r}, {self.options!r})"

    def shown(self, spec: str = "") -> str:
        """The options for a message: ``432,000 or 864,000`` (with a format spec)."""
        return " or ".join(_format_option(o, spec) for o in self.options)


#: More alternatives than this are a plain Unknown (a value chosen from a long table).
MAX_ALTERNATIVES = 8


def _format_option(value: Any, spec: str) -> str:
    if value is None:
        return "unset"
    if not spec and isinstance(value, int) and not isinstance(value, bool):
        spec = ","
    try:
        return format(value, spec) if spec else str(value)
    except (TypeError, ValueError):
        return str(value)


def _option_key(value: Any) -> tuple[str, Any]:
    """Strict identity of an option: ``1``, ``1.0`` and ``True`` differ."""
    return (type(value).__name__, value)


def alternatives(values: Any, reason: str) -> Any:
    """The value that is one of ``values`` (scalars, None or Alternatives, flattened): the value
    itself when they are all the same, an :class:`Alternatives` for 2..MAX_ALTERNATIVES distinct
    options, else a plain :class:`Unknown` with the reason (the first unresolvable one's, if any)."""
    options: dict[tuple[str, Any], Any] = {}
    for value in values:
        for option in value.options if isinstance(value, Alternatives) else (value,):
            if isinstance(option, Unknown):
                return Unknown(option.reason)
            if option is not None and not isinstance(option, bool):
                base = next((t for t in (str, int, float) if isinstance(option, t)), None)
                if base is None:
                    return Unknown(reason)
                option = base(option)  # a str subclass (a YAML string with its line) as str
            options.setdefault(_option_key(option), option)
    if not options:
        return Unknown(reason)
    if len(options) == 1:
        return next(iter(options.values()))
    if len(options) > MAX_ALTERNATIVES:
        return Unknown(f"{reason} ({len(options)} alternatives)")
    return Alternatives(reason, tuple(options.values()))


def map_options(value: Any, fn: Any, reason: str | None = None) -> Any:
    """``fn`` over each option of an :class:`Alternatives` (rebuilt with :func:`alternatives`,
    so equal results collapse and an unresolvable one makes it a plain Unknown); any other
    value is passed to ``fn`` as is."""
    if not isinstance(value, Alternatives):
        return fn(value)
    return alternatives([fn(option) for option in value.options], reason or value.reason)


def plain_unknown(value: Any) -> Any:
    """An :class:`Alternatives` as a plain Unknown (same reason); anything else unchanged. For a
    value derived from an operand in a way that does not keep its options."""
    return Unknown(value.reason) if isinstance(value, Alternatives) else value


UNKNOWN = Unknown()

T = TypeVar("T")
#: A field that may be absent (None), known (T) or unknown.
Maybe = Union[T, Unknown, None]


def is_unknown(value: object) -> bool:
    return isinstance(value, Unknown)


@dataclass(frozen=True)
class Location:
    """1-based, inclusive line span in a scanned file (path relative to the CWD, '/' separators)."""

    file: str
    line: int
    end_line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


@dataclass(frozen=True)
class Suppression:
    """An in-source ``ignore`` that a loader found attached to a record (CFN Metadata, k8s annotation)."""

    rule: str  # code (FIN301) or slug
    reason: str
    line: int


#: A resource's metadata or annotations suppress at most this many rules; a rule named again
#: counts once (``finlint.post.suppressions.MAX_RULES`` is the same cap for comments).
MAX_SUPPRESSIONS = 100


def distinct_suppressions(found: Iterable[Suppression]) -> tuple[Suppression, ...]:
    """``found`` with each rule once (any case, the first kept), at most :data:`MAX_SUPPRESSIONS`
    (an annotation naming a rule 20,000 times made 20,000 findings)."""
    seen: dict[str, Suppression] = {}
    for item in found:
        key = item.rule.strip().lower()
        if key not in seen:
            seen[key] = item
            if len(seen) == MAX_SUPPRESSIONS:
                break
    return tuple(seen.values())


#: Where a training job was launched from (TrainingJob.launcher).
LAUNCHERS = (
    "api-request",  # CreateTrainingJob JSON/YAML, boto3 create_training_job
    "step-functions",  # ASL createTrainingJob task
    "pipeline-step",  # SageMaker pipeline definition / TrainingStep
    "kubernetes-crd",  # ACK or legacy operator TrainingJob
    "sdk-estimator",  # SDK v2 Estimator / framework estimators
    "sdk-model-trainer",  # SDK v3 ModelTrainer
    "sdk-remote",  # @remote decorated function
    "terraform",  # aws_sagemaker_training_job
    "kubeflow-training-operator",  # PyTorchJob, TFJob, MPIJob, XGBoostJob, PaddleJob, JAXJob
    "kubeflow-trainer",  # Trainer v2 TrainJob
    "hyperpod-training-operator",  # SageMaker HyperPod HyperPodPyTorchJob
    "kubernetes-job",  # batch/v1 Job requesting accelerators
    "kubernetes-cronjob",  # batch/v1 CronJob whose jobTemplate requests accelerators
    "jobset",  # JobSet (jobset.x-k8s.io)
    "volcano",  # Volcano Job (batch.volcano.sh)
    "kuberay",  # KubeRay RayJob
    "slurm-sbatch",  # a Slurm batch script (#SBATCH directives, sbatch command lines)
    "aws-batch",  # an AWS Batch GPU job definition (CloudFormation, Terraform, API request)
    "aws-batch-submit",  # boto3 submit_job: applied to the job definition it names, then dropped
)

#: Launchers with no default runtime cap: a job without a limit runs until it finishes.
UNCAPPED_LAUNCHERS = frozenset(
    {
        "kubeflow-training-operator",
        "kubeflow-trainer",
        "hyperpod-training-operator",
        "kubernetes-job",
        "kubernetes-cronjob",
        "jobset",
        "volcano",
        "kuberay",
        "slurm-sbatch",
        "aws-batch",
    }
)


@dataclass(frozen=True)
class ValueSource:
    """A field's value read from another file (a config file next to a launcher, the SDK's
    defaults file, a chart's values file): ``engine.origins`` points a finding there."""

    attr: str  # the IR field (``instance_type``), as in ``attr_lines`` (``limits.cpu``)
    file: str  # display path of the file that set it
    line: int
    what: str  # how the message names the file (``config file``, ``Helm values (template ...)``)


@dataclass(frozen=True)
class Record:
    """Common fields of every IR record.

    ``attr_lines`` maps a field name (e.g. ``"max_runtime_s"``) to the line of the source
    attribute it came from, so a finding can point at the cause. ``address`` is stable across
    line moves (CloudFormation logical id, Terraform address, ``Kind/namespace/name``).

    What a later stage reads is a typed field (``value_sources``, ``finding_note``, ``inputs``
    here; the kinds' own below), never an ``extra`` key: ``extra`` is context only the loader
    that wrote it reads (``tests/test_typed_handoffs.py`` checks no other module reads it).
    """

    KIND: ClassVar[str] = "record"

    address: str
    location: Location
    source_format: str  # cloudformation | kubernetes | sagemaker-api | step-functions | ...
    attr_lines: Mapping[str, int] = field(default_factory=dict)
    suppressions: tuple[Suppression, ...] = ()
    name: Maybe[str] = None  # human name where the source has one (job name, Name tag)
    extra: Mapping[str, Any] = field(default_factory=dict)  # read only by the loader that wrote it
    #: fields whose value came from another file (``engine.origins`` points a finding there)
    value_sources: tuple[ValueSource, ...] = ()
    #: appended to every finding of the record (a launch checked under a value other than the
    #: one written, Terraform module defaults the group does not set); "" for none
    finding_note: str = ""
    #: other files the loader read this record's values from (display paths): a changed-file
    #: scan reports the record's findings through them (``finlint.context``)
    inputs: tuple[str, ...] = ()

    def line_of(self, attr: str) -> int | None:
        return self.attr_lines.get(attr)

    def value_source(self, attr: str) -> ValueSource | None:
        """Where ``attr``'s value was read from, when another file set it."""
        return next((s for s in self.value_sources if s.attr == attr), None)

    def with_changes(self: R, **changes: Any) -> R:
        return replace(self, **changes)

    def attributes(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


R = TypeVar("R", bound=Record)


@dataclass(frozen=True)
class TrainingJob(Record):
    """A training job from any launcher: size, spot, runtime cap, checkpoints and what it runs."""

    KIND: ClassVar[str] = "training_job"

    launcher: str = "api-request"
    instance_type: Maybe[str] = None
    instance_count: Maybe[int] = None
    spot: Maybe[bool] = None  # managed spot training
    max_runtime_s: Maybe[int] = None  # explicit value only; None when absent
    max_runtime_default_s: int | None = None  # what applies when absent (None: request invalid)
    max_wait_s: Maybe[int] = None
    checkpoint_s3_uri: Maybe[str] = None
    checkpoint_local_path: Maybe[str] = None
    checkpoint_local_path_default: str | None = "/opt/ml/checkpoints"
    keep_alive_s: Maybe[int] = None
    volume_size_gb: Maybe[int] = None
    runs_multiplier: Maybe[int] = 1  # e.g. HyperparameterTuner max_jobs
    training_plan: Maybe[str] = None  # reserved capacity (training plan ARN)
    file_system_mounts: tuple[Mount, ...] = ()  # FileSystemDataSource inputs etc.
    training_image: Maybe[str] = None  # image URI (TrainingImage, image_uri); SDK f-strings: the template
    framework: Maybe[str] = None  # pytorch | tensorflow | ...: named by the launcher (SDK class)
    entry_point: Maybe[str] = None  # training script the job runs (SDK entry_point / entry_script)
    source_dir: Maybe[str] = None  # directory the entry point is resolved in (SDK source_dir)
    warm_pool_peers: int = 0  # other jobs in the same file that can reuse its warm pool (linking)
    #: how the platform treats a missing runtime cap, in the launcher's words (FIN101's message)
    default_note: str | None = None
    #: a launch in a loop (SDK loader): how many times it runs; None when not in a loop
    launches: Launches | None = None
    #: the field that sets the runtime limit in the launcher's own words (``activeDeadlineSeconds``)
    runtime_limit_field: str | None = None
    #: a job that brings its own cluster (KubeRay RayJob): what stays up after it finishes
    cluster_after_job: ClusterAfterJob | None = None
    #: runs on interruptible (spot) capacity, outside SageMaker managed spot
    capacity_spot: Maybe[bool] = None
    capacity_spot_from: str | None = None  # where that was read (a pod selector, a pool)
    placement: PodPlacement | None = None  # Kubernetes pods' node choice, for ``linking.landing``
    instance_types_from: str | None = None  # the pool its pods land on (``linking.landing``)
    landing_types: tuple[str, ...] = ()
    checkpoint_in_sight: Maybe[str] = None  # a checkpoint path or volume seen (FIN201 on capacity_spot)
    scheduled_runs_per_month: float | None = None  # a CronJob's simple schedule (else usage)
    batch_job_queue: Maybe[str] = None  # AWS Batch: the queue a literal ``submit_job`` names


@dataclass(frozen=True)
class ClusterAfterJob:
    """The cluster a job creates (KubeRay ``rayClusterSpec``) and whether it outlives the job:
    ``shutdown`` is ``shutdownAfterJobFinishes`` (None: unset, KubeRay's default false) at
    ``shutdown_line``; ``idle_nodes`` the accelerated instances it keeps, in ``idle_roles``."""

    shutdown: Maybe[bool]
    shutdown_line: int | None
    idle_nodes: Maybe[int]
    idle_roles: tuple[str, ...] = ()
    ttl_seconds_after_finished: Maybe[int] = None


@dataclass(frozen=True)
class Launches:
    """A launch that runs in a loop (SDK loader). Cost models multiply per-run figures by
    ``count`` (``cost.common.jobs_per_run``); an unknown count makes the figure per launch."""

    count: int | None  # None: the loop's trip count is unknown
    loop_lines: tuple[int, ...] = ()  # the loops' lines, outermost first
    why: str | None = None  # why the count is unknown


#: ComputePool.pool_kind values.
POOL_KINDS = (
    "karpenter-nodepool",
    "karpenter-provisioner",
    "eks-nodegroup",
    "eksctl-nodegroup",
    "autoscaling-group",
    "launch-template",
    "ec2-instance",
    "batch-compute-environment",
    "hyperpod-instance-group",
    "ray-worker-group",  # a RayCluster / RayService head or worker group with accelerators
    "parallelcluster-compute-resource",  # a SlurmQueues[].ComputeResources[] entry
    "slurm-partition",  # slurm.conf PartitionName, HyperPod provisioning_parameters worker group
)


@dataclass(frozen=True)
class ComputePool(Record):
    """Anything that launches instances over time.

    ``instance_types`` lists explicit types (EKS, ASG, EC2, HyperPod); Karpenter pools carry
    ``requirements`` instead, evaluated against the instance catalog by ``facts``.
    ``capacity_types`` uses: ``on-demand``, ``spot``, ``capacity-block``, ``reserved``.
    """

    KIND: ClassVar[str] = "compute_pool"

    pool_kind: str = "ec2-instance"
    instance_types: Maybe[tuple[Maybe[str], ...]] = None
    requirements: tuple[Requirement, ...] = ()
    capacity_types: Maybe[tuple[str, ...]] = None
    min_size: Maybe[int] = None
    desired_size: Maybe[int] = None
    max_size: Maybe[int] = None
    limits: Maybe[Mapping[str, Any]] = None  # Karpenter spec.limits (raw quantities)
    disruption: Mapping[str, Any] = field(default_factory=dict)
    labels: Mapping[str, Any] = field(default_factory=dict)
    taints: tuple[str, ...] = ()
    capacity_reservation: Maybe[bool] = None  # targeted ODCR / capacity block declared
    api_version: Maybe[str] = None  # Karpenter: karpenter.sh/v1 | v1beta1 | v1alpha5
    #: Karpenter: each ``disruption`` key -> where it was written (``spec.disruption.expireAfter``,
    #: ``spec.template.spec.expireAfter``), so a field in the wrong place for its API is visible.
    disruption_paths: Mapping[str, str] = field(default_factory=dict)
    #: a ParallelCluster compute resource: the Slurm partition (queue) it serves, and whether that
    #: is the cluster's default partition (its first queue): the Slurm loader links jobs by it
    partition: str | None = None
    default_partition: bool = False
    #: a ParallelCluster compute resource: the cluster's ``SharedStorage`` mounts (``MountDir``;
    #: ``is_efs`` from ``StorageType``), which the Slurm loader gives the jobs of that cluster
    shared_mounts: tuple[Mount, ...] = ()
    #: Karpenter: the nodeClassRef is a HyperpodNodeClass (nodes carry ``ml.*`` type labels)
    hyperpod_node_class: bool = False
    partition_time_limit_s: Maybe[int] = None  # Slurm: DefaultTime, else MaxTime (None at a line: UNLIMITED)
    idle_release_s: Maybe[int] = None  # idle node kept s (ScaledownIdletime, Ray idleTimeout); None: never
    source_kind: str | None = None  # a KubeRay worker group's object: RayCluster | RayService


@dataclass(frozen=True)
class Notebook(Record):
    """A SageMaker notebook instance or a Studio domain's default app."""

    KIND: ClassVar[str] = "notebook"

    instance_type: Maybe[str] = None
    volume_size_gb: Maybe[int] = None
    notebook_kind: str = "notebook-instance"  # notebook-instance | studio-domain
    lifecycle_config: Maybe[str] = None  # the lifecycle configuration attached (name or address)
    #: Stops itself when idle: a lifecycle script with an idle/auto-stop check, or Studio's
    #: idle shutdown enabled. False: known not to (no config, or a script without such a check).
    idle_shutdown: Maybe[bool] = None


@dataclass(frozen=True)
class FileSystem(Record):
    """An EFS or FSx for Lustre file system."""

    KIND: ClassVar[str] = "file_system"

    fs_type: str = "efs"  # efs | fsx-lustre
    tags: Mapping[str, Any] = field(default_factory=dict)
    creation_token: Maybe[str] = None
    throughput_mode: Maybe[str] = None  # EFS: bursting | provisioned | elastic
    provisioned_throughput_mibps: Maybe[float] = None
    size_gb: Maybe[float] = None  # FSx storage capacity
    deployment_type: Maybe[str] = None  # FSx: SCRATCH_2 | PERSISTENT_2 ...
    per_unit_storage_throughput: Maybe[int] = None
    ref_ids: tuple[str, ...] = ()  # identifiers others use to point here (fs-123, logical id)
    #: FSx for Lustre: linked to S3 (import/export path, auto export, or a data repository
    #: association, found by the storage linking pass); None for EFS.
    data_repository: Maybe[bool] = None
    mounted_by: tuple[str, ...] = ()  # training jobs / workloads that mount it (linking)


@dataclass(frozen=True)
class Mount:
    """A workload's volume mount: where a claim or file system appears inside a container."""

    volume: str  # volume name in the pod spec, or a file system reference
    mount_path: Maybe[str]
    claim_name: Maybe[str] = None  # PVC name when the volume is a claim
    file_system_ref: Maybe[str] = None  # direct EFS/FSx reference (fs-..., logical id)
    line: int | None = None
    is_efs: Maybe[bool] = None  # known from the volume itself, or filled by the linking pass
    #: files of the objects ``is_efs`` was resolved through (claim, class, PV, file system),
    #: filled by the linking pass: a changed one of them reports this mount's findings
    via: tuple[str, ...] = ()


#: Volume.volume_kind values.
VOLUME_KINDS = ("pvc", "pv", "storage-class", "workload", "efs-access-point", "efs-mount-target")


@dataclass(frozen=True)
class Volume(Record):
    """Kubernetes storage objects and workloads' mounts, and EFS access points / mount targets.

    ``is_efs`` is filled by the linking pass (or directly when the driver is visible).
    """

    KIND: ClassVar[str] = "volume"

    volume_kind: str = "pvc"
    namespace: Maybe[str] = None
    storage_class: Maybe[str] = None
    provisioner: Maybe[str] = None  # StorageClass provisioner / PV CSI driver
    volume_name: Maybe[str] = None  # PVC spec.volumeName (bound PV)
    #: PV ``spec.claimRef`` (the claim it is reserved for): name and namespace
    claim_ref: Maybe[str] = None
    claim_ref_namespace: Maybe[str] = None
    capacity_gb: Maybe[float] = None
    file_system_ref: Maybe[str] = None  # EFS file system id or logical id
    root_path: Maybe[str] = None  # access point root directory
    mounts: tuple[Mount, ...] = ()  # for workloads
    is_efs: Maybe[bool] = None
    efs_target: Maybe[str] = None  # address of the EFS record it resolves to (linking)
    via: tuple[str, ...] = ()  # files of the class / PV ``is_efs`` was resolved through (linking)
    #: An FSx for Lustre StorageClass (dynamic provisioning): the deployment type it creates and
    #: whether it links the file system to S3 (s3ImportPath / s3ExportPath / autoImportPolicy).
    deployment_type: Maybe[str] = None
    data_repository: Maybe[bool] = None
    #: workloads: paths the containers checkpoint to (``linking.env`` adds the envFrom ones)
    checkpoint_paths: tuple[CheckpointPath, ...] = ()
    env_from: tuple[EnvFrom, ...] = ()  # workloads: containers' envFrom still to expand (linking)
    #: workloads: the Python scripts containers run (linking adds their argparse checkpoint defaults)
    runs_scripts: tuple[RunsScript, ...] = ()


@dataclass(frozen=True)
class LifecycleRule:
    """One S3 lifecycle rule: transitions and expiration."""

    rule_id: Maybe[str]
    enabled: bool = True
    prefix: Maybe[str] = None
    transitions: tuple[tuple[int, str], ...] = ()  # (days, storage class)
    expiration_days: Maybe[int] = None


@dataclass(frozen=True)
class Bucket(Record):
    """An S3 bucket and its lifecycle rules (checkpoints age out, or pile up)."""

    KIND: ClassVar[str] = "bucket"

    bucket_name: Maybe[str] = None
    lifecycle_rules: Maybe[tuple[LifecycleRule, ...]] = None
    checkpoint_jobs: tuple[str, ...] = ()  # training jobs whose checkpoint URI is in it (linking)


@dataclass(frozen=True)
class DataLoader(Record):
    """A PyTorch ``torch.utils.data.DataLoader(...)`` call in Python training code (read, never run).

    ``gpu`` says whether the code runs on a GPU: from the training job whose entry point the file
    is (filled by the linking pass from the job's instance type), else from the script itself
    (``.cuda()``, ``device="cuda"``); ``None`` when nothing says.
    """

    KIND: ClassVar[str] = "data_loader"

    num_workers: Maybe[int] = None  # None: the argument is absent (PyTorch default 0)
    pin_memory: Maybe[bool] = None  # None: absent (PyTorch default False)
    prefetch_factor: Maybe[int] = None
    gpu: Maybe[bool] = None
    gpu_evidence: Maybe[str] = None  # what says it is a GPU job (job address or code line)
    job: Maybe[str] = None  # address of the training job whose entry point this file is


@dataclass(frozen=True)
class ConfigMap(Record):
    """A Kubernetes ConfigMap's string data: what a container's ``envFrom`` puts into its
    environment (checkpoint paths often travel this way; the linking pass expands them)."""

    KIND: ClassVar[str] = "config_map"

    namespace: Maybe[str] = None
    data: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class TrainingScript(Record):
    """A Python script's argparse checkpoint options with a path default (no rule reads it: the
    linking pass gives the defaults to the containers that run the script without the option)."""

    KIND: ClassVar[str] = "training_script"

    checkpoint_args: tuple[ScriptArg, ...] = ()


@dataclass(frozen=True)
class JobQueue(Record):
    """An AWS Batch job queue (no rule applies to it; ``linking.batch`` links job definitions)."""

    KIND: ClassVar[str] = "job_queue"
    #: in order: a compute environment's record address (same template/configuration), name or ARN
    compute_environments: tuple[Maybe[str], ...] = ()


_KINDS = (
    TrainingJob,
    ComputePool,
    Notebook,
    FileSystem,
    Volume,
    Bucket,
    DataLoader,
    ConfigMap,
    TrainingScript,
    JobQueue,
)
RECORD_TYPES: dict[str, type[Record]] = {cls.KIND: cls for cls in _KINDS}


@dataclass
class LoadError:
    """A file of a supported format that could not be read or parsed (reported as FIN000)."""

    file: str
    line: int
    message: str


@dataclass
class Notice:
    """Something skipped on purpose (an unrendered template, a remote module): not an error."""

    file: str
    line: int
    message: str


@dataclass
class LoadResult:
    """What a loader produced from one unit: records, errors (FIN000) and notices."""

    records: list[Record] = field(default_factory=list)
    errors: list[LoadError] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)

    def extend(self, other: LoadResult) -> None:
        self.records.extend(other.records)
        self.errors.extend(other.errors)
        self.notices.extend(other.notices)
