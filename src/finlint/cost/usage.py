"""The usage file (``finlint-usage.yml``): what a static scan cannot know, with sourced defaults.

Global ``defaults`` plus per-resource overrides under ``resources``, keyed by a record's address
or name (``fnmatch`` globs; every matching entry applies, in file order, later wins). An unknown
key is an error with its line, so a typo never silently falls back to a default.
"""

from __future__ import annotations

import fnmatch
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from finlint.errors import LocatedError

#: AWS's and Infracost's month; the default of the `hours_per_month` usage parameter, used by
#: every model that bills by the hour.
HOURS_PER_MONTH = 730.0
#: hours a notebook is really used per month: 8 h x 22 working days, an assumption (FIN301, FIN302)
ACTIVE_HOURS_PER_MONTH = 176.0

DEFAULT_FILE = "finlint-usage.yml"
MAX_USAGE_BYTES = 4 * 1024 * 1024  # a usage file is hand-written: a few KiB

#: Spot Instance Advisor interruption bands -> share s of Spot capacity reclaimed over the trailing
#: month (pricing.md §4a, S16/S17). Finite bands use the top of their range; the open band ">20%" is
#: read as 25 % (the top of the next 5-point band had the bands continued), so it is strictly worse
#: than "15-20%". ``cost.spot`` turns a band into interruptions per instance-hour.
SPOT_BANDS: dict[str, float] = {"<5%": 0.05, "5-10%": 0.10, "10-15%": 0.15, "15-20%": 0.20, ">20%": 0.25}
DEFAULT_SPOT_BAND = ">20%"


class UsageFileError(LocatedError):
    """A malformed usage file; the CLI reports ``file:line: message`` and exits 2."""


@dataclass(frozen=True)
class Param:
    """A usage assumption: its default, how a value is checked, and where the default comes from."""

    default: Any
    check: Callable[[Any], bool]
    expects: str
    source: str


def _num(lo: float, hi: float = math.inf, lo_open: bool = False) -> Callable[[Any], bool]:
    def ok(v: Any) -> bool:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            return False
        if not -1e15 < v < 1e15:  # NaN, .inf and integers no float holds are not usage
            return False
        return (v > lo if lo_open else v >= lo) and v <= hi

    return ok


