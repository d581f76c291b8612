"""CloudFormation templates (YAML and JSON) -> IR records.

Values go through :class:`_Template.resolve`: ``!Ref`` to a Parameter gives its ``Default``
(a list for ``CommaDelimitedList``/``List<...>``), ``!Sub`` / ``!Join`` / literal ``!FindInMap``
are evaluated when every part is known, ``AWS::NoValue`` is "absent", and everything decided at
deploy time (pseudo parameters, ``!GetAtt``, ``!If``, ``!Select``, ``!ImportValue``, SSM
parameters...) is an :class:`~finlint.ir.Unknown` naming why. A resource's ``Condition`` is
deploy-time too, so a conditional resource still loads (recorded in ``extra["condition"]``).

Step Functions definitions (``Definition``, ``DefinitionString`` as literal text, ``Fn::Sub`` or
``Fn::Join``, with ``DefinitionSubstitutions``) are resolved into an ASL tree whose unknown
pieces are Unknown values, then read by :func:`finlint.loaders.sagemaker_api.training_jobs_from_asl`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from finlint import catalog, ir
from finlint.loaders import DocContext, FieldCollector
from finlint.loaders.sagemaker_api import training_jobs_from_asl
from finlint.yamlload import LineDict, LineList, YamlLoadError, load_all

FORMAT = "cloudformation"

PSEUDO_PARAMETERS = (
    "AWS::AccountId",
    "AWS::NotificationARNs",
    "AWS::Partition",
    "AWS::Region",
    "AWS::StackId",
    "AWS::StackName",
    "AWS::URLSuffix",
)
_SUB_VAR = re.compile(r"\$\{([^}]*)\}")
_BLOCK_LITERAL = re.compile(r"\|[0-9+-]*\s*(?:#.*)?$")
_INT_TEXT = re.compile(r"^\s*[+]?\d+\s*$")
_FLOAT_TEXT = re.compile(r"^\s*[+]?(\d+\.?\d*|\.\d+)\s*$")
_PLACEHOLDER = re.compile(r"__finlint_unknown_(\d+)__")


class _NoValue:
    """``!Ref AWS::NoValue``: the property is removed, as if absent."""

    def __repr__(self) -> str:
        return "NO_VALUE"


NO_VALUE = _NoValue()


def claims(doc: Any) -> bool:
    """A mapping with ``AWSTemplateFormatVersion``, or ``Resources`` typed ``AWS::...``."""
    if not isinstance(doc, dict):
        return False
    if "AWSTemplateFormatVersion" in doc:
        return True
    resources = doc.get("Resources")
    if not isinstance(resources, dict):
        return False
    return any(
        isinstance(body, dict) and isinstance(body.get("Type"), str) and body["Type"].startswith("AWS::")
        for body in resources.values()
    )


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _is_intrinsic(value: Any) -> bool:
    if not isinstance(value, dict) or len(value) != 1:
        return False
    key = next(iter(value))
    return isinstance(key, str) and (key in ("Ref", "Condition") or key.startswith("Fn::"))


# --------------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------------


class _Template:
    """Parameters, mappings and resources of one template, and the intrinsic evaluator."""

    def __init__(self, doc: Mapping[str, Any], ctx: DocContext) -> None:
        self.ctx = ctx
        self.parameters: dict[str, Any] = _mapping(doc.get("Parameters"))
        self.mappings: dict[str, Any] = _mapping(doc.get("Mappings"))
        resources = doc.get("Resources")
        self.resources: Mapping[str, Any] = resources if isinstance(resources, dict) else {}
        self.used_parameters: list[str] = []  # filled while resolving, read per record

    def line(self, n: int) -> int:
        return self.ctx.line(n)

    # -- Ref ----------------------------------------------------------------------------------
    def ref(self, target: Any) -> Any:
        if not isinstance(target, str):
            return ir.Unknown("Ref to a non-string target")
        if target == "AWS::NoValue":
            return NO_VALUE
        if target in self.parameters:
            return self.parameter_default(target)
        if target in PSEUDO_PARAMETERS or target.startswith("AWS::"):
            return ir.Unknown(f"pseudo parameter {target} is known only at deploy time")
        if target in self.resources:
            return ir.Unknown(f"Ref to resource {target} is known only at deploy time")
        return ir.Unknown(f"Ref to {target}, which the template does not define")

    def parameter_default(self, name: str) -> Any:
        param = self.parameters.get(name)
        if not isinstance(param, dict):
            return ir.Unknown(f"parameter {name} is malformed")
        ptype = param.get("Type")
        ptype = ptype if isinstance(ptype, str) else "String"
        if ptype.startswith("AWS::SSM::Parameter"):
            return ir.Unknown(f"parameter {name} is read from SSM at deploy time")
        if "Default" not in param:
            return ir.Unknown(f"parameter {name} has no Default")
        default = param["Default"]
        if isinstance(default, (dict, list)):
            return ir.Unknown(f"parameter {name} has a non-scalar Default")
        self.used_parameters.append(name)
        if ptype == "CommaDelimitedList" or ptype.startswith("List<"):
            text = "" if default is None else str(default)
            return [part.strip() for part in text.split(",")] if text else []
        return default

    # -- everything ---------------------------------------------------------------------------
    def resolve(self, value: Any) -> Any:
        """A plain value, a (non-intrinsic) dict/list left for the caller, NO_VALUE or Unknown."""
        if not _is_intrinsic(value):
            return value
        name, arg = next(iter(value.items()))
        if name == "Ref":
            return self.ref(arg)
        if name == "Fn::Sub":
            return self._sub(arg)
        if name == "Fn::Join":
            return self._join(arg)
        if name == "Fn::FindInMap":
            return self._find_in_map(arg)
        if name == "Fn::If":
            return self._if(arg)
        if name == "Fn::GetAtt":
            target = ".".join(str(a) for a in arg) if isinstance(arg, list) else str(arg)
            return ir.Unknown(f"Fn::GetAtt {target} is known only at deploy time")
        if name == "Condition":
            return ir.Unknown(f"condition {arg} is decided at deploy time")
        return ir.Unknown(f"{name} is evaluated at deploy time")

    def _if(self, arg: Any) -> Any:
        if not isinstance(arg, list) or len(arg) != 3:
            return ir.Unknown("malformed Fn::If")
        cond, yes, no = arg[0], self.resolve(arg[1]), self.resolve(arg[2])
        # An optional block (`!If [C, {...}, !Ref AWS::NoValue]`) is treated like a resource with a
        # Condition: it is loaded, since it exists whenever the condition holds.
        if yes is NO_VALUE and isinstance(no, (dict, list)):
            return no
        if no is NO_VALUE and isinstance(yes, (dict, list)):
            return yes
        if _known_scalar(yes) and _known_scalar(no) and yes == no and type(yes) is type(no):
            return yes
        return ir.Unknown(f"Fn::If on condition {cond} is decided at deploy time")

    def _find_in_map(self, arg: Any) -> Any:
        if not isinstance(arg, list) or len(arg) < 3:
            return ir.Unknown("malformed Fn::FindInMap")
        keys = [self.resolve(a) for a in arg[:3]]
        for key in keys:
            if not isinstance(key, (str, int)) or isinstance(key, bool):
                reason = key.reason if isinstance(key, ir.Unknown) else "a key is not a string"
                return ir.Unknown(f"Fn::FindInMap key is not known: {reason}")
        node: Any = self.mappings
        for key in keys:
            if not isinstance(node, dict) or str(key) not in node:
                if len(arg) > 3 and isinstance(arg[3], dict) and "DefaultValue" in arg[3]:
                    return self.resolve(arg[3]["DefaultValue"])
                return ir.Unknown(f"Fn::FindInMap {'/'.join(map(str, keys))} is not in Mappings")
            node = node[str(key)]
        return self.resolve(node)

    def _join(self, arg: Any) -> Any:
        if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str):
            return ir.Unknown("malformed Fn::Join")
        parts = self.resolve(arg[1])
        if isinstance(parts, ir.Unknown):
            return ir.Unknown(f"Fn::Join list: {parts.reason}")
        if not isinstance(parts, list):
            return ir.Unknown("Fn::Join of a non-list")
        out: list[str] = []
        for part in parts:
            value = self.resolve(part)
            if value is NO_VALUE:
                continue
            if isinstance(value, ir.Unknown):
                return ir.Unknown(f"Fn::Join part: {value.reason}")
            if not _known_scalar(value):
                return ir.Unknown("Fn::Join part is not a string")
            out.append(_text(value))
        return arg[0].join(out)

    def _sub(self, arg: Any) -> Any:
        text, variables = _sub_args(arg)
        if text is None:
            return ir.Unknown("malformed Fn::Sub")
        reasons: list[str] = []

        def unknown(_original: str, reason: str) -> str:
            reasons.append(reason)
            return ""

        result = self.substitute(text, variables, unknown)
        if reasons:
            return ir.Unknown(f"Fn::Sub {text[:60]!r}: {reasons[0]}")
        return result

    def sub_variable(self, name: str, variables: Mapping[str, Any]) -> Any:
        """The value of ``${name}`` in a Fn::Sub: the vars map, a parameter, or Unknown."""
        if name in variables:
            return self.resolve(variables[name])
        if "." in name:
            return ir.Unknown(f"Fn::GetAtt {name} is known only at deploy time")
        return self.ref(name)

    def substitute(self, text: str, variables: Mapping[str, Any], unknown: Callable[[str, str], str]) -> str:
        """Replace ``${X}`` in ``text``; ``${!X}`` stays literal ``${X}``; ``unknown`` says what
        to put where a variable cannot be resolved (given the original ``${X}`` and a reason)."""

        def one(match: re.Match[str]) -> str:
            name = match.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            value = self.sub_variable(name.strip(), variables)
            if isinstance(value, ir.Unknown):
                return unknown(match.group(0), value.reason)
            if value is NO_VALUE or not _known_scalar(value):
                return unknown(match.group(0), f"${{{name}}} is not a string")
            return _text(value)

        return _SUB_VAR.sub(one, text)


def _sub_args(arg: Any) -> tuple[str | None, Mapping[str, Any]]:
    if isinstance(arg, str):
        return arg, {}
    if isinstance(arg, list) and len(arg) == 2 and isinstance(arg[0], str) and isinstance(arg[1], dict):
        return arg[0], arg[1]
    return None, {}


def _known_scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and not isinstance(value, ir.Unknown)


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# -- typed conversions ------------------------------------------------------------------------


def _as_str(value: Any, key: str) -> Any:
    if value is None or isinstance(value, ir.Unknown):
        return value
    if isinstance(value, bool):
        return ir.Unknown(f"{key} is a boolean, not a string")
    if isinstance(value, (str, int, float)):
        return str(value)
    return ir.Unknown(f"{key} is not a string")


def _as_int(value: Any, key: str) -> Any:
    if value is None or isinstance(value, ir.Unknown):
        return value
    if isinstance(value, bool):
        return ir.Unknown(f"{key} is a boolean, not a number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INT_TEXT.match(value):
        return int(value)
    return ir.Unknown(f"{key} is not an integer: {value!r:.40}")


def _as_float(value: Any, key: str) -> Any:
    if value is None or isinstance(value, ir.Unknown):
        return value
    if isinstance(value, bool):
        return ir.Unknown(f"{key} is a boolean, not a number")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and _FLOAT_TEXT.match(value):
        number = float(value)
        return int(number) if number.is_integer() else number
    return ir.Unknown(f"{key} is not a number: {value!r:.40}")


def _as_bool(value: Any, key: str) -> Any:
    if value is None or isinstance(value, ir.Unknown):
        return value
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return ir.Unknown(f"{key} is not a boolean: {value!r:.40}")


_CONVERT: dict[type, Callable[[Any, str], Any]] = {
    str: _as_str,
    int: _as_int,
    float: _as_float,
    bool: _as_bool,
}


# --------------------------------------------------------------------------------------------
# Reading resource bodies with lines
# --------------------------------------------------------------------------------------------


@dataclass
class _Obj:
    """A mapping of a resource body (or an Unknown stand-in) with the file lines of its keys."""

    tpl: _Template
    node: Any  # a dict, or an ir.Unknown when the whole mapping is unresolvable
    line: int  # file line of the mapping (or of the key holding it)
    path: str

    def raw(self, key: str) -> tuple[Any, int | None]:
        """``(resolved value, file line of the key)``; ``(None, None)`` when absent or NoValue."""
        if isinstance(self.node, ir.Unknown):
            return ir.Unknown(f"{self.path}: {self.node.reason}"), self.line
        if not isinstance(self.node, dict) or key not in self.node:
            return None, None
        value = self.tpl.resolve(self.node[key])
        if value is NO_VALUE or value is None:
            return None, None
        return value, self.key_line(key)

    def key_line(self, key: str) -> int:
        if isinstance(self.node, LineDict) and self.node.line:
            return self.tpl.line(self.node.line_of(key))
        return self.line

    def get(self, key: str, kind: type = str) -> tuple[Any, int | None]:
        value, line = self.raw(key)
        if line is None:
            return None, None
        if isinstance(value, (dict, list)):
            return ir.Unknown(f"{self.path}.{key} is not a {kind.__name__}"), line
        return _CONVERT[kind](value, f"{self.path}.{key}"), line

    def obj(self, key: str) -> _Obj | None:
        value, line = self.raw(key)
        if line is None:
            return None
        return self._child(value, line, f"{self.path}.{key}")

    def _child(self, value: Any, line: int, path: str) -> _Obj:
        if isinstance(value, ir.Unknown):
            return _Obj(self.tpl, value, line, path)
        if isinstance(value, dict):
            start = self.tpl.line(value.line) if isinstance(value, LineDict) and value.line else line
            return _Obj(self.tpl, value, start, path)
        return _Obj(self.tpl, ir.Unknown(f"{path} is not a mapping"), line, path)

    def items(self, key: str) -> tuple[Any, int | None]:
        """``(list of (item, line), key line)``; the list is an Unknown when unresolvable."""
        value, line = self.raw(key)
        if line is None:
            return None, None
        if isinstance(value, ir.Unknown):
            return value, line
        if not isinstance(value, list):
            return ir.Unknown(f"{self.path}.{key} is not a list"), line
        out: list[tuple[Any, int]] = []
        for index, item in enumerate(value):
            item_line = (
                self.tpl.line(value.line_of(index)) if isinstance(value, LineList) and value.line else line
            )
            resolved = self.tpl.resolve(item)
            if resolved is NO_VALUE:
                continue
            out.append((resolved, item_line))
        return out, line

    def objs(self, key: str) -> tuple[Any, int | None]:
        """Like :meth:`items`, with mapping items wrapped as :class:`_Obj`."""
        items, line = self.items(key)
        if not isinstance(items, list):
            return items, line
        return [
            self._child(item, item_line, f"{self.path}.{key}[{i}]")
            for i, (item, item_line) in enumerate(items)
        ], line

    def str_list(self, key: str) -> tuple[Any, int | None]:
        """A list of strings as a tuple (an item may be Unknown), or an Unknown."""
        items, line = self.items(key)
        if not isinstance(items, list):
            return items, line
        values: list[Any] = []
        for index, (item, _item_line) in enumerate(items):
            values.append(
                _as_str(item, f"{self.path}.{key}[{index}]")
                if not isinstance(item, (dict, list))
                else (ir.Unknown(f"{self.path}.{key}[{index}] is not a string"))
            )
        return tuple(values), line

    def end_line(self) -> int:
        if isinstance(self.node, (LineDict, LineList)) and self.node.end_line:
            return max(self.line, self.tpl.line(self.node.end_line))
        return self.line


@dataclass
class _Resource:
    """What every handler gets: the template, the logical id, the body and shared record fields."""

    tpl: _Template
    logical_id: str
    resource_type: str
    body: Mapping[str, Any]
    props: _Obj
    location: ir.Location
    address: str
    suppressions: tuple[ir.Suppression, ...]
    extra: dict[str, Any] = field(default_factory=dict)

    def record(self, cls: type[ir.Record], fields: FieldCollector, **kwargs: Any) -> Any:
        extra = dict(self.extra)
        extra.update(kwargs.pop("extra", {}))
        if self.tpl.used_parameters:
            extra["parameter_defaults"] = sorted(set(self.tpl.used_parameters))
        base: dict[str, Any] = {
            "address": self.address,
            "location": self.location,
            "source_format": FORMAT,
            "attr_lines": dict(fields.lines),
            "suppressions": self.suppressions,
            "extra": extra,
        }
        base.update(kwargs)
        base.update(fields.values)
        return cls(**base)


def _tags(obj: _Obj, key: str) -> tuple[dict[str, Any], int | None, int | None]:
    """``[{Key, Value}]`` tags -> (dict, line of the tags key, line of the Name tag)."""
    items, line = obj.objs(key)
    tags: dict[str, Any] = {}
    name_line: int | None = None
    if not isinstance(items, list):
        return tags, line, None
    for tag in items:
        tag_key, _ = tag.get("Key")
        if not isinstance(tag_key, str):
            continue
        value, value_line = tag.get("Value")
        tags[tag_key] = value
        if tag_key == "Name":
            name_line = value_line if value_line is not None else tag.line
    return tags, line, name_line


def _name_from_tags(
    fields: FieldCollector, tags: Mapping[str, Any], tags_line: int | None, name_line: int | None
) -> None:
    if tags_line is not None:
        fields.lines["tags"] = tags_line
    if "Name" in tags:
        fields.put("name", tags["Name"], name_line)


# --------------------------------------------------------------------------------------------
# Launch templates (shared by EC2 instances, Auto Scaling groups, EKS and Batch)
# --------------------------------------------------------------------------------------------


@dataclass
class _LaunchInfo:
    instance_type: tuple[Any, int | None] = (None, None)
    capacity_types: tuple[Any, int | None] = (None, None)
    capacity_reservation: tuple[Any, int | None] = (None, None)


def _capacity_reservation(spec: _Obj | None) -> tuple[Any, int | None]:
    """CapacityReservationSpecification -> True (targeted / reservations only), False, Unknown."""
    if spec is None:
        return None, None
    if isinstance(spec.node, ir.Unknown):
        return spec.node, spec.line
    target, target_line = spec.raw("CapacityReservationTarget")
    if target_line is not None:
        return (target if isinstance(target, ir.Unknown) else True), target_line
    preference, pref_line = spec.get("CapacityReservationPreference")
    if isinstance(preference, str):
        return preference == "capacity-reservations-only", pref_line
    if isinstance(preference, ir.Unknown):
        return preference, pref_line
    return False, spec.line


def _market_type(value: Any) -> Any:
    if isinstance(value, ir.Unknown) or value is None:
        return value
    if value == "spot":
        return ("spot",)
    if value == "capacity-block":
        return ("capacity-block",)
    return ir.Unknown(f"unrecognised MarketType {value!r:.40}")


def _launch_template_info(tpl: _Template, logical_id: str) -> _LaunchInfo:
    body = tpl.resources.get(logical_id)
    info = _LaunchInfo()
    if not isinstance(body, dict) or not isinstance(body.get("Properties"), dict):
        return info
    props = _Obj(tpl, body["Properties"], tpl.line(getattr(body["Properties"], "line", 1) or 1), logical_id)
    data = props.obj("LaunchTemplateData")
    if data is None:
        return info
    itype, itype_line = data.get("InstanceType")
    if itype_line is not None:
        info.instance_type = (itype, itype_line)
    else:
        _req, req_line = data.raw("InstanceRequirements")
        if req_line is not None:
            info.instance_type = (
                ir.Unknown("attribute-based instance selection (InstanceRequirements)"),
                req_line,
            )
    market = data.obj("InstanceMarketOptions")
    if market is not None:
        mtype, mline = market.get("MarketType")
        if mline is not None:
            info.capacity_types = (_market_type(mtype), mline)
            if mtype == "capacity-block":
                info.capacity_reservation = (True, mline)
    reservation = _capacity_reservation(data.obj("CapacityReservationSpecification"))
    if reservation[1] is not None and info.capacity_reservation[1] is None:
        info.capacity_reservation = reservation
    return info


def _launch_template_ref(tpl: _Template, spec: _Obj | None) -> tuple[str | None, Any, int | None]:
    """A LaunchTemplateSpecification -> (logical id in this template, Unknown if external, line)."""
    if spec is None:
        return None, None, None
    if isinstance(spec.node, ir.Unknown):
        return None, spec.node, spec.line
    node = spec.node if isinstance(spec.node, dict) else {}
    # EC2, Auto Scaling and Batch say LaunchTemplateId/LaunchTemplateName; EKS says Id/Name.
    for key in ("LaunchTemplateId", "Id", "LaunchTemplateName", "Name"):
        raw = node.get(key)
        if raw is None:
            continue
        target = _referenced_resource(tpl, raw, "AWS::EC2::LaunchTemplate")
        if target:
            return target, None, spec.key_line(key)
        value = tpl.resolve(raw)
        if key in ("LaunchTemplateName", "Name") and isinstance(value, str):
            for lid, body in tpl.resources.items():
                if (
                    isinstance(body, dict)
                    and body.get("Type") == "AWS::EC2::LaunchTemplate"
                    and isinstance(body.get("Properties"), dict)
                    and tpl.resolve(body["Properties"].get("LaunchTemplateName")) == value
                ):
                    return str(lid), None, spec.key_line(key)
        return (
            None,
            ir.Unknown(
                f"launch template {value if isinstance(value, str) else '(unresolved)'} "
                "is defined outside this template"
            ),
            spec.key_line(key),
        )
    return None, None, None


def _referenced_resource(tpl: _Template, raw: Any, rtype: str | None = None) -> str | None:
    """The logical id behind ``!Ref X`` / ``!GetAtt X.Attr`` when X is a resource (of ``rtype``)."""
    target: Any = None
    if isinstance(raw, dict) and len(raw) == 1:
        if "Ref" in raw:
            target = raw["Ref"]
        elif "Fn::GetAtt" in raw:
            arg = raw["Fn::GetAtt"]
            target = (
                arg[0]
                if isinstance(arg, list) and arg
                else (arg.split(".", 1)[0] if isinstance(arg, str) else None)
            )
    if not isinstance(target, str) or target not in tpl.resources:
        return None
    body = tpl.resources[target]
    if rtype is not None and not (isinstance(body, dict) and body.get("Type") == rtype):
        return None
    return target


# --------------------------------------------------------------------------------------------
# Resource handlers
# --------------------------------------------------------------------------------------------


def _notebook(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("instance_type", *res.props.get("InstanceType"))
    fields.put("volume_size_gb", *res.props.get("VolumeSizeInGB", int))
    fields.put("name", *res.props.get("NotebookInstanceName"))
    return [res.record(ir.Notebook, fields)]


def _hyperpod(res: _Resource) -> list[ir.Record]:
    cluster_name, _ = res.props.get("ClusterName")
    extra = {"cluster_name": cluster_name if isinstance(cluster_name, str) else None}
    groups, groups_line = res.props.objs("InstanceGroups")
    if groups_line is None:
        return []
    if isinstance(groups, ir.Unknown):
        fields = FieldCollector()
        for name in ("instance_types", "min_size", "desired_size", "max_size"):
            fields.put(name, groups, groups_line)
        return [res.record(ir.ComputePool, fields, pool_kind="hyperpod-instance-group", extra=extra)]
    out: list[ir.Record] = []
    for index, group in enumerate(groups):
        fields = FieldCollector()
        gname, gname_line = group.get("InstanceGroupName")
        fields.put("name", gname, gname_line)
        itype, itype_line = group.get("InstanceType")
        fields.put("instance_types", (itype,) if itype_line is not None else None, itype_line)
        count, count_line = group.get("InstanceCount", int)
        for name in ("min_size", "desired_size", "max_size"):
            fields.put(name, count, count_line)
        plan, plan_line = group.raw("TrainingPlanArn")
        if plan_line is not None:
            fields.put("capacity_reservation", plan if isinstance(plan, ir.Unknown) else True, plan_line)
            extra_group = {**extra, "training_plan": plan if isinstance(plan, str) else None}
        else:
            extra_group = dict(extra)
        suffix = gname if isinstance(gname, str) else f"InstanceGroups[{index}]"
        location = ir.Location(res.location.file, group.line, group.end_line())
        out.append(
            res.record(
                ir.ComputePool,
                fields,
                pool_kind="hyperpod-instance-group",
                address=f"{res.address}/{suffix}",
                location=location,
                extra=extra_group,
            )
        )
    return out


def _efs_file_system(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    tags, tags_line, name_line = _tags(res.props, "FileSystemTags")
    _name_from_tags(fields, tags, tags_line, name_line)
    fields.put("throughput_mode", *res.props.get("ThroughputMode"))
    fields.put("provisioned_throughput_mibps", *res.props.get("ProvisionedThroughputInMibps", float))
    performance, _ = res.props.get("PerformanceMode")
    return [
        res.record(
            ir.FileSystem,
            fields,
            fs_type="efs",
            tags=tags,
            ref_ids=(res.logical_id,),
            extra={"performance_mode": performance} if isinstance(performance, str) else {},
        )
    ]


def _file_system_ref(res: _Resource) -> tuple[Any, int | None]:
    raw_node = res.props.node.get("FileSystemId") if isinstance(res.props.node, dict) else None
    line = res.props.key_line("FileSystemId") if raw_node is not None else None
    target = _referenced_resource(res.tpl, raw_node, "AWS::EFS::FileSystem")
    if target is not None:
        return target, line
    return res.props.get("FileSystemId")


def _efs_access_point(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("file_system_ref", *_file_system_ref(res))
    root = res.props.obj("RootDirectory")
    if root is not None:
        fields.put("root_path", *root.get("Path"))
    tags, tags_line, name_line = _tags(res.props, "AccessPointTags")
    if "Name" in tags:
        fields.put("name", tags["Name"], name_line)
    return [res.record(ir.Volume, fields, volume_kind="efs-access-point", is_efs=True, extra={"tags": tags})]


def _efs_mount_target(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("file_system_ref", *_file_system_ref(res))
    return [res.record(ir.Volume, fields, volume_kind="efs-mount-target", is_efs=True)]


def _fsx(res: _Resource) -> list[ir.Record]:
    fs_type, _ = res.props.get("FileSystemType")
    if not isinstance(fs_type, str) or fs_type.upper() != "LUSTRE":
        return []
    fields = FieldCollector()
    tags, tags_line, name_line = _tags(res.props, "Tags")
    _name_from_tags(fields, tags, tags_line, name_line)
    fields.put("size_gb", *res.props.get("StorageCapacity", float))
    lustre = res.props.obj("LustreConfiguration")
    if lustre is not None:
        fields.put("deployment_type", *lustre.get("DeploymentType"))
        fields.put("per_unit_storage_throughput", *lustre.get("PerUnitStorageThroughput", int))
    return [res.record(ir.FileSystem, fields, fs_type="fsx-lustre", tags=tags, ref_ids=(res.logical_id,))]


def _apply_launch_template(
    res: _Resource, fields: FieldCollector, spec: _Obj | None, types_from_lt: bool
) -> dict[str, Any]:
    """Fill instance types / capacity from the launch template a pool uses, when it is in this
    template; returns ``extra`` naming it."""
    lid, unknown, line = _launch_template_ref(res.tpl, spec)
    if lid is None:
        if unknown is not None and types_from_lt and "instance_types" not in fields.values:
            fields.put("instance_types", unknown, line)
        return {}
    info = _launch_template_info(res.tpl, lid)
    itype, itype_line = info.instance_type
    if types_from_lt and "instance_types" not in fields.values and itype_line is not None:
        fields.put("instance_types", itype if isinstance(itype, ir.Unknown) else (itype,), itype_line)
    if "capacity_types" not in fields.values and info.capacity_types[1] is not None:
        fields.put("capacity_types", *info.capacity_types)
    if "capacity_reservation" not in fields.values and info.capacity_reservation[1] is not None:
        fields.put("capacity_reservation", *info.capacity_reservation)
    return {"launch_template": lid}


def _ec2_instance(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    itype, itype_line = res.props.get("InstanceType")
    if itype_line is not None:
        fields.put("instance_types", (itype,), itype_line)
    fields.put(
        "capacity_reservation", *_capacity_reservation(res.props.obj("CapacityReservationSpecification"))
    )
    extra = _apply_launch_template(res, fields, res.props.obj("LaunchTemplate"), types_from_lt=True)
    return [
        res.record(
            ir.ComputePool,
            fields,
            pool_kind="ec2-instance",
            min_size=1,
            desired_size=1,
            max_size=1,
            extra=extra,
        )
    ]


def _launch_template(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    info = _launch_template_info(res.tpl, res.logical_id)
    itype, itype_line = info.instance_type
    fields.put("instance_types", itype if isinstance(itype, ir.Unknown) else (itype,), itype_line)
    fields.put("capacity_types", *info.capacity_types)
    fields.put("capacity_reservation", *info.capacity_reservation)
    fields.put("name", *res.props.get("LaunchTemplateName"))
    return [res.record(ir.ComputePool, fields, pool_kind="launch-template")]


def _distribution_capacity(dist: _Obj) -> tuple[Any, int | None]:
    base, base_line = dist.get("OnDemandBaseCapacity", int)
    pct, pct_line = dist.get("OnDemandPercentageAboveBaseCapacity", int)
    line = pct_line or base_line or dist.line
    if isinstance(base, ir.Unknown) or isinstance(pct, ir.Unknown):
        return ir.Unknown("InstancesDistribution is not known"), line
    base = 0 if base is None else base
    pct = 100 if pct is None else pct
    types: list[str] = []
    if base > 0 or pct > 0:
        types.append("on-demand")
    if pct < 100:
        types.append("spot")
    return tuple(types), line


def _autoscaling_group(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    extra: dict[str, Any] = {}
    fields.put("min_size", *res.props.get("MinSize", int))
    fields.put("desired_size", *res.props.get("DesiredCapacity", int))
    fields.put("max_size", *res.props.get("MaxSize", int))
    mixed = res.props.obj("MixedInstancesPolicy")
    if mixed is not None:
        lt = mixed.obj("LaunchTemplate")
        if lt is not None:
            overrides, overrides_line = lt.objs("Overrides")
            if isinstance(overrides, ir.Unknown):
                fields.put("instance_types", overrides, overrides_line)
            elif isinstance(overrides, list) and overrides:
                fields.put("instance_types", tuple(_override_type(res, o) for o in overrides), overrides_line)
            extra = _apply_launch_template(
                res, fields, lt.obj("LaunchTemplateSpecification"), types_from_lt=True
            )
        dist = mixed.obj("InstancesDistribution")
        if dist is not None:
            fields.put("capacity_types", *_distribution_capacity(dist))
    else:
        extra = _apply_launch_template(res, fields, res.props.obj("LaunchTemplate"), types_from_lt=True)
        config_raw = (
            res.props.node.get("LaunchConfigurationName") if isinstance(res.props.node, dict) else None
        )
        if config_raw is not None and "instance_types" not in fields.values:
            fields.put("instance_types", *_launch_configuration_type(res, config_raw))
    return [res.record(ir.ComputePool, fields, pool_kind="autoscaling-group", extra=extra)]


def _override_type(res: _Resource, override: _Obj) -> Any:
    itype, itype_line = override.get("InstanceType")
    if itype_line is not None:
        return itype
    if override.raw("InstanceRequirements")[1] is not None:
        return ir.Unknown("attribute-based instance selection (InstanceRequirements)")
    lid, unknown, _ = _launch_template_ref(res.tpl, override.obj("LaunchTemplateSpecification"))
    if lid is not None:
        lt_type, lt_line = _launch_template_info(res.tpl, lid).instance_type
        if lt_line is not None:
            return lt_type
    return unknown if unknown is not None else ir.Unknown("override without an instance type")


def _launch_configuration_type(res: _Resource, raw: Any) -> tuple[Any, int | None]:
    line = res.props.key_line("LaunchConfigurationName")
    lid = _referenced_resource(res.tpl, raw, "AWS::AutoScaling::LaunchConfiguration")
    if lid is None:
        return ir.Unknown("launch configuration is defined outside this template"), line
    body = res.tpl.resources[lid]
    props = body.get("Properties") if isinstance(body, dict) else None
    if not isinstance(props, dict):
        return None, None
    obj = _Obj(res.tpl, props, line, lid)
    itype, itype_line = obj.get("InstanceType")
    if itype_line is None:
        return None, None
    return (itype if isinstance(itype, ir.Unknown) else (itype,)), itype_line


_EKS_CAPACITY = {"ON_DEMAND": "on-demand", "SPOT": "spot", "CAPACITY_BLOCK": "capacity-block"}


def _eks_nodegroup(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("name", *res.props.get("NodegroupName"))
    fields.put("instance_types", *res.props.str_list("InstanceTypes"))
    scaling = res.props.obj("ScalingConfig")
    if scaling is not None:
        fields.put("min_size", *scaling.get("MinSize", int))
        fields.put("desired_size", *scaling.get("DesiredSize", int))
        fields.put("max_size", *scaling.get("MaxSize", int))
    ctype, ctype_line = res.props.get("CapacityType")
    if ctype_line is not None:
        if isinstance(ctype, str):
            mapped = _EKS_CAPACITY.get(ctype.upper())
            fields.put(
                "capacity_types", (mapped,) if mapped else ir.Unknown(f"CapacityType {ctype}"), ctype_line
            )
            if mapped == "capacity-block":
                fields.put("capacity_reservation", True, ctype_line)
        else:
            fields.put("capacity_types", ctype, ctype_line)
    extra = _apply_launch_template(res, fields, res.props.obj("LaunchTemplate"), types_from_lt=True)
    labels, labels_line = res.props.raw("Labels")
    labels_map = dict(labels) if isinstance(labels, dict) else {}
    if labels_line is not None:
        fields.lines["labels"] = labels_line
    taints = _taints(res.props)
    return [
        res.record(
            ir.ComputePool, fields, pool_kind="eks-nodegroup", labels=labels_map, taints=taints, extra=extra
        )
    ]


def _taints(props: _Obj) -> tuple[str, ...]:
    items, _ = props.objs("Taints")
    if not isinstance(items, list):
        return ()
    out: list[str] = []
    for taint in items:
        key, _ = taint.get("Key")
        value, _ = taint.get("Value")
        effect, _ = taint.get("Effect")
        if isinstance(key, str):
            text = key + (f"={value}" if isinstance(value, str) else "")
            out.append(text + (f":{effect}" if isinstance(effect, str) else ""))
    return tuple(out)


_BATCH_CAPACITY = {"EC2": "on-demand", "SPOT": "spot"}


def _vcpus_to_instances(vcpus: Any, types: Any, key: str) -> Any:
    if vcpus is None or isinstance(vcpus, ir.Unknown):
        return vcpus
    if vcpus == 0:
        return 0
    if isinstance(types, ir.Unknown):
        return ir.Unknown(f"{key}: instance types are not known")
    if not isinstance(types, tuple) or len(types) != 1 or not isinstance(types[0], str):
        return ir.Unknown(f"{key} {vcpus} is spread over several (or unknown) instance types")
    spec = catalog.lookup(types[0])
    if spec is None or spec.vcpu <= 0:
        return ir.Unknown(f"{key}: vCPUs of {types[0]} are not in the catalog")
    return math.ceil(vcpus / spec.vcpu)


def _batch_compute_environment(res: _Resource) -> list[ir.Record]:
    env_type, _ = res.props.get("Type")
    compute = res.props.obj("ComputeResources")
    if compute is None or (isinstance(env_type, str) and env_type.upper() == "UNMANAGED"):
        return []
    ctype, ctype_line = compute.get("Type")
    if isinstance(ctype, str) and ctype.upper().startswith("FARGATE"):
        return []  # Fargate launches no EC2 instances
    fields = FieldCollector()
    fields.put("name", *res.props.get("ComputeEnvironmentName"))
    types, types_line = compute.str_list("InstanceTypes")
    fields.put("instance_types", types, types_line)
    if ctype_line is not None:
        mapped = _BATCH_CAPACITY.get(ctype.upper()) if isinstance(ctype, str) else None
        fields.put(
            "capacity_types",
            (mapped,) if mapped else ir.Unknown(f"ComputeResources.Type {ctype}"),
            ctype_line,
        )
    for name, key in (("min_size", "MinvCpus"), ("desired_size", "DesiredvCpus"), ("max_size", "MaxvCpus")):
        vcpus, line = compute.get(key, int)
        fields.put(name, _vcpus_to_instances(vcpus, types, key), line)
    extra = _apply_launch_template(res, fields, compute.obj("LaunchTemplate"), types_from_lt=False)
    return [res.record(ir.ComputePool, fields, pool_kind="batch-compute-environment", extra=extra)]


def _lifecycle_rule(rule: _Obj) -> ir.LifecycleRule:
    rule_id, _ = rule.get("Id")
    status, _ = rule.get("Status")
    prefix, _ = rule.get("Prefix")
    expiration, _ = rule.get("ExpirationInDays", int)
    transitions: list[tuple[int, str]] = []
    listed, _ = rule.objs("Transitions")
    single = rule.obj("Transition")  # the legacy single-transition property
    for transition in (listed if isinstance(listed, list) else []) + ([single] if single else []):
        days, _ = transition.get("TransitionInDays", int)
        storage, _ = transition.get("StorageClass")
        if isinstance(days, int) and isinstance(storage, str):
            transitions.append((days, storage))
    return ir.LifecycleRule(
        rule_id=rule_id,
        # An unresolvable Status counts as enabled: a rule that looks for missing lifecycle must not fire.
        enabled=status != "Disabled",
        prefix=prefix,
        transitions=tuple(transitions),
        expiration_days=expiration,
    )


def _bucket(res: _Resource) -> list[ir.Record]:
    fields = FieldCollector()
    fields.put("bucket_name", *res.props.get("BucketName"))
    lifecycle = res.props.obj("LifecycleConfiguration")
    if lifecycle is not None:
        rules, rules_line = lifecycle.objs("Rules")
        if isinstance(rules, ir.Unknown):
            fields.put("lifecycle_rules", rules, rules_line)
        elif isinstance(rules, list):
            fields.put("lifecycle_rules", tuple(_lifecycle_rule(rule) for rule in rules), rules_line)
    return [res.record(ir.Bucket, fields)]


# --------------------------------------------------------------------------------------------
# Step Functions
# --------------------------------------------------------------------------------------------


@dataclass
class _Placeholders:
    """Unresolvable ``${...}`` pieces of a definition text, replaced by unique plain tokens."""

    reasons: list[str] = field(default_factory=list)
    originals: list[str] = field(default_factory=list)

    def add(self, original: str, reason: str) -> str:
        self.reasons.append(reason)
        self.originals.append(original)
        return f"__finlint_unknown_{len(self.reasons) - 1}__"

    def restore(self, text: str) -> str:
        return _PLACEHOLDER.sub(lambda m: self.originals[int(m.group(1))], text)

    @staticmethod
    def quote_bare(text: str) -> str:
        """Quote placeholders outside JSON strings (``"Max": ${Runtime}``), so the text stays
        valid JSON whatever position a value had; they become Unknown after parsing."""
        if "__finlint_unknown_" not in text:
            return text
        out: list[str] = []
        in_string = escaped = False
        last = 0
        for index, char in enumerate(text):
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == '"':
                    in_string = False
            elif char == '"':
                in_string = True
            elif char == "_" and text.startswith("__finlint_unknown_", index) and index >= last:
                match = _PLACEHOLDER.match(text, index)
                if match:
                    out.append(text[last:index] + '"' + match.group(0) + '"')
                    last = match.end()
        out.append(text[last:])
        return "".join(out)

    def value(self, text: str, key: Any) -> Any:
        """The ASL value for a string: itself, or Unknown when it holds a placeholder."""
        found = _PLACEHOLDER.findall(text)
        if not found:
            return text
        if key == "Resource":  # sagemaker_api recognises ${...} in ARNs (e.g. ${AWS::Partition})
            return self.restore(text)
        return ir.Unknown(self.reasons[int(found[0])])


def _copy_lines(src: Any, dst: Any) -> Any:
    for attr in ("line", "end_line", "key_lines", "item_lines"):
        if hasattr(src, attr):
            setattr(dst, attr, getattr(src, attr))
    return dst


def _rebuild(node: Any, leaf: Callable[[Any, Any], Any], key: Any = None, keep_lines: bool = True) -> Any:
    """A copy of an ASL tree with every non-container value passed through ``leaf(value, key)``.

    ``keep_lines=False`` gives plain dicts/lists, so the ASL reader uses its fallback line.
    """
    if isinstance(node, dict) and not _is_intrinsic(node):
        items = {k: _rebuild(v, leaf, k, keep_lines) for k, v in node.items()}
        items = {k: v for k, v in items.items() if v is not NO_VALUE}
        if keep_lines and isinstance(node, LineDict):
            return _copy_lines(node, LineDict(items))
        return items
    if isinstance(node, list):
        values = [v for v in (_rebuild(v, leaf, key, keep_lines) for v in node) if v is not NO_VALUE]
        if keep_lines and isinstance(node, LineList) and len(values) == len(node):
            return _copy_lines(node, LineList(values))
        return values
    return leaf(node, key)


@dataclass
class _Definition:
    asl: Any  # the parsed ASL (LineDicts with lines, or plain dicts)
    ctx: DocContext
    fallback_line: int | None


class _StateMachine:
    """Builds the ASL of an ``AWS::StepFunctions::StateMachine`` and reads its training jobs."""

    def __init__(self, res: _Resource) -> None:
        self.res = res
        self.tpl = res.tpl
        self.placeholders = _Placeholders()
        self.substitutions: dict[str, Any] = {}
        subs, _ = res.props.raw("DefinitionSubstitutions")
        if isinstance(subs, dict):
            self.substitutions = dict(subs)

    def substitution(self, original: str) -> str:
        """Apply DefinitionSubstitutions to one ``${X}``; unknown ones become placeholders."""
        name = original[2:-1]
        if name in self.substitutions:
            value = self.tpl.resolve(self.substitutions[name])
            if _known_scalar(value):
                return _text(value)
            reason = value.reason if isinstance(value, ir.Unknown) else f"substitution {name} is not a scalar"
            return self.placeholders.add(original, reason)
        return self.placeholders.add(original, f"{original} is not substituted")

    def substitute_text(self, text: str) -> str:
        return _SUB_VAR.sub(lambda m: self.substitution(m.group(0)), text)

    def sub_text(self, arg: Any) -> str | None:
        """The text of a Fn::Sub after CloudFormation's and then DefinitionSubstitutions' pass."""
        text, variables = _sub_args(arg)
        if text is None:
            return None

        def unknown(original: str, reason: str) -> str:
            if self._undefined(original[2:-1].strip(), variables):
                return original  # left for the DefinitionSubstitutions pass
            return self.placeholders.add(original, reason)

        return self.substitute_text(self.tpl.substitute(text, variables, unknown))

    def _undefined(self, name: str, variables: Mapping[str, Any]) -> bool:
        """A ``${name}`` that neither the Fn::Sub variables nor the template define."""
        tpl = self.tpl
        return not (
            name in variables
            or name in tpl.parameters
            or name in tpl.resources
            or name.startswith("AWS::")
            or "." in name
        )

    def join_text(self, arg: Any) -> str | None:
        if not isinstance(arg, list) or len(arg) != 2 or not isinstance(arg[0], str):
            return None
        parts = self.tpl.resolve(arg[1])
        if not isinstance(parts, list):
            return None
        out: list[str] = []
        for part in parts:
            if _is_intrinsic(part) and "Fn::Sub" in part:
                text = self.sub_text(part["Fn::Sub"])
                out.append(text if text is not None else self.placeholders.add("${?}", "malformed Fn::Sub"))
                continue
            value = self.tpl.resolve(part)
            if value is NO_VALUE:
                continue
            if _known_scalar(value):
                out.append(self.substitute_text(_text(value)))
            else:
                reason = value.reason if isinstance(value, ir.Unknown) else "a Fn::Join part is not a string"
                out.append(self.placeholders.add("${?}", reason))
        return arg[0].join(out)

    # -- the definition -------------------------------------------------------------------------
    def definition(self) -> _Definition | ir.LoadError | None:
        props = self.res.props
        if not isinstance(props.node, dict):
            return None
        if "Definition" in props.node:
            return self._from_object(props.node["Definition"])
        raw = props.node.get("DefinitionString")
        if raw is None:
            return None
        key_line = props.key_line("DefinitionString")
        if isinstance(raw, str):
            return self._from_text(raw, self.substitute_text(raw), key_line, props.node, "DefinitionString")
        if _is_intrinsic(raw) and "Fn::Sub" in raw:
            arg = raw["Fn::Sub"]
            text = self.sub_text(arg)
            if text is None:
                return None
            holder, holder_key = (arg, 0) if isinstance(arg, list) else (raw, "Fn::Sub")
            template_text = arg[0] if isinstance(arg, list) else arg
            return self._from_text(template_text, text, key_line, holder, holder_key)
        if _is_intrinsic(raw) and "Fn::Join" in raw:
            text = self.join_text(raw["Fn::Join"])
            return None if text is None else self._from_text(None, text, key_line, None, None)
        return None

    def _from_object(self, node: Any) -> _Definition:
        def leaf(value: Any, key: Any) -> Any:
            if _is_intrinsic(value):
                if key == "Resource" and "Fn::Sub" in value:
                    text = self.sub_text(value["Fn::Sub"])
                    return self.placeholders.restore(text) if text is not None else value
                value = self.tpl.resolve(value)
                if value is NO_VALUE or isinstance(value, ir.Unknown):
                    return value
            if isinstance(value, str):
                return self.placeholders.value(self.substitute_text(value), key)
            return value

        asl = _rebuild(self._resolve_containers(node), leaf)
        line = self.res.props.key_line("Definition")
        return _Definition(asl, self.tpl.ctx, line)

    def _resolve_containers(self, node: Any, depth: int = 0) -> Any:
        """Intrinsics standing for whole objects/lists (``!If`` with NoValue) are resolved first."""
        if depth > 200:
            return ir.Unknown("definition is nested too deeply")
        if isinstance(node, dict) and not _is_intrinsic(node):
            out = _copy_lines(
                node, LineDict({k: self._resolve_containers(v, depth + 1) for k, v in node.items()})
            )
            return out
        if isinstance(node, list):
            return _copy_lines(node, LineList(self._resolve_containers(v, depth + 1) for v in node))
        if _is_intrinsic(node) and "Fn::If" in node:
            resolved = self.tpl.resolve(node)
            if isinstance(resolved, (dict, list)):
                return self._resolve_containers(resolved, depth + 1)
        return node

    def _from_text(
        self, source: str | None, text: str, key_line: int, holder: Any, holder_key: Any
    ) -> _Definition | ir.LoadError:
        mapped_line = self._block_start(source, text, holder, holder_key)
        text = self.placeholders.quote_bare(text)
        try:
            docs = load_all(text, is_json=True)
        except YamlLoadError as exc:
            line = self.tpl.line(mapped_line - 1 + exc.line) if mapped_line else key_line
            return ir.LoadError(
                self.tpl.ctx.file,
                line,
                f"state machine {self.res.logical_id}: the definition is not valid JSON: "
                f"{exc.message.removeprefix('invalid JSON: ')}",
            )
        asl = docs[0] if docs else None
        leaf: Callable[[Any, Any], Any] = lambda value, key: (  # noqa: E731
            self.placeholders.value(value, key) if isinstance(value, str) else value
        )
        if mapped_line:
            # ASL line 1 is template line `mapped_line`: shift by (mapped_line - 1).
            ctx = replace(self.tpl.ctx, line_offset=self.tpl.ctx.line_offset + mapped_line - 1)
            return _Definition(_rebuild(asl, leaf), ctx, None)
        return _Definition(_rebuild(asl, leaf, keep_lines=False), self.tpl.ctx, key_line)

    def _block_start(self, source: str | None, text: str, holder: Any, holder_key: Any) -> int | None:
        """The document line (before ctx offset) of the first content line when ``source`` is a
        literal ``|`` block whose lines are verbatim in the file, else None (use the key line)."""
        lines = self.tpl.ctx.lines
        if source is None or not lines or text.count("\n") != source.count("\n"):
            return None
        if not isinstance(holder, (LineDict, LineList)):
            return None
        indicator_line = holder.line_of(holder_key)
        file_index = self.tpl.line(indicator_line) - 1
        if not 0 <= file_index < len(lines) or not _BLOCK_LITERAL.search(lines[file_index]):
            return None
        content = source.split("\n")
        for offset, expected in enumerate(content):
            index = file_index + 1 + offset
            if expected.strip() and (index >= len(lines) or lines[index].strip() != expected.strip()):
                return None
        return indicator_line + 1


def _state_machine(res: _Resource) -> list[ir.Record] | ir.LoadResult:
    machine = _StateMachine(res)
    definition = machine.definition()
    if definition is None:
        return []
    if isinstance(definition, ir.LoadError):
        return ir.LoadResult(errors=[definition])
    if not isinstance(definition.asl, dict):
        return []
    jobs = training_jobs_from_asl(
        definition.asl,
        definition.ctx,
        address_prefix=f"{res.address}/",
        fallback_line=definition.fallback_line,
    )
    out: list[ir.Record] = []
    for job in jobs:
        extra = dict(job.extra)
        extra.update(res.extra)
        extra["state_machine"] = res.logical_id
        if res.tpl.used_parameters:
            extra["parameter_defaults"] = sorted(set(res.tpl.used_parameters))
        out.append(job.with_changes(suppressions=job.suppressions + res.suppressions, extra=extra))
    return out


_HANDLERS: dict[str, Callable[[_Resource], Any]] = {
    "AWS::SageMaker::NotebookInstance": _notebook,
    "AWS::SageMaker::Cluster": _hyperpod,
    "AWS::EFS::FileSystem": _efs_file_system,
    "AWS::EFS::AccessPoint": _efs_access_point,
    "AWS::EFS::MountTarget": _efs_mount_target,
    "AWS::FSx::FileSystem": _fsx,
    "AWS::StepFunctions::StateMachine": _state_machine,
    "AWS::Serverless::StateMachine": _state_machine,
    "AWS::EC2::Instance": _ec2_instance,
    "AWS::EC2::LaunchTemplate": _launch_template,
    "AWS::AutoScaling::AutoScalingGroup": _autoscaling_group,
    "AWS::EKS::Nodegroup": _eks_nodegroup,
    "AWS::Batch::ComputeEnvironment": _batch_compute_environment,
    "AWS::S3::Bucket": _bucket,
}


# --------------------------------------------------------------------------------------------
# The template
# --------------------------------------------------------------------------------------------


def _suppressions(tpl: _Template, body: Mapping[str, Any]) -> tuple[ir.Suppression, ...]:
    """``Metadata: {finlint: {ignore: [{id: FIN301, reason: ...}]}}`` (plain ids are accepted too)."""
    metadata = body.get("Metadata")
    config = metadata.get("finlint") if isinstance(metadata, dict) else None
    ignores = config.get("ignore") if isinstance(config, dict) else None
    if not isinstance(ignores, list):
        return ()
    out: list[ir.Suppression] = []
    for index, entry in enumerate(ignores):
        line = tpl.line(ignores.line_of(index)) if isinstance(ignores, LineList) else tpl.line(1)
        if isinstance(entry, str):
            out.append(ir.Suppression(rule=entry, reason="", line=line))
        elif isinstance(entry, dict):
            rule, reason = entry.get("id", entry.get("rule")), entry.get("reason")
            if isinstance(rule, str):
                out.append(ir.Suppression(rule, reason if isinstance(reason, str) else "", line))
    return tuple(out)


def _resources(doc: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    resources = doc.get("Resources")
    if not isinstance(resources, dict):
        return
    for logical_id, body in resources.items():
        if isinstance(logical_id, str) and isinstance(body, dict) and isinstance(body.get("Type"), str):
            yield logical_id, body


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    result = ir.LoadResult()
    if not isinstance(doc, dict):
        return result
    resources = doc.get("Resources")
    if resources is not None and not isinstance(resources, dict):
        line = doc.line_of("Resources") if isinstance(doc, LineDict) else 1
        result.errors.append(ir.LoadError(ctx.file, ctx.line(line), "Resources must be a mapping"))
        return result
    result.notices.extend(_unknown_functions(doc, ctx))
    tpl = _Template(doc, ctx)
    for logical_id, body in _resources(doc):
        handler = _HANDLERS.get(body["Type"])
        if handler is None:
            continue
        try:
            loaded = handler(_make_resource(tpl, logical_id, body, resources))
        except Exception as exc:  # a bug must not stop the scan: report it as this file's error
            line = ctx.line(resources.line_of(logical_id)) if isinstance(resources, LineDict) else ctx.line(1)
            result.errors.append(
                ir.LoadError(ctx.file, line, f"resource {logical_id} could not be read: {exc}")
            )
            continue
        if isinstance(loaded, ir.LoadResult):
            result.extend(loaded)
        else:
            result.records.extend(loaded)
    return result


#: Every intrinsic and rule function CloudFormation knows (names are case-sensitive).
KNOWN_FUNCTIONS = frozenset(
    f"Fn::{name}"
    for name in (
        *("And", "Base64", "Cidr", "Contains", "EachMemberEquals", "EachMemberIn", "Equals"),
        *("FindInMap", "GetAtt", "GetAZs", "If", "ImportValue", "Join", "Length", "Not", "Or"),
        *("RefAll", "Select", "Split", "Sub", "ToJsonString", "Transform", "ValueOf", "ValueOfAll"),
    )
)


def _unknown_functions(doc: Any, ctx: DocContext) -> list[ir.Notice]:
    """`!if` (lowercase) loads as an unknown function that CloudFormation would reject; a value
    built on it is unknown, so say so instead of staying silent."""
    notices: list[ir.Notice] = []
    seen: set[int] = set()
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if id(node) in seen or not isinstance(node, (dict, list)):
            continue
        seen.add(id(node))
        if isinstance(node, list):
            stack.extend(node)
            continue
        for key, value in node.items():
            unknown = isinstance(key, str) and key.startswith("Fn::") and key not in KNOWN_FUNCTIONS
            if unknown and not key.startswith("Fn::ForEach::"):  # language-extension loops
                line = node.line_of(key) if isinstance(node, LineDict) else 1
                hint = next((k for k in KNOWN_FUNCTIONS if k.lower() == key.lower()), None)
                did_you_mean = f"; did you mean {hint}?" if hint else ""
                message = f"unknown CloudFormation function {key} (names are case-sensitive{did_you_mean})"
                message += "; values built on it are not checked"
                notices.append(ir.Notice(ctx.file, ctx.line(line), message))
            stack.append(value)
    return sorted(notices, key=lambda n: n.line)


def _make_resource(tpl: _Template, logical_id: str, body: Mapping[str, Any], resources: Any) -> _Resource:
    tpl.used_parameters = []
    start = resources.line_of(logical_id) if isinstance(resources, LineDict) else getattr(body, "line", 1)
    end = getattr(body, "end_line", 0) or start
    location = ir.Location(tpl.ctx.file, tpl.line(start), tpl.line(max(start, end)))
    raw_props = body.get("Properties")
    props_value = tpl.resolve(raw_props) if raw_props is not None else {}
    props_line = (
        tpl.line(body.line_of("Properties"))
        if isinstance(body, LineDict) and raw_props is not None
        else (location.line)
    )
    if props_value is NO_VALUE or props_value is None:
        props_value = {}
    if not isinstance(props_value, (dict, ir.Unknown)):
        props_value = ir.Unknown("Properties is not a mapping")
    props = _Obj(tpl, props_value, props_line, "Properties")
    extra: dict[str, Any] = {"resource_type": body["Type"]}
    condition = body.get("Condition")
    if isinstance(condition, str):
        extra["condition"] = condition
    return _Resource(
        tpl=tpl,
        logical_id=logical_id,
        resource_type=body["Type"],
        body=body,
        props=props,
        location=location,
        address=f"{tpl.ctx.address_prefix}{logical_id}",
        suppressions=_suppressions(tpl, body),
        extra=extra,
    )


__all__ = ["FORMAT", "NO_VALUE", "claims", "load"]
