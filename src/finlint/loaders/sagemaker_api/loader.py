"""SageMaker API specs: CreateTrainingJob requests, Step Functions ASL, pipeline definitions, HyperPod.

All four shapes are detected from content. They share one reader of the CreateTrainingJob
request shape (:func:`training_job_from_request`), which the CloudFormation, Terraform and SDK
loaders reuse. The reader knows three value dialects: plain JSON, Step Functions JSONPath
(``Key.$`` is a run-time value) and JSONata (``{% ... %}``), plus pipeline functions
(``{"Get": "Parameters.X"}`` resolves to the parameter's default). Anything it cannot resolve
is an :class:`~finlint.ir.Unknown`, never a guess.

Heterogeneous clusters (``ResourceConfig.InstanceGroups``): the job takes the type and count
of the group with the most accelerators per instance (the group that drives GPU-hours and
cost); every group is listed in ``extra["instance_groups"]``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from finlint import catalog, coerce, ir
from finlint.loaders.base import DocContext, FieldCollector, no_finalize
from finlint.yamlload import LineDict, LineList

FORMAT = "sagemaker-api"
finalize = no_finalize  # no whole-scan pass

#: What applies when a request has no StoppingCondition.MaxRuntimeInSeconds.
DEFAULT_MAX_RUNTIME_S = 86_400
DEFAULT_NOTE = (
    "StoppingCondition is required by older API models (the request is rejected) and SageMaker "
    "applies a 1-day (86,400 s) default in newer ones"
)

_PARTITION = r"(?:aws(?:-[a-z]+)*|\$\{AWS::Partition\}|\$\{Partition\}|\$\{[A-Za-z0-9_.:]+\})"
_SFN_TRAINING = re.compile(
    rf"^arn:{_PARTITION}:states:::sagemaker:createTrainingJob(?:\.sync|\.waitForTaskToken)?$"
)
_SFN_TUNING = re.compile(
    rf"^arn:{_PARTITION}:states:::sagemaker:createHyperParameterTuningJob(?:\.sync|\.waitForTaskToken)?$"
)
_TEMPLATED = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[^}]*\}|^\$[A-Za-z_]")
_INT_TEXT = re.compile(r"^\s*[+]?\d+\s*$")

_DYNAMIC = object()  # marker: a block whose content is only known at run time


# --------------------------------------------------------------------------------------------
# The value reader
# --------------------------------------------------------------------------------------------


@dataclass
class _Reader:
    """Reads fields of a request-shaped mapping in one dialect, with lines in file coordinates."""

    ctx: DocContext
    fallback_line: int | None = None
    dialect: str = "plain"  # plain | jsonpath | jsonata
    resolve_function: Callable[[Mapping[str, Any]], tuple[Any, str]] | None = None
    resolved: dict[str, str] = field(default_factory=dict)  # IR field -> where its value came from

    # -- lines ---------------------------------------------------------------------------------
    def node_line(self, node: Any, parent_line: int) -> int:
        if isinstance(node, (LineDict, LineList)) and node.line:
            return self.ctx.line(node.line)
        return parent_line

    def end_line(self, node: Any, start: int) -> int:
        if isinstance(node, (LineDict, LineList)) and node.end_line:
            return max(start, self.ctx.line(node.end_line))
        return start

    def key_line(self, container: Any, key: Any, parent_line: int) -> int:
        if isinstance(container, LineDict) and container.line:
            return self.ctx.line(container.line_of(key))
        if isinstance(container, LineList) and container.line and isinstance(key, int):
            return self.ctx.line(container.line_of(key))
        return parent_line

    def root_line(self, node: Any) -> int:
        if isinstance(node, (LineDict, LineList)) and node.line:
            return self.ctx.line(node.line)
        return self.fallback_line if self.fallback_line is not None else 1

    # -- raw access ----------------------------------------------------------------------------
    def raw(self, container: Any, key: str, parent_line: int) -> tuple[Any, int | None]:
        """``(value, line)``: the raw value, an Unknown for run-time values, or ``(None, None)``."""
        if isinstance(container, ir.Unknown):
            return ir.Unknown(f"{key}: {container.reason}"), parent_line
        if not isinstance(container, Mapping):
            return None, None
        if key in container and container[key] is not None:
            return container[key], self.key_line(container, key, parent_line)
        dyn = f"{key}.$"
        if self.dialect == "jsonpath" and dyn in container:
            return (
                ir.Unknown(f"{dyn} is a JSONPath value known only at run time ({container[dyn]!s:.60})"),
                self.key_line(container, dyn, parent_line),
            )
        return None, None

    def block(self, container: Any, key: str, parent_line: int) -> tuple[Any, int]:
        """A nested object: a Mapping, an Unknown (dynamic or malformed), or None when absent."""
        value, line = self.raw(container, key, parent_line)
        if value is None or line is None:
            return None, parent_line
        if isinstance(value, ir.Unknown):
            return value, line
        if isinstance(value, Mapping) and not self._is_function(value):
            if _is_intrinsic(value):
                return ir.Unknown(f"{key} is an expression ({next(iter(value))})"), line
            return value, self.node_line(value, line)
        if isinstance(value, Mapping):
            resolved, _ = self._function(value)
            if isinstance(resolved, Mapping):
                return resolved, line
            if isinstance(resolved, ir.Unknown):
                return resolved, line
            return ir.Unknown(f"{key} is not an object"), line
        if isinstance(value, str) and _TEMPLATED.search(value):
            return ir.Unknown(f"{key} is an expression: {value:.60}"), line
        return ir.Unknown(f"{key} is not an object ({type(value).__name__})"), line

    def items(self, container: Any, key: str, parent_line: int) -> tuple[Any, int]:
        """A list: a Sequence, an Unknown, or None when absent."""
        value, line = self.raw(container, key, parent_line)
        if value is None or line is None:
            return None, parent_line
        if isinstance(value, list):
            return value, line
        if isinstance(value, ir.Unknown):
            return value, line
        return ir.Unknown(f"{key} is not a list"), line

    # -- typed scalars -------------------------------------------------------------------------
    def scalar(
        self, container: Any, key: str, parent_line: int, kind: type, target: str | None = None
    ) -> tuple[Any, int | None]:
        value, line = self.raw(container, key, parent_line)
        if line is None:
            return None, None
        return self.convert(value, kind, key, target), line

    def convert(self, value: Any, kind: type, key: str, target: str | None = None) -> Any:
        if value is None or isinstance(value, ir.Unknown):
            return value
        if isinstance(value, Mapping):
            if self._is_function(value):
                resolved, origin = self._function(value)
                if not isinstance(resolved, ir.Unknown) and target:
                    self.resolved[target] = origin
                return self.convert(resolved, kind, key) if not isinstance(resolved, ir.Unknown) else resolved
            name = next(iter(value), "")
            return ir.Unknown(f"{key} is an expression ({name})")
        if isinstance(value, list):
            return ir.Unknown(f"{key} is a list, not a {kind.__name__}")
        if isinstance(value, str) and _TEMPLATED.search(value):
            return ir.Unknown(f"{key} is templated: {value:.60}")
        if kind is int:
            return coerce.to_int(value, key)
        if kind is bool:
            return coerce.to_bool(value, key)
        if isinstance(value, str):
            return value
        return ir.Unknown(f"{key} is not a string: {value!r:.40}")

    def _is_function(self, value: Mapping[str, Any]) -> bool:
        return self.resolve_function is not None and len(value) == 1 and _looks_like_function(value)

    def _function(self, value: Mapping[str, Any]) -> tuple[Any, str]:
        assert self.resolve_function is not None
        return self.resolve_function(value)


def _is_intrinsic(value: Mapping[str, Any]) -> bool:
    """A CloudFormation intrinsic or pipeline function object (``{"Fn::If": ...}``, ``{"Ref": x}``)."""
    if len(value) != 1:
        return False
    key = next(iter(value))
    return isinstance(key, str) and (key in ("Ref", "Condition", "Get") or key.startswith(("Fn::", "Std:")))


def _looks_like_function(value: Mapping[str, Any]) -> bool:
    key = next(iter(value))
    return isinstance(key, str) and (key == "Get" or key.startswith("Std:"))


# --------------------------------------------------------------------------------------------
# CreateTrainingJob request -> TrainingJob
# --------------------------------------------------------------------------------------------


def _dominant_group(groups: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The instance group with the most accelerators per instance (first one on ties)."""
    best: dict[str, Any] | None = None
    best_acc = -1
    for group in groups:
        itype = group["instance_type"]
        if not isinstance(itype, str):
            return None  # an unknown type might be the biggest: do not pick
        spec = catalog.lookup(itype)
        acc = spec.accelerators if spec else 0
        if acc > best_acc:
            best, best_acc = group, acc
    return best


