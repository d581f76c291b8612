"""Words for the HTML reports: names that break only where a reader expects, assumption keys
as people say them, and the span of dates of the prices a page cites.

A path or resource name in a narrow table column used to break anywhere (``overflow-wrap:
anywhere``), so ``training-stack.yaml`` became ``training-st`` / ``ack.yaml``. :func:`breakable`
marks the places a name may break (after ``/ . - _``) with ``<wbr>`` and the stylesheet lets it
break nowhere else. The basis of a figure names its inputs by their JSON keys (``hourly_usd``);
:func:`label` says them in words, and the key stays on the element for whoever recomputes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from finlint.escape import clean
from finlint.reporters.html_page import esc

#: where a path, address or resource name may break: after one of these
BREAK_AFTER = "/.-_"
_BREAKS = re.compile(f"([{re.escape(BREAK_AFTER)}])")
#: the shortest last piece a break may leave (a file's extension stays with its name)
MIN_TAIL = 6
#: a piece between separators longer than this may break between its camel-case words
LONG_PIECE = 24
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def breakable(value: Any) -> str:
    """``value`` escaped, with ``<wbr>`` after every ``/ . - _`` but one that would leave a last
    piece under :data:`MIN_TAIL` characters (``stack.yaml`` keeps ``yaml`` on its line). A piece
    longer than :data:`LONG_PIECE` (a CloudFormation logical id has no separator) may also break
    between its words (``ResearchNotebook`` + ``ForTheVisionTeam``), never inside one."""
    parts = _BREAKS.split(clean(value))
    out: list[str] = []
    for i, part in enumerate(parts):
        if len(part) > LONG_PIECE:
            out.append("<wbr>".join(esc(word) for word in _CAMEL.split(part)))
        else:
            out.append(esc(part))
        if i % 2 and len("".join(parts[i + 1 :])) >= MIN_TAIL:  # a separator with enough after it
            out.append("<wbr>")
    return "".join(out)


#: assumption keys (``Cost.assumptions``) in words; keys not listed are said by :func:`label`'s rules
LABELS: dict[str, str] = {
    "active_hours_per_month": "active hours per month",
    "alternative": "cheaper alternative",
    "alternatives": "values it may take",
    "alternative_hourly_usd": "alternative's hourly rate",
    "alternative_monthly_usd": "alternative's monthly cost",
    "alternative_source": "alternative from",
    "always_on": "always-on nodes",
    "baseline_mibps": "baseline throughput (MiB/s)",
    "billed_hourly_usd": "billed hourly rate",
    "billed_hours_per_run": "billed hours per run",
    "billed_mibps": "billed throughput (MiB/s)",
    "billed_throughput_mibps": "billed throughput (MiB/s)",
    "cap_hours": "runtime cap (h)",
    "cap_source": "runtime cap from",
    "ceiling": "a ceiling (the most it can bill)",
    "ceiling_per_job_usd": "ceiling per job",
    "checkpoint_gb": "checkpoint size (GB)",
    "checkpoint_gb_source": "checkpoint size from",
    "checkpoint_interval_minutes": "checkpoint interval (min)",
    "condition": "if",
    "counted_in": "counted once, on",
    "efs_monthly_usd": "EFS monthly cost",
    "excess_hours": "hours past the guard",
    "expected_hours_checkpointed": "expected hours, with checkpoints",
    "expected_hours_from_zero": "expected hours, restarting from zero",
    "expected_runtime_hours": "expected runtime (h)",
    "exposure_per_day_usd": "exposure per day",
    "extra_hours_per_job": "extra hours per job",
    "fsx_lustre_gb": "FSx for Lustre size (GB)",
    "fsx_throughput_mb_s_per_tib": "FSx throughput (MB/s per TiB)",
    "glacier_ir_usd_gb_month": "Glacier Instant Retrieval ($/GB-month)",
    "guard_hours": "guard (h)",
    "hourly_usd": "hourly rate",
    "hours_per_month": "hours per month",
    "idle_groups": "idle groups",
    "idle_hours_after_job": "idle hours after each job",
    "idle_hours_per_month": "idle hours per month",
    "idle_instances": "idle instances",
    "idle_usd_per_hour": "idle cost per hour",
    "instance_hours_per_month": "instance-hours per month",
    "instance_hours_per_run": "instance-hours per run",
    "instance_type": "instance type",
    "instances": "instances",
    "interruptions_per_instance_hour": "interruptions per instance-hour",
    "job_interruption_rate_per_hour": "job interruption rate per hour",
    "jobs_per_run": "jobs per run",
    "keep_alive_hours": "warm-pool keep-alive (h)",
    "limit_nodes": "nodes its limits allow",
    "limit_resource": "limit that binds",
    "lost_run": "an interruption loses the run",
    "lower_bound": "a lower bound",
    "max_runtime_s": "max runtime (s)",
    "on_demand_hourly_usd": "On-Demand hourly rate",
    "overhead_hours": "overhead hours",
    "p_at_least_one_interruption": "probability of at least one interruption",
    "p_interrupted_over_run": "probability of an interruption during the run",
    "per": "per",
    "prices": "prices cited",
    "priced_alternative": "priced as",
    "provisioned_mibps": "provisioned throughput (MiB/s)",
    "region": "region",
    "relative_runtime": "relative runtime",
    "relative_runtime_source": "relative runtime from",
    "restart_overhead_hours": "restart overhead (h)",
    "run_hours": "run length (h)",
    "runs_per_month": "runs per month",
    "saving_per_instance_hour_usd": "saving per instance-hour",
    "spot_discount": "spot discount",
    "spot_hourly_usd": "spot hourly rate",
    "standard_usd_gb_month": "S3 Standard ($/GB-month)",
    "storage": "storage",
    "stored_gb": "stored (GB)",
    "stored_gb_source": "stored size from",
    "stuck_runs_per_month": "stuck runs per month",
    "throughput_mode": "throughput mode",
    "trainium_saving": "Trainium saving (share)",
    "unbounded": "unbounded (no limit)",
    "unnoticed_days": "days a stuck run goes unnoticed",
    "unpriced_types": "types without a price",
    "upper_bound": "an upper bound",
    "usd_per_mibps_month": "price ($/MiB/s-month)",
    "usd_gb_month": "price ($/GB-month)",
    "wall_clock_overhead_share": "wall-clock overhead (share)",
    "waste_hours_checkpointed": "hours lost, with checkpoints",
    "waste_hours_from_zero": "hours lost, restarting from zero",
    "work_hours": "work hours",
}
#: unit suffixes of keys not in :data:`LABELS`, longest first
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("_usd_gb_month", " ($/GB-month)"),
    ("_per_hour_usd", " per hour"),
    ("_hourly_usd", " hourly rate"),
    ("_monthly_usd", " monthly cost"),
    ("_mibps", " (MiB/s)"),
    ("_minutes", " (min)"),
    ("_hours", " (h)"),
    ("_usd", " ($)"),
    ("_gb", " (GB)"),
    ("_source", " from"),
    ("_s", " (s)"),
)


def label(key: str) -> str:
    """An assumption key in words: ``hourly_usd`` -> "hourly rate"; an unlisted key by its unit
    suffix and its words (``spare_gb`` -> "spare (GB)")."""
    if key in LABELS:
        return LABELS[key]
    text = key
    for suffix, words in _SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)] + words
            break
    return text.replace("_", " ")


# --- price dates ---------------------------------------------------------------------------------

#: a date as the price tables write one: 2026-09-27, 2023-11 or 2025 (a month or year only)
_DATE = re.compile(r"(?<!\d)((?:19|20)\d\d)(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?(?!\d)")


def dates_in(text: str) -> list[str]:
    """The dates a price's ``date`` field names (``"2024-07-01 (S10) / 2025-2026 (S22)"`` names
    2024-07-01, 2025 and 2026), as written; they sort as text, a year before its months."""
    return [m.group(0) for m in _DATE.finditer(text)]


def price_dates(quotes: Iterable[Mapping[str, Any]]) -> tuple[str | None, str | None, int]:
    """The oldest and newest dates the cited prices name, and how many prices name none."""
    oldest: str | None = None
    newest: str | None = None
    undated = 0
    for q in quotes:
        found = dates_in(str(q.get("date") or ""))
        if not found:
            undated += 1
            continue
        first, last = min(found), max(found)
        oldest = first if oldest is None or first < oldest else oldest
        newest = last if newest is None or last > newest else newest
    return oldest, newest, undated


def price_dates_html(quotes: Sequence[Mapping[str, Any]]) -> str:
    """``prices dated <b>2022-09-03</b> to <b>2026-09-27</b> (12 unit prices, 1 undated)``."""
    if not quotes:
        return "no unit prices cited"
    oldest, newest, undated = price_dates(quotes)
    count = f"{len(quotes)} unit price{'s' if len(quotes) != 1 else ''}"
    if oldest is None or newest is None:
        return f"{count}, none dated"
    span = f"<b>{esc(oldest)}</b>" if oldest == newest else f"<b>{esc(oldest)}</b> to <b>{esc(newest)}</b>"
    return f"prices dated {span} ({count}{f', {undated} undated' if undated else ''})"
