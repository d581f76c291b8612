"""SageMaker training knowledge, defined once for the rules and ``finlint cost``: the runtime cap
in force for a job."""

from __future__ import annotations

from typing import Any

from finlint.ir import TrainingJob, Unknown


def runtime_cap(job: TrainingJob) -> tuple[Any, str]:
    """The cap in force and how it applies: the explicit ``MaxRuntimeInSeconds`` (possibly
    Unknown or alternatives), else the launcher's default cap, else Unknown."""
    if job.max_runtime_s is not None:
        return job.max_runtime_s, "explicit MaxRuntimeInSeconds"
    if job.max_runtime_default_s is None:
        return Unknown("no max runtime and no default"), ""
    return job.max_runtime_default_s, "the default cap, applied when MaxRuntime is absent"
