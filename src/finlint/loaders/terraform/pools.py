"""Compute resources -> ComputePool: EC2 instances, launch templates, Auto Scaling groups, EKS node
groups, Batch compute environments, HyperPod clusters."""

from __future__ import annotations

import math
from typing import Any

from finlint import ir
from finlint.ir import Unknown, plain_unknown
from finlint.loaders.terraform.items import (
    Item,
    Lines,
    as_int,
    as_str,
    as_str_tuple,
    common_fields,
    get,
    tags_of,
    times,
)

_MARKET = {"spot": "spot", "capacity-block": "capacity-block"}


_EKS_CAPACITY = {"ON_DEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}


def _market(values: Any, r: Lines, prefix: str = "") -> tuple[Any, Any]:
    """(capacity_types, capacity_reservation) from EC2 launch arguments."""
    market = r.read("capacity_types", prefix + "instance_market_options.market_type")
    capacity: Any = None
    if isinstance(market, Unknown):
        capacity = plain_unknown(market)  # a tuple field: never one option's string
    elif isinstance(market, str):
        capacity = (_MARKET.get(market, market),)
    else:
        opts, _ = get(values, prefix + "instance_market_options")
        if isinstance(opts, Unknown):
            capacity = opts
    reservation: Any = None
    spec, line = get(values, prefix + "capacity_reservation_specification")
    if isinstance(spec, Unknown):
        reservation = plain_unknown(spec)
    elif spec:
        target, tline = get(values, prefix + "capacity_reservation_specification.capacity_reservation_target")
        pref, pline = get(
            values, prefix + "capacity_reservation_specification.capacity_reservation_preference"
        )
        if isinstance(target, Unknown):
            reservation = plain_unknown(target)  # a boolean field: never a target's options
        elif target or pref == "capacity-reservations-only":
            reservation = True
        elif isinstance(pref, Unknown):
            reservation = plain_unknown(pref)
        else:
            reservation = False
        r.lines["capacity_reservation"] = tline or pline or line or 0
    if capacity == ("capacity-block",):
        reservation = True
    return capacity, reservation


def _pool(item: Item, r: Lines, kind: str, name: Any = None, **fields: Any) -> ir.ComputePool:
    return ir.ComputePool(pool_kind=kind, **fields, **common_fields(item, r, name))


def ec2_instance(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    r = Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "instance_type"))
    capacity, reservation = _market(item.values, r)
    lt = templates.get(item.refs.get("launch_template.id", "") or item.refs.get("launch_template.name", ""))
    if lt is not None:
        types, capacity, reservation = _inherit(lt, types, capacity, reservation)
    n = times(1, item.multiplier)
    _, tags_name = tags_of(item.values)
    return [
        _pool(
            item,
            r,
            "ec2-instance",
            tags_name,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
            min_size=n,
            desired_size=n,
            max_size=n,
        )
    ]


def _inherit(lt: Item, types: Any, capacity: Any, reservation: Any) -> tuple[Any, Any, Any]:
    """Fill what a resource leaves to its launch template."""
    lr = Lines(lt.values)
    if types is None:
        types = as_str_tuple(lr.read("instance_types", "instance_type"))
    lt_capacity, lt_reservation = _market(lt.values, lr)
    return (
        types,
        capacity if capacity is not None else lt_capacity,
        (reservation if reservation is not None else lt_reservation),
    )


def launch_template(item: Item) -> list[ir.Record]:
    r = Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "instance_type"))
    capacity, reservation = _market(item.values, r)
    name = as_str(r.read("name", "name"))
    return [
        _pool(
            item,
            r,
            "launch-template",
            name,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
        )
    ]


