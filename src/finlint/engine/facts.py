"""Derived facts that several rules need, computed once in Python on the IR.

Policies reference them by name (``fact: gpu_hours_per_run``) instead of re-encoding the
logic in each rule. Every fact is tri-state in spirit: a value, ``None`` (does not apply) or
:class:`~finlint.ir.Unknown` (cannot tell statically), and a rule never fires on Unknown.
Facts that explain *why* return :class:`Evidence`, whose text goes into the message and
whose line (when known) is where the finding points.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from finlint.domain import catalog
from finlint.domain.karpenter import admitted_types
from finlint.domain.sagemaker import runtime_cap
from finlint.ir import (
    ComputePool,
    FileSystem,
    Mount,
    Record,
    TrainingJob,
    Unknown,
    Volume,
    is_unknown,
    map_options,
)
from finlint.untrusted import bounded


@dataclass(frozen=True)
class Evidence:
    """Why a fact holds: a sentence for the message, the line that shows it, data for costs."""

    text: str
    line: int | None = None
    data: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __str__(self) -> str:
        return self.text


FactFn = Callable[..., Any]
FACTS: dict[str, FactFn] = {}


def fact(fn: FactFn) -> FactFn:
    FACTS[fn.__name__] = fn
    return fn


def exact(fn: FactFn) -> FactFn:
    """A fact that maps an :class:`~finlint.ir.Alternatives` option by option (the others see
    alternatives as a plain Unknown: ``conditions`` demotes what they pass through)."""
    fn.exact_alternatives = True  # type: ignore[attr-defined]
    return fn


# --- training jobs and notebooks -------------------------------------------------------------


@fact
@exact
def instance_family(record: Record) -> Any:
    return map_options(getattr(record, "instance_type", None), _family)


def _family(value: Any) -> Any:
    if value is None or is_unknown(value):
        return value
    return catalog.family_of(str(value))


@fact
@exact
def accelerators_per_instance(record: Record) -> Any:
    return map_options(getattr(record, "instance_type", None), _accelerators)


def _accelerators(value: Any) -> Any:
    if value is None or is_unknown(value):
        return value
    spec = catalog.lookup(str(value))
    return spec.accelerators if spec else Unknown(f"{value} is not in the instance catalog")


@fact
def effective_max_runtime_s(record: Record) -> Any:
    """The runtime cap in force: the explicit one, else the launcher's default."""
    if not isinstance(record, TrainingJob):
        return None
    return runtime_cap(record)[0]


@fact
def gpu_hours_per_run(record: Record) -> Any:
    """Instances x accelerators per instance x max runtime hours (the default when unset)."""
    if not isinstance(record, TrainingJob):
        return None
    count: Any = 1 if record.instance_count is None else record.instance_count
    gpus = accelerators_per_instance(record)
    runtime = effective_max_runtime_s(record)
    for value in (count, gpus, runtime):
        if value is None or is_unknown(value):
            return value if is_unknown(value) else Unknown("instance type not set")
    return float(count) * float(gpus) * float(runtime) / 3600.0


_DEFAULT_TEXT = {
    "sdk-estimator": "the SageMaker SDK Estimator default max_run of 86,400 s (24 h) applies",
    "sdk-remote": "the @remote default max_runtime_in_seconds of 86,400 s (24 h) applies",
    "sdk-model-trainer": "the ModelTrainer default stopping condition of 3,600 s (1 h) applies",
}


@fact
def max_runtime_default_text(record: Record) -> Any:
    """How the platform treats a missing max runtime, for FIN101's message."""
    if not isinstance(record, TrainingJob):
        return None
    if record.launcher in _DEFAULT_TEXT:
        return _DEFAULT_TEXT[record.launcher]
    note = record.default_note
    if note:
        return str(note)
    if record.max_runtime_default_s:
        return f"the default of {record.max_runtime_default_s:,} s applies"
    return "a CreateTrainingJob request without StoppingCondition is invalid"


