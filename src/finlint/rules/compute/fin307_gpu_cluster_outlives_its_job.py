"""FIN307 gpu-cluster-outlives-its-job: GPU capacity that stays up when its work is done.

The policy is ``policies/FIN307-gpu-cluster-outlives-its-job.yaml``; this module holds its facts,
its evidence types and its prices. Three cases:

* a KubeRay ``RayJob``: KubeRay deletes the RayCluster it created only when
  ``shutdownAfterJobFinishes: true`` (default false). Without it, the head and every worker the
  cluster keeps (``minReplicas`` under in-tree autoscaling, else ``replicas``) stay up after the
  job. The Ray loader counts the accelerated instances kept (``TrainingJob.cluster_after_job``);
  a cluster that keeps none (autoscaling to zero GPU workers, a CPU head) does not fire;
* a KubeRay ``RayCluster`` GPU worker group with no in-tree autoscaling (so no idle timeout:
  ``ComputePool.idle_release_s`` None): its workers stay until the cluster is deleted, whether a
  batch job runs on it or not;
* a ParallelCluster GPU compute resource with dynamic nodes (``MaxCount > MinCount``) whose
  ``ScaledownIdletime`` (``idle_release_s``) keeps an idle node longer than ``max_idle_minutes``.

Price (ray-idle-cluster): RayJob and RayCluster, waste; ParallelCluster, exposure (as FIN305's
idle node: an elastic pool bills nothing in ``finlint cost`` until it scales).

Price (ray-idle-cluster, waste): per idle hour = hourly rate x accelerated instances kept;
per run = per idle hour x idle_hours_after_job (usage, default 1: the figure is one idle hour);
per month = per run x runs_per_month. How long the cluster stays up is not in the manifest: the
basis states the hours assumed. A RayCluster's group prices the same way with its workers
(``desired_size``). A ParallelCluster node: per idle episode = hourly rate x (ScaledownIdletime -
the 10-minute default) hours; per month = x idle_episodes_per_month (usage, default 30: one node
idling once a day, stated as an assumption).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from finlint.cost.common import (
    CostContext,
    brief_text,
    known,
    num,
    price_note,
    quote_json,
    runs_per_month,
    unpriced,
    usd,
)
from finlint.domain import catalog
from finlint.engine.facts import Evidence, uses_reserved_capacity
from finlint.finding import Cost, Finding, Fix
from finlint.ir import ComputePool, Record, TrainingJob, Unknown
from finlint.rules.base import Rule


@dataclass(frozen=True)
class IdleCluster:
    """What the RayCluster keeps after the job: accelerated instances and the groups they are in."""

    nodes: int
    roles: tuple[str, ...]


@dataclass(frozen=True)
class IdleNodes:
    """A pool whose accelerated nodes stay up idle: how many, for how long (None: until deleted)."""

    nodes: int
    idle_s: int | None
    instance_type: str | None


#: ParallelCluster's ScaledownIdletime default (minutes): the baseline of the saving
PCLUSTER_DEFAULT_IDLE_MIN = 10


def gpu_cluster_outlives_its_job(record: Record, max_idle_minutes: float = 60) -> Any:
    """Evidence that accelerated capacity stays up when its work is done, or None, or Unknown."""
    if isinstance(record, ComputePool):
        return _pool_outlives(record, float(max_idle_minutes))
    if not isinstance(record, TrainingJob) or record.launcher != "kuberay":
        return None
    after = record.cluster_after_job
    if after is None:
        return None
    shutdown = after.shutdown
    if shutdown is True:
        return None
    if isinstance(shutdown, Unknown):
        return shutdown
    idle = after.idle_nodes
    if isinstance(idle, Unknown):
        return Unknown(f"instances the cluster keeps: {idle.reason}")
    if not isinstance(idle, int) or idle < 1:
        return None
    roles = after.idle_roles
    why = (
        "shutdownAfterJobFinishes is false"
        if shutdown is False
        else "shutdownAfterJobFinishes is not set (default false)"
    )
    line = after.shutdown_line or record.location.line
    return Evidence(
        f"RayJob {record.address} keeps {idle} accelerated instance(s) ({', '.join(roles)}) running "
        f"after the job: {why}; set shutdownAfterJobFinishes: true (with ttlSecondsAfterFinished for logs)",
        line,
        IdleCluster(idle, roles),
    )


def _accelerated_type(pool: ComputePool) -> Any:
    """The pool's cheapest-to-name accelerated instance type (the first listed), None when none
    is accelerated, Unknown when the types are not known."""
    types = pool.instance_types
    if isinstance(types, Unknown):
        return types
    families = set(catalog.accelerated_families())
    for itype in types or ():
        if isinstance(itype, Unknown):
            return itype
        if isinstance(itype, str) and catalog.family_of(itype.removeprefix("ml.")) in families:
            return itype
    return None


def _pool_outlives(pool: ComputePool, max_idle_minutes: float) -> Any:
    if pool.pool_kind == "ray-worker-group" and pool.source_kind == "RayCluster":
        return _ray_cluster(pool)
    if pool.pool_kind != "parallelcluster-compute-resource":
        return None
    reserved = uses_reserved_capacity(pool)
    if reserved is True:
        return None  # a capacity block or reservation is paid for whether its nodes idle or not
    itype = _accelerated_type(pool)
    if itype is None or isinstance(itype, Unknown):
        return itype
    idle = pool.idle_release_s
    if isinstance(idle, Unknown):
        return idle
    if not isinstance(idle, int) or idle <= max_idle_minutes * 60:
        return None
    low, high = pool.min_size or 0, pool.max_size
    if isinstance(low, Unknown) or isinstance(high, Unknown):
        return Unknown("MinCount/MaxCount unresolved")
    if isinstance(high, int) and high <= low:
        return None  # static nodes only: they never scale down (FIN301's concern)
    minutes = idle / 60
    return Evidence(
        f"ParallelCluster compute resource {pool.address} ({itype}) keeps each idle GPU node "
        f"{minutes:g} min after its last job (ScaledownIdletime {minutes:g}, over {max_idle_minutes:g}): "
        f"lower Scheduling.SlurmSettings.ScaledownIdletime (default {PCLUSTER_DEFAULT_IDLE_MIN})",
        pool.line_of("idle_release_s") or pool.location.line,
        IdleNodes(1, idle, itype),
    )


def _ray_cluster(pool: ComputePool) -> Any:
    idle = pool.idle_release_s
    if idle is not None:
        return idle if isinstance(idle, Unknown) else None  # the autoscaler releases idle workers
    itype = _accelerated_type(pool)
    nodes = pool.desired_size
    if isinstance(nodes, Unknown):
        return Unknown(f"workers kept: {nodes.reason}")
    if not isinstance(nodes, int) or nodes < 1:
        return None
    shown = f" ({itype})" if isinstance(itype, str) else ""
    return Evidence(
        f"RayCluster worker group {pool.address}{shown} keeps {nodes} accelerated worker(s) up whether "
        "a job runs or not: no in-tree autoscaling, so no idle timeout; set enableInTreeAutoscaling: true "
        "with minReplicas: 0 (idleTimeoutSeconds releases idle workers), or run batch work as RayJobs "
        "with shutdownAfterJobFinishes: true",
        pool.line_of("idle_release_s") or pool.line_of("min_size") or pool.location.line,
        IdleNodes(nodes, None, itype if isinstance(itype, str) else None),
    )


KIND = "waste"
POOL_IDLE_KIND = "exposure"  # a ParallelCluster node's idle tail: conditional on how it is used


def price(finding: Finding, ctx: CostContext) -> Cost:
    nodes = finding.evidence_of(IdleNodes)
    if nodes is not None:
        return _price_pool(finding, nodes, ctx)
    job = finding.record
    idle = finding.evidence_of(IdleCluster)
    if not isinstance(job, TrainingJob) or idle is None:
        return unpriced(KIND, "ray-idle-cluster prices RayJobs only")
    if not known(job.instance_type):
        return unpriced(KIND, "instance type unknown or unresolved (no instance-type node selector)")
    itype = str(job.instance_type)
    params = ctx.params(job)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)
    per_hour = quote.usd * idle.nodes
    hours = float(params.get("idle_hours_after_job", 1))
    per_run = per_hour * hours
    runs, runs_how = runs_per_month(job, params)
    monthly = per_run * runs
    basis = (
        f"The RayCluster stays up after the job until someone deletes it: {itype} {quote.rate()} x "
        f"{idle.nodes} accelerated instance(s) kept = {usd(per_hour)} per idle hour; x {num(hours)} idle "
        f"hour(s) per run (usage idle_hours_after_job, assumed) = {usd(per_run)} per run; x {runs_how} "
        f"= {usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "idle_instances": idle.nodes,
        "idle_groups": list(idle.roles),
        "idle_usd_per_hour": per_hour,
        "idle_hours_after_job": hours,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    brief = brief_text(
        f"cluster kept after the job: {idle.nodes} x {itype} {quote.rate()} x {num(hours)} idle h "
        "assumed per run"
    )
    return Cost(monthly, per_run, KIND, basis, assumptions, brief=brief)


def _price_pool(finding: Finding, idle: IdleNodes, ctx: CostContext) -> Cost:
    pool = finding.record
    if not isinstance(pool, ComputePool) or idle.instance_type is None:
        return unpriced(KIND, "instance type unknown or unresolved")
    itype = idle.instance_type
    params = ctx.params(pool)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)
    per_hour = quote.usd * idle.nodes
    assumptions: dict[str, Any] = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "idle_instances": idle.nodes,
        "idle_usd_per_hour": per_hour,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    if idle.idle_s is None:  # a RayCluster without autoscaling: idle until someone deletes it
        hours = float(params.get("idle_hours_after_job", 1))
        per_run = per_hour * hours
        runs = float(params.get("runs_per_month", 1))
        monthly = per_run * runs
        basis = (
            f"The RayCluster's workers stay up between jobs until someone deletes the cluster: {itype} "
            f"{quote.rate()} x {idle.nodes} accelerated worker(s) = {usd(per_hour)} per idle hour; x "
            f"{num(hours)} idle hour(s) per run (usage idle_hours_after_job, assumed) x {num(runs)} run(s) "
            f"per month (usage runs_per_month) = {usd(monthly)}/month. {price_note(quote)}"
        )
        assumptions.update(idle_hours_after_job=hours, runs_per_month=runs)
        brief = f"workers kept idle: {idle.nodes} x {itype} {quote.rate()} x {num(hours)} idle h assumed"
        return Cost(monthly, per_run, KIND, basis, assumptions, brief=brief_text(brief))
    extra_h = max(0.0, idle.idle_s / 3600 - PCLUSTER_DEFAULT_IDLE_MIN / 60)
    per_episode = per_hour * extra_h
    episodes = float(params.get("idle_episodes_per_month", 30))
    monthly = per_episode * episodes
    basis = (
        f"After its last job a dynamic node idles {num(idle.idle_s / 60)} min before ParallelCluster "
        f"stops it, {num(round(extra_h * 60, 2))} min more than the {PCLUSTER_DEFAULT_IDLE_MIN}-minute "
        f"default: {itype} {quote.rate()} = {usd(per_hour)} per idle hour x {num(round(extra_h, 4))} h "
        f"= {usd(per_episode)} per node per idle episode, exposed each time a node goes idle; "
        f"x {num(episodes)} episode(s) per month (usage "
        f"idle_episodes_per_month, assumed: one node idling once a day) = "
        f"{usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions.update(
        scaledown_idle_minutes=idle.idle_s / 60,
        default_idle_minutes=PCLUSTER_DEFAULT_IDLE_MIN,
        idle_episodes_per_month=episodes,
    )
    brief = (
        f"idle node kept {num(round(extra_h * 60, 2))} extra min x {itype} {quote.rate()} x {num(episodes)}"
    )
    # an exposure, as FIN305's idle node: an elastic pool's bill (``finlint cost``) is nothing
    # until it scales, so how often a node idles is usage, not configuration
    return Cost(monthly, per_episode, POOL_IDLE_KIND, basis, assumptions, brief=brief_text(brief))


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``shutdownAfterJobFinishes: true`` on the RayJob (unsafe: the cluster is deleted when the
    job ends, so its logs go with it unless ``ttlSecondsAfterFinished`` keeps them a while)."""
    from finlint.textedit import yaml_set_key

    if not isinstance(finding.record, TrainingJob) or not finding.file.endswith((".yaml", ".yml")):
        return None  # pools (RayCluster, ParallelCluster) get no automatic fix
    edit = yaml_set_key(
        finding.file, text, finding.record.location.line, ("spec",), "shutdownAfterJobFinishes", "true"
    )
    if edit is None:
        return None
    return Fix(
        "set shutdownAfterJobFinishes: true (KubeRay deletes the cluster when the job ends)", False, (edit,)
    )


RULE = Rule(
    "FIN307",
    facts=(gpu_cluster_outlives_its_job,),
    cost_model="ray-idle-cluster",
    price=price,
    fix=fix,
    fix_safety="unsafe",
)
