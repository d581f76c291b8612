"""The Slurm loader's whole-scan pass: submissions applied to the scripts they submit, and a job's
partition linked to the ParallelCluster queue of that name (its instance types), and the
cluster's ``SharedStorage`` mounts given to the job (FIN401 reads a checkpoint path under an EFS one).

sbatch's command-line options override the script's ``#SBATCH`` lines, so a submission's literal
``--time``/``--nodes`` become the script job's values (several submissions of one script with
different values are alternatives); the line stays the script's (the submission's file is listed
in ``inputs`` and ``extra["submitted_by"]``). A job gets its queue's instance types from
the nearest ParallelCluster configuration: one in its own folder or the closest folder above it
(two at that level: none), else the only one of the scan when it has a queue of the job's
``--partition`` (two clusters may name the same partition); no ``--partition`` means the
configuration's first queue, Slurm's default partition.
"""

from __future__ import annotations

import posixpath
from typing import Any, Callable

from finlint import ir
from finlint.ir import ComputePool, TrainingJob, Unknown

LAUNCHER = "slurm-sbatch"
SUBMITS = "slurm_submits"
POOL_KIND = "parallelcluster-compute-resource"
PARTITION_KIND = "slurm-partition"
#: the fields a submission's command line may set on the script it submits
_FIELDS = ("max_runtime_s", "instance_count")


def _slurm_jobs(records: list[ir.Record]) -> list[TrainingJob]:
    return [r for r in records if isinstance(r, TrainingJob) and r.launcher == LAUNCHER]


def apply_submissions(records: list[ir.Record]) -> list[ir.Record]:
    jobs = _slurm_jobs(records)
    scripts = {j.location.file: j for j in jobs if SUBMITS not in j.extra}
    by_target: dict[str, list[TrainingJob]] = {}
    for job in jobs:
        target = job.extra.get(SUBMITS)
        if isinstance(target, str) and target in scripts and target != job.location.file:
            by_target.setdefault(target, []).append(job)
    if not by_target:
        return records
    merged: dict[int, ir.Record] = {}
    dropped: set[int] = set()
    for target, subs in by_target.items():
        script = scripts[target]
        changes: dict[str, Any] = {}
        lines = dict(script.attr_lines)
        for name in _FIELDS:
            own = getattr(script, name)
            values = [
                getattr(s, name) if name in s.attr_lines and not _derived(s, name) else own for s in subs
            ]
            if all(v is own for v in values):
                continue
            changes[name] = ir.alternatives(values, f"{name} differs between the submissions of {target}")
            if name in lines and any(v is not own for v in values):
                lines.pop(name)  # the value is written in another file: the finding stays on the job
        extra = dict(script.extra)
        files = sorted({s.location.file for s in subs})
        changes["inputs"] = tuple(sorted(set(script.inputs) | set(files)))
        extra["submitted_by"] = [f"{s.location.file}:{s.location.line}" for s in subs]
        if "max_runtime_s" in changes:
            changes["default_note"] = None
            extra["runtime_from"] = "sbatch --time on the command line of " + ", ".join(extra["submitted_by"])
        merged[id(script)] = script.with_changes(attr_lines=lines, extra=extra, **changes)
        dropped.update(id(s) for s in subs)
    return [merged.get(id(r), r) for r in records if id(r) not in dropped]


def _derived(job: TrainingJob, name: str) -> bool:
    """A submission's runtime that is only "the script is not in the scan" (not its own option)."""
    value = getattr(job, name)
    return isinstance(value, Unknown) and "not in the scan" in value.reason


def _pools_by_config(
    records: list[ir.Record], keep: Callable[[ComputePool], bool]
) -> dict[str, list[ComputePool]]:
    """The ParallelCluster pools ``keep`` accepts, by the configuration file that defines them."""
    by_config: dict[str, list[ComputePool]] = {}
    for record in records:
        if isinstance(record, ComputePool) and keep(record):
            by_config.setdefault(record.location.file, []).append(record)
    return by_config


def _typed_partition(pool: ComputePool) -> bool:
    """A ParallelCluster compute resource, or a partition whose instance type is known (HyperPod)."""
    return pool.pool_kind == POOL_KIND or (
        pool.pool_kind == PARTITION_KIND and pool.instance_types is not None
    )


HYPERPOD_GROUP = "hyperpod-instance-group"


def _shared_parts(a: str, b: str) -> int:
    count = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        count += 1
    return count


