"""Training workloads launched on Kubernetes -> :class:`TrainingJob` (besides their mounts).

Read, each with its own runtime limit (none of them has a default cap: a job runs until it
finishes, so a missing limit is ``max_runtime_s=None`` with ``max_runtime_default_s=None`` and
the launcher in :data:`finlint.ir.UNCAPPED_LAUNCHERS`):

* Kubeflow Training Operator (``kubeflow.org``) ``PyTorchJob``, ``TFJob``, ``MPIJob``,
  ``XGBoostJob``, ``PaddleJob``, ``JAXJob``: the replica specs (``*ReplicaSpecs``), the limit
  ``spec.runPolicy.activeDeadlineSeconds`` (``spec.activeDeadlineSeconds`` of older versions);
* SageMaker HyperPod ``HyperPodPyTorchJob`` (``sagemaker.amazonaws.com``): ``spec.replicaSpecs``;
  its ``runPolicy`` (retries, restarts, log monitoring) has no wall-clock limit;
* Volcano ``Job`` (``batch.volcano.sh``): ``spec.tasks``; no job-level deadline (``maxRetry``
  bounds retries, not time); only when its pods request accelerators;
* ``batch/v1`` ``Job`` (``spec.activeDeadlineSeconds``, ``parallelism`` pods) and ``JobSet``
  (``jobset.x-k8s.io``: each replicated job's ``template.spec.activeDeadlineSeconds``), only when
  their pods request accelerators or select an accelerated instance type;
* Kubeflow Trainer v2 ``TrainJob``: ``loaders.kubernetes.trainer`` (its runtime's JobSet template).

Everywhere, when the job sets no limit, a pod-level ``activeDeadlineSeconds`` on every
accelerated role's pod template counts as the limit. The instance count is the accelerated
roles' instances (``kubernetes_pods.nodes_for``), the finding line the ``runPolicy`` block when
there is one, else the object.
"""

from __future__ import annotations

from typing import Any

from finlint.ir import ClusterAfterJob, Maybe, Record, TrainingJob, Unknown, is_unknown
from finlint.loaders.kubernetes.object import FORMAT, Doc, Node, child, integer, items, mapping, text
from finlint.loaders.kubernetes.pods import (
    PodFacts,
    accelerated_roles,
    capacity_spot,
    job_instance_type,
    job_placement,
    nodes_for,
    pod_facts,
)
from finlint.loaders.kubernetes.workloads import checkpoint_evidence, load_workload

KUBEFLOW_KINDS = frozenset({"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob"})

#: What runs until it finishes when no limit is set, for FIN101's message (by launcher).
NO_LIMIT_NOTE = {
    "kubeflow-training-operator": (
        "the Training Operator sets no deadline by default: without "
        "spec.runPolicy.activeDeadlineSeconds the job runs until it finishes"
    ),
    "hyperpod-training-operator": (
        "the HyperPod training operator has no wall-clock limit: runPolicy bounds retries and "
        "restarts, not time, so the job runs until it finishes"
    ),
    "volcano": (
        "a Volcano Job has no job-level deadline (maxRetry bounds retries, not time): "
        "it runs until it finishes"
    ),
    "kubernetes-job": "a Kubernetes Job without spec.activeDeadlineSeconds runs until it finishes",
    "kubernetes-cronjob": (
        "a CronJob's Job without jobTemplate.spec.activeDeadlineSeconds runs until it finishes, "
        "and the schedule starts the next one anyway"
    ),
    "jobset": (
        "a JobSet whose replicated jobs set no template.spec.activeDeadlineSeconds runs until it finishes"
    ),
    "kuberay": "a RayJob without spec.activeDeadlineSeconds runs until it finishes",
}


def _pod_of(template: Any) -> Node | None:
    return mapping(template, "spec") if isinstance(template, dict) else None


