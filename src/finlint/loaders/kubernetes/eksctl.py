"""eksctl ``ClusterConfig`` -> one :class:`ComputePool` per node group (self-managed and managed).

Instance types (listed, single, mixed or picked by ``instanceSelector``), capacity type (spot,
``instancesDistribution``, capacity blocks), reservations and sizes, with eksctl's own default
node count when no size is given. A node group's ``tags`` can carry suppressions too.
"""

from __future__ import annotations

from typing import Any

from finlint.ir import ComputePool, Maybe, Record, Unknown, distinct_suppressions
from finlint.loaders.kubernetes.object import (
    FORMAT,
    Doc,
    Node,
    boolean,
    integer,
    items,
    mapping,
    placeholder,
    plain,
    suppressions,
    templated,
    text,
)

EKSCTL_DEFAULT_NODE_COUNT = 2  # eksctl's DefaultNodeCount when no size is given


def _eksctl_taints(value: Any) -> tuple[str, ...]:
    if isinstance(value, dict):  # older form: {key: "value:Effect"}
        return tuple(f"{k}={v}" if v not in (None, "") else str(k) for k, v in value.items())
    taints = []
    for item in value if isinstance(value, list) else ():
        if isinstance(item, dict) and "key" in item:
            suffix = f"={item['value']}" if item.get("value") not in (None, "") else ""
            taints.append(f"{item['key']}{suffix}:{item.get('effect', '')}".rstrip(":"))
    return tuple(taints)


def _eksctl_nodegroup(d: Doc, cluster: str, group: Node, managed: bool) -> ComputePool:
    lines: dict[str, int] = {}
    extra: dict[str, Any] = {"managed": managed, "cluster": cluster}

    def at(node: Any, attr: str, key: str) -> Any:
        if isinstance(node, dict) and key in node:
            lines.setdefault(attr, d.line_at(node, key))
            return node[key]
        return None

    name = text(group.get("name"), "nodegroup name")
    distribution = mapping(group, "instancesDistribution")
    types: Maybe[tuple[Maybe[str], ...]] = None
    listed = at(group, "instance_types", "instanceTypes")
    if listed is None and distribution is not None:
        listed = at(distribution, "instance_types", "instanceTypes")
    single = group.get("instanceType")
    if isinstance(listed, list):
        types = tuple(text(t, "instanceTypes item") for t in listed)
    elif templated(listed):
        types = placeholder("instanceTypes", listed)
    elif single is not None and single != "mixed":
        at(group, "instance_types", "instanceType")
        one = text(single, "instanceType")
        types = one if isinstance(one, Unknown) else (one,)
    elif isinstance(group.get("instanceSelector"), dict):
        at(group, "instance_types", "instanceSelector")
        types = Unknown("instanceSelector: eksctl picks the types when it creates the group")
    capacity: Maybe[tuple[str, ...]] = ("on-demand",)
    spot = boolean(at(group, "capacity_types", "spot"), "spot")
    if isinstance(spot, Unknown):
        capacity = spot
    elif spot:
        capacity = ("spot",)
    elif distribution is not None:
        percent = integer(distribution.get("onDemandPercentageAboveBaseCapacity"), "onDemandPercentage")
        base = integer(distribution.get("onDemandBaseCapacity"), "onDemandBaseCapacity")
        lines["capacity_types"] = d.line_at(group, "instancesDistribution")
        if isinstance(percent, Unknown) or isinstance(base, Unknown):
            capacity = Unknown("instancesDistribution has placeholders")
        elif percent == 0 and not base:
            capacity = ("spot",)
        elif percent is not None and percent < 100:
            capacity = ("on-demand", "spot")
    reserved: Maybe[bool] = None
    market = mapping(group, "instanceMarketOptions")
    if market is not None and str(market.get("marketType", "")).lower() == "capacity-block":
        capacity, reserved = ("capacity-block",), True
        lines["capacity_types"] = lines["capacity_reservation"] = d.line_at(group, "instanceMarketOptions")
    reservation = mapping(group, "capacityReservation")
    if reservation is not None:
        lines["capacity_reservation"] = d.line_at(group, "capacityReservation")
        preference = str(reservation.get("capacityReservationPreference", "")).lower()
        if "capacityReservationTarget" in reservation or preference == "capacity-reservations-only":
            reserved = True
        elif reserved is None:
            reserved = False
    sizes = {
        attr: integer(at(group, attr, key), key)
        for attr, key in (
            ("min_size", "minSize"),
            ("desired_size", "desiredCapacity"),
            ("max_size", "maxSize"),
        )
    }
    if all(value is None for value in sizes.values()):
        sizes["desired_size"] = EKSCTL_DEFAULT_NODE_COUNT
        extra["default_note"] = f"eksctl creates {EKSCTL_DEFAULT_NODE_COUNT} nodes when no size is given"
    labels = mapping(group, "labels")
    if labels is not None:
        lines["labels"] = d.line_at(group, "labels")
    if "taints" in group:
        lines["taints"] = d.line_at(group, "taints")
    if "name" in group:
        lines["name"] = d.line_at(group, "name")
    tags = mapping(group, "tags")
    return ComputePool(
        address=d.ctx.address_prefix + f"ClusterConfig/{cluster}/{group.get('name', '?')}",
        location=d.location(group),
        source_format=FORMAT,
        attr_lines=lines,
        suppressions=distinct_suppressions(d.suppressions() + suppressions(tags, d.ctx)),
        name=name,
        extra=extra,
        pool_kind="eksctl-nodegroup",
        instance_types=types,
        capacity_types=capacity,
        capacity_reservation=reserved,
        labels=plain(labels) if labels is not None else {},
        taints=_eksctl_taints(group.get("taints")),
        min_size=sizes["min_size"],
        desired_size=sizes["desired_size"],
        max_size=sizes["max_size"],
    )


def load_eksctl(d: Doc) -> list[Record]:
    pools: list[Record] = []
    cluster = d.name_key
    for key, managed in (("nodeGroups", False), ("managedNodeGroups", True)):
        for _index, group, _line in items(d.doc, key):
            if isinstance(group, dict):
                pools.append(_eksctl_nodegroup(d, cluster, group, managed))
    return pools
