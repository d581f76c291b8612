"""The terraform-aws-modules/eks module's node groups, read from the caller's inputs (never downloaded)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders.terraform import mapping as m
from finlint.loaders.terraform.eval import Evaluator
from finlint.loaders.terraform.files import FORMAT, Decl
from finlint.loaders.terraform.values import body_values, with_lines
from finlint.yamlload import LineDict, LineList

if TYPE_CHECKING:
    from finlint.loaders.terraform.modules import Module


# --- terraform-aws-modules/eks/aws -----------------------------------------------------------------


def eks_module(
    module: Module, call: Decl, ev: Evaluator, prefix: str, submodule: str | None, multiplier: Any
) -> None:
    """Node groups of the EKS module, read from the caller's inputs (no module code needed)."""
    body = call.block.body
    shown = call.file.display
    loc = ir.Location(shown, call.block.line, call.block.end_line)
    if submodule:  # //modules/eks-managed-node-group: the call itself is one node group
        group = body_values(body, ev, shown)
        group.line, group.end_line = call.block.line, call.block.end_line
        kind = "eks" if submodule.startswith("eks") else "self"
        resource = "aws_eks_node_group.this" if kind == "eks" else "aws_autoscaling_group.this"
        _eks_group(module, kind, prefix + resource, group, loc, multiplier)
        return
    for attr_name, kind in (("eks_managed_node_groups", "eks"), ("self_managed_node_groups", "self")):
        attr = body.attrs.get(attr_name)
        if attr is None:
            continue
        groups = ev.value(attr.expr)
        defaults_attr = body.attrs.get(f"{attr_name[:-1]}_defaults")
        defaults = ev.value(defaults_attr.expr) if defaults_attr else {}
        if isinstance(groups, Unknown) or not isinstance(groups, dict):
            module.run.notice(
                shown, attr.line, f"{prefix}{attr_name} is not static; its node groups are not read"
            )
            continue
        sub = "eks_managed_node_group" if kind == "eks" else "self_managed_node_group"
        resource = "aws_eks_node_group.this" if kind == "eks" else "aws_autoscaling_group.this"
        for key in sorted(groups):
            group = groups[key]
            if isinstance(defaults, dict) and isinstance(group, dict):
                merged = LineDict({**defaults, **group})
                merged.key_lines = {**getattr(defaults, "key_lines", {}), **getattr(group, "key_lines", {})}
                merged.line = getattr(group, "line", attr.line)
                merged.end_line = getattr(group, "end_line", attr.line)
                group = merged
            if not isinstance(group, dict):
                continue
            same_file = getattr(group, "line", 0) and _src(group) in (None, shown)
            gline = group.line if same_file else attr.line
            gend = getattr(group, "end_line", gline) if same_file else attr.end_line
            if not same_file:
                group = with_lines(dict(group), attr.line)
            address = f'{prefix}module.{sub}["{key}"].{resource}'
            _eks_group(module, kind, address, group, ir.Location(shown, gline, max(gline, gend)), multiplier)


def _src(value: Any) -> str | None:
    return getattr(value, "src", None)


def _eks_group(
    module: Module, kind: str, address: str, group: Any, loc: ir.Location, multiplier: Any
) -> None:
    values = LineDict(group)
    values.key_lines = dict(getattr(group, "key_lines", {}) or {})
    values.line, values.end_line = loc.line, loc.end_line
    if kind == "eks":
        # the module's names -> aws_eks_node_group's shape
        scaling = LineDict({k: group[k] for k in ("min_size", "max_size", "desired_size") if k in group})
        scaling.key_lines = {k: values.key_lines.get(k, loc.line) for k in scaling}
        values["scaling_config"] = LineList([scaling])
        values.key_lines["scaling_config"] = loc.line
        if "name" in group:
            values["node_group_name"] = group["name"]
        rtype = "aws_eks_node_group"
    else:
        values["desired_capacity"] = group.get("desired_size")
        values.key_lines["desired_capacity"] = values.key_lines.get("desired_size", loc.line)
        rtype = "aws_autoscaling_group"
        itype = group.get("instance_type")
        lt = LineDict({"instance_type": itype} if itype is not None else {})
        lt.key_lines = {"instance_type": values.key_lines.get("instance_type", loc.line)}
        for key in ("instance_market_options", "capacity_reservation_specification"):
            if key in group:
                lt[key] = _blockify(group[key])
                lt.key_lines[key] = values.key_lines.get(key, loc.line)
        lt.line, lt.end_line = loc.line, loc.end_line
        lt_address = address.replace("aws_autoscaling_group.this", "aws_launch_template.this")
        module.run.items.append(m.Item("aws_launch_template_internal", lt_address, lt, loc, FORMAT))
        item = m.Item(
            rtype, address, values, loc, FORMAT, multiplier, refs={"launch_template.id": lt_address}
        )
        module.run.items.append(item)
        return
    for key in ("instance_market_options", "capacity_reservation_specification"):
        if key in values:
            values[key] = _blockify(values[key])
    module.run.items.append(m.Item(rtype, address, values, loc, FORMAT, multiplier))


def _blockify(value: Any) -> Any:
    """Module inputs give nested objects where the resource has blocks (lists of objects)."""
    if isinstance(value, dict):
        out = LineList([LineDict({k: _blockify(v) for k, v in value.items()})])
        inner = out[0]
        inner.key_lines = dict(getattr(value, "key_lines", {}) or {})
        inner.line = getattr(value, "line", 0)
        return out
    return value