def _runtime(
    d: Doc, job_limit: Any, job_line: int | None, roles: list[PodFacts], fallback_line: int | None
) -> tuple[Maybe[int], int | None, str]:
    """The limit in force: the job's own, else every accelerated role's pod deadline."""
    if job_limit is not None:
        return integer(job_limit, "activeDeadlineSeconds"), job_line, "activeDeadlineSeconds"
    deadlines = [r.deadline_s for r in roles]
    if roles and all(v is not None for v in deadlines):
        unknown = next((v for v in deadlines if is_unknown(v)), None)
        if unknown is not None:
            return unknown, next(r.deadline_line for r in roles if is_unknown(r.deadline_s)), "pod deadline"
        longest = max(roles, key=lambda r: r.deadline_s if isinstance(r.deadline_s, int) else 0)
        return longest.deadline_s, longest.deadline_line, "pod template activeDeadlineSeconds"
    return None, fallback_line, ""


def build_job(
    d: Doc,
    launcher: str,
    roles: list[PodFacts],
    limit: tuple[Maybe[int], int | None, str],
    extra: dict[str, Any] | None = None,
    instance_count: Maybe[int] | None = None,
    cluster_after_job: ClusterAfterJob | None = None,
) -> TrainingJob:
    """The :class:`TrainingJob` of one Kubernetes training workload."""
    chosen = accelerated_roles(roles)
    itype, itype_line = job_instance_type(chosen)
    count = nodes_for(chosen, itype) if instance_count is None else instance_count
    lines: dict[str, int] = {}
    first = chosen[0] if chosen else None
    if itype_line is not None:
        lines["instance_type"] = itype_line
    if first is not None and first.replicas_line is not None:
        lines["instance_count"] = first.replicas_line
    max_runtime, runtime_line, how = limit
    if runtime_line is not None:
        lines["max_runtime_s"] = runtime_line
    info: dict[str, Any] = {
        "api_version": d.api_version,
        "kind": d.kind,
        "roles": {
            r.role: {"replicas": _plain(r.replicas), "accelerators_per_pod": _plain(r.accelerators)}
            for r in roles
        },
        "accelerated_roles": [r.role for r in chosen if r.accelerated],
    }
    default_note = None
    if not how and max_runtime is None:
        default_note = NO_LIMIT_NOTE.get(launcher, "nothing stops the job: it runs until it finishes")
    info.update(extra or {})
    spot, spot_from, spot_line = capacity_spot(chosen)
    if spot_line is not None:
        lines["capacity_spot"] = spot_line
    common = d.common(lines=lines)
    return TrainingJob(
        **{**common, "attr_lines": common["attr_lines"]},
        extra=info,
        launcher=launcher,
        instance_type=itype,
        instance_count=count,
        max_runtime_s=max_runtime,
        max_runtime_default_s=None,
        checkpoint_local_path_default=None,
        default_note=default_note,
        runtime_limit_field=how or None,
        cluster_after_job=cluster_after_job,
        capacity_spot=spot,
        capacity_spot_from=spot_from,
        checkpoint_in_sight=checkpoint_evidence(d),
        placement=job_placement(chosen),
    )


def _plain(value: Any) -> Any:
    return {"unknown": value.reason} if isinstance(value, Unknown) else value


def _kubeflow_roles(d: Doc, spec: Node) -> list[PodFacts]:
    roles: list[PodFacts] = []
    for key, block in spec.items():
        if not (isinstance(key, str) and key.endswith("ReplicaSpecs") and isinstance(block, dict)):
            continue
        for role, replica in block.items():
            if not isinstance(replica, dict):
                continue
            line = d.line_at(replica, "replicas") if "replicas" in replica else d.line_at(block, role)
            roles.append(
                pod_facts(d, str(role), _pod_of(mapping(replica, "template")), replica.get("replicas"), line)
            )
    return roles