def _read_resources(
    reader: _Reader, request: Any, line: int, out: FieldCollector, extra: dict[str, Any]
) -> None:
    rc, rc_line = reader.block(request, "ResourceConfig", line)
    for field_name, key, kind in (
        ("instance_type", "InstanceType", str),
        ("instance_count", "InstanceCount", int),
        ("volume_size_gb", "VolumeSizeInGB", int),
        ("keep_alive_s", "KeepAlivePeriodInSeconds", int),
        ("training_plan", "TrainingPlanArn", str),
    ):
        value, vline = reader.scalar(rc, key, rc_line, kind, field_name)
        out.put(field_name, value, vline)
    groups, groups_line = reader.items(rc, "InstanceGroups", rc_line)
    if groups is None or "instance_type" in out.values:
        return
    if isinstance(groups, ir.Unknown):
        out.put("instance_type", groups, groups_line)
        out.put("instance_count", groups, groups_line)
        return
    parsed: list[dict[str, Any]] = []
    for index, group in enumerate(groups):
        gline = reader.key_line(groups, index, groups_line)
        itype, tline = reader.scalar(group, "InstanceType", gline, str)
        count, cline = reader.scalar(group, "InstanceCount", gline, int)
        gname, _ = reader.scalar(group, "InstanceGroupName", gline, str)
        parsed.append(
            {
                "name": gname if isinstance(gname, str) else None,
                "instance_type": itype if itype is not None else ir.Unknown("group without InstanceType"),
                "instance_count": count,
                "type_line": tline or gline,
                "count_line": cline or gline,
            }
        )
    extra["instance_groups"] = [
        {
            "name": g["name"],
            "instance_type": g["instance_type"] if isinstance(g["instance_type"], str) else None,
            "instance_count": g["instance_count"] if isinstance(g["instance_count"], int) else None,
        }
        for g in parsed
    ]
    if not parsed:
        return
    chosen = _dominant_group(parsed)
    if chosen is None:
        out.put("instance_type", ir.Unknown("an instance group's type is not known"), groups_line)
        out.put("instance_count", ir.Unknown("an instance group's type is not known"), groups_line)
        return
    out.put("instance_type", chosen["instance_type"], chosen["type_line"])
    out.put("instance_count", chosen["instance_count"], chosen["count_line"])


