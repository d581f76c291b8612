"""The embedded price snapshot (``data/pricing.json``), a user overlay, and region fallback.

Every price comes back as a :class:`PriceQuote` carrying its source, date and confidence, so a
cost basis can cite where each number came from. A missing price is ``None``, never a guess.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

FALLBACK_REGION = "us-east-1"
TABLES = ("ec2_hourly", "sagemaker_hourly", "sagemaker_storage", "efs", "fsx_lustre", "s3", "ebs")
CONFIDENCES = ("high", "medium", "low")


class PricingError(ValueError):
    """A ``--pricing`` overlay that is not in the snapshot's format (the CLI exits 2)."""


@dataclass(frozen=True)
class PriceQuote:
    """One unit price and where it came from."""

    table: str
    key: str
    usd: float
    unit: str
    region: str  # where the price is from
    requested_region: str
    source: str
    date: str
    confidence: str
    short: str = ""  # the block's short citation, for the basis

    @property
    def fallback(self) -> bool:
        return self.region != self.requested_region

    def rate(self) -> str:
        """``$55.04/h`` or ``$0.30/GB-month``: the exact snapshot figure, for the basis."""
        return f"{usd(self.usd, exact=True)}/{self.unit}"

    def cite(self) -> str:
        """Region, source and date, e.g. ``us-east-1 On-Demand, <source>, 2026-09-24, high confidence``."""
        where = self.region
        if self.fallback:
            asked = self.requested_region
            where = f"{self.region} price used for {asked}: no {asked} price in the snapshot"
        return f"{where}; {self.short or self.source}, {self.date}, {self.confidence} confidence"

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "usd": self.usd,
            "unit": self.unit,
            "region": self.region,
            "source": self.source,
            "date": self.date,
            "confidence": self.confidence,
        }


def usd(amount: float, exact: bool = False) -> str:
    """Dollars for humans: ``$1,234.57``; ``exact`` keeps every snapshot decimal (``$21.957642``)."""
    if not exact:
        return f"${amount:,.2f}"
    text = f"{amount:,.6f}".rstrip("0")
    whole, _, frac = text.partition(".")
    return f"${whole}.{frac.ljust(2, '0')}"


def _unit(table: str, key: str) -> str:
    if table in ("ec2_hourly", "sagemaker_hourly"):
        return "h"
    if key.endswith("_per_1000_requests"):
        return "1,000 requests"
    if table in ("s3", "fsx_lustre") or key.endswith("_gb_month"):
        return "GB-month"
    if key.endswith("_mibps_month"):
        return "MiB/s-month"
    if key.endswith("_iops_month"):
        return "IOPS-month"
    if key.endswith("_gb"):
        return "GB"
    return "unit"


@dataclass(frozen=True)
class _Entry:
    """One price with its source, date and confidence."""

    usd: float
    source: str
    date: str
    confidence: str
    short: str