def link_hyperpod_groups(records: list[ir.Record]) -> list[ir.Record]:
    """A HyperPod Slurm partition (``worker_groups[].partition_name``) runs on the instance group
    its ``instance_group_name`` names: the cluster's ``InstanceGroups`` entry of that name in the
    scan (a ``CreateCluster`` request, ``AWS::SageMaker::Cluster``) gives its instance type; of
    several groups of that name, the one nearest the provisioning parameters (a tie: none)."""
    groups = [r for r in records if isinstance(r, ComputePool) and r.pool_kind == HYPERPOD_GROUP]
    if not groups:
        return records
    out: list[ir.Record] = []
    for record in records:
        if (
            isinstance(record, ComputePool)
            and record.pool_kind == PARTITION_KIND
            and record.instance_types is None
            and isinstance(record.name, str)
        ):
            named = [g for g in groups if g.name == record.name and isinstance(g.instance_types, tuple)]
            if named:
                best = max(_shared_parts(g.location.file, record.location.file) for g in named)
                near = [g for g in named if _shared_parts(g.location.file, record.location.file) == best]
                if len(near) == 1:
                    group = near[0]
                    record = record.with_changes(
                        instance_types=group.instance_types,
                        inputs=tuple(sorted(set(record.inputs) | {group.location.file})),
                        value_sources=(
                            *record.value_sources,
                            ir.ValueSource(
                                "instance_types",
                                group.location.file,
                                group.line_of("instance_types") or group.location.line,
                                f"HyperPod instance group {record.name} in",
                            ),
                        ),
                    )
        out.append(record)
    return out


def link_partitions(records: list[ir.Record]) -> list[ir.Record]:
    by_config = _pools_by_config(records, _typed_partition)
    if not by_config:
        return records
    out: list[ir.Record] = []
    for record in records:
        if isinstance(record, TrainingJob) and record.launcher == LAUNCHER:
            config = nearest_config(
                record.location.file, list(by_config), record.extra.get("partition"), by_config
            )
            if config is not None:
                record = _with_queue(record, by_config[config], config)
        out.append(record)
    return out


def nearest_config(
    script: str,
    configs: list[str],
    partition: Any = None,
    pools: dict[str, list[ComputePool]] | None = None,
) -> str | None:
    """The configuration in the script's folder or the closest folder above it; else the only
    configuration of the scan when it has a queue of the script's ``--partition`` (a script
    elsewhere in a repository of examples, with no partition, is not assumed to run there)."""
    folder = posixpath.dirname(script)
    while True:
        here = [c for c in configs if posixpath.dirname(c) == folder]
        if len(here) == 1:
            return here[0]
        if len(here) > 1:
            return None
        if folder in ("", "/", "."):
            break
        folder = posixpath.dirname(folder)
    if len(configs) != 1 or not isinstance(partition, str) or pools is None:
        return None
    queues = {p.partition for p in pools.get(configs[0], [])}
    return configs[0] if partition in queues else None


def _with_queue(job: TrainingJob, pools: list[ComputePool], config: str) -> TrainingJob:
    """The queue's instance types (when the job names none) and whether it is spot capacity."""
    queues: dict[str, list[ComputePool]] = {}
    for pool in pools:
        if pool.partition is not None:
            queues.setdefault(pool.partition, []).append(pool)
    default = next((p.partition for p in pools if p.default_partition), None)
    partition = job.extra.get("partition")
    name = default if partition is None else partition
    if not isinstance(name, str) or name not in queues:
        return job
    changes: dict[str, Any] = {}
    lines = dict(job.attr_lines)
    where = lines.get("partition", job.location.line)
    if job.instance_type is None:
        types: list[Any] = []
        for pool in queues[name]:
            listed = pool.instance_types
            types.extend(listed if isinstance(listed, tuple) else (Unknown("instance types unknown"),))
        value = ir.alternatives(types, f"queue {name} has several compute resources")
        if isinstance(value, Unknown) and not isinstance(value, ir.Alternatives):
            value = Unknown(f"queue {name}: {value.reason}", value.template)
        changes["instance_type"] = value
        if "partition" in lines:
            lines["instance_type"] = lines["partition"]
    spot = queue_spot(queues[name])
    if spot is not None and job.capacity_spot is None:
        changes["capacity_spot"] = spot
        changes["capacity_spot_from"] = f"ParallelCluster queue {name} in {config}"
        lines["capacity_spot"] = where
    if not changes:
        return job
    extra = dict(job.extra)
    extra["queue"] = f"{config}: SlurmQueues {name}" + (
        " (the default partition)" if partition is None else ""
    )
    read = {f for pool in queues[name] for f in pool.inputs}  # a HyperPod group's cluster file
    inputs = tuple(sorted(set(job.inputs) | {config} | read))
    return job.with_changes(attr_lines=lines, extra=extra, inputs=inputs, **changes)