def _read_mounts(reader: _Reader, request: Any, line: int, out: FieldCollector) -> None:
    channels, ch_line = reader.items(request, "InputDataConfig", line)
    if not isinstance(channels, list):
        return
    mounts: list[ir.Mount] = []
    for index, channel in enumerate(channels):
        cline = reader.key_line(channels, index, ch_line)
        source, sline = reader.block(channel, "DataSource", cline)
        fsds, fline = reader.block(source, "FileSystemDataSource", sline)
        if fsds is None or fline is None:
            continue
        fs_type, _ = reader.scalar(fsds, "FileSystemType", fline, str)
        fs_id, _ = reader.scalar(fsds, "FileSystemId", fline, str)
        channel_name, _ = reader.scalar(channel, "ChannelName", cline, str)
        mount_path: ir.Maybe[str] = (
            f"/opt/ml/input/data/{channel_name}"
            if isinstance(channel_name, str)
            else ir.Unknown("channel name is not known")
        )
        is_efs: ir.Maybe[bool] = fs_type.upper() == "EFS" if isinstance(fs_type, str) else fs_type
        mounts.append(
            ir.Mount(
                volume=fs_type if isinstance(fs_type, str) else "unknown",
                mount_path=mount_path,
                file_system_ref=fs_id,
                line=fline,
                is_efs=is_efs,
            )
        )
    if mounts:
        out.put("file_system_mounts", tuple(mounts), mounts[0].line)


