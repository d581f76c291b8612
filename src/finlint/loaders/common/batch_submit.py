"""boto3 ``batch.submit_job(...)`` calls in Python: the submission of an AWS Batch job definition,
with the limit it sets at submit time (``timeout={"attemptDurationSeconds": N}``, which overrides
the definition's) and the job queue it names. Literal names only: a ``jobDefinition`` that is a
variable names nothing. Each call is a ``TrainingJob`` with launcher ``aws-batch-submit`` that
``linking.batch`` applies to the scanned job definition it names and then drops (a submission is
never a finding of its own). Read with ``ast``; nothing is executed."""

from __future__ import annotations

import ast
import posixpath
from typing import Any, Callable

from finlint.ir import Location, Record, TrainingJob, Unknown

LAUNCHER = "aws-batch-submit"
MARKER = "submit_job"
#: at most this many submissions are read from one file
MAX_CALLS = 200


def _literal(node: ast.expr | None, what: str) -> Any:
    if node is None:
        return None
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (str, int))
        and not isinstance(node.value, bool)
    ):
        return node.value
    return Unknown(f"{what} is not a literal")


def _timeout(node: ast.expr) -> tuple[Any, int]:
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=False):
            if isinstance(key, ast.Constant) and key.value == "attemptDurationSeconds":
                found = _literal(value, "timeout.attemptDurationSeconds")
                return (found if isinstance(found, (int, Unknown)) else Unknown("not a number")), value.lineno
        return None, node.lineno
    return Unknown("timeout is not a literal mapping"), node.lineno


def submissions(tree: ast.AST, line: Callable[[int], int], display: str) -> list[Record]:
    """Every ``X.submit_job(jobDefinition=..., ...)`` call of the module, in source order."""
    out: list[Record] = []
    for node in ast.walk(tree):
        if len(out) >= MAX_CALLS:
            break
        if not (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == MARKER
        ):
            continue
        kwargs = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if "jobDefinition" not in kwargs:
            continue
        definition = _literal(kwargs["jobDefinition"], "jobDefinition")
        lines: dict[str, int] = {"name": line(kwargs["jobDefinition"].lineno)}
        fields: dict[str, Any] = {"name": definition if isinstance(definition, str) else None}
        if "jobQueue" in kwargs:
            queue = _literal(kwargs["jobQueue"], "jobQueue")
            fields["batch_job_queue"] = queue if isinstance(queue, (str, Unknown)) else Unknown("jobQueue")
        if "timeout" in kwargs:
            fields["max_runtime_s"], at = _timeout(kwargs["timeout"])
            lines["max_runtime_s"] = line(at)
        out.append(
            TrainingJob(
                address=f"submit_job:{posixpath.basename(display)}#{len(out) + 1}",
                location=Location(
                    display, line(node.lineno), line(getattr(node, "end_lineno", None) or node.lineno)
                ),
                source_format="sagemaker-python",
                attr_lines=lines,
                launcher=LAUNCHER,
                checkpoint_local_path_default=None,
                **fields,
            )
        )
    out.sort(key=lambda r: r.location.line)
    return out