@fact
def uses_reserved_capacity(record: Record) -> Any:
    """Capacity that is already bought: capacity blocks, targeted reservations, training plans."""
    if isinstance(record, TrainingJob):
        plan = record.training_plan
        return None if plan is None else (plan if is_unknown(plan) else True)
    if isinstance(record, ComputePool):
        if record.capacity_reservation is True:
            return True
        types = record.capacity_types
        if isinstance(types, Unknown):
            return types
        if types is None:
            return False
        return bool(types) and all(t in ("capacity-block", "reserved") for t in types)
    return False


# --- compute pools ---------------------------------------------------------------------------


def _karpenter_exposure(pool: ComputePool, families: list[str], max_nodes: int | None) -> Any:
    types = admitted_types(pool, families)
    if is_unknown(types):
        return types
    if not types:
        return None
    req_line = pool.line_of("requirements") or pool.location.line
    limits = pool.limits
    if isinstance(limits, Unknown):
        return limits
    if isinstance(pool.min_size, int) and pool.min_size >= 1:
        return Evidence(
            f"keeps {pool.min_size} node(s) running (static replicas) and admits {', '.join(types)}",
            pool.line_of("min_size") or req_line,
            {"types": types, "types_how": "admitted by the pool's requirements", "always_on": pool.min_size},
        )
    from finlint.domain.karpenter import nodes_within_limits
    from finlint.engine.facts_pools import limit_exposure

    specs = [s for s in (catalog.lookup(t) for t in types) if s is not None]
    fits = [nodes_within_limits(limits, s) for s in specs]
    unknown = next((f for f in fits if is_unknown(f)), None)
    if unknown is not None:
        return unknown
    if any(f is None for f in fits):
        why = "has no spec.limits" if not limits else "its spec.limits do not bound cpu, memory or GPUs"
        return Evidence(
            f"admits {', '.join(types)} and {why}, so it can add such nodes without bound",
            req_line,
            {"types": types, "types_how": "admitted by the pool's requirements", "unbounded": True},
        )
    # Finite limits: limits smaller than one instance exclude the type; limits that still admit
    # more than max_nodes of the largest type do not really cap the pool.
    if max_nodes is None:
        return None
    return limit_exposure(pool, types, max_nodes)


@fact
def pool_family_exposure(record: Record, families: list[str], max_nodes: int | None = None) -> Any:
    """How a pool exposes the account to ``families`` capacity, as Evidence, or None.

    ``max_nodes``: a Karpenter pool whose finite limits admit more of the largest admitted type
    than this is exposed too (:func:`finlint.engine.facts_pools.limit_exposure`).
    """
    if not isinstance(record, ComputePool):
        return None
    if record.pool_kind in ("karpenter-nodepool", "karpenter-provisioner"):
        return _karpenter_exposure(record, families, max_nodes)
    types = record.instance_types
    if types is None or isinstance(types, Unknown):
        return types
    matching = [t for t in types if isinstance(t, str) and catalog.family_of(t) in families]
    if not matching:
        unresolved = next((t for t in types if isinstance(t, Unknown)), None)
        return Unknown(f"instance type: {unresolved.reason}") if unresolved is not None else None
    if record.pool_kind == "launch-template":
        return None  # launches nothing by itself; the group that uses it is checked
    running: Any
    if record.pool_kind == "ec2-instance":
        running = 1 if record.min_size is None else record.min_size
    else:
        sizes = [record.min_size, record.desired_size]
        unresolved = next((s for s in sizes if isinstance(s, Unknown)), None)
        if unresolved is not None:
            known = [s for s in sizes if isinstance(s, int)]
            if not known or max(known) < 1:
                return Unknown(f"pool size: {unresolved.reason}")
        running = max((s for s in sizes if isinstance(s, int)), default=0)
    if running < 1:
        return None
    line = record.line_of("instance_types") or record.location.line
    which = "min_size" if record.min_size == running else "desired_size"
    return Evidence(
        f"keeps {running} {', '.join(matching)} instance(s) running ({which}={running})",
        line,
        {"types": matching, "types_how": "declared", "always_on": running},
    )