def _parse(data: Any, origin: str, check_keys: bool = False) -> dict[str, dict[str, dict[str, _Entry]]]:
    """Flatten ``regions -> table -> [blocks]`` into ``region -> table -> key -> entry`` (later wins).

    ``check_keys`` (overlays): an instance key that is no instance type is an error with a
    did-you-mean, so a typo never silently leaves the snapshot price in force.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("regions"), Mapping):
        raise PricingError(f"{origin}: expected a mapping with a 'regions' key")
    out: dict[str, dict[str, dict[str, _Entry]]] = {}
    for region, tables in data["regions"].items():
        if not isinstance(tables, Mapping):
            raise PricingError(f"{origin}: regions.{region} must be a mapping of tables")
        for table, blocks in tables.items():
            if table not in TABLES:
                raise PricingError(
                    f"{origin}: regions.{region}: unknown table {table!r} (known: {', '.join(TABLES)})"
                )
            if isinstance(blocks, Mapping):
                blocks = [blocks]
            if not isinstance(blocks, list):
                raise PricingError(f"{origin}: regions.{region}.{table} must be a list of blocks")
            for i, block in enumerate(blocks):
                where = f"{origin}: regions.{region}.{table}[{i}]"
                if not isinstance(block, Mapping) or not isinstance(block.get("prices"), Mapping):
                    raise PricingError(f"{where}: a block needs 'source', 'date' and 'prices'")
                for field in ("source", "date"):
                    if not isinstance(block.get(field), str) or not block[field]:
                        raise PricingError(
                            f"{where}: missing {field!r} (every block names its source and date)"
                        )
                conf = str(block.get("confidence", "medium"))
                short = str(block.get("cite") or block["source"])
                for key, val in block["prices"].items():
                    if check_keys and table in ("ec2_hourly", "sagemaker_hourly"):
                        _check_instance_key(str(key), table, f"{where}.prices")
                    entry = _entry(val, block["source"], block["date"], conf, f"{where}.prices.{key}", short)
                    if entry is not None:
                        out.setdefault(region, {}).setdefault(table, {})[key] = entry
    return out


_TYPE_RE = re.compile(r"^(ml\.)?[a-z][a-z0-9-]*\.(nano|micro|small|medium|large|\d*xlarge|metal(-\d+xl)?)$")


def _check_instance_key(key: str, table: str, where: str) -> None:
    """Raise PricingError for a key that cannot be the instance type it was meant to be."""
    from finlint.domain import catalog

    sagemaker = table == "sagemaker_hourly"
    if sagemaker != key.startswith("ml."):
        want = "an ml.* SageMaker type" if sagemaker else "an EC2 type (no ml. prefix)"
        raise PricingError(f"{where}: {key!r} in {table}: expected {want}")
    known = _known_types(sagemaker)
    if key in known:
        return
    twin = catalog.ec2_twin(key)
    family = catalog.family_of(key)
    family_sizes = {t.rsplit(".", 1)[-1] for t in known if catalog.family_of(t) == family}
    if _TYPE_RE.match(key) and not family_sizes and catalog.lookup(twin) is None:
        return  # a well-formed type of a family finlint does not know: accepted as given
    import difflib  # only for the did-you-mean of a misspelled overlay key

    hint = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    mean = f"; did you mean {hint[0]!r}?" if hint else ""
    raise PricingError(f"{where}: unknown instance type {key!r} in {table}{mean}")


@lru_cache(maxsize=2)
def _known_types(sagemaker: bool) -> frozenset[str]:
    from finlint.domain import catalog

    names = {s.name for s in catalog.all_instances()}
    for tables in _snapshot_tables().values():
        for table in ("ec2_hourly", "sagemaker_hourly"):
            names |= {catalog.ec2_twin(k) for k in tables.get(table, {})}
    return frozenset(f"ml.{n}" for n in names) if sagemaker else frozenset(names)


def _entry(val: Any, source: str, date: str, conf: str, where: str, short: str) -> _Entry | None:
    if val is None:  # explicit "not found"
        return None
    if isinstance(val, Mapping):
        if "usd" not in val:
            raise PricingError(f"{where}: a price object needs 'usd'")
        if "source" in val:
            source = short = str(val["source"])
        date = str(val.get("date", date))
        conf = str(val.get("confidence", conf))
        val = val["usd"]
    if isinstance(val, bool) or not isinstance(val, (int, float)) or not 0 <= val < 1e15:  # NaN, inf
        raise PricingError(f"{where}: price must be a non-negative number, got {val!r}")
    return _Entry(float(val), source, date, conf, short)


@lru_cache(maxsize=1)
def _snapshot_raw() -> dict[str, Any]:
    path = Path(__file__).resolve().parents[1] / "data" / "pricing.json"
    if path.is_file():  # an installed package or a checkout: no importlib.resources (~10 ms of imports)
        data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return data
    from importlib import resources  # pragma: no cover - a zipped install

    loaded: dict[str, Any] = json.loads(
        resources.files("finlint.data").joinpath("pricing.json").read_text("utf-8")
    )
    return loaded


def snapshot_meta() -> dict[str, Any]:
    return dict(_snapshot_raw().get("_meta", {}))


def read_price_file(path: Path) -> Any:
    """JSON or YAML in the snapshot's format."""
    from finlint.untrusted import Unreadable, read_text

    try:  # never blocks (a FIFO), never reads without bound (/dev/zero): docs/security.md
        text = read_text(path, MAX_PRICE_FILE_BYTES)
    except Unreadable as exc:
        raise PricingError(f"{path}:1: cannot read: {exc}") from exc
    if path.suffix in (".yml", ".yaml"):
        from finlint.loaders.common.yamlload import YamlLoadError, load_all

        try:  # bounded: node count and alias expansion are capped, unlike yaml.safe_load
            docs = load_all(text)
        except YamlLoadError as exc:
            raise PricingError(f"{path}:{exc.line}: invalid YAML: {exc.message}") from exc
        return docs[0] if docs else None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise PricingError(f"{path}:{exc.lineno}: invalid JSON: {exc.msg}") from exc
    except RecursionError as exc:
        raise PricingError(f"{path}:1: invalid JSON: nested too deeply") from exc
    except ValueError as exc:  # an integer of more than 4,300 digits, NaN or Infinity
        raise PricingError(f"{path}:1: invalid JSON: {exc}") from exc


MAX_PRICE_FILE_BYTES = 16 * 1024 * 1024


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a price")


