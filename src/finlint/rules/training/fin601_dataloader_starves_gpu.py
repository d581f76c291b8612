"""FIN601 dataloader-starves-gpu: A PyTorch DataLoader with few workers or no pinned memory feeding
a GPU.

The policy is ``policies/FIN601-dataloader-starves-gpu.yaml``; this module holds its facts and
its price."""

from __future__ import annotations

from typing import Any

from finlint.engine.facts import Evidence
from finlint.ir import DataLoader, Record, Unknown, is_unknown
from finlint.rules.base import Rule


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


RULE = Rule("FIN601", facts=(dataloader_starvation,), cost_model=None, price=None)