def _opt(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _str(v: Any) -> bool:
    return isinstance(v, str) and bool(v)


#: Every usage parameter, its default and where the default comes from (docs/cost-model.md).
PARAMS: dict[str, Param] = {
    "region": Param("us-east-1", _str, "a region name", "the snapshot's fallback region"),
    "runs_per_month": Param(
        1, _num(0, 100_000), "a number 0-100,000", "1: the monthly figure is one run until you say how many"
    ),
    "hours_per_month": Param(
        int(HOURS_PER_MONTH), _num(0, 744), "hours (0-744)", "730 h, AWS's and Infracost's month"
    ),
    "active_hours_per_month": Param(
        int(ACTIVE_HOURS_PER_MONTH),
        _num(0, 744),
        "hours (0-744)",
        "176 h = 8 h x 22 working days of use, an assumption (FIN301 prices these hours, FIN302 the rest)",
    ),
    "expected_runtime_hours": Param(
        None, _opt(_num(0, 8760, lo_open=True)), "hours (0-8,760)", "none: a job is assumed to run to its cap"
    ),
    "stuck_runs_per_month": Param(
        1, _num(0, 100_000), "a number 0-100,000", "1 stuck run a month (FIN101 exposure)"
    ),
    "idle_hours_after_job": Param(
        1,
        _num(0, 8760, lo_open=True),
        "hours (0-8,760)",
        "1: FIN307 states one idle hour of a RayJob's cluster after the job",
    ),
    "idle_episodes_per_month": Param(
        30,
        _num(0, 100_000),
        "a number 0-100,000",
        "30: FIN307 states one ParallelCluster node idling once a day",
    ),
    "stuck_run_unnoticed_days": Param(
        1,
        _num(0, 366, lo_open=True),
        "days (0-366)",
        "1: with no runtime cap (Kubernetes launchers) FIN101 states one day's exposure",
    ),
    "spot_interruption_band": Param(
        DEFAULT_SPOT_BAND,
        lambda v: v in SPOT_BANDS,
        f"one of {', '.join(SPOT_BANDS)}",
        "Spot Instance Advisor band; large GPU types commonly sit in '>20%'",
    ),
    "spot_interruption_rate": Param(
        None,
        _opt(_num(0, 100, lo_open=True)),
        "interruptions per instance-hour (0-100)",
        "none: from the band, -ln(1 - share)/730 h (the guide's 8-node case implies 0.133)",
    ),
    "restart_overhead_minutes": Param(
        10,
        _num(0, 10_080),
        "minutes (0-10,080)",
        "field guide: 10-minute cold starts for SageMaker jobs (re-acquire, start, reload)",
    ),
    "spot_discount": Param(0.60, _num(0, 1), "a fraction 0-1", "field guide: ~60 % spot savings"),
    "checkpoint_interval_minutes": Param(
        15, _num(0, 1_000_000, lo_open=True), "minutes > 0", "field guide: checkpoints every 15 minutes"
    ),
    "checkpoint_storage_gb": Param(
        1200,
        _num(0, 1e8),
        "GB (0-100,000,000)",
        "field guide: a 1.2 TB hot checkpoint tier (when neither the usage file nor a PVC says)",
    ),
    "checkpoint_size_gb": Param(
        None, _opt(_num(0, 1e6)), "GB (0-1,000,000)", "none: write traffic is not counted (storage only)"
    ),
    "checkpoint_writers": Param(
        None, _opt(_num(1, 100_000)), "a count 1-100,000", "none: the workload's replicas when known, else 1"
    ),
    "training_hours_per_month": Param(
        None, _opt(_num(0, 744)), "hours (0-744)", "none: hours_per_month (checkpoints written all month)"
    ),
    "checkpoint_write_gb_per_month": Param(
        None, _opt(_num(0, 1e10)), "GB (0-10,000,000,000)", "none: computed from checkpoint_size_gb"
    ),
    "fsx_lustre_gb": Param(
        1200, _num(1200, 1e8), "GB (1,200-100,000,000)", "field guide: 1.2 TB persistent FSx for Lustre"
    ),
    "fsx_throughput_mb_s_per_tib": Param(
        250,
        lambda v: v in (125, 250, 500, 1000),
        "one of 125, 250, 500, 1000",
        "field guide: PERSISTENT_2 at 250 MB/s/TiB",
    ),
    "s3_part_size_mb": Param(
        8, _num(5, 5120), "MB (5-5,120)", "boto3 / AWS CLI multipart chunk size default: 8 MB"
    ),
    "alternative_instance_type": Param(
        None, _opt(_str), "an instance type", "the policy's 'alternative' param"
    ),
    "relative_runtime": Param(
        None,
        _opt(_num(0, 100, lo_open=True)),
        "a factor (0-100)",
        "the policy's 'relative_runtime' param (else 1.67 for jobs, 1.0 for notebooks and pools, stated)",
    ),
}


@dataclass
class Usage:
    """Resolved usage: global defaults, file defaults and per-resource overrides."""

    defaults: dict[str, Any] = field(default_factory=lambda: {k: p.default for k, p in PARAMS.items()})
    overrides: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    file: str | None = None
    explicit: set[str] = field(default_factory=set)  # keys the file sets in `defaults`

    def for_resource(self, *names: Any) -> dict[str, Any]:
        """The parameters in force for a resource known by any of ``names`` (address, name)."""
        out = dict(self.defaults)
        keys = [str(n) for n in names if isinstance(n, str) and n]
        for pattern, values in self.overrides:
            if any(fnmatch.fnmatchcase(k, pattern) for k in keys):
                out.update(values)
        return out

    def source_of(self, key: str, *names: Any) -> str:
        """'usage file' when the value came from the file, else 'default'."""
        keys = [str(n) for n in names if isinstance(n, str) and n]
        for pattern, values in self.overrides:
            if key in values and any(fnmatch.fnmatchcase(k, pattern) for k in keys):
                return "usage file"
        return "usage file" if key in self.explicit else "default"


def _check_params(doc: Any, file: str, where: str, line: int) -> dict[str, Any]:
    if doc is None:
        return {}
    if not isinstance(doc, Mapping):
        raise UsageFileError(file, getattr(doc, "line", line) or line, f"{where} must be a mapping")
    out: dict[str, Any] = {}
    for key, value in doc.items():
        kline = doc.line_of(key) if hasattr(doc, "line_of") else line
        if key not in PARAMS:
            known = ", ".join(sorted(PARAMS))
            raise UsageFileError(file, kline, f"unknown key {key!r} in {where} (known: {known})")
        p = PARAMS[key]
        if not p.check(value):
            raise UsageFileError(file, kline, f"{where}.{key}: expected {p.expects}, got {value!r}")
        out[key] = value
    return out


def parse_usage(text: str, file: str = DEFAULT_FILE) -> Usage:
    """Parse usage-file text; raises :class:`UsageFileError` with the offending line."""
    from finlint.loaders.common.yamlload import YamlLoadError, load_all

    try:
        docs = load_all(text)
    except YamlLoadError as exc:
        raise UsageFileError(file, exc.line, exc.message) from exc
    usage = Usage(file=file)
    if not docs or docs[0] is None:
        return usage
    if len(docs) > 1:
        raise UsageFileError(file, getattr(docs[1], "line", 1) or 1, "expected one YAML document")
    root = docs[0]
    if not isinstance(root, Mapping):
        raise UsageFileError(file, getattr(root, "line", 1) or 1, "expected a mapping at the top level")
    for key in root:
        kline = root.line_of(key) if hasattr(root, "line_of") else 1
        if key == "version":
            if root[key] != 1:
                raise UsageFileError(file, kline, f"unsupported version {root[key]!r} (expected 1)")
        elif key == "defaults":
            values = _check_params(root[key], file, "defaults", kline)
            usage.defaults.update(values)
            usage.explicit.update(values)
        elif key == "resources":
            res = root[key]
            if res is None:
                continue
            if not isinstance(res, Mapping):
                raise UsageFileError(file, kline, "resources must map an address or glob to parameters")
            for pattern, values in res.items():
                pline = res.line_of(pattern) if hasattr(res, "line_of") else kline
                where = f"resources[{pattern!r}]"
                usage.overrides.append((str(pattern), _check_params(values, file, where, pline)))
        else:
            raise UsageFileError(file, kline, f"unknown key {key!r} (expected version, defaults, resources)")
    return usage


def load_usage(path: Path | None, cwd: Path | None = None) -> Usage:
    """The usage file at ``path``; else ``finlint-usage.yml`` in ``cwd`` if present; else defaults."""
    if path is None:
        candidate = (cwd or Path.cwd()) / DEFAULT_FILE
        if not candidate.is_file():
            return Usage()
        path = candidate
    from finlint.untrusted import Unreadable, read_text

    try:  # never blocks (a FIFO), never reads without bound (/dev/zero): docs/security.md
        text = read_text(path, MAX_USAGE_BYTES)
    except Unreadable as exc:
        raise UsageFileError(str(path), 1, f"cannot read: {exc}") from exc
    return parse_usage(text, str(path))