def queue_spot(pools: list[ComputePool]) -> bool | Unknown | None:
    """A queue's ``CapacityType``: True for SPOT, False for On-Demand or a capacity block (the
    default, ONDEMAND, when unset), Unknown for a placeholder; its compute resources share it."""
    for pool in pools:
        if pool.pool_kind != POOL_KIND:
            return None  # a slurm.conf or HyperPod partition says nothing of its capacity
        types = pool.capacity_types
        if isinstance(types, Unknown):
            return Unknown(types.reason)
        return types is not None and "spot" in types
    return None


_LIMITED = (POOL_KIND, PARTITION_KIND)


def link_time_limits(records: list[ir.Record]) -> list[ir.Record]:
    """A job with no ``--time`` (nor a submission's) gets its partition's limit: ``slurm.conf``
    ``DefaultTime``/``MaxTime``, ParallelCluster ``CustomSlurmSettings``, of the configuration
    in its folder or the closest folder above. FIN101 then sees a limit (the cluster's, said
    where) and the runtime figures use it; UNLIMITED is said so."""
    by_config = _pools_by_config(
        records, lambda p: p.pool_kind in _LIMITED and "partition_time_limit_s" in p.attr_lines
    )
    if not by_config:
        return records
    out: list[ir.Record] = []
    for record in records:
        if isinstance(record, TrainingJob) and record.launcher == LAUNCHER and record.max_runtime_s is None:
            # the folder walk only: a limit silences FIN101, so it is never taken from a
            # configuration elsewhere in the repository that merely has a partition of that name
            config = nearest_config(record.location.file, list(by_config))
            if config is not None:
                record = _with_limit(record, by_config[config], config, record.extra.get("partition"))
        out.append(record)
    return out


def _with_limit(job: TrainingJob, pools: list[ComputePool], config: str, partition: Any) -> TrainingJob:
    if partition is None:
        pool = next((p for p in pools if p.default_partition), None)
    else:
        pool = next((p for p in pools if p.partition == partition), None)
    if pool is None or not isinstance(pool.partition, str):
        return job
    line = pool.line_of("partition_time_limit_s") or pool.location.line
    key = (
        "CustomSlurmSettings MaxTime"
        if pool.pool_kind == POOL_KIND
        else str(pool.extra.get("time_key") or "MaxTime")  # written by slurm.conf's reader (conf.py)
    )
    where = f"partition {pool.partition} {key} ({config}:{line})"
    inputs = tuple(sorted(set(job.inputs) | {config}))
    limit = pool.partition_time_limit_s
    if limit is None:
        note = f"{where} is UNLIMITED, so a job without #SBATCH --time runs until it ends"
        return job.with_changes(default_note=note, inputs=inputs)
    extra = dict(job.extra)
    extra["runtime_from"] = where
    source = ir.ValueSource("max_runtime_s", config, line, f"Slurm {where.split(' (')[0]} in")
    return job.with_changes(
        max_runtime_s=limit,
        runtime_limit_field=where,
        default_note=None,
        value_sources=(*job.value_sources, source),
        inputs=inputs,
        extra=extra,
    )


def link_shared_storage(records: list[ir.Record]) -> list[ir.Record]:
    """A Slurm script's job gets the ``SharedStorage`` mounts of the nearest ParallelCluster
    configuration (the same one its partition links to), so a checkpoint path is checked
    against them."""
    by_config = _pools_by_config(records, lambda pool: bool(pool.shared_mounts))
    if not by_config:
        return records
    out: list[ir.Record] = []
    for record in records:
        if (
            isinstance(record, TrainingJob)
            and record.launcher == LAUNCHER
            and SUBMITS not in record.extra
            and not record.file_system_mounts
        ):
            config = nearest_config(
                record.location.file, list(by_config), record.extra.get("partition"), by_config
            )
            if config is not None:
                record = record.with_changes(
                    file_system_mounts=by_config[config][0].shared_mounts,
                    inputs=tuple(sorted(set(record.inputs) | {config})),
                )
        out.append(record)
    return out