# --- checkpoints on EFS ----------------------------------------------------------------------


def _matches(pattern: re.Pattern[str], *values: Any) -> str | None:
    for value in values:
        if isinstance(value, str) and pattern.search(bounded(value)):
            return value
    return None


def _under(path: str, mount: str) -> bool:
    mount = mount.rstrip("/") or "/"
    return path == mount or path.startswith(mount + "/") or mount == "/"


#: A name that says EFS (``efs-sc``, ``efs-pvc``, ``train-efs-claim``); never FSx.
EFS_NAME = re.compile(r"(?i)(?:^|[^a-z0-9])efs(?:[^a-z0-9]|$)")


@fact
def checkpoint_on_efs(record: Record, pattern: str, name_evidence: bool = True) -> Any:
    """Evidence that checkpoints go to EFS: a name/tag/path that says so on an EFS-backed object;
    with ``name_evidence``, also a claim or StorageClass not defined in the scan whose name says
    EFS (the message says the evidence is the name)."""
    rx = re.compile(pattern)
    if name_evidence and isinstance(record, Volume):
        found = _volume_on_efs(record, rx)
        return found if isinstance(found, Evidence) else (_efs_by_name(record, rx) or found)
    if isinstance(record, FileSystem):
        if record.fs_type != "efs":
            return None
        candidates = [("name", record.name), ("creation_token", record.creation_token)]
        candidates += [("tags", v) for v in record.tags.values() if isinstance(v, str)]
        for field_name, value in candidates:
            if _matches(rx, value) is not None:
                line = record.line_of(field_name) or record.location.line
                return Evidence(f"EFS file system '{value}' holds checkpoints", line)
        return None
    if isinstance(record, Volume):
        return _volume_on_efs(record, rx)
    if isinstance(record, TrainingJob):
        return _job_on_efs(record)
    return None


def _mount_for(path: str, mounts: Iterable[Mount]) -> Mount | None:
    """The mount a path lies on: the longest mount path that contains it."""
    best: Mount | None = None
    best_length = -1
    for mount in mounts:
        if isinstance(mount.mount_path, str) and _under(path, mount.mount_path):
            length = len(mount.mount_path.rstrip("/"))
            if length > best_length:
                best, best_length = mount, length
    return best


def _chain_data(via: tuple[str, ...]) -> dict[str, Any]:
    """Evidence data naming the files the link went through (``finlint.context`` reads it)."""
    return {"chain_files": list(via)} if via else {}


def _checkpoint_path_on_efs(volume: Volume) -> Any:
    """A path a container is told to checkpoint to (``--checkpoint-dir=/state/ckpt``,
    ``CHECKPOINT_DIR``) that lies under an EFS mount: the longest matching mount wins."""
    unknown = None
    for entry in volume.checkpoint_paths:
        path = entry.path
        mount = _mount_for(path, volume.mounts)
        if mount is None:
            continue
        if mount.is_efs is True:
            via = f" through claim '{mount.claim_name}'" if isinstance(mount.claim_name, str) else ""
            return Evidence(
                f"checkpoint path '{path}' ({entry.source}) is under the mount "
                f"'{mount.mount_path}' on EFS{via}",
                entry.line or mount.line or volume.location.line,
                _chain_data(mount.via),
            )
        if is_unknown(mount.is_efs):
            unknown = mount.is_efs
    return unknown


