"""Kubeflow Trainer v2 (``trainer.kubeflow.org``): a ``TrainJob`` and the runtime it names.

A TrainJob has no deadline or pod template of its own: its ``runtimeRef`` names a
``ClusterTrainingRuntime`` (the default kind) or a ``TrainingRuntime`` of its namespace, whose
``spec.template`` is a JobSet template (``spec.template.spec.replicatedJobs``) with the
replicated jobs' pods, resources, node selectors and ``activeDeadlineSeconds``, and whose
``mlPolicy.numNodes`` gives the node count. The TrainJob's own ``spec.trainer`` overrides the
trainer's replicated job (``numNodes``, ``resourcesPerNode``) and ``podSpecOverrides[]`` its
node selection.

Both are read where they are: :func:`load_train_job` keeps the TrainJob's own trainer facts in
its record's ``extra``, :func:`load_training_runtime` a carrier record of the runtime's facts
(besides the runtime's mounts), and :func:`finalize` resolves each TrainJob's ``runtimeRef``
against the runtimes of the scan (the nearest of a name: namespace, then folder), rebuilding the
job from the runtime's roles with the TrainJob's overrides; the fields read from the runtime
name it in ``value_sources`` (a finding points there: the runtime is what a person edits to add
a deadline) and its file in ``inputs``. A runtime the scan does not hold leaves the limit
Unknown with the reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from finlint.domain.places import closeness
from finlint.ir import Maybe, Record, TrainingJob, Unknown, ValueSource
from finlint.loaders.kubernetes.object import Doc, Node, child, integer, items, mapping
from finlint.loaders.kubernetes.pods import (
    PodFacts,
    accelerated_roles,
    capacity_spot,
    job_instance_type,
    job_placement,
    nodes_for,
    pod_facts,
)
from finlint.loaders.kubernetes.training_operators import NO_LIMIT_NOTE, build_job, jobset_roles
from finlint.loaders.kubernetes.workloads import checkpoint_evidence, container_checkpoints, load_workload

TRAIN_JOB = "kubeflow_train_job"  # extra key of a TrainJob's TrainingJob (this module reads it)
RUNTIME = "kubeflow_training_runtime"  # extra key of a runtime's carrier record
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
TRAINER_ROLE = "node"  # the replicated job a TrainJob's trainer overrides (the runtimes' name)


def load_train_job(d: Doc) -> list[Record]:
    """A ``TrainJob``: one trainer role of ``numNodes`` nodes until :func:`finalize` finds its runtime."""
    records = load_workload(d)
    spec = d.spec
    if spec is None:
        return records
    trainer = mapping(spec, "trainer") or {}
    container = {k: trainer[k] for k in ("command", "args", "env") if k in trainer}
    pod: dict[str, Any] = {"containers": [{**container, "resources": trainer.get("resourcesPerNode") or {}}]}
    overrides = _overrides(spec)
    for override in overrides:
        for key in ("nodeSelector", "affinity", "tolerations"):
            if child(override, key) is not None and key not in pod:
                pod[key] = override[key]
    role = pod_facts(
        d,
        "trainer",
        pod,
        trainer.get("numNodes"),
        d.line_at(trainer, "numNodes") if "numNodes" in trainer else None,
    )
    runtime = mapping(spec, "runtimeRef") or {}
    kind = runtime.get("kind", "ClusterTrainingRuntime")
    name = runtime.get("name")
    reason = (
        f"a TrainJob has no deadline field: its runtime {kind}/{name} sets any (its JobSet template), "
        "and that runtime is not in the scan"
    )
    line = d.line_at(spec, "runtimeRef") if "runtimeRef" in spec else None
    count = role.replicas if "numNodes" in trainer else Unknown("numNodes comes from the runtime's mlPolicy")
    job = build_job(
        d, "kubeflow-trainer", [role], (Unknown(reason), line, "runtime"), {}, instance_count=count
    )
    if job.checkpoint_in_sight is None and container:
        job = job.with_changes(checkpoint_in_sight=container_checkpoints(d, container))  # trainer's
    facts = {
        "runtime": (str(kind), name if isinstance(name, str) else None),
        "namespace": d.namespace_key,
        "role": role,
        "num_nodes": "numNodes" in trainer,
        "resources": "resourcesPerNode" in trainer,
        "placed": any(child(o, "nodeSelector") is not None for o in overrides),
        "line": line,
    }
    records.append(job.with_changes(extra={**job.extra, TRAIN_JOB: facts}))
    return records


def _overrides(spec: Node) -> list[Node]:
    """The pod specs a TrainJob overrides: ``podSpecOverrides[]`` (v2.0 alpha: the fields on the
    item) and ``podTemplateOverrides[].spec`` (later releases)."""
    found = [o for _i, o, _l in items(spec, "podSpecOverrides") if isinstance(o, dict)]
    for _i, override, _l in items(spec, "podTemplateOverrides"):
        pod = mapping(override, "spec")
        if pod is not None:
            found.append(pod)
    return found


def load_training_runtime(d: Doc) -> list[Record]:
    """A ``TrainingRuntime`` / ``ClusterTrainingRuntime``: its mounts and a carrier of its facts."""
    records = load_workload(d)
    spec = d.spec
    jobset = mapping(mapping(spec, "template"), "spec")
    if spec is None or jobset is None or not isinstance(d.name, str):
        return records
    roles, limit = jobset_roles(d, jobset)
    ml_policy = mapping(spec, "mlPolicy")
    num_nodes = child(ml_policy, "numNodes")
    facts = {
        "kind": d.kind,
        "name": d.name,
        "namespace": d.namespace_key if d.kind == "TrainingRuntime" else None,
        "roles": roles,
        "limit": limit,
        "num_nodes": integer(num_nodes, "mlPolicy.numNodes") if num_nodes is not None else None,
        "num_nodes_line": d.line_at(ml_policy, "numNodes") if num_nodes is not None else None,
        "line": d.line(d.doc.line),
        "checkpoints": checkpoint_evidence(d),
    }
    records.append(Record(**d.common(namespaced=d.kind == "TrainingRuntime"), extra={RUNTIME: facts}))
    return records


def _is_carrier(record: Record) -> bool:
    return type(record) is Record and RUNTIME in record.extra


def finalize(records: list[Record]) -> list[Record]:
    """Each TrainJob against the runtime it names; drops the runtime carriers."""
    runtimes: dict[tuple[str, str], list[Record]] = {}
    for record in records:
        if _is_carrier(record):
            facts = record.extra[RUNTIME]
            runtimes.setdefault((facts["kind"], facts["name"]), []).append(record)
    if not runtimes and not any(isinstance(r, TrainingJob) and TRAIN_JOB in r.extra for r in records):
        return records
    out: list[Record] = []
    for record in records:
        if _is_carrier(record):
            continue
        if isinstance(record, TrainingJob) and TRAIN_JOB in record.extra:
            facts = record.extra[TRAIN_JOB]
            kind, name = facts["runtime"]
            same_scope = (  # a TrainingRuntime serves the TrainJobs of its own namespace only
                r
                for r in runtimes.get((kind, name), [])
                if kind != "TrainingRuntime" or r.extra[RUNTIME]["namespace"] == facts["namespace"]
            )
            candidates = list(same_scope) if name is not None else []
            if candidates:
                runtime = max(candidates, key=lambda r: closeness(r.location.file, record.location.file))
                record = _resolved(record, facts, runtime)
        out.append(record)
    return out


def _resolved(job: TrainingJob, facts: dict[str, Any], runtime: Record) -> TrainingJob:
    """The TrainJob rebuilt from its runtime's roles with its own trainer overrides."""
    info = runtime.extra[RUNTIME]
    own: PodFacts = facts["role"]
    roles: list[PodFacts] = list(info["roles"])
    target = next((i for i, r in enumerate(roles) if r.role == TRAINER_ROLE), None)
    if target is None and roles:
        target = roles.index(accelerated_roles(roles)[0])
    where = f"{info['kind']} {info['name']}"
    file = runtime.location.file
    sources: list[ValueSource] = []
    if target is not None:
        role = roles[target]
        replicas: Maybe[int] = role.replicas
        if facts["num_nodes"]:
            replicas = own.replicas
        elif info["num_nodes"] is not None:
            replicas = info["num_nodes"]
            if info["num_nodes_line"]:
                sources.append(ValueSource("instance_count", file, info["num_nodes_line"], where))
        changes: dict[str, Any] = {"replicas": replicas}
        if facts["resources"]:
            changes.update(accelerators=own.accelerators, accelerators_line=own.accelerators_line)
        if facts["placed"]:
            changes.update(
                instance_type=own.instance_type,
                instance_type_line=own.instance_type_line,
                placement=own.placement,
            )
        roles[target] = replace(role, **changes)
    chosen = accelerated_roles(roles)
    itype, itype_line = job_instance_type(chosen)
    count = nodes_for(chosen, itype)
    max_runtime, limit_line, how = info["limit"]
    lines = {k: v for k, v in job.attr_lines.items() if k not in ("instance_type", "max_runtime_s")}
    anchor = facts["line"] or job.location.line
    if itype is not None:
        lines["instance_type"] = anchor
        if not facts["placed"] and itype_line is not None:
            sources.append(ValueSource("instance_type", file, itype_line, where))
    lines["max_runtime_s"] = anchor
    note = None
    if max_runtime is None:
        note = f"{where} sets no activeDeadlineSeconds on its replicated jobs: {NO_LIMIT_NOTE['jobset']}"
        limit_line = _first_role_line(chosen) or info["line"]
    if limit_line is not None:
        sources.append(ValueSource("max_runtime_s", file, limit_line, where))
    spot, spot_from, _spot_line = capacity_spot(chosen)
    if spot_from is not None:
        lines["capacity_spot"] = anchor
    placement = job_placement(chosen)
    if placement is not None:  # its lines are the runtime's: the TrainJob's runtimeRef instead
        placement = replace(placement, line=anchor)
    checkpoints = job.checkpoint_in_sight
    if checkpoints is None and info["checkpoints"]:
        checkpoints = f"{info['checkpoints']} in {where}"
    return replace(
        job,
        instance_type=itype,
        instance_count=count,
        max_runtime_s=max_runtime,
        runtime_limit_field=(f"{where} {how}" if how else None),
        default_note=note,
        capacity_spot=spot,
        capacity_spot_from=spot_from,
        placement=placement,
        checkpoint_in_sight=checkpoints,
        attr_lines=lines,
        value_sources=(*job.value_sources, *sources),
        inputs=tuple(dict.fromkeys((*job.inputs, file))),
        extra={k: v for k, v in job.extra.items() if k != TRAIN_JOB},
    )


def _first_role_line(roles: list[PodFacts]) -> int | None:
    return next((r.replicas_line for r in roles if r.replicas_line is not None), None)


__all__ = ["RUNTIME_KINDS", "finalize", "load_train_job", "load_training_runtime"]
