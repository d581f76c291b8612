"""What every cost model shares: the context (prices, usage), value guards and basis wording."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

from finlint.cost import bounds
from finlint.cost.index import RecordIndex
from finlint.cost.pricing import (
    FALLBACK_REGION,
    PriceQuote,
    Pricing,
    check_region,
    load_pricing,
    supported_regions,
    usd,
)
from finlint.cost.usage import HOURS_PER_MONTH, Usage, load_usage
from finlint.domain.sagemaker import runtime_cap
from finlint.finding import Cost, Finding
from finlint.ir import Record, TrainingJob, is_unknown

__all__ = ["HOURS_PER_MONTH"]  # re-exported: the models import it from here


@dataclass
class CostSettings:
    """What the CLI passes: ``--region``, ``--pricing FILE``, ``--usage-file FILE``."""

    region: str | None = None
    pricing_file: Path | None = None
    usage_file: Path | None = None
    usage: Usage | None = None  # already parsed (tests, breakdown)


def coerce_settings(obj: Any) -> CostSettings:
    """Accept CostSettings, a mapping, the CLI's config object (duck-typed), or None."""
    if isinstance(obj, CostSettings):
        return obj
    if obj is None:
        return CostSettings()

    def pick(*names: str) -> Any:
        for n in names:
            v = obj.get(n) if isinstance(obj, Mapping) else getattr(obj, n, None)
            if v is not None:
                return v
        return None

    def path(v: Any) -> Path | None:
        return None if v is None or isinstance(v, Usage) else Path(v)

    usage = pick("usage")
    return CostSettings(
        region=pick("region"),
        pricing_file=path(pick("pricing_file", "pricing")),
        usage_file=path(pick("usage_file")),
        usage=usage if isinstance(usage, Usage) else None,
    )


@dataclass
class CostContext:
    """Prices and usage for one run; ``pricing_for`` caches one :class:`Pricing` per region."""

    usage: Usage
    region: str | None = None  # --region: wins over the usage file
    pricing_file: Path | None = None
    records: list[Record] = field(default_factory=list)
    _cache: dict[str, Pricing] = field(default_factory=dict)
    _index: RecordIndex | None = field(default=None, repr=False)

    @property
    def index(self) -> RecordIndex:
        """The run's records indexed for lookups (built once, on first use): a model asks it,
        never scans ``records`` per finding."""
        if self._index is None:
            self._index = RecordIndex(self.records)
        return self._index

    @classmethod
    def build(cls, settings: Any = None, records: list[Record] | None = None) -> CostContext:
        """Raises PricingError for an overlay with a bad key or a region without prices (exit 2)."""
        s = coerce_settings(settings)
        usage = s.usage if s.usage is not None else load_usage(s.usage_file)
        if s.region is not None:
            check_region(s.region, s.pricing_file, "--region (or config region)")
        else:
            where = f"region in the usage file {usage.file}" if usage.file else "region"
            regions = [usage.defaults.get("region")] + [v.get("region") for _, v in usage.overrides]
            for region in dict.fromkeys(r for r in regions if isinstance(r, str)):
                check_region(region, s.pricing_file, where)
        if s.pricing_file is not None:
            supported_regions(s.pricing_file)  # a bad overlay fails now, even when nothing is priced
        return cls(usage=usage, region=s.region, pricing_file=s.pricing_file, records=list(records or []))

    def notices(self) -> list[str]:
        """One line per run naming the prices that fell back to another region (or none)."""
        by_region: dict[tuple[str, str], set[str]] = {}
        for region, pricing in self._cache.items():
            if pricing.fallbacks:
                by_region.setdefault((region, FALLBACK_REGION), set()).update(pricing.fallbacks)
        return [
            f"prices for {asked} missing from the snapshot, {FALLBACK_REGION} prices used instead: "
            + ", ".join(sorted(keys))
            for (asked, _), keys in sorted(by_region.items())
        ]

    def params(self, record: Record | None) -> dict[str, Any]:
        """The usage in force for ``record``; a CronJob's simple schedule gives its runs per
        month unless the usage file sets them (``TrainingJob.scheduled_runs_per_month``)."""
        if record is None:
            return dict(self.usage.defaults)
        out = self.usage.for_resource(record.address, record.name)
        runs = getattr(record, "scheduled_runs_per_month", None)
        if (
            runs is not None
            and self.usage.source_of("runs_per_month", record.address, record.name) == "default"
        ):
            out["runs_per_month"] = round(runs, 2)
        return out

    def pricing_for(self, params: Mapping[str, Any]) -> Pricing:
        region = self.region or str(params.get("region") or "us-east-1")
        if region not in self._cache:
            self._cache[region] = load_pricing(region, self.pricing_file)
        return self._cache[region]


