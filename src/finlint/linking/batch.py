"""AWS Batch: a GPU job definition -> the job queue it runs on -> the queue's compute environments.

A job definition does not name a queue: a submission does. So a job definition runs on the queue
its submission names (``TrainingJob.batch_job_queue``: ``submit_job(jobQueue="train", ...)`` with
literal names), else on the only job queue of its own file (a template defining the environment,
the queue and the job definition together), else, for a Terraform configuration or a folder of
API requests, the only queue of that format in its folder. Two queues there: no link (never a
guess); a CloudFormation job definition with no queue in its template is not linked. Each of the
queue's compute environments is found by address (the same template or configuration), name or
ARN; when all of them are in the scan, the job gets:

* ``instance_type`` (when it names none): the environments' one instance type, or the
  alternatives among several; none when one lists a family (``p4d``) or ``optimal``;
* ``capacity_spot``: True when every environment is ``SPOT``, False when none is, Unknown when
  they mix (FIN201 then decides nothing);
* ``inputs``: the queue's and the environments' files (changed-file context).
"""

from __future__ import annotations

import posixpath
from typing import Any

from finlint import ir
from finlint.ir import ComputePool, JobQueue, Record, TrainingJob, Unknown, ValueSource

LAUNCHER = "aws-batch"
SUBMIT = "aws-batch-submit"  # a boto3 submit_job call (``loaders.common.batch_submit``)
POOL_KIND = "batch-compute-environment"


def link_batch(records: list[Record]) -> list[Record]:
    """Submissions applied to the job definitions they name (and dropped), then each GPU job
    definition linked to its queue's compute environments."""
    records = apply_submissions(records)
    queues = [r for r in records if isinstance(r, JobQueue)]
    pools = [r for r in records if isinstance(r, ComputePool) and r.pool_kind == POOL_KIND]
    if not queues or not pools:
        return records
    out: list[Record] = []
    for record in records:
        if isinstance(record, TrainingJob) and record.launcher == LAUNCHER:
            queue = queue_of(record, queues)
            envs = _environments(queue, pools) if queue is not None else None
            if queue is not None and envs:
                record = _linked(record, queue, envs)
        out.append(record)
    return out


def _names(job: TrainingJob) -> tuple[str, ...]:
    """How a submission may name the definition: ``name``, ``name:3``, its ARN."""
    return (job.name,) if isinstance(job.name, str) else ()


def _submits(sub: TrainingJob, names: tuple[str, ...]) -> bool:
    target = sub.name
    if not isinstance(target, str):
        return False
    bare = target.rsplit("job-definition/", 1)[-1].split(":", 1)[0]
    return bare in names


def apply_submissions(records: list[Record]) -> list[Record]:
    """``submit_job(jobDefinition="train", timeout={"attemptDurationSeconds": N}, jobQueue="q")``
    with literal names: its timeout overrides the definition's (several submissions that differ
    are alternatives; the line is the submission's, the file in ``inputs``), its queue is the one
    the definition runs on. Every submission record is then dropped: it is not a job of its own."""
    subs = [r for r in records if isinstance(r, TrainingJob) and r.launcher == SUBMIT]
    if not subs:
        return records
    out: list[Record] = []
    for record in records:
        if isinstance(record, TrainingJob) and record.launcher == SUBMIT:
            continue
        if isinstance(record, TrainingJob) and record.launcher == LAUNCHER:
            mine = [s for s in subs if _submits(s, _names(record))]
            if mine:
                record = _submitted(record, mine)
        out.append(record)
    return out


def _submitted(job: TrainingJob, subs: list[TrainingJob]) -> TrainingJob:
    values = [s.max_runtime_s if s.max_runtime_s is not None else job.max_runtime_s for s in subs]
    changes: dict[str, Any] = {}
    lines = dict(job.attr_lines)
    sources = list(job.value_sources)
    if any(v is not job.max_runtime_s for v in values):
        changes["max_runtime_s"] = ir.alternatives(
            values, f"the submissions of {job.name} set different timeouts"
        )
        changes["default_note"] = None
        lines.pop("max_runtime_s", None)
        first = next(s for s in subs if s.max_runtime_s is not None)
        sources.append(
            ValueSource(
                "max_runtime_s",
                first.location.file,
                first.line_of("max_runtime_s") or first.location.line,
                "boto3 submit_job timeout in",
            )
        )
    queues = {s.batch_job_queue if isinstance(s.batch_job_queue, str) else "\0" for s in subs}
    if job.batch_job_queue is None and any(s.batch_job_queue is not None for s in subs):
        only = next(iter(queues))
        changes["batch_job_queue"] = only if len(queues) == 1 and only != "\0" else Unknown("job queue")
    files = {s.location.file for s in subs} - {job.location.file}
    return job.with_changes(
        attr_lines=lines,
        value_sources=tuple(sources),
        inputs=tuple(sorted(set(job.inputs) | files)),
        **changes,
    )


