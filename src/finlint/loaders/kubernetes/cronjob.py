"""``batch/v1`` ``CronJob`` -> the :class:`TrainingJob` of its ``jobTemplate`` (a GPU Job that runs on
a schedule), with the runs per month its schedule gives when it is simple.

A CronJob is read like a ``batch/v1`` Job (``jobTemplate.spec.activeDeadlineSeconds``,
``parallelism``, the pod template), only when its pods request accelerators. The runs per month
(``TrainingJob.scheduled_runs_per_month``) are counted from the five cron fields when the
day-of-month / month / day-of-week fields leave a plain daily, weekly or monthly rhythm (numbers,
lists, ranges and ``*/n`` steps in the minute and hour fields), and from the ``@hourly`` ...
``@yearly`` macros; any other schedule is left to the usage file's ``runs_per_month``.
"""

from __future__ import annotations

from finlint.ir import Record, TrainingJob
from finlint.loaders.kubernetes.object import Doc, child, mapping, templated

#: a month of a 365-day year (730 h: the month every figure bills)
HOURS_PER_MONTH = 365 * 24 / 12
_MACROS = {
    "@yearly": 1 / 12,
    "@annually": 1 / 12,
    "@monthly": 1.0,
    "@weekly": HOURS_PER_MONTH / 168,
    "@daily": HOURS_PER_MONTH / 24,
    "@midnight": HOURS_PER_MONTH / 24,
    "@hourly": HOURS_PER_MONTH,
}
_FIELD_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 7))


def _count(field: str, low: int, high: int) -> int | None:
    """How many values a cron field admits (None: not a form read here)."""
    if field == "*":
        return None  # the caller decides what a wildcard means for its field
    values: set[int] = set()
    for part in field.split(","):
        base, _, step_text = part.partition("/")
        step = int(step_text) if step_text.isdigit() and int(step_text) > 0 else 1 if not step_text else 0
        if step == 0:
            return None
        if base == "*":
            start, end = low, high
        elif "-" in base:
            first, _, last = base.partition("-")
            if not (first.isdigit() and last.isdigit()):
                return None
            start, end = int(first), int(last)
        elif base.isdigit():
            start = end = int(base)
            if step_text:
                end = high
        else:
            return None  # names (MON, JAN), L, W, ?, #
        if not low <= start <= end <= high:
            return None
        values.update(range(start, end + 1, step))
    if high == 7:  # day of week: 0 and 7 are both Sunday
        values = {v % 7 for v in values}
    return len(values)


def runs_per_month(schedule: str) -> float | None:
    """Runs per month of a simple cron schedule (730 h month), else None."""
    words = schedule.split()
    if words and words[0].startswith(("CRON_TZ=", "TZ=")):
        words = words[1:]
    if len(words) == 1:
        return _MACROS.get(words[0].lower())
    if len(words) != 5:
        return None
    minute, hour, dom, month, dow = words
    counts = [_count(f, lo, hi) for f, (lo, hi) in zip(words, _FIELD_RANGES, strict=True)]
    per_hour = counts[0] if minute != "*" else 60
    per_day_hours = counts[1] if hour != "*" else 24
    if per_hour is None or per_day_hours is None or month != "*":
        return None
    per_day = per_hour * per_day_hours
    if dom == "*" and dow == "*":
        return per_day * HOURS_PER_MONTH / 24
    if dom == "*" and counts[4] is not None:
        return per_day * counts[4] * HOURS_PER_MONTH / 168
    if dow == "*" and counts[2] is not None:
        return float(per_day * counts[2])
    return None


def load_cron_job(d: Doc) -> list[Record]:
    """A CronJob: the Job its ``jobTemplate`` launches, on its schedule."""
    from finlint.loaders.kubernetes.training_operators import load_job_spec

    spec = d.spec
    job_spec = mapping(mapping(spec, "jobTemplate"), "spec")
    records = load_job_spec(d, job_spec, "kubernetes-cronjob")
    schedule = child(spec, "schedule")
    if not isinstance(schedule, str) or templated(schedule):
        return records
    runs = runs_per_month(schedule)
    out: list[Record] = []
    for record in records:
        if isinstance(record, TrainingJob):
            lines = {**record.attr_lines, "schedule": d.line_at(spec, "schedule")}
            record = record.with_changes(scheduled_runs_per_month=runs, attr_lines=lines)
        out.append(record)
    return out
