"""Step Functions ASL: createTrainingJob and createHyperParameterTuningJob tasks -> TrainingJob records."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from finlint import ir
from finlint.loaders.base import DocContext
from finlint.loaders.common.yamlload import kind_name
from finlint.loaders.sagemaker_api.reader import Reader, is_intrinsic
from finlint.loaders.sagemaker_api.request import build_job, tuning_multiplier

_PARTITION = r"(?:aws(?:-[a-z]+)*|\$\{AWS::Partition\}|\$\{Partition\}|\$\{[A-Za-z0-9_.:]+\})"


_SFN_TRAINING = re.compile(
    rf"^arn:{_PARTITION}:states:::sagemaker:createTrainingJob(?:\.sync|\.waitForTaskToken)?$"
)


_SFN_TUNING = re.compile(
    rf"^arn:{_PARTITION}:states:::sagemaker:createHyperParameterTuningJob(?:\.sync|\.waitForTaskToken)?$"
)


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


def _state_span(reader: Reader, states: Any, name: str, state: Any, parent_line: int) -> ir.Location:
    start = reader.key_line(states, name, parent_line)
    end = reader.end_line(state, start)
    return ir.Location(reader.ctx.file, start, end)


def _task_request(reader: Reader, state: Mapping[str, Any], line: int) -> tuple[Any, str]:
    """The request object of a Task (Arguments for JSONata, Parameters otherwise).

    Absent -> None (the request has no fields); an expression or a value another loader could
    not resolve (an ``ir.Unknown`` from a CloudFormation substitution) -> Unknown.
    """
    key = "Arguments" if reader.dialect == "jsonata" else "Parameters"
    value = state.get(key)
    if value is None or isinstance(value, ir.Unknown):
        return ir.plain_unknown(value), key
    if isinstance(value, Mapping):
        if is_intrinsic(value):
            return ir.Unknown(f"{key} is an expression ({next(iter(value))})"), key
        return value, key
    if isinstance(value, str):
        return ir.Unknown(f"{key} is an expression: {value:.60}"), key
    return ir.Unknown(f"{key} is not an object ({kind_name(value)})"), key


def _asl_states(
    asl: Any,
    reader: Reader,
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
    reader: Reader,
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
    task_reader = Reader(reader.ctx, reader.fallback_line, "jsonata" if jsonata else "jsonpath")
    location = _state_span(reader, states, name, state, states_line)
    state_line = reader.node_line(state, location.line)
    request, key = _task_request(task_reader, state, state_line)
    extra = {"state_path": path, "resource": resource}
    multiplier: tuple[Any, int | None] = (1, None)
    if tuning and request is not None:
        req_line = task_reader.key_line(state, key, state_line)
        multiplier = tuning_multiplier(task_reader, request, task_reader.node_line(request, req_line))
        definition, _ = task_reader.block(request, "TrainingJobDefinition", req_line)
        request = definition
    return build_job(
        task_reader,
        request,
        launcher="step-functions",
        address=f"{prefix}{name}",
        source_format="step-functions",
        location=location,
        runs_multiplier=multiplier,
        extra=extra,
    )


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
    reader = Reader(ctx, fallback_line)
    out: list[ir.TrainingJob] = []
    _asl_states(asl, reader, address_prefix, reader.root_line(asl), False, "", out)
    return out