def load_kubeflow_job(d: Doc) -> list[Record]:
    """A Training Operator job (``kubeflow.org``): its mounts and its :class:`TrainingJob`."""
    records = load_workload(d)
    spec = d.spec
    if spec is None:
        return records
    roles = _kubeflow_roles(d, spec)
    run_policy = mapping(spec, "runPolicy")
    if run_policy is not None and "activeDeadlineSeconds" in run_policy:
        job_limit, job_line = (
            run_policy["activeDeadlineSeconds"],
            d.line_at(run_policy, "activeDeadlineSeconds"),
        )
    elif "activeDeadlineSeconds" in spec:
        job_limit, job_line = spec["activeDeadlineSeconds"], d.line_at(spec, "activeDeadlineSeconds")
    else:
        job_limit, job_line = None, None
    fallback = d.line_at(spec, "runPolicy") if run_policy is not None else None
    limit = _runtime(d, job_limit, job_line, accelerated_roles(roles), fallback)
    extra: dict[str, Any] = {}
    if run_policy is not None and "backoffLimit" in run_policy:
        extra["backoff_limit"] = _plain(integer(run_policy["backoffLimit"], "backoffLimit"))
    records.append(build_job(d, "kubeflow-training-operator", roles, limit, extra))
    return records


def load_hyperpod_job(d: Doc) -> list[Record]:
    """A SageMaker HyperPod ``HyperPodPyTorchJob``: ``spec.replicaSpecs`` is a list."""
    records = load_workload(d)
    spec = d.spec
    if spec is None:
        return records
    roles = []
    for index, replica, line in items(spec, "replicaSpecs"):
        if isinstance(replica, dict):
            role = text(replica.get("name"), "replicaSpecs name")
            rline = d.line_at(replica, "replicas") if "replicas" in replica else d.line(line)
            roles.append(
                pod_facts(
                    d,
                    role if isinstance(role, str) else f"#{index}",
                    _pod_of(mapping(replica, "template")),
                    replica.get("replicas"),
                    rline,
                )
            )
    run_policy = mapping(spec, "runPolicy")
    # no deadline field in its runPolicy to point at: the finding is on the object
    limit = _runtime(d, None, None, accelerated_roles(roles), None)
    extra: dict[str, Any] = {}
    if run_policy is not None and "jobMaxRetryCount" in run_policy:
        extra["job_max_retry_count"] = _plain(integer(run_policy["jobMaxRetryCount"], "jobMaxRetryCount"))
    records.append(build_job(d, "hyperpod-training-operator", roles, limit, extra))
    return records


def _gated(
    records: list[Record], d: Doc, launcher: str, roles: list[PodFacts], limit: Any, extra: Any
) -> list[Record]:
    """A generic batch workload is a training job only when it runs on accelerators."""
    if any(r.accelerated for r in roles):
        records.append(build_job(d, launcher, roles, limit, extra))
    return records


def load_volcano_job(d: Doc) -> list[Record]:
    records = load_workload(d)
    spec = d.spec
    if spec is None:
        return records
    roles = []
    for index, task, line in items(spec, "tasks"):
        if isinstance(task, dict):
            name = task.get("name")
            rline = d.line_at(task, "replicas") if "replicas" in task else d.line(line)
            roles.append(
                pod_facts(
                    d,
                    name if isinstance(name, str) else f"#{index}",
                    _pod_of(mapping(task, "template")),
                    task.get("replicas"),
                    rline,
                )
            )
    limit = _runtime(d, None, None, accelerated_roles(roles), None)
    extra: dict[str, Any] = {}
    if "maxRetry" in spec:
        extra["max_retry"] = _plain(integer(spec["maxRetry"], "maxRetry"))
    return _gated(records, d, "volcano", roles, limit, extra)


def load_batch_job(d: Doc) -> list[Record]:
    """A ``batch/v1`` Job: a training job when its pods request accelerators."""
    return load_job_spec(d, d.spec, "kubernetes-job")