class Pricing:
    """Prices for one region, with the snapshot's region fallback and an optional overlay."""

    def __init__(
        self, region: str, tables: dict[str, dict[str, dict[str, _Entry]]], overlay: str | None = None
    ):
        self.region = region
        self.overlay = overlay
        self._tables = tables
        self.fallbacks: set[str] = set()  # keys priced from another region (one notice per run)

    def get(self, table: str, key: str, region: str | None = None) -> PriceQuote | None:
        """The price of ``key`` in ``table``: this region first, then us-east-1 (and the quote says so).

        ``region``: only that region's price (used to keep prices that are combined in one region).
        """
        quote = self._quote(table, key, region)
        self.used(quote)
        return quote

    def used(self, *quotes: PriceQuote | None) -> None:
        """Record the quotes a figure used that came from another region (for the run's notice)."""
        for q in quotes:
            if q is not None and q.fallback:
                self.fallbacks.add(f"{q.key} ({q.table})")

    def _quote(self, table: str, key: str, region: str | None = None) -> PriceQuote | None:
        for where in (region,) if region else (self.region, FALLBACK_REGION):
            entry = self._tables.get(where, {}).get(table, {}).get(key)
            if entry is not None:
                return PriceQuote(
                    table, key, entry.usd, _unit(table, key), where, self.region,
                    entry.source, entry.date, entry.confidence, entry.short,
                )  # fmt: skip
        return None

    def same_region(self, *items: tuple[str, str]) -> list[PriceQuote | None]:
        """Quotes for ``(table, key)`` items all from ONE region, so a difference never mixes regions.

        This region when it prices every item, else the fallback region when that one does; else each
        item from this region only (a missing one is None, and the model says it is not priced).
        The caller reports the quotes it uses with :meth:`used`.
        """
        for where in (self.region, FALLBACK_REGION):
            if all(self._tables.get(where, {}).get(t, {}).get(k) for t, k in items):
                return [self._quote(t, k, where) for t, k in items]
        return [self._quote(t, k, self.region) for t, k in items]

    def hourly(self, instance_type: str) -> PriceQuote | None:
        """On-Demand $/h: ``ml.*`` from the SageMaker table, anything else from EC2."""
        table = "sagemaker_hourly" if instance_type.startswith("ml.") else "ec2_hourly"
        return self.get(table, instance_type)

    def efs(self, item: str) -> PriceQuote | None:
        """``standard_gb_month``, ``ia_gb_month``, ``provisioned_throughput_mibps_month``, ..."""
        return self.get("efs", item)

    def fsx_lustre(self, deployment_type: str, throughput: int | None = None) -> PriceQuote | None:
        """Per GB-month for a deployment type (and per-unit throughput tier where priced by tier)."""
        dt = deployment_type.upper()
        if throughput is not None:
            tiered = self.get("fsx_lustre", f"{dt}/{throughput}")
            if tiered is not None:
                return tiered
        return self.get("fsx_lustre", dt)

    def s3(self, storage_class: str) -> PriceQuote | None:
        return self.get("s3", storage_class.upper())

    def s3_put(self, storage_class: str) -> PriceQuote | None:
        """PUT/COPY/POST/LIST requests, per 1,000, for a storage class."""
        return self.get("s3", f"{storage_class.upper()}/put_per_1000_requests")

    def ebs(self, item: str) -> PriceQuote | None:
        return self.get("ebs", item)

    def sagemaker_storage(self, item: str) -> PriceQuote | None:
        return self.get("sagemaker_storage", item)

    def missing(self, what: str) -> str:
        """The reason text for a finding that cannot be priced."""
        return f"no price for {what} in {self.region} (nor in the {FALLBACK_REGION} fallback) in the snapshot"

    def keys(self, table: str) -> set[str]:
        return {k for r in (self.region, FALLBACK_REGION) for k in self._tables.get(r, {}).get(table, {})}


def snapshot_regions() -> list[str]:
    return sorted(_snapshot_tables())


def overlay_tables(overlay: Path) -> dict[str, dict[str, dict[str, _Entry]]]:
    """A --pricing overlay, parsed and checked (instance keys must be instance types)."""
    return _parse(read_price_file(overlay), str(overlay), check_keys=True)


def supported_regions(overlay: Path | None = None) -> list[str]:
    """Regions with prices: the snapshot's, plus any the overlay adds."""
    regions = set(_snapshot_tables())
    if overlay is not None:
        regions |= set(overlay_tables(overlay))
    return sorted(regions)


def check_region(region: str, overlay: Path | None = None, where: str = "--region") -> None:
    """Raise PricingError naming the regions with prices when ``region`` has none."""
    regions = supported_regions(overlay)
    if region not in regions:
        raise PricingError(
            f"{where} {region!r}: no prices for this region; the price snapshot has "
            f"{', '.join(regions)} (add the region's prices with --pricing FILE)"
        )


def load_pricing(region: str = FALLBACK_REGION, overlay: Path | None = None) -> Pricing:
    """The embedded snapshot for ``region``, with ``overlay`` (same format) taking precedence."""
    tables = {r: {t: dict(k) for t, k in ts.items()} for r, ts in _snapshot_tables().items()}
    if overlay is not None:
        for r, ts in overlay_tables(overlay).items():
            for t, keys in ts.items():
                tables.setdefault(r, {}).setdefault(t, {}).update(keys)
    return Pricing(region or FALLBACK_REGION, tables, str(overlay) if overlay else None)


@lru_cache(maxsize=1)
def _snapshot_tables() -> dict[str, dict[str, dict[str, _Entry]]]:
    return _parse(_snapshot_raw(), "pricing.json")
