"""The terraform-aws-modules/eks module's node groups, read from the caller's inputs (never downloaded)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from finlint import ir
from finlint.ir import Unknown, plain_unknown
from finlint.loaders.common.yamlload import LineDict, LineList
from finlint.loaders.terraform import mapping as m
from finlint.loaders.terraform.eval import Evaluator
from finlint.loaders.terraform.files import FORMAT, Decl
from finlint.loaders.terraform.values import body_values, with_lines

if TYPE_CHECKING:
    from finlint.loaders.terraform.modules import Module


# --- terraform-aws-modules/eks/aws -----------------------------------------------------------------


#: Sizes a group gets when it sets none (terraform-aws-modules/eks ``node_groups.tf`` and the
#: sub-modules' ``variables.tf``, v20.37 and v21.19): max 3 and desired 1 everywhere; min_size
#: 1 from v21 on, before that 1 for managed groups of the root module and 0 otherwise.
MODULE_SIZES = {"max_size": 3, "desired_size": 1}


def module_min_size(kind: str, submodule: str | None, major: int | None) -> Any:
    if major is not None and major >= 21:
        return 1
    if kind == "eks" and submodule is None:
        return 1
    if major is not None:
        return 0
    return Unknown("the module's default min_size is 0 before v21 and 1 from v21; pin `version`")


def eks_module(
    module: Module,
    call: Decl,
    ev: Evaluator,
    prefix: str,
    submodule: str | None,
    multiplier: Any,
    major: int | None = None,
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
        group = _module_defaults(group, kind, submodule, major, call.block.line)
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
            group = _module_defaults(group, kind, None, major, gline)
            address = f'{prefix}module.{sub}["{key}"].{resource}'
            _eks_group(module, kind, address, group, ir.Location(shown, gline, max(gline, gend)), multiplier)


def _module_defaults(group: Any, kind: str, submodule: str | None, major: int | None, line: int) -> Any:
    """A copy of ``group`` with the sizes it leaves unset as the module sets them (noted)."""
    if not isinstance(group, dict):
        return group
    original = group
    group = LineDict(original)
    group.line = getattr(original, "line", line)
    group.end_line = getattr(original, "end_line", line)
    if hasattr(original, "src"):
        group.src = original.src
    group.key_lines = lines = dict(getattr(original, "key_lines", {}) or {})
    unset: list[str] = []
    for key, value in (("min_size", module_min_size(kind, submodule, major)), *MODULE_SIZES.items()):
        if key not in group or group[key] is None:
            group[key] = value
            lines[key] = line
            unset.append(f"{key} {value}" if not isinstance(value, Unknown) else key)
    if unset:
        group.module_defaults = unset
    return group


def _src(value: Any) -> str | None:
    return getattr(value, "src", None)


def _eks_group(
    module: Module, kind: str, address: str, group: Any, loc: ir.Location, multiplier: Any
) -> None:
    values = LineDict(group)
    values.key_lines = dict(getattr(group, "key_lines", {}) or {})
    values.line, values.end_line = loc.line, loc.end_line
    unset = getattr(group, "module_defaults", None)
    note = f"; module defaults: {', '.join(unset)} (not set in the group)" if unset else ""
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
                lt[key] = blockify(group[key])
                lt.key_lines[key] = values.key_lines.get(key, loc.line)
        lt.line, lt.end_line = loc.line, loc.end_line
        lt_address = address.replace("aws_autoscaling_group.this", "aws_launch_template.this")
        module.run.items.append(m.Item("aws_launch_template_internal", lt_address, lt, loc, FORMAT))
        mixed = group.get("use_mixed_instances_policy")
        if mixed is True and isinstance(group.get("mixed_instances_policy"), dict):
            values["mixed_instances_policy"] = blockify(group["mixed_instances_policy"])
        elif isinstance(mixed, Unknown):
            values["mixed_instances_policy"] = plain_unknown(mixed)  # a block: not a flag's options
        item = m.Item(
            rtype,
            address,
            values,
            loc,
            FORMAT,
            multiplier,
            refs={"launch_template.id": lt_address},
            finding_note=note,
        )
        module.run.items.append(item)
        return
    for key in ("instance_market_options", "capacity_reservation_specification"):
        if key in values:
            values[key] = blockify(values[key])
    module.run.items.append(m.Item(rtype, address, values, loc, FORMAT, multiplier, finding_note=note))


def blockify(value: Any) -> Any:
    """Module inputs give nested objects where the resource has blocks (lists of objects); a
    list of objects (``override = [{...}, {...}]``) is a repeated block."""
    if isinstance(value, dict):
        return LineList([_block(value)])
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        out = LineList([_block(v) for v in value])
        out.line = getattr(value, "line", 0)
        return out
    return value


def _block(value: dict[str, Any]) -> LineDict:
    inner = LineDict({k: blockify(v) for k, v in value.items()})
    inner.key_lines = dict(getattr(value, "key_lines", {}) or {})
    inner.line = getattr(value, "line", 0)
    return inner