def autoscaling_group(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    r = Lines(item.values)
    types: Any = None
    overrides, oline = get(item.values, "mixed_instances_policy.launch_template.override")
    if isinstance(overrides, Unknown):
        types = plain_unknown(overrides)
    elif isinstance(overrides, list) and overrides:
        types = tuple(
            plain_unknown(as_str(o.get("instance_type"))) if isinstance(o, dict) else Unknown("override")
            for o in overrides
        )
        if oline:
            r.lines["instance_types"] = oline
    lt = None
    for key in (
        "launch_template.id",
        "launch_template.name",
        "mixed_instances_policy.launch_template.launch_template_specification.launch_template_id",
        "mixed_instances_policy.launch_template.launch_template_specification.launch_template_name",
    ):
        if item.refs.get(key) in templates:
            lt = templates[item.refs[key]]
            break
    capacity: Any = None
    reservation: Any = None
    if lt is not None:
        types, capacity, reservation = _inherit(lt, types, None, None)
        if "instance_types" not in r.lines:
            r.lines["instance_types"] = lt.location.line
    elif types is None and (
        get(item.values, "launch_template")[0] or get(item.values, "mixed_instances_policy")[0]
    ):
        types = Unknown("launch template not found in the configuration")
    dist, _ = get(item.values, "mixed_instances_policy.instances_distribution")
    if isinstance(dist, list) and dist and isinstance(dist[0], dict):
        pct = dist[0].get("on_demand_percentage_above_base_capacity")
        if isinstance(pct, (int, float)) and pct < 100:
            capacity = ("on-demand", "spot") if (dist[0].get("on_demand_base_capacity") or 0) else ("spot",)
    return [
        _pool(
            item,
            r,
            "autoscaling-group",
            None,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
            min_size=times(as_int(r.read("min_size", "min_size")), item.multiplier),
            desired_size=times(as_int(r.read("desired_size", "desired_capacity")), item.multiplier),
            max_size=times(as_int(r.read("max_size", "max_size")), item.multiplier),
        )
    ]


def eks_node_group(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    r = Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "instance_types"))
    if types == ():
        types = None
    ct = r.read("capacity_types", "capacity_type")
    capacity: Any = (
        plain_unknown(ct)
        if isinstance(ct, Unknown)
        else ((_EKS_CAPACITY.get(ct, ct.lower()),) if isinstance(ct, str) else None)
    )
    market, reservation = _market(item.values, r)  # the EKS module's launch-template inputs
    if capacity is None and market is not None:
        capacity = market
    if capacity == ("capacity-block",):
        reservation = True
    lt = templates.get(item.refs.get("launch_template.id", "") or item.refs.get("launch_template.name", ""))
    if lt is not None:
        types, lt_cap, reservation = _inherit(lt, types, None, reservation)
        if capacity is None and lt_cap == ("capacity-block",):
            capacity = lt_cap
        r.lines.setdefault("instance_types", lt.location.line)
    labels, _ = get(item.values, "labels")
    taints, _ = get(item.values, "taint")
    taint_list = (
        tuple(f"{t.get('key')}={t.get('value', '')}:{t.get('effect')}" for t in taints if isinstance(t, dict))
        if isinstance(taints, list)
        else ()
    )
    name = as_str(r.read("name", "node_group_name"))
    return [
        _pool(
            item,
            r,
            "eks-nodegroup",
            name,
            instance_types=types,
            capacity_types=capacity,
            capacity_reservation=reservation,
            min_size=times(as_int(r.read("min_size", "scaling_config.min_size")), item.multiplier),
            desired_size=times(
                as_int(r.read("desired_size", "scaling_config.desired_size")), item.multiplier
            ),
            max_size=times(as_int(r.read("max_size", "scaling_config.max_size")), item.multiplier),
            labels=dict(labels) if isinstance(labels, dict) else {},
            taints=taint_list,
        )
    ]


