"""SageMaker HyperPod Slurm ``provisioning_parameters.json`` (read by the cluster's lifecycle
scripts): each ``worker_groups[]`` entry is a Slurm partition (``partition_name``) of an instance
group -> ``ComputePool(pool_kind="slurm-partition")``, so a Slurm script's ``--partition`` links to
it. A partition named as an instance type (``ml.p5.48xlarge``, as the AWS samples name them) gives
the job that instance type. HyperPod's lifecycle scripts write no ``MaxTime``: the partition's
limit is not read here (a ``slurm.conf`` in the scan gives it)."""

from __future__ import annotations

import re
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext
from finlint.loaders.common import coerce
from finlint.loaders.common.yamlload import LineDict

POOL_KIND = "slurm-partition"
_INSTANCE_TYPE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")
MAX_GROUPS = 200


def claims(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and str(doc.get("workload_manager", "")).lower() == "slurm"
        and isinstance(doc.get("worker_groups"), list)
    )


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    result = ir.LoadResult()
    groups = doc.get("worker_groups")
    for index, group in enumerate(groups[:MAX_GROUPS]):
        if not isinstance(group, LineDict):
            continue
        name = coerce.to_str(group.get("partition_name"), "partition_name")
        if not isinstance(name, str):
            continue
        line = ctx.line(group.line_of("partition_name", group.line))
        types = (name,) if _INSTANCE_TYPE.match(name) else None
        lines = {"partition": line, **({"instance_types": line} if types else {})}
        result.records.append(
            ir.ComputePool(
                address=f"worker_groups/{name}",
                location=ir.Location(ctx.file, ctx.line(group.line), ctx.line(group.end_line or group.line)),
                source_format="hyperpod-slurm",
                attr_lines=lines,
                name=coerce.to_str(group.get("instance_group_name"), "instance_group_name"),
                pool_kind=POOL_KIND,
                partition=name,
                default_partition=index == 0,
                instance_types=types,
            )
        )
    return result