def _efs_by_name(volume: Volume, rx: re.Pattern[str]) -> Evidence | None:
    """A checkpoint mount from a claim, or a checkpoint claim of a StorageClass, that the scan
    does not define (nothing linked, no file in its chain) but whose name says EFS."""
    if volume.volume_kind == "workload":
        for mount in volume.mounts:
            claim = mount.claim_name
            if mount.is_efs is not None or mount.via or not isinstance(claim, str):
                continue
            if EFS_NAME.search(claim) and _matches(rx, mount.mount_path, claim, mount.volume) is not None:
                return Evidence(
                    f"mounts checkpoint path '{mount.mount_path}' from claim '{claim}', which is not "
                    "defined in the scan: EFS by name only (medium confidence: the claim's name says EFS)",
                    mount.line or volume.location.line,
                )
        return None
    sc = volume.storage_class
    if volume.volume_kind not in ("pvc", "pv") or volume.is_efs is not None or volume.via:
        return None
    if not isinstance(sc, str) or not EFS_NAME.search(sc):
        return None
    hit = _matches(rx, volume.name, volume.address.rsplit("/", 1)[-1])
    if hit is None:
        return None
    kind = "PersistentVolumeClaim" if volume.volume_kind == "pvc" else "PersistentVolume"
    return Evidence(
        f"{kind} '{hit}' uses StorageClass '{sc}', which is not defined in the scan: EFS by name "
        "only (medium confidence: the class's name says EFS)",
        volume.line_of("storage_class") or volume.location.line,
    )


def _volume_on_efs(volume: Volume, rx: re.Pattern[str]) -> Any:
    if volume.volume_kind == "workload":
        unknown = None
        for mount in volume.mounts:
            hit = _matches(rx, mount.mount_path, mount.claim_name, mount.volume)
            if hit is None:
                continue
            if mount.is_efs is True:
                via = f" through claim '{mount.claim_name}'" if isinstance(mount.claim_name, str) else ""
                return Evidence(
                    f"mounts checkpoint path '{mount.mount_path}' on EFS{via}",
                    mount.line or volume.location.line,
                    _chain_data(mount.via),
                )
            if is_unknown(mount.is_efs):
                unknown = mount.is_efs
        by_path = _checkpoint_path_on_efs(volume)
        return by_path if by_path is not None else unknown
    if volume.volume_kind == "efs-mount-target":
        return None
    if volume.is_efs is not True:
        return volume.is_efs if is_unknown(volume.is_efs) else None
    candidates: list[tuple[str, Any]] = [
        ("name", volume.name),
        ("root_path", volume.root_path),
        ("storage_class", volume.storage_class),
        ("address", volume.address.rsplit("/", 1)[-1]),
    ]
    field_name, hit = next(((f, v) for f, v in candidates if _matches(rx, v) is not None), ("", None))
    if hit is None:
        return None
    kind = {
        "pvc": "PersistentVolumeClaim",
        "pv": "PersistentVolume",
        "storage-class": "StorageClass",
        "efs-access-point": "EFS access point",
    }.get(volume.volume_kind, volume.volume_kind)
    line = volume.line_of(field_name) or volume.location.line
    return Evidence(f"{kind} '{hit}' puts checkpoints on EFS", line, _chain_data(volume.via))


def _job_on_efs(job: TrainingJob) -> Any:
    if job.checkpoint_s3_uri is None and job.checkpoint_local_path is None:
        return None
    path = job.checkpoint_local_path
    if path is None:
        path = job.checkpoint_local_path_default
    if not isinstance(path, str):
        return path if is_unknown(path) else None
    mount = _mount_for(path, job.file_system_mounts)
    if mount is not None and mount.is_efs is True:
        line = job.line_of("checkpoint_local_path") or mount.line or job.location.line
        return Evidence(
            f"checkpoint path '{path}' is on the EFS mount '{mount.mount_path}'", line, _chain_data(mount.via)
        )
    if mount is not None and is_unknown(mount.is_efs):
        return mount.is_efs
    return None


# The pool, storage and training-job rules' facts register themselves in FACTS on import.
from finlint.engine import facts_pools as _facts_pools  # noqa: E402,F401
from finlint.engine import facts_storage as _facts_storage  # noqa: E402,F401
from finlint.engine import facts_training as _facts_training  # noqa: E402,F401
