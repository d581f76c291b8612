"""SageMaker training knowledge, defined once for the rules and ``finlint cost``: the runtime cap
in force for a job."""

from __future__ import annotations

from typing import Any

from finlint.ir import UNCAPPED_LAUNCHERS, TrainingJob, Unknown

#: How a launcher without a default cap treats a job without its own limit (``runtime_cap``'s basis).
NO_CAP_BASIS = "no cap: the launcher sets none, the job runs until it ends or is stopped"


def runtime_cap(job: TrainingJob) -> tuple[Any, str]:
    """The cap in force and how it applies: the explicit ``MaxRuntimeInSeconds`` (possibly
    Unknown or alternatives), else the launcher's default cap, else Unknown. A launcher with no
    default cap (Slurm without ``--time``, AWS Batch without a timeout) gives ``(None, NO_CAP_BASIS)``:
    no cap is in force."""
    if job.max_runtime_s is not None:
        return job.max_runtime_s, "explicit MaxRuntimeInSeconds"
    if job.launcher in UNCAPPED_LAUNCHERS:
        return None, NO_CAP_BASIS
    if job.max_runtime_default_s is None:
        return Unknown("no max runtime and no default"), ""
    return job.max_runtime_default_s, "the default cap, applied when MaxRuntime is absent"