def known(value: Any) -> bool:
    return value is not None and not is_unknown(value)


#: the longest brief a terminal line shows (``Cost.brief``)
BRIEF_MAX = 120


def brief_text(text: str) -> str:
    """A ``Cost.brief``: one phrase, at most :data:`BRIEF_MAX` characters (cut at a word, with ``…``)."""
    text = " ".join(text.split())
    if len(text) <= BRIEF_MAX:
        return text
    cut = text[: BRIEF_MAX - 1].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


def unpriced_brief(reason: str) -> str:
    """The brief of a figure that is not priced: the reason alone, since every report labels the
    line "not priced" itself (a brief that said it too printed the words twice)."""
    return brief_text(reason)


def unpriced(kind: str, reason: str, basis: str = "", **assumptions: Any) -> Cost:
    """A finding that cannot be priced: ``cost: null`` with the reason, never a guess."""
    return Cost(
        None,
        None,
        kind,
        basis or f"Not priced: {reason}.",
        dict(assumptions),
        reason=reason,
        brief=unpriced_brief(reason),
    )


def num(x: float) -> str:
    """A parameter as printed in a basis: ``24``, ``0.25``, ``1,200``."""
    if float(x).is_integer():
        return f"{int(x):,}"
    return f"{x:,.6g}" if abs(x) >= 1e-3 else f"{x:.4g}"


def price_note(*quotes: PriceQuote | None) -> str:
    """'Prices: <key> <region; source, date, confidence>; ...' for the end of a basis."""
    parts = []
    seen: set[str] = set()
    for q in quotes:
        if q is None or q.key in seen:
            continue
        seen.add(q.key)
        parts.append(f"{q.key} {q.rate()} ({q.cite()})")
    return "Prices: " + "; ".join(parts) + "." if parts else ""


def quote_json(*quotes: PriceQuote | None) -> dict[str, Any]:
    return {q.key: q.to_json() for q in quotes if q is not None}


def instance_count(record: TrainingJob) -> int | None:
    """Instances per run: 1 when absent (the SDK and API default), None when unresolved or absurd."""
    return checked_instance_count(record)[0]


def checked_instance_count(record: TrainingJob) -> tuple[int | None, str]:
    """Instances per run and, when there is no usable count, why (unresolved, absurd)."""
    if record.instance_count is None:
        return 1, ""
    n, why = bounds.count(record.instance_count, "instance count")
    if n is not None and n < 1:
        return None, "instance count is 0"
    return n, why or ""


def checked_cap(record: TrainingJob) -> tuple[float | None, str, str]:
    """The runtime cap in hours, how it applies, and why there is none (bounded by the API's 28 days)."""
    seconds, how = cap_seconds(record)
    if seconds is None:
        return None, "", "no runtime cap known (MaxRuntimeInSeconds unresolved)"
    if seconds <= 0 or seconds > bounds.MAX_RUNTIME_S:
        return (
            None,
            how,
            (
                f"MaxRuntimeInSeconds {seconds:,} is outside the API's range (1-{bounds.MAX_RUNTIME_S:,} s); "
                "treated as unknown"
            ),
        )
    return seconds / 3600.0, how, ""


def jobs_per_run(record: TrainingJob) -> tuple[int, str]:
    """Training jobs per run: a tuner's max_jobs x the launches of the loop the launch runs in
    (``4 launches (the loop at line 12)``), else 1 (bounded like an instance count). The one place
    every job-counting model takes its multiplier from."""
    jobs, parts = 1, []
    mult = record.runs_multiplier
    if isinstance(mult, int) and not isinstance(mult, bool) and 1 < mult <= bounds.MAX_INSTANCES:
        jobs, parts = mult, [f"{mult} jobs per tuning run"]
    launches = record.launches.count if record.launches is not None else None
    if not isinstance(launches, int) or isinstance(launches, bool):
        launches = 1
    if 1 < launches <= bounds.MAX_INSTANCES // jobs:
        jobs *= launches
        parts.append(f"{launches} launches ({_loops(record)})")
    return jobs, " x ".join(parts)