def queue_of(job: TrainingJob, queues: list[JobQueue]) -> JobQueue | None:
    """The queue the job's submission names, else the only queue of its file, else of the
    nearest folder that holds queues."""
    named = job.batch_job_queue
    if isinstance(named, str):
        hits = [q for q in queues if q.name == named or named.endswith(f"job-queue/{q.name}")]
        return _nearest(hits, job.location.file) if hits else None
    if named is not None:
        return None  # a placeholder queue name: not this one or that one
    same = [q for q in queues if q.location.file == job.location.file]
    if same:
        return same[0] if len(same) == 1 else None
    if job.source_format not in _FOLDER_UNITS:
        return None  # a template's job definition runs on a queue of another stack
    folder = posixpath.dirname(job.location.file)
    here = [
        q
        for q in queues
        if posixpath.dirname(q.location.file) == folder and q.source_format == job.source_format
    ]
    return here[0] if len(here) == 1 else None


#: formats whose unit is a folder: a Terraform configuration, a folder of API request files
_FOLDER_UNITS = ("terraform", "aws-batch-api")


def _nearest(queues: list[JobQueue], file: str) -> JobQueue | None:
    """The queue whose file shares most leading path parts with ``file``; a tie: none."""

    def shared(queue: JobQueue) -> int:
        count = 0
        for a, b in zip(queue.location.file.split("/"), file.split("/"), strict=False):
            if a != b:
                break
            count += 1
        return count

    best = max(shared(q) for q in queues)
    closest = [q for q in queues if shared(q) == best]
    return closest[0] if len(closest) == 1 else None


def _environments(queue: JobQueue, pools: list[ComputePool]) -> list[ComputePool] | None:
    """The queue's compute environments, or None unless every one of them is in the scan."""
    found: list[ComputePool] = []
    for ref in queue.compute_environments:
        if not isinstance(ref, str):
            return None
        by_address = [p for p in pools if p.address == ref and p.location.file == queue.location.file]
        by_address = by_address or [p for p in pools if p.address == ref]
        by_name = [
            p
            for p in pools
            if isinstance(p.name, str) and (ref == p.name or ref.endswith(f"compute-environment/{p.name}"))
        ]
        hits = by_address or by_name
        if len(hits) != 1:
            return None
        found.append(hits[0])
    return found or None


def _linked(job: TrainingJob, queue: JobQueue, envs: list[ComputePool]) -> TrainingJob:
    changes: dict[str, Any] = {}
    lines = dict(job.attr_lines)
    sources = list(job.value_sources)
    if job.instance_type is None:
        value = _instance_type(envs)
        if value is not None:
            changes["instance_type"] = value
            first = envs[0]
            sources.append(
                ValueSource(
                    "instance_type",
                    first.location.file,
                    first.line_of("instance_types") or first.location.line,
                    f"AWS Batch compute environment (job queue {_shown(queue)})",
                )
            )
    if job.capacity_spot is None:
        spot = _spot(envs)
        if spot is not None:
            changes["capacity_spot"] = spot
            changes["capacity_spot_from"] = f"AWS Batch job queue {_shown(queue)}'s compute environments"
            lines["capacity_spot"] = job.location.line
    if not changes:
        return job
    files = {queue.location.file, *(p.location.file for p in envs)} - {job.location.file}
    return job.with_changes(
        attr_lines=lines,
        value_sources=tuple(sources),
        inputs=tuple(sorted(set(job.inputs) | files)),
        **changes,
    )


def _instance_type(envs: list[ComputePool]) -> Any:
    """The environments' one instance type, or the alternatives among several; None (the job
    names none, nothing is linked) when one lists a family (``p4d``), ``optimal`` or no types:
    "any size" would only make the rules undetermined."""
    types: list[Any] = []
    for pool in envs:
        listed = pool.instance_types
        if not isinstance(listed, tuple) or not listed:
            return None
        for itype in listed:
            if not isinstance(itype, str) or "." not in itype:
                return None
            types.append(itype)
    return ir.alternatives(types, "the job queue's compute environments allow several instance types")


def _spot(envs: list[ComputePool]) -> bool | Unknown | None:
    kinds: set[bool] = set()
    for pool in envs:
        types = pool.capacity_types
        if isinstance(types, Unknown):
            return Unknown(types.reason)
        kinds.add(types is not None and "spot" in types)
    if len(kinds) > 1:
        return Unknown("the job queue mixes SPOT and On-Demand compute environments")
    return kinds.pop() if kinds else None


def _shown(queue: JobQueue) -> str:
    return queue.name if isinstance(queue.name, str) else queue.address
