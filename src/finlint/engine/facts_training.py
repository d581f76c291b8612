"""Derived facts for the training-job rules (FIN102, FIN203-FIN205, FIN501, FIN502, FIN601).

Registered in :data:`finlint.engine.facts.FACTS` on import (``facts`` imports this module last),
so policies name them like every other fact. Tri-state as everywhere: a value, ``None`` (does
not apply) or :class:`~finlint.ir.Unknown`.
"""

from __future__ import annotations

import re
from typing import Any

from finlint.engine.facts import Evidence, effective_max_runtime_s, exact, fact
from finlint.ir import DataLoader, Record, TrainingJob, Unknown, is_unknown, map_options


@fact
@exact
def max_runtime_days(record: Record) -> Any:
    """The explicit max runtime in days (for messages)."""
    if not isinstance(record, TrainingJob):
        return None
    return map_options(record.max_runtime_s, _days)


def _days(value: Any) -> Any:
    if not isinstance(value, int):
        return value
    return float(value) / 86400.0


@fact
def effective_max_runtime_hours(record: Record) -> Any:
    """The runtime cap in force (explicit, else the launcher's default) in hours."""
    value = effective_max_runtime_s(record)
    if value is None or is_unknown(value):
        return value
    return float(value) / 3600.0


@fact
def spot_max_wait_problem(record: Record) -> Any:
    """Why a managed-spot job's MaxWait makes the request invalid, as Evidence; None when it is fine.

    The API requires ``MaxWaitTimeInSeconds`` for managed spot and ``MaxWait >= MaxRuntime``
    (the runtime in force: explicit, else the launcher's default).
    """
    if not isinstance(record, TrainingJob) or record.spot is not True:
        return record.spot if isinstance(record, TrainingJob) and is_unknown(record.spot) else None
    wait = record.max_wait_s
    spot_line = record.line_of("spot")
    if wait is None:
        return Evidence("sets no max wait (MaxWaitTimeInSeconds is required for managed spot)", spot_line)
    if not isinstance(wait, int):
        return wait
    runtime = effective_max_runtime_s(record)
    if runtime is None or is_unknown(runtime):
        return runtime
    if wait < int(runtime):
        how = "MaxRuntimeInSeconds" if record.max_runtime_s is not None else "the default max runtime"
        return Evidence(
            f"sets a max wait of {wait:,} s, below {how} of {int(runtime):,} s "
            "(MaxWaitTimeInSeconds must be at least MaxRuntimeInSeconds)",
            record.line_of("max_wait_s") or spot_line,
            {"max_wait_s": wait, "max_runtime_s": int(runtime)},
        )
    return None


_IMAGE_FRAMEWORKS = (
    ("pytorch", re.compile(r"pytorch|torch", re.IGNORECASE)),
    ("tensorflow", re.compile(r"tensorflow", re.IGNORECASE)),
    ("mxnet", re.compile(r"mxnet", re.IGNORECASE)),
)


@fact
def training_framework(record: Record) -> Any:
    """The framework a job runs: read from its image's repository name when it has one, else the
    one its launcher names (an SDK framework class with the framework's own image).

    An explicit image that names no known framework (a custom or vendor repository such as
    ``nova-fine-tune-repo``, even behind a ``PyTorch`` estimator) is None: FIN502 stays silent.
    """
    if not isinstance(record, TrainingJob):
        return None
    image = record.training_image
    if isinstance(image, str):
        repository = image.rsplit("/", 1)[-1]
        return next((name for name, rx in _IMAGE_FRAMEWORKS if rx.search(repository)), None)
    if image is None:
        return record.framework
    return image  # Unknown: the image decides, and it is not known


@fact
def dataloader_starvation(record: Record, max_workers: int) -> Any:
    """What makes a DataLoader starve the GPU (few workers, no pinned memory), as Evidence."""
    if not isinstance(record, DataLoader):
        return None
    problems: list[str] = []
    line: int | None = None
    workers = record.num_workers
    if isinstance(workers, Unknown):
        return workers
    if workers is None:
        problems.append("num_workers is unset (0: batches load in the training process)")
    elif workers <= int(max_workers):
        problems.append(f"num_workers={workers} (at most {max_workers})")
        line = record.line_of("num_workers")
    pin = record.pin_memory
    if is_unknown(pin):
        if not problems:
            return pin
    elif pin is not True:
        problems.append("pin_memory is not enabled" if pin is None else "pin_memory=False")
        line = line or record.line_of("pin_memory")
    if not problems:
        return None
    return Evidence("; ".join(problems), line or record.location.line)