def per_launch_note(record: Record | None) -> str:
    """The basis sentence of a job launched in a loop whose trip count is unknown ('' otherwise)."""
    if not isinstance(record, TrainingJob) or record.launches is None:
        return ""
    if record.launches.count is not None:
        return ""
    why = record.launches.why
    return f" Per launch; the loop's trip count is unknown ({_loops(record)}{': ' + why if why else ''})."


def _loops(record: TrainingJob) -> str:
    lines = [str(line) for line in (record.launches.loop_lines if record.launches else ())]
    if len(lines) == 1:
        return f"the loop at line {lines[0]}"
    return f"the loops at lines {', '.join(lines[:-1])} and {lines[-1]}" if lines else "a loop"


def cap_seconds(record: TrainingJob) -> tuple[int | None, str]:
    """The runtime cap in force (:func:`finlint.domain.sagemaker.runtime_cap`, as FIN101/FIN102
    see it) in whole seconds and how it applies, or ``(None, "")`` when it is not known."""
    seconds, basis = runtime_cap(record)
    if not known(seconds) or not seconds:
        return None, ""
    return int(seconds), basis


#: the API's range of KeepAlivePeriodInSeconds (pricing.md §5, S15)
MAX_KEEP_ALIVE_S = 3600


def warm_pool_hours(record: TrainingJob) -> float | None:
    """Hours a job's warm pool bills after it (KeepAlivePeriodInSeconds, at most 3,600 s), or None
    when it has none or the period is unresolved. FIN501 and ``finlint cost`` both read it here."""
    keep = record.keep_alive_s
    if not isinstance(keep, int) or isinstance(keep, bool) or keep <= 0:
        return None
    return min(keep, MAX_KEEP_ALIVE_S) / 3600.0


def spot_rate(on_demand_usd: float, params: Mapping[str, Any]) -> tuple[float, float]:
    """The managed-spot hourly rate every model uses, On-Demand x (1 - spot_discount), and the discount."""
    discount = float(params.get("spot_discount", 0.60))
    return on_demand_usd * (1.0 - discount), discount


def runs_per_month(record: TrainingJob, params: Mapping[str, Any]) -> tuple[float, str]:
    """Jobs a month: usage runs_per_month x the record's runs multiplier (tuner jobs)."""
    runs = float(params.get("runs_per_month", 1))
    mult, _ = jobs_per_run(record)
    if mult > 1:
        return runs * mult, f"{num(runs)} run(s) per month x {mult} jobs per run (tuner)"
    return runs, f"{num(runs)} run(s) per month"


__all__ = [
    "BRIEF_MAX",
    "CostContext",
    "brief_text",
    "CostSettings",
    "HOURS_PER_MONTH",
    "cap_seconds",
    "checked_cap",
    "checked_instance_count",
    "jobs_per_run",
    "coerce_settings",
    "instance_count",
    "known",
    "num",
    "per_launch_note",
    "price_note",
    "quote_json",
    "runs_per_month",
    "spot_rate",
    "unpriced",
    "unpriced_brief",
    "usd",
    "warm_pool_hours",
]


def job_quote(
    finding: Finding, ctx: CostContext, kind: str
) -> tuple[TrainingJob, str, int, PriceQuote, dict[str, Any]] | Cost:
    """The job, its type, instance count, On-Demand quote and usage params, or an unpriced Cost."""
    job = finding.record
    if not isinstance(job, TrainingJob):
        return unpriced(kind, f"{finding.cost_model} prices training jobs only")
    if not known(job.instance_type):
        return unpriced(kind, "instance type unknown or unresolved")
    itype = str(job.instance_type)
    n, n_why = checked_instance_count(job)
    if n is None:
        return unpriced(kind, n_why or "instance count unresolved")
    params = ctx.params(job)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(kind, pricing.missing(itype), instance_type=itype, region=pricing.region)
    return job, itype, n, quote, params