def _build_job(
    reader: _Reader,
    request: Any,
    *,
    launcher: str,
    address: str,
    source_format: str,
    location: ir.Location,
    runs_multiplier: tuple[Any, int | None] = (1, None),
    extra: dict[str, Any] | None = None,
) -> ir.TrainingJob:
    line = reader.node_line(request, location.line)
    out = FieldCollector()
    extra = dict(extra or {})
    name, name_line = reader.scalar(request, "TrainingJobName", line, str)
    out.put("name", name, name_line)
    _read_resources(reader, request, line, out, extra)
    spot, spot_line = reader.scalar(request, "EnableManagedSpotTraining", line, bool, "spot")
    out.put("spot", spot, spot_line)
    stop, stop_line = reader.block(request, "StoppingCondition", line)
    for field_name, key in (("max_runtime_s", "MaxRuntimeInSeconds"), ("max_wait_s", "MaxWaitTimeInSeconds")):
        value, vline = reader.scalar(stop, key, stop_line, int, field_name)
        out.put(field_name, value, vline)
    ckpt, ckpt_line = reader.block(request, "CheckpointConfig", line)
    for field_name, key in (("checkpoint_s3_uri", "S3Uri"), ("checkpoint_local_path", "LocalPath")):
        value, vline = reader.scalar(ckpt, key, ckpt_line, str, field_name)
        out.put(field_name, value, vline)
    _read_mounts(reader, request, line, out)
    multiplier, multiplier_line = runs_multiplier
    out.values["runs_multiplier"] = multiplier
    if multiplier_line is not None:
        out.lines["runs_multiplier"] = multiplier_line
    extra["default_note"] = DEFAULT_NOTE
    if reader.resolved:
        extra["resolved_from"] = dict(reader.resolved)
    return ir.TrainingJob(
        address=address,
        location=location,
        source_format=source_format,
        attr_lines=dict(out.lines),
        launcher=launcher,
        max_runtime_default_s=DEFAULT_MAX_RUNTIME_S,
        extra=extra,
        **out.values,
    )


def training_job_from_request(
    request: Mapping[str, Any],
    ctx: DocContext,
    *,
    launcher: str,
    address: str,
    source_format: str,
    fallback_line: int | None = None,
) -> ir.TrainingJob:
    """A TrainingJob from a CreateTrainingJob-shaped mapping (API request, boto3 kwargs).

    ``request`` may be a LineDict (lines are taken from it, shifted by ``ctx.line``) or a
    plain dict, whose fields all get ``fallback_line`` (a line in file coordinates; 1 when
    None). ``ir.Unknown`` values already in the mapping stay Unknown; templated strings
    (``{{ }}``, ``${...}``) and intrinsic-like objects become Unknown.
    """
    reader = _Reader(ctx, fallback_line)
    start = reader.root_line(request)
    location = ir.Location(ctx.file, start, reader.end_line(request, start))
    return _build_job(
        reader, request, launcher=launcher, address=address, source_format=source_format, location=location
    )


# --------------------------------------------------------------------------------------------
# Step Functions (ASL)
# --------------------------------------------------------------------------------------------


