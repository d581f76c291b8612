"""``slurm.conf`` partitions -> ``ComputePool(pool_kind="slurm-partition")``: the wall-clock limit a
job without ``--time`` gets there (``DefaultTime``, else ``MaxTime``; ``UNLIMITED``/``INFINITE``
is none), and whether it is the default partition (``Default=YES``, else the first one).

``PartitionName=DEFAULT`` lines set defaults for the partitions after them, as Slurm reads them.
Lines are ``Key=Value`` words; ``#`` starts a comment; a ``\\`` at the end of a line continues it.
Anything else in the file (nodes, plugins, ``Include``) is not read. Nothing is executed.
"""

from __future__ import annotations

from typing import Any

from finlint.ir import ComputePool, LoadResult, Location, Unknown
from finlint.loaders.slurm.options import time_seconds

POOL_KIND = "slurm-partition"
#: at most this many partitions are read from one file
MAX_PARTITIONS = 500
_TIME_KEYS = ("defaulttime", "maxtime")


def is_conf(display: str) -> bool:
    return display.rsplit("/", 1)[-1].endswith("slurm.conf")


def _lines(text: str) -> list[tuple[int, str]]:
    """Logical lines (continuations joined) with the number of their first line, comments cut."""
    out: list[tuple[int, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), 1):
        body = raw.split("#", 1)[0].rstrip()
        if not pending:
            start = number
        if body.endswith("\\"):
            pending += body[:-1] + " "
            continue
        out.append((start, pending + body))
        pending = ""
    if pending:
        out.append((start, pending))
    return out


def _words(line: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for word in line.split():
        key, eq, value = word.partition("=")
        if eq:
            out[key.lower()] = value
    return out


def load_conf(display: str, text: str) -> LoadResult:
    result = LoadResult()
    defaults: dict[str, str] = {}
    partitions: list[tuple[int, dict[str, str], dict[str, int]]] = []
    default_lines: dict[str, int] = {}
    for number, line in _lines(text):
        words = _words(line)
        name = words.get("partitionname")
        if name is None:
            continue
        if name.upper() == "DEFAULT":
            defaults.update(words)
            default_lines.update({k: number for k in words if k in _TIME_KEYS})
            continue
        if len(partitions) >= MAX_PARTITIONS:
            break
        merged = {**defaults, **words}
        lines = {k: (number if k in words else default_lines[k]) for k in _TIME_KEYS if k in merged}
        partitions.append((number, merged, lines))
    explicit = any(p[1].get("default", "").upper() == "YES" for p in partitions)
    for index, (number, words, lines) in enumerate(partitions):
        name = words["partitionname"]
        fields: dict[str, Any] = {}
        attr_lines: dict[str, int] = {"partition": number}
        key = "defaulttime" if "defaulttime" in words else "maxtime" if "maxtime" in words else None
        if key is not None:
            value = time_seconds(words[key])
            label = "DefaultTime" if key == "defaulttime" else "MaxTime"
            fields["partition_time_limit_s"] = (
                Unknown(f"{label} {words[key]!r} of partition {name}: {value.reason}")
                if isinstance(value, Unknown)
                else value
            )
            attr_lines["partition_time_limit_s"] = lines[key]
        default = words.get("default", "").upper() == "YES" if explicit else index == 0
        result.records.append(
            ComputePool(
                address=f"PartitionName/{name}",
                location=Location(display, number, number),
                source_format="slurm-conf",
                attr_lines=attr_lines,
                name=name,
                pool_kind=POOL_KIND,
                partition=name,
                default_partition=default,
                extra={"time_key": label if key is not None else None},
                **fields,
            )
        )
    return result
