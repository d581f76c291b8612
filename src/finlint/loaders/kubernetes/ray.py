"""KubeRay (``ray.io``) ``RayJob``, ``RayCluster`` and ``RayService`` -> IR, besides their mounts.

* ``RayJob`` with accelerated groups in its ``rayClusterSpec`` -> :class:`TrainingJob`
  (launcher ``kuberay``): the limit ``spec.activeDeadlineSeconds`` (none by default), the
  accelerated groups' instances, and in ``TrainingJob.cluster_after_job`` what outlives the job:
  KubeRay deletes
  the cluster only with ``shutdownAfterJobFinishes: true`` (default false), so without it the
  head and the workers the cluster keeps (``minReplicas`` under autoscaling, else ``replicas``)
  stay up after the job; ``idle_nodes`` counts the accelerated ones (FIN307). A RayJob that runs
  on an existing cluster (``clusterSelector``) adds no capacity and is not a record.
* ``RayCluster`` / ``RayService`` (``spec.rayClusterConfig``): each accelerated group (head or
  worker) is a :class:`ComputePool` of ``pool_kind="ray-worker-group"``: capacity that stays
  up whatever runs on it, like a node group (``min_size`` the instances kept at all times:
  ``minReplicas`` under autoscaling, else ``replicas``; ``max_size`` ``maxReplicas``), so the
  always-on pool rules and ``finlint cost`` see it with no Ray-specific code; a worker group's
  ``idle_release_s`` is how long the autoscaler keeps an idle worker (``idleTimeoutSeconds``,
  default 60 s; None without in-tree autoscaling: FIN307 on a RayCluster).
"""

from __future__ import annotations

from finlint.ir import ClusterAfterJob, ComputePool, Maybe, Record, Unknown, is_unknown
from finlint.loaders.kubernetes.object import Doc, Node, boolean, child, integer, items, mapping
from finlint.loaders.kubernetes.pods import PodFacts, nodes_for, pod_facts
from finlint.loaders.kubernetes.training_operators import build_job
from finlint.loaders.kubernetes.workloads import load_workload


def _groups(d: Doc, cluster: Node) -> tuple[list[PodFacts], list[PodFacts], Maybe[bool]]:
    """(roles at their running size, roles at the size the cluster keeps, autoscaling)."""
    autoscaling = boolean(cluster.get("enableInTreeAutoscaling"), "enableInTreeAutoscaling")
    running: list[PodFacts] = []
    kept: list[PodFacts] = []
    head = mapping(cluster, "headGroupSpec")
    if head is not None:
        pod = mapping(mapping(head, "template"), "spec")
        facts = pod_facts(d, "head", pod, 1, d.line_at(cluster, "headGroupSpec"))
        running.append(facts)
        kept.append(facts)
    for index, group, line in items(cluster, "workerGroupSpecs"):
        if not isinstance(group, dict):
            continue
        name = group.get("groupName")
        role = name if isinstance(name, str) else f"#{index}"
        pod = mapping(mapping(group, "template"), "spec")
        replicas = group.get("replicas", group.get("minReplicas", 0))
        rkey = "replicas" if "replicas" in group else "minReplicas" if "minReplicas" in group else None
        rline = d.line_at(group, rkey) if rkey else d.line(line)
        facts = pod_facts(d, role, pod, replicas, rline)
        running.append(facts)
        if autoscaling is True:
            mline = d.line_at(group, "minReplicas") if "minReplicas" in group else rline
            kept.append(pod_facts(d, role, pod, group.get("minReplicas", 0), mline))
        else:
            kept.append(facts)
    return running, kept, autoscaling


def _idle_nodes(kept: list[PodFacts]) -> Maybe[int]:
    total: Maybe[int] = 0
    for role in kept:
        if not role.accelerated:
            continue
        nodes = nodes_for([role], role.instance_type if isinstance(role.instance_type, str) else None)
        if is_unknown(nodes):
            return nodes
        if isinstance(total, int) and isinstance(nodes, int):
            total += nodes
    return total


