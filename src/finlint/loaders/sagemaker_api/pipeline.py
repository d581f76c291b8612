"""SageMaker pipeline definitions: Training and Tuning steps, pipeline parameters resolved to defaults."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Callable

from finlint import ir
from finlint.loaders.sagemaker_api.reader import Reader, is_intrinsic
from finlint.loaders.sagemaker_api.request import build_job, tuning_multiplier


def pipeline_resolver(
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


def pipeline_steps(
    steps: Any,
    reader: Reader,
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
                pipeline_steps(args.get(branch), reader, prefix, branch_line, result, depth + 1)
        elif kind == "Training":
            reader.resolved = {}
            result.records.append(
                build_job(
                    reader,
                    _step_arguments(args),
                    launcher="pipeline-step",
                    address=f"{prefix}{label}",
                    source_format="sagemaker-pipeline",
                    location=location,
                )
            )
        elif kind == "Tuning" and isinstance(args, Mapping):
            result.records.extend(tuning_jobs(reader, args, args_line, f"{prefix}{label}", location))


def _step_arguments(args: Any) -> Any:
    """A Training step's request: absent -> None; not a plain object -> Unknown (never 'missing')."""
    if args is None or (isinstance(args, Mapping) and not is_intrinsic(args)):
        return args
    return args if isinstance(args, ir.Unknown) else ir.Unknown("step Arguments is not a plain object")


def tuning_jobs(
    reader: Reader, args: Mapping[str, Any], line: int, address: str, location: ir.Location
) -> list[ir.TrainingJob]:
    """One job per training job definition of a tuning request, multiplied by its job budget."""
    reader.resolved = {}
    multiplier = tuning_multiplier(reader, args, line)
    jobs: list[ir.TrainingJob] = []
    definition, dline = reader.block(args, "TrainingJobDefinition", line)
    if definition is not None:
        jobs.append(
            build_job(
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
                build_job(
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