def load_job_spec(d: Doc, spec: Node | None, launcher: str) -> list[Record]:
    """A Job spec (a Job's ``spec``, a CronJob's ``jobTemplate.spec``): its mounts, and a training
    job when its pods request accelerators."""
    records = load_workload(d)
    if spec is None:
        return records
    line = d.line_at(spec, "parallelism") if "parallelism" in spec else None
    roles = [pod_facts(d, "job", _pod_of(mapping(spec, "template")), spec.get("parallelism"), line)]
    job_line = d.line_at(spec, "activeDeadlineSeconds") if "activeDeadlineSeconds" in spec else None
    limit = _runtime(d, spec.get("activeDeadlineSeconds"), job_line, roles, None)
    return _gated(records, d, launcher, roles, limit, {})


def load_jobset(d: Doc) -> list[Record]:
    """A JobSet: each replicated job is a role of ``replicas`` x ``parallelism`` pods."""
    records = load_workload(d)
    spec = d.spec
    if spec is None:
        return records
    roles, limit = jobset_roles(d, spec)
    return _gated(records, d, "jobset", roles, limit, {})


def jobset_roles(d: Doc, spec: Node) -> tuple[list[PodFacts], tuple[Maybe[int], int | None, str]]:
    """A JobSet spec's roles (one per replicated job) and the limit in force (also a Trainer
    runtime's JobSet template)."""
    roles: list[PodFacts] = []
    limits: list[tuple[Any, int | None, int]] = []
    for index, rjob, line in items(spec, "replicatedJobs"):
        if not isinstance(rjob, dict):
            continue
        job_spec = mapping(mapping(rjob, "template"), "spec")
        replicas = integer(rjob.get("replicas", 1), "replicatedJobs replicas")
        parallelism = integer(child(job_spec, "parallelism") or 1, "parallelism")
        pods: Any = (
            replicas * parallelism
            if isinstance(replicas, int) and isinstance(parallelism, int)
            else (replicas if is_unknown(replicas) else parallelism)
        )
        name = rjob.get("name")
        role = pod_facts(
            d,
            name if isinstance(name, str) else f"#{index}",
            _pod_of(mapping(job_spec, "template")),
            pods,
            d.line_at(rjob, "replicas") if "replicas" in rjob else d.line(line),
        )
        roles.append(role)
        deadline = child(job_spec, "activeDeadlineSeconds")
        where = (
            d.line_at(job_spec, "activeDeadlineSeconds")
            if deadline is not None
            else d.line_at(rjob, "name")
            if "name" in rjob
            else d.line(line)
        )
        limits.append((deadline, where, len(roles) - 1))
    chosen = {id(r) for r in accelerated_roles(roles)}
    relevant = [(v, ln) for v, ln, i in limits if id(roles[i]) in chosen]
    missing = next(((v, ln) for v, ln in relevant if v is None), None)
    limit: tuple[Maybe[int], int | None, str]
    if not relevant:
        limit = (None, None, "")
    elif missing is not None:  # a replicated job without a deadline: the line of its name
        limit = _runtime(
            d, None, None, [roles[i] for _v, _l, i in limits if id(roles[i]) in chosen], missing[1]
        )
    else:
        values = [(integer(v, "activeDeadlineSeconds"), ln) for v, ln in relevant]
        unknown = next(((v, ln) for v, ln in values if is_unknown(v)), None)
        best = unknown or max(values, key=lambda p: p[0] if isinstance(p[0], int) else 0)
        limit = (best[0], best[1], "replicated job activeDeadlineSeconds")
    return roles, limit


__all__ = [
    "FORMAT",
    "KUBEFLOW_KINDS",
    "NO_LIMIT_NOTE",
    "build_job",
    "load_batch_job",
    "load_hyperpod_job",
    "load_job_spec",
    "jobset_roles",
    "load_jobset",
    "load_kubeflow_job",
    "load_volcano_job",
]