def _resource_string(resource: Any) -> str | None:
    """The Resource ARN; ``{"Fn::Sub": "arn:${AWS::Partition}:..."}`` is read through."""
    if isinstance(resource, str):
        return resource
    if isinstance(resource, Mapping) and len(resource) == 1 and "Fn::Sub" in resource:
        body = resource["Fn::Sub"]
        if isinstance(body, list) and body:
            body = body[0]
        return body if isinstance(body, str) else None
    return None


def _uses_jsonata(state: Mapping[str, Any], default: bool) -> bool:
    language = state.get("QueryLanguage")
    if isinstance(language, str):
        return language.lower() == "jsonata"
    return default


def _state_span(reader: _Reader, states: Any, name: str, state: Any, parent_line: int) -> ir.Location:
    start = reader.key_line(states, name, parent_line)
    end = reader.end_line(state, start)
    return ir.Location(reader.ctx.file, start, end)


def _task_request(reader: _Reader, state: Mapping[str, Any], line: int) -> tuple[Any, str]:
    """The request object of a Task (Arguments for JSONata, Parameters otherwise).

    Absent -> None (the request has no fields); an expression or a value another loader could
    not resolve (an ``ir.Unknown`` from a CloudFormation substitution) -> Unknown.
    """
    key = "Arguments" if reader.dialect == "jsonata" else "Parameters"
    value = state.get(key)
    if value is None or isinstance(value, ir.Unknown):
        return value, key
    if isinstance(value, Mapping):
        if _is_intrinsic(value):
            return ir.Unknown(f"{key} is an expression ({next(iter(value))})"), key
        return value, key
    if isinstance(value, str):
        return ir.Unknown(f"{key} is an expression: {value:.60}"), key
    return ir.Unknown(f"{key} is not an object ({type(value).__name__})"), key


def _asl_states(
    asl: Any,
    reader: _Reader,
    prefix: str,
    parent_line: int,
    jsonata: bool,
    path: str,
    out: list[ir.TrainingJob],
    depth: int = 0,
) -> None:
    if depth > 50 or not isinstance(asl, Mapping):
        return
    jsonata = _uses_jsonata(asl, jsonata)
    states = asl.get("States")
    if not isinstance(states, Mapping):
        return
    states_line = reader.node_line(states, parent_line)
    for name, state in states.items():
        if not isinstance(state, Mapping):
            continue
        state_line = reader.node_line(state, reader.key_line(states, name, states_line))
        state_jsonata = _uses_jsonata(state, jsonata)
        kind = state.get("Type")
        here = f"{path}{name}"
        if kind == "Parallel" and isinstance(state.get("Branches"), list):
            branches = state["Branches"]
            for index, branch in enumerate(branches):
                bline = reader.key_line(branches, index, state_line)
                _asl_states(
                    branch, reader, prefix, bline, state_jsonata, f"{here}/Branches[{index}]/", out, depth + 1
                )
        elif kind == "Map":
            for key in ("ItemProcessor", "Iterator"):
                if isinstance(state.get(key), Mapping):
                    _asl_states(
                        state[key],
                        reader,
                        prefix,
                        reader.key_line(state, key, state_line),
                        state_jsonata,
                        f"{here}/{key}/",
                        out,
                        depth + 1,
                    )
        elif kind == "Task":
            job = _asl_task(reader, states, str(name), state, states_line, state_jsonata, prefix, here)
            if job is not None:
                out.append(job)


def _asl_task(
    reader: _Reader,
    states: Any,
    name: str,
    state: Mapping[str, Any],
    states_line: int,
    jsonata: bool,
    prefix: str,
    path: str,
) -> ir.TrainingJob | None:
    resource = _resource_string(state.get("Resource"))
    if resource is None:
        return None
    tuning = bool(_SFN_TUNING.match(resource))
    if not tuning and not _SFN_TRAINING.match(resource):
        return None
    task_reader = _Reader(reader.ctx, reader.fallback_line, "jsonata" if jsonata else "jsonpath")
    location = _state_span(reader, states, name, state, states_line)
    state_line = reader.node_line(state, location.line)
    request, key = _task_request(task_reader, state, state_line)
    extra = {"state_path": path, "resource": resource}
    multiplier: tuple[Any, int | None] = (1, None)
    if tuning and request is not None:
        req_line = task_reader.key_line(state, key, state_line)
        multiplier = _tuning_multiplier(task_reader, request, task_reader.node_line(request, req_line))
        definition, _ = task_reader.block(request, "TrainingJobDefinition", req_line)
        request = definition
    return _build_job(
        task_reader,
        request,
        launcher="step-functions",
        address=f"{prefix}{name}",
        source_format="step-functions",
        location=location,
        runs_multiplier=multiplier,
        extra=extra,
    )