def batch_compute_environment(item: Item, templates: dict[str, Item]) -> list[ir.Record]:
    from finlint.domain import catalog

    r = Lines(item.values)
    types = as_str_tuple(r.read("instance_types", "compute_resources.instance_type"))
    ctype = r.read("capacity_types", "compute_resources.type")
    capacity: Any = (
        plain_unknown(ctype)
        if isinstance(ctype, Unknown)
        else ({"SPOT": ("spot",), "EC2": ("on-demand",)}.get(ctype) if isinstance(ctype, str) else None)
    )
    vcpus = None
    if isinstance(types, tuple) and types and all(isinstance(t, str) for t in types):
        specs = [_spec(catalog, t) for t in types]
        if all(s is not None for s in specs):
            vcpus = max(s.vcpu for s in specs if s is not None)

    def instances(field_name: str, path: str) -> Any:
        v = as_int(r.read(field_name, path))
        if v is None or isinstance(v, Unknown):
            return plain_unknown(v)  # vCPUs are not instances: never the vCPU options
        if v == 0:
            return 0
        return times(math.ceil(v / vcpus) if vcpus else 1, item.multiplier)

    common_extra = {
        k: get(item.values, f"compute_resources.{k}")[0] for k in ("min_vcpus", "desired_vcpus", "max_vcpus")
    }
    pool = _pool(
        item,
        r,
        "batch-compute-environment",
        as_str(get(item.values, "compute_environment_name")[0]),
        instance_types=types,
        capacity_types=capacity,
        min_size=instances("min_size", "compute_resources.min_vcpus"),
        desired_size=instances("desired_size", "compute_resources.desired_vcpus"),
        max_size=instances("max_size", "compute_resources.max_vcpus"),
    )
    extra = dict(pool.extra)
    extra["vcpus"] = common_extra
    return [pool.with_changes(extra=extra)]


def _spec(catalog: Any, name: str) -> Any:
    try:
        return catalog.lookup(name)
    except Exception:  # noqa: BLE001 - the catalog API is owned elsewhere; a miss is a miss
        return None


def hyperpod_cluster(item: Item) -> list[ir.Record]:
    groups, line = get(item.values, "instance_groups")
    if isinstance(groups, Unknown):
        # one pool standing for the groups nobody can list: rules report it undetermined
        # instead of the cluster vanishing from the scan
        r = Lines(item.values)
        sub = Item(
            item.rtype,
            f"{item.address}.instance_groups",
            item.values,
            ir.Location(item.location.file, line or item.location.line, item.location.end_line),
            item.source_format,
            item.multiplier,
            extra=item.extra,
            finding_note=item.finding_note,
        )
        unknown = Unknown(f"instance_groups: {groups.reason}")
        return [
            _pool(
                sub,
                r,
                "hyperpod-instance-group",
                None,
                instance_types=unknown,
                min_size=unknown,
                desired_size=unknown,
                max_size=unknown,
            )
        ]
    if not isinstance(groups, list):
        return []
    out: list[ir.Record] = []
    for i, group in enumerate(groups):
        if not isinstance(group, dict):
            continue
        r = Lines(group)
        gname = as_str(r.read("name", "instance_group_name"))
        count = as_int(r.read("desired_size", "instance_count"))
        if "desired_size" in r.lines:
            r.lines["min_size"] = r.lines["desired_size"]
        plan = r.read("capacity_reservation", "training_plan_arn")
        suffix = gname if isinstance(gname, str) else str(i)
        sub = Item(
            item.rtype,
            f'{item.address}.instance_groups["{suffix}"]',
            group,
            ir.Location(
                item.location.file,
                getattr(group, "line", 0) or line or item.location.line,
                getattr(group, "end_line", 0) or item.location.end_line,
            ),
            item.source_format,
            item.multiplier,
            extra=item.extra,
            finding_note=item.finding_note,
        )
        out.append(
            _pool(
                sub,
                r,
                "hyperpod-instance-group",
                gname,
                instance_types=as_str_tuple(r.read("instance_types", "instance_type")),
                min_size=times(count, item.multiplier),
                desired_size=times(count, item.multiplier),
                max_size=times(count, item.multiplier),
                capacity_reservation=True
                if isinstance(plan, str) and plan
                else (plain_unknown(plan) if isinstance(plan, Unknown) else None),
            )
        )
    return out
