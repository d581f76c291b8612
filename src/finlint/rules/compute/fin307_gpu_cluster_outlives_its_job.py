"""FIN307 gpu-cluster-outlives-its-job: a RayJob whose GPU RayCluster keeps running after the job.

The policy is ``policies/FIN307-gpu-cluster-outlives-its-job.yaml``; this module holds its fact,
its evidence type and its price.

KubeRay deletes the RayCluster a RayJob created only when ``shutdownAfterJobFinishes: true``
(default false). Without it, the head and every worker the cluster keeps (``minReplicas`` under
in-tree autoscaling, else ``replicas``) stay up after the job, billing until someone deletes the
cluster. The loader (``kubernetes_ray``) counts the accelerated instances kept
(``extra["ray"]["idle_nodes"]``); a cluster that keeps none (autoscaling to zero GPU workers, a
CPU head) does not fire.

Price (ray-idle-cluster, waste): per idle hour = hourly rate x accelerated instances kept;
per run = per idle hour x idle_hours_after_job (usage, default 1: the figure is one idle hour);
per month = per run x runs_per_month. How long the cluster stays up is not in the manifest: the
basis states the hours assumed.
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
from finlint.engine.facts import Evidence
from finlint.finding import Cost, Finding, Fix
from finlint.ir import Record, TrainingJob, Unknown
from finlint.rules.base import Rule


@dataclass(frozen=True)
class IdleCluster:
    """What the RayCluster keeps after the job: accelerated instances and the groups they are in."""

    nodes: int
    roles: tuple[str, ...]


def gpu_cluster_outlives_its_job(record: Record) -> Any:
    """Evidence that a RayJob's accelerated cluster stays up after the job, or None, or Unknown."""
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
        f"keeps {idle} accelerated instance(s) ({', '.join(roles)}) running after the job: {why}",
        line,
        IdleCluster(idle, roles),
    )


KIND = "waste"


def price(finding: Finding, ctx: CostContext) -> Cost:
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


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``shutdownAfterJobFinishes: true`` on the RayJob (unsafe: the cluster is deleted when the
    job ends, so its logs go with it unless ``ttlSecondsAfterFinished`` keeps them a while)."""
    from finlint.textedit import yaml_set_key

    if finding.record is None or not finding.file.endswith((".yaml", ".yml")):
        return None
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