def _tuning_multiplier(reader: _Reader, request: Any, line: int) -> tuple[Any, int | None]:
    config, config_line = reader.block(request, "HyperParameterTuningJobConfig", line)
    limits, limits_line = reader.block(config, "ResourceLimits", config_line)
    value, vline = reader.scalar(limits, "MaxNumberOfTrainingJobs", limits_line, int, "runs_multiplier")
    if vline is None:
        return 1, None
    return value, vline


def training_jobs_from_asl(
    asl: Mapping[str, Any],
    ctx: DocContext,
    address_prefix: str = "",
    fallback_line: int | None = None,
) -> list[ir.TrainingJob]:
    """Every SageMaker createTrainingJob (and tuning) Task of a state machine, at any depth.

    Recurses into Parallel ``Branches`` and Map ``Iterator`` / ``ItemProcessor``. JSONPath
    ``Parameters`` keys ending in ``.$`` and JSONata ``{% %}`` values are Unknown. A plain
    dict without lines gets ``fallback_line`` (file coordinates) everywhere.
    """
    reader = _Reader(ctx, fallback_line)
    out: list[ir.TrainingJob] = []
    _asl_states(asl, reader, address_prefix, reader.root_line(asl), False, "", out)
    return out


# --------------------------------------------------------------------------------------------
# SageMaker pipeline definitions
# --------------------------------------------------------------------------------------------


def _pipeline_resolver(
    parameters: Any, reader_line: Callable[[Any, Any], int]
) -> Callable[[Mapping[str, Any]], tuple[Any, str]]:
    """``{"Get": "Parameters.X"}`` -> X's DefaultValue; every other function is Unknown."""
    table: dict[str, tuple[Any, int]] = {}
    if isinstance(parameters, list):
        for index, param in enumerate(parameters):
            if isinstance(param, Mapping) and isinstance(param.get("Name"), str):
                table[param["Name"]] = (param, reader_line(parameters, index))

    def resolve(expr: Mapping[str, Any]) -> tuple[Any, str]:
        fn, arg = next(iter(expr.items()))
        if fn == "Get" and isinstance(arg, str) and arg.startswith("Parameters."):
            pname = arg[len("Parameters.") :]
            entry = table.get(pname)
            if entry is None:
                return ir.Unknown(f"pipeline parameter {pname} is not declared"), ""
            param, pline = entry
            if param.get("DefaultValue") is None:
                return ir.Unknown(f"pipeline parameter {pname} has no default"), ""
            return param["DefaultValue"], f"Parameters.{pname} default (line {pline})"
        if fn == "Get":
            return ir.Unknown(f"{arg} is known only when the pipeline runs"), ""
        return ir.Unknown(f"{fn} is evaluated when the pipeline runs"), ""

    return resolve