def load_ray_job(d: Doc) -> list[Record]:
    records = load_workload(d)
    spec = d.spec
    cluster = mapping(spec, "rayClusterSpec")
    if spec is None or cluster is None:
        return records  # clusterSelector: runs on a cluster that exists anyway
    running, kept, autoscaling = _groups(d, cluster)
    accelerated = [r for r in running if r.accelerated]
    if not accelerated:
        return records
    shutdown = boolean(spec.get("shutdownAfterJobFinishes"), "shutdownAfterJobFinishes")
    after = ClusterAfterJob(
        shutdown=shutdown,
        shutdown_line=d.line_at(spec, "shutdownAfterJobFinishes")
        if "shutdownAfterJobFinishes" in spec
        else None,
        idle_nodes=_idle_nodes(kept),
        idle_roles=tuple(r.role for r in kept if r.accelerated),
        ttl_seconds_after_finished=integer(spec.get("ttlSecondsAfterFinished"), "ttlSecondsAfterFinished"),
    )
    job_line = d.line_at(spec, "activeDeadlineSeconds") if "activeDeadlineSeconds" in spec else None
    limit_value = integer(spec.get("activeDeadlineSeconds"), "activeDeadlineSeconds")
    limit = (limit_value, job_line, "activeDeadlineSeconds" if limit_value is not None else "")
    records.append(
        build_job(d, "kuberay", running, limit, {"autoscaling": autoscaling}, cluster_after_job=after)
    )
    return records


def load_ray_cluster(d: Doc) -> list[Record]:
    records = load_workload(d)
    spec = d.spec
    cluster = mapping(spec, "rayClusterConfig") if d.kind == "RayService" else spec
    if cluster is None:
        return records
    running, kept, autoscaling = _groups(d, cluster)
    idle_release, idle_line = _idle_release(d, cluster, autoscaling)
    groups = {id(r): r for r in running}
    for run, keep in zip(running, kept, strict=True):
        if not run.accelerated:
            continue
        del groups[id(run)]
        itype = run.instance_type
        types: Maybe[tuple[Maybe[str], ...]] = None
        if isinstance(itype, str):
            types = (itype,)
        elif isinstance(itype, Unknown):
            types = itype
        known_type = itype if isinstance(itype, str) else None
        lines: dict[str, int] = {}
        for attr, line in (("instance_types", run.instance_type_line), ("min_size", keep.replicas_line)):
            if line is not None:
                lines[attr] = line
        max_size: Maybe[int] = None
        if run.role != "head":
            group = _group_node(cluster, run.role)
            if group is not None and "maxReplicas" in group:
                cap = pod_facts(d, run.role, None, group["maxReplicas"], None)
                max_size = nodes_for(
                    [PodFacts(run.role, cap.replicas, None, run.accelerators, None, None, None)], known_type
                )
        else:
            max_size = 1
        if run.role != "head" and idle_line is not None:
            lines["idle_release_s"] = idle_line
        common = d.common(lines=lines)
        records.append(
            ComputePool(
                **{**common, "address": d.address(run.role), "name": f"{d.name_key}/{run.role}"},
                extra={
                    "kind": d.kind,
                    "api_version": d.api_version,
                    "ray_group": run.role,
                    "autoscaling": autoscaling,
                    "accelerators_per_pod": run.accelerators if not is_unknown(run.accelerators) else None,
                },
                pool_kind="ray-worker-group",
                source_kind=d.kind if run.role != "head" else None,  # worker groups only (FIN307)
                idle_release_s=idle_release if run.role != "head" else None,
                instance_types=types,
                capacity_types=(run.capacity_type,) if isinstance(run.capacity_type, str) else None,
                min_size=nodes_for([keep], known_type),
                desired_size=nodes_for([run], known_type),
                max_size=max_size,
            )
        )
    return records


#: KubeRay's autoscaler releases a worker idle this long unless ``idleTimeoutSeconds`` says otherwise
DEFAULT_IDLE_TIMEOUT_S = 60


def _idle_release(d: Doc, cluster: Node, autoscaling: Maybe[bool]) -> tuple[Maybe[int], int | None]:
    """How long an idle worker is kept: under in-tree autoscaling ``autoscalerOptions.
    idleTimeoutSeconds`` (default 60 s); without it never (None: the workers stay until the
    cluster is deleted); Unknown when autoscaling is a placeholder."""
    if isinstance(autoscaling, Unknown):
        return autoscaling, d.line_at(cluster, "enableInTreeAutoscaling")
    if autoscaling is not True:
        line = d.line_at(cluster, "enableInTreeAutoscaling") if "enableInTreeAutoscaling" in cluster else None
        return None, line
    options = mapping(cluster, "autoscalerOptions")
    if options is not None and "idleTimeoutSeconds" in options:
        return integer(options.get("idleTimeoutSeconds"), "idleTimeoutSeconds"), d.line_at(
            options, "idleTimeoutSeconds"
        )
    return DEFAULT_IDLE_TIMEOUT_S, None


def _group_node(cluster: Node, role: str) -> Node | None:
    for _i, group, _l in items(cluster, "workerGroupSpecs"):
        if isinstance(group, dict) and child(group, "groupName") == role:
            return group
    return None
