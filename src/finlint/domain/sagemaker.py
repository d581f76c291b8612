"""SageMaker training knowledge, defined once for the rules and ``finlint cost``: the runtime cap
in force for a job."""

from __future__ import annotations

from typing import Any

from finlint.ir import UNCAPPED_LAUNCHERS, TrainingJob, Unknown

#: How :func:`runtime_cap` says a launcher with no default cap applies none.
NO_CAP = "no cap: runs until it finishes"


def runtime_cap(job: TrainingJob) -> tuple[Any, str]:
    """The cap in force and how it applies: the explicit ``MaxRuntimeInSeconds`` (possibly
    Unknown or alternatives), else the launcher's default cap, else None for a launcher that has
    none (Kubernetes training launchers, Slurm without ``--time``, AWS Batch without a timeout:
    :data:`NO_CAP`), else Unknown."""
    if job.max_runtime_s is not None:
        if job.launcher in UNCAPPED_LAUNCHERS:
            return job.max_runtime_s, f"explicit {job.runtime_limit_field or 'runtime limit'}"
        return job.max_runtime_s, "explicit MaxRuntimeInSeconds"
    if job.launcher in UNCAPPED_LAUNCHERS:
        return None, NO_CAP
    if job.max_runtime_default_s is None:
        return Unknown("no max runtime and no default"), ""
    return job.max_runtime_default_s, "the default cap, applied when MaxRuntime is absent"