def _pipeline_steps(
    steps: Any,
    reader: _Reader,
    prefix: str,
    parent_line: int,
    result: ir.LoadResult,
    depth: int = 0,
) -> None:
    if depth > 50 or not isinstance(steps, list):
        return
    for index, step in enumerate(steps):
        sline = reader.key_line(steps, index, parent_line)
        if not isinstance(step, Mapping):
            result.errors.append(ir.LoadError(reader.ctx.file, sline, "pipeline step is not an object"))
            continue
        kind, name = step.get("Type"), step.get("Name")
        args = step.get("Arguments")
        args_line = reader.key_line(step, "Arguments", sline)
        label = name if isinstance(name, str) else f"Steps[{index}]"
        location = ir.Location(reader.ctx.file, sline, reader.end_line(step, sline))
        if kind == "Condition" and isinstance(args, Mapping):
            for branch in ("IfSteps", "ElseSteps"):
                branch_line = reader.key_line(args, branch, args_line)
                _pipeline_steps(args.get(branch), reader, prefix, branch_line, result, depth + 1)
        elif kind == "Training":
            reader.resolved = {}
            result.records.append(
                _build_job(
                    reader,
                    _step_arguments(args),
                    launcher="pipeline-step",
                    address=f"{prefix}{label}",
                    source_format="sagemaker-pipeline",
                    location=location,
                )
            )
        elif kind == "Tuning" and isinstance(args, Mapping):
            result.records.extend(_tuning_jobs(reader, args, args_line, f"{prefix}{label}", location))


def _step_arguments(args: Any) -> Any:
    """A Training step's request: absent -> None; not a plain object -> Unknown (never 'missing')."""
    if args is None or (isinstance(args, Mapping) and not _is_intrinsic(args)):
        return args
    return args if isinstance(args, ir.Unknown) else ir.Unknown("step Arguments is not a plain object")


def _tuning_jobs(
    reader: _Reader, args: Mapping[str, Any], line: int, address: str, location: ir.Location
) -> list[ir.TrainingJob]:
    """One job per training job definition of a tuning request, multiplied by its job budget."""
    reader.resolved = {}
    multiplier = _tuning_multiplier(reader, args, line)
    jobs: list[ir.TrainingJob] = []
    definition, dline = reader.block(args, "TrainingJobDefinition", line)
    if definition is not None:
        jobs.append(
            _build_job(
                reader,
                definition,
                launcher="pipeline-step",
                address=address,
                source_format="sagemaker-pipeline",
                location=location,
                runs_multiplier=multiplier,
            )
        )
    definitions, dsline = reader.items(args, "TrainingJobDefinitions", line)
    if isinstance(definitions, list):
        for index, item in enumerate(definitions):
            dname, _ = reader.scalar(item, "DefinitionName", dsline, str)
            suffix = dname if isinstance(dname, str) else str(index)
            jobs.append(
                _build_job(
                    reader,
                    item if isinstance(item, Mapping) else None,
                    launcher="pipeline-step",
                    address=f"{address}/{suffix}",
                    source_format="sagemaker-pipeline",
                    location=location,
                    runs_multiplier=multiplier,
                )
            )
    return jobs


# --------------------------------------------------------------------------------------------
# HyperPod create-cluster
# --------------------------------------------------------------------------------------------


def _hyperpod_pools(doc: Mapping[str, Any], ctx: DocContext, result: ir.LoadResult) -> None:
    reader = _Reader(ctx)
    line = reader.root_line(doc)
    cluster, _ = reader.scalar(doc, "ClusterName", line, str)
    base = cluster if isinstance(cluster, str) else _stem(ctx)
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


# --------------------------------------------------------------------------------------------
# Document detection and loading
# --------------------------------------------------------------------------------------------

_FOREIGN_KEYS = ("Resources", "AWSTemplateFormatVersion", "apiVersion", "format_version", "terraform_version")
#: Step types of the pipeline definition schema ("Version" is optional there).
_PIPELINE_STEP_TYPES = frozenset(
    (
        "Training",
        "Tuning",
        "Processing",
        "Condition",
        "Transform",
        "RegisterModel",
        "Model",
        "Lambda",
        "Callback",
        "QualityCheck",
        "ClarifyCheck",
        "EMR",
        "Fail",
        "AutoML",
        "CreateModel",
    )
)
_REQUEST_MARKERS = ("TrainingJobName", "RoleArn", "StoppingCondition", "OutputDataConfig")


