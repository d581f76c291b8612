"""Registry modules modelled without downloading them: ONE table, one small function per module.

A ``module`` block whose ``source`` is in :data:`REGISTRY_MODULES` is read from the caller's
inputs as the module would turn them into resources (the module defaults that matter for cost
included); every other remote module is scanned from ``.terraform/modules`` when ``terraform
init`` downloaded it, else skipped with one notice. Adding a module is one entry and one
function that appends :class:`~.mapping.Item` s in the resource shape (``docs/terraform.md``
lists the modelled set). Defaults were read from the modules' sources
(terraform-aws-modules/terraform-aws-eks v20 and v21 ``variables.tf``/``node_groups.tf``,
terraform-aws-autoscaling and terraform-aws-efs ``main.tf``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from finlint import ir
from finlint.ir import Unknown, plain_unknown
from finlint.loaders.common.yamlload import LineDict
from finlint.loaders.terraform import mapping as m
from finlint.loaders.terraform.eks_module import blockify, eks_module
from finlint.loaders.terraform.eval import Evaluator
from finlint.loaders.terraform.files import FORMAT, MODULE_META, Decl
from finlint.loaders.terraform.values import body_values

if TYPE_CHECKING:
    from finlint.loaders.terraform.modules import Module

Handler = Callable[["Module", Decl, Evaluator, str, Any], None]


@dataclass(frozen=True)
class RegistryModule:
    """A registry module finlint models: what it reads and the handler that reads it."""

    source: str  # registry address, with ``//modules/<name>`` for a sub-module
    reads: str  # what is modelled, for the docs
    load: Handler


def _eks(submodule: str | None) -> Handler:
    def load(module: Module, call: Decl, ev: Evaluator, prefix: str, multiplier: Any) -> None:
        eks_module(module, call, ev, prefix, submodule, multiplier, major_version(module, call))

    return load


def _controller_only(what: str) -> Handler:
    """Modules that create no billed capacity of their own (IAM, queues, a controller)."""

    def load(module: Module, call: Decl, ev: Evaluator, prefix: str, multiplier: Any) -> None:
        inputs = _inputs(call, ev)
        if what == "blueprints" and inputs.get("enable_karpenter") is True:
            module.run.notice(
                call.file.display,
                call.block.line,
                f"{prefix.rstrip('.')}: installs the Karpenter controller (Helm values read, no "
                "capacity); its NodePools come from manifests, scan those",
            )

    return load


def _efs(module: Module, call: Decl, ev: Evaluator, prefix: str, multiplier: Any) -> None:
    """terraform-aws-modules/efs/aws: one file system, its access points (``access_points`` map)."""
    values = body_values(call.block.body, ev, call.file.display)
    if values.get("create") is False:
        return
    loc = ir.Location(call.file.display, call.block.line, call.block.end_line)
    fs = LineDict({k: values[k] for k in values if k not in MODULE_META})
    fs.key_lines = dict(values.key_lines)
    fs.line, fs.end_line = loc.line, loc.end_line
    if "name" in fs and "creation_token" not in fs:
        fs["creation_token"] = fs["name"]
        fs.key_lines["creation_token"] = fs.key_lines.get("name", loc.line)
    if isinstance(fs.get("name"), str):
        fs["tags"] = {"Name": fs["name"], **(fs["tags"] if isinstance(fs.get("tags"), dict) else {})}
    fs_address = f"{prefix}aws_efs_file_system.this[0]"
    module.run.items.append(m.Item("aws_efs_file_system", fs_address, fs, loc, FORMAT, multiplier))
    points = values.get("access_points")
    if not isinstance(points, dict):
        return
    for key in sorted(points):
        point = points[key]
        if not isinstance(point, dict):
            continue
        ap = LineDict(blockify(point)[0]) if isinstance(blockify(point), list) else LineDict()
        ap.key_lines = dict(getattr(point, "key_lines", {}) or {})
        line = getattr(point, "line", 0) or values.key_lines.get("access_points", loc.line)
        ap.line, ap.end_line = line, getattr(point, "end_line", line) or line
        name = point.get("name", key)
        ap["tags"] = {"Name": name}
        module.run.items.append(
            m.Item(
                "aws_efs_access_point",
                f'{prefix}aws_efs_access_point.this["{key}"]',
                ap,
                ir.Location(loc.file, ap.line, max(ap.line, ap.end_line)),
                FORMAT,
                multiplier,
                refs={"file_system_id": fs_address},
            )
        )


def _autoscaling(module: Module, call: Decl, ev: Evaluator, prefix: str, multiplier: Any) -> None:
    """terraform-aws-modules/autoscaling/aws: the group, its launch template, the mixed
    instances policy (only when ``use_mixed_instances_policy`` is true, as the module does)."""
    values = body_values(call.block.body, ev, call.file.display)
    if values.get("create") is False:
        return
    loc = ir.Location(call.file.display, call.block.line, call.block.end_line)
    lines = dict(values.key_lines)
    lt = LineDict()
    lt.key_lines = {}
    for key in ("instance_type", "instance_market_options", "capacity_reservation_specification"):
        if key in values:
            lt[key] = blockify(values[key]) if key != "instance_type" else values[key]
            lt.key_lines[key] = lines.get(key, loc.line)
    lt.line, lt.end_line = loc.line, loc.end_line
    lt_address = f"{prefix}aws_launch_template.this[0]"
    module.run.items.append(m.Item("aws_launch_template_internal", lt_address, lt, loc, FORMAT))
    asg = LineDict(
        {k: values[k] for k in ("min_size", "max_size", "desired_capacity", "name") if k in values}
    )
    asg.key_lines = {k: lines.get(k, loc.line) for k in asg}
    mixed = values.get("use_mixed_instances_policy")
    policy = values.get("mixed_instances_policy")
    if mixed is True and isinstance(policy, dict):
        shaped = dict(policy)
        template = shaped.get("launch_template")
        if "override" in shaped and not isinstance(template, dict):  # v6 and older: override at the top
            shaped["launch_template"] = {"override": shaped.pop("override")}
        asg["mixed_instances_policy"] = blockify(shaped)
        asg.key_lines["mixed_instances_policy"] = lines.get("mixed_instances_policy", loc.line)
    elif isinstance(mixed, Unknown):
        asg["mixed_instances_policy"] = plain_unknown(mixed)  # a block: not a flag's options
        asg.key_lines["mixed_instances_policy"] = lines.get("use_mixed_instances_policy", loc.line)
    asg.line, asg.end_line = loc.line, loc.end_line
    module.run.items.append(
        m.Item(
            "aws_autoscaling_group",
            f"{prefix}aws_autoscaling_group.this[0]",
            asg,
            loc,
            FORMAT,
            multiplier,
            refs={"launch_template.id": lt_address},
        )
    )


_EKS = "terraform-aws-modules/eks/aws"
#: The modelled registry modules. Add one: an entry here, a handler above, a line in docs/terraform.md.
REGISTRY_MODULES: tuple[RegistryModule, ...] = (
    RegistryModule(
        _EKS,
        "eks_managed_node_groups, self_managed_node_groups, the *_defaults maps (v20), instance_types,"
        " capacity_type, sizes (module defaults min 1 / max 3 / desired 1)",
        _eks(None),
    ),
    RegistryModule(
        f"{_EKS}//modules/eks-managed-node-group",
        "the call is one managed node group",
        _eks("eks-managed-node-group"),
    ),
    RegistryModule(
        f"{_EKS}//modules/self-managed-node-group",
        "the call is one self-managed group",
        _eks("self-managed-node-group"),
    ),
    RegistryModule(
        f"{_EKS}//modules/karpenter", "IAM role, SQS queue: no capacity", _controller_only("karpenter")
    ),
    RegistryModule(
        "aws-ia/eks-blueprints-addons/aws",
        "enable_karpenter and the Karpenter Helm values: controller only, NodePools come from manifests",
        _controller_only("blueprints"),
    ),
    RegistryModule(
        "terraform-aws-modules/efs/aws", "the file system (throughput mode) and access_points", _efs
    ),
    RegistryModule(
        "terraform-aws-modules/autoscaling/aws",
        "the group's sizes, instance_type, market options, mixed_instances_policy",
        _autoscaling,
    ),
)

_BY_SOURCE = {entry.source: entry for entry in REGISTRY_MODULES}
#: Git spellings of the same modules: repository -> registry address.
_GIT_REPOS = {
    "terraform-aws-modules/terraform-aws-eks": _EKS,
    "aws-ia/terraform-aws-eks-blueprints-addons": "aws-ia/eks-blueprints-addons/aws",
    "terraform-aws-modules/terraform-aws-efs": "terraform-aws-modules/efs/aws",
    "terraform-aws-modules/terraform-aws-autoscaling": "terraform-aws-modules/autoscaling/aws",
}
_GIT = re.compile(
    r"^(?:git::)?(?:https://|ssh://git@|git@)?github\.com[/:]([^/]+/[^/.?]+)(?:\.git)?(//[^?]*)?"
)


def lookup(source: str) -> RegistryModule | None:
    """The modelled module a ``source`` names (registry address or GitHub URL), if any."""
    text = source.strip().removeprefix("registry.terraform.io/").split("?", 1)[0].rstrip("/")
    found = _BY_SOURCE.get(text)
    if found is not None:
        return found
    git = _GIT.match(source.strip())
    if git and git.group(1) in _GIT_REPOS:
        return _BY_SOURCE.get(_GIT_REPOS[git.group(1)] + (git.group(2) or "").rstrip("/"))
    return None


def major_version(module: Module, call: Decl) -> int | None:
    """The module's major version from ``version`` ("~> 20.0", "20.8.5", ">= 21") or a git ref."""
    attr = call.block.body.attrs.get("version")
    text: Any = module.evaluator(call.file).value(attr.expr) if attr is not None else None
    if not isinstance(text, str):
        src = call.block.body.attrs.get("source")
        raw = module.evaluator(call.file).value(src.expr) if src is not None else None
        ref = re.search(r"[?&]ref=v?(\d+)", raw) if isinstance(raw, str) else None
        return int(ref.group(1)) if ref else None
    found = re.search(r"(\d+)", text)
    return int(found.group(1)) if found else None


def _inputs(call: Decl, ev: Evaluator) -> dict[str, Any]:
    return {k: ev.value(a.expr) for k, a in call.block.body.attrs.items() if k not in MODULE_META}
