"""Where a Kubernetes training workload's pods land: the scan's Karpenter NodePools and node
groups that would admit them (``domain.karpenter.fitting_types``: taints, labels, requirements,
accelerators), and what that says about the job.

* **instance type**: a job whose pods select none gets the types of the pool they land on
  (``TrainingJob.instance_type``: the type, or its Alternatives when several; ``landing_types``
  all of them; ``instance_types_from`` says which pool). Pools of several folders: the nearest
  to the job's file are the candidates (two clusters in one repository often repeat pool names).
  Pods several pools admit with different types, or a pool whose types are not literal, leave an
  Unknown with the reason.
* **spot**: a job whose pods ask for no capacity type and land only on pools that launch spot
  alone (a Karpenter ``karpenter.sh/capacity-type In [spot]``, a node group with
  ``capacityType: SPOT``) runs on spot capacity (``TrainingJob.capacity_spot``, with the pool in
  ``capacity_spot_from``).
* **checkpoints in sight** (FIN201 on spot capacity): the checkpoint paths the job's workload
  record was told (env, flags, ConfigMap scripts, after ``linking.env``) or a persistent mount
  whose name or path says checkpoint; Unknown when the container env comes from a ConfigMap the
  scan does not hold.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from finlint.domain import catalog
from finlint.domain.karpenter import KARPENTER, NODE_GROUPS, fitting_types
from finlint.domain.places import closeness
from finlint.ir import (
    ComputePool,
    ConfigMap,
    Maybe,
    Record,
    TrainingJob,
    Unknown,
    Volume,
    alternatives,
)
from finlint.loaders.common.shellwords import CHECKPOINT_WORD


def _where(pool: ComputePool) -> str:
    kind = "NodePool" if pool.pool_kind in KARPENTER else "node group"
    name = pool.name if isinstance(pool.name, str) else pool.address
    return f"{kind} {name} ({pool.location.file}:{pool.location.line})"


Landed = list[tuple[ComputePool, tuple[str, ...]]]


def _landing(job: TrainingJob, pools: list[ComputePool]) -> tuple[Landed, str]:
    """The pools the job's pods land on with the types each may launch for them, or why none is known."""
    placement = job.placement
    assert placement is not None
    if placement.unresolved:
        return [], placement.unresolved
    admitted: list[tuple[ComputePool, tuple[str, ...], int]] = []
    unknown: list[str] = []
    for pool in pools:
        result = fitting_types(pool, placement)
        if isinstance(result, Unknown):
            unknown.append(f"{_where(pool)}: {result.reason}")
            continue
        types, _why = result
        if types:
            admitted.append((pool, types, closeness(pool.location.file, job.location.file)))
    if not admitted:
        return [], ("; ".join(unknown[:2]) if unknown else "")
    nearest = max(c for _p, _t, c in admitted)
    return [(p, t) for p, t, c in admitted if c == nearest], ""


def _count(job: TrainingJob, itype: str) -> Maybe[int]:
    """Instances of ``itype`` the pods occupy (their devices over the type's), else the job's count."""
    placement = job.placement
    spec = catalog.lookup(itype)
    if placement is None or spec is None or not spec.accelerators or not placement.devices:
        return job.instance_count
    return math.ceil(placement.devices / spec.accelerators)


def placement_accelerated(job: TrainingJob) -> bool:
    """The pods request accelerators: a pool's types then narrow to a few (a CPU pod may get any
    of a pool's hundreds of types, so it is given none)."""
    return job.placement is not None and job.placement.accelerator_kind is not None


def _land(job: TrainingJob, pools: list[ComputePool]) -> TrainingJob:
    landed, why = _landing(job, pools)
    changes: dict[str, Any] = {}
    lines = dict(job.attr_lines)
    where_line = job.placement.line if job.placement is not None else None
    if job.instance_type is None and placement_accelerated(job):
        if len(landed) == 1:
            pool, types = landed[0]
            chosen = alternatives(list(types), f"{_where(pool)} admits {len(types)} types for its pods")
            changes.update(
                instance_type=chosen,
                landing_types=types,
                instance_types_from=f"the pods land on {_where(pool)}, which admits {', '.join(types[:8])}"
                + (f" and {len(types) - 8} more" if len(types) > 8 else ""),
            )
            if isinstance(chosen, str):
                changes["instance_count"] = _count(job, chosen)
        elif len(landed) > 1:
            names = ", ".join(_where(p) for p, _t in landed[:3])
            same = {t for _p, t in landed}
            if len(same) == 1:
                types = landed[0][1]
                chosen = alternatives(list(types), f"the pools {names} admit {len(types)} types")
                changes.update(
                    instance_type=chosen,
                    landing_types=types,
                    instance_types_from=f"the pods land on {names}, which admit {', '.join(types[:8])}",
                )
                if isinstance(chosen, str):
                    changes["instance_count"] = _count(job, chosen)
            else:
                changes["instance_type"] = Unknown(
                    f"the pods may land on several pools with different types: {names}"
                )
        elif why:
            changes["instance_type"] = Unknown(f"where the pods land is unknown: {why}")
        if "instance_type" in changes and "instance_type" not in lines and where_line is not None:
            lines["instance_type"] = where_line
    if job.capacity_spot is None and landed:
        spot_only = [p for p, _t in landed if p.capacity_types == ("spot",)]
        if len(spot_only) == len(landed):
            changes["capacity_spot"] = True
            changes["capacity_spot_from"] = f"{_where(spot_only[0])} launches spot capacity only"
            lines.setdefault("capacity_spot", where_line or job.location.line)
    if not changes:
        return job
    return replace(job, attr_lines=lines, **changes)


def _checkpoints(workload: Volume | None, maps: set[str]) -> Maybe[str]:
    """The checkpoints the job's workload record shows after ``linking.env`` (paths, mounts)."""
    if workload is None:
        return None
    for entry in workload.checkpoint_paths:
        return f"checkpoint path {entry.path} ({entry.source})"
    for mount in workload.mounts:
        named = f"{mount.volume} {mount.mount_path if isinstance(mount.mount_path, str) else ''}"
        persistent = mount.claim_name is not None or mount.file_system_ref is not None or mount.is_efs is True
        if persistent and CHECKPOINT_WORD.search(named):
            return f"volume {mount.volume} mounted at {mount.mount_path}"
    missing = sorted({m for e in workload.env_from for m in e.config_maps if m not in maps})
    if missing:
        return Unknown(f"the container's env comes from ConfigMap {missing[0]}, which is not in the scan")
    return None


def link_landing(records: list[Record]) -> list[Record]:
    """Each Kubernetes training job's landing pool, spot capacity and checkpoints in sight."""
    if not any(isinstance(r, TrainingJob) and r.placement is not None for r in records):
        return records
    pools = [
        r
        for r in records
        if isinstance(r, ComputePool) and (r.pool_kind in KARPENTER or r.pool_kind in NODE_GROUPS)
    ]
    workloads = {
        (r.location.file, r.address): r
        for r in records
        if isinstance(r, Volume) and r.volume_kind == "workload"
    }
    maps = {str(r.name) for r in records if isinstance(r, ConfigMap)}
    out: list[Record] = []
    for r in records:
        if isinstance(r, TrainingJob) and r.placement is not None:
            if pools:
                r = _land(r, pools)
            if r.capacity_spot is True and r.checkpoint_in_sight is None:
                seen = _checkpoints(workloads.get((r.location.file, r.address)), maps)
                if seen is not None:
                    r = replace(r, checkpoint_in_sight=seen)
        out.append(r)
    return out