def _kind(doc: Any) -> str | None:
    """Which of the four shapes ``doc`` is, or None."""
    if not isinstance(doc, Mapping) or any(k in doc for k in _FOREIGN_KEYS):
        return None
    if isinstance(doc.get("StartAt"), str) and isinstance(doc.get("States"), Mapping):
        return "asl"
    steps = doc.get("Steps")
    if (
        isinstance(steps, list)
        and steps
        and all(isinstance(s, Mapping) and "Type" in s and "Name" in s for s in steps)
        and ("Version" in doc or any(s["Type"] in _PIPELINE_STEP_TYPES for s in steps))
    ):
        return "pipeline"
    if (
        ("AlgorithmSpecification" in doc or "ResourceConfig" in doc)
        and any(k in doc for k in _REQUEST_MARKERS)
        and isinstance(doc.get("ResourceConfig", {}), Mapping)
    ):
        return "training-request"
    if "HyperParameterTuningJobConfig" in doc and (
        "TrainingJobDefinition" in doc or "TrainingJobDefinitions" in doc
    ):
        return "tuning-request"
    groups = doc.get("InstanceGroups")
    if (
        "ClusterName" in doc
        and isinstance(groups, list)
        and groups
        and all(isinstance(g, Mapping) and "InstanceType" in g and "InstanceCount" in g for g in groups)
    ):
        return "hyperpod-cluster"
    return None


def claims(doc: Any) -> bool:
    return _kind(doc) is not None


def _stem(ctx: DocContext) -> str:
    name = ctx.file.replace("\\", "/").rsplit("/", 1)[-1]
    for suffix in (".asl.json", ".asl.yaml", ".asl.yml", ".json", ".yaml", ".yml", ".template"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return f"{name}#{ctx.doc_index}" if ctx.doc_index else name


def _validate_blocks(doc: Mapping[str, Any], ctx: DocContext, result: ir.LoadResult) -> None:
    """Blocks of a request that must be objects: a wrong shape means the API rejects the file."""
    reader = _Reader(ctx)
    line = reader.root_line(doc)
    for key in ("ResourceConfig", "StoppingCondition", "CheckpointConfig"):
        value = doc.get(key)
        if value is not None and not isinstance(value, Mapping):
            result.errors.append(
                ir.LoadError(ctx.file, reader.key_line(doc, key, line), f"{key} must be an object")
            )


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    result = ir.LoadResult()
    kind = _kind(doc)
    if kind == "training-request":
        _validate_blocks(doc, ctx, result)
        name = doc.get("TrainingJobName")
        plain = isinstance(name, str) and not _TEMPLATED.search(name)
        address = f"{ctx.address_prefix}{name if plain else _stem(ctx)}"
        result.records.append(
            training_job_from_request(doc, ctx, launcher="api-request", address=address, source_format=FORMAT)
        )
    elif kind == "tuning-request":
        reader = _Reader(ctx)
        line = reader.root_line(doc)
        name = doc.get("HyperParameterTuningJobName")
        plain = isinstance(name, str) and not _TEMPLATED.search(name)
        location = ir.Location(ctx.file, line, reader.end_line(doc, line))
        address = f"{ctx.address_prefix}{name if plain else _stem(ctx)}"
        for job in _tuning_jobs(reader, doc, line, address, location):
            result.records.append(job.with_changes(launcher="api-request", source_format=FORMAT))
    elif kind == "asl":
        result.records.extend(training_jobs_from_asl(doc, ctx, ctx.address_prefix))
    elif kind == "pipeline":
        base = _Reader(ctx)
        line = base.root_line(doc)
        reader = _Reader(
            ctx,
            resolve_function=_pipeline_resolver(
                doc.get("Parameters"), lambda c, k: base.key_line(c, k, line)
            ),
        )
        steps_line = reader.key_line(doc, "Steps", line)
        _pipeline_steps(doc.get("Steps"), reader, ctx.address_prefix, steps_line, result)
    elif kind == "hyperpod-cluster":
        _hyperpod_pools(doc, ctx, result)
    return result
