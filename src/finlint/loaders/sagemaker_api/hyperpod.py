"""HyperPod CreateCluster requests: instance groups -> ComputePool records."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext, FieldCollector
from finlint.loaders.sagemaker_api.reader import FORMAT, Reader


def hyperpod_pools(doc: Mapping[str, Any], ctx: DocContext, result: ir.LoadResult) -> None:
    reader = Reader(ctx)
    line = reader.root_line(doc)
    cluster, _ = reader.scalar(doc, "ClusterName", line, str)
    base = cluster if isinstance(cluster, str) else stem(ctx)
    groups, groups_line = reader.items(doc, "InstanceGroups", line)
    if not isinstance(groups, list):
        return
    for index, group in enumerate(groups):
        gline = reader.key_line(groups, index, groups_line)
        if not isinstance(group, Mapping):
            result.errors.append(ir.LoadError(ctx.file, gline, "HyperPod instance group is not an object"))
            continue
        gline = reader.node_line(group, gline)
        out = FieldCollector()
        gname, gname_line = reader.scalar(group, "InstanceGroupName", gline, str)
        out.put("name", gname, gname_line)
        itype, tline = reader.scalar(group, "InstanceType", gline, str)
        if tline is not None:
            out.put("instance_types", (itype,), tline)
        count, cline = reader.scalar(group, "InstanceCount", gline, int)
        for size in ("min_size", "desired_size", "max_size"):
            out.put(size, count, cline)
        plan, pline = reader.raw(group, "TrainingPlanArn", gline)
        if pline is not None:
            out.put("capacity_reservation", True, pline)
            out.put("capacity_types", ("capacity-block",), pline)
        label = gname if isinstance(gname, str) else f"InstanceGroups[{index}]"
        extra = {"training_plan": plan} if isinstance(plan, str) else {}
        result.records.append(
            ir.ComputePool(
                address=f"{ctx.address_prefix}{base}/{label}",
                location=ir.Location(ctx.file, gline, reader.end_line(group, gline)),
                source_format=FORMAT,
                attr_lines=dict(out.lines),
                pool_kind="hyperpod-instance-group",
                extra=extra,
                **out.values,
            )
        )


def stem(ctx: DocContext) -> str:
    name = ctx.file.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".asl.json", ".asl.yaml", ".asl.yml", ".json", ".yaml", ".yml", ".template"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return f"{name}#{ctx.doc_index}" if ctx.doc_index else name
