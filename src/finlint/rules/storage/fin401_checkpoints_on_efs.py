"""FIN401 checkpoints-on-efs: Checkpoints written to EFS instead of FSx for Lustre plus S3.

The policy is ``policies/FIN401-checkpoints-on-efs.yaml``; this module holds its facts and its
price."""

from __future__ import annotations

import re
from typing import Any, Iterable

from finlint.cost.common import CostContext, brief_text, known, num, price_note, quote_json, unpriced, usd
from finlint.cost.efs import (
    DAYS_PER_MONTH,
    IA_MINIMUM_DAYS,
    KIND,
    Stream,
    checkpoint_stream,
    checkpoint_volume,
    provisioned_charge,
)
from finlint.cost.pricing import PriceQuote
from finlint.engine.facts import Evidence
from finlint.finding import Cost, CountedOnce, Finding
from finlint.ir import (
    FileSystem,
    Mount,
    Record,
    TrainingJob,
    Unknown,
    Volume,
    is_unknown,
)
from finlint.rules.base import Rule
from finlint.untrusted import bounded


def _matches(pattern: re.Pattern[str], *values: Any) -> str | None:
    for value in values:
        if isinstance(value, str) and pattern.search(bounded(value)):
            return value
    return None


def _under(path: str, mount: str) -> bool:
    mount = mount.rstrip("/") or "/"
    return path == mount or path.startswith(mount + "/") or mount == "/"


#: A name that says EFS (``efs-sc``, ``efs-pvc``, ``train-efs-claim``); never FSx.
EFS_NAME = re.compile(r"(?i)(?:^|[^a-z0-9])efs(?:[^a-z0-9]|$)")
_FSX_NAME = re.compile(r"(?i)fsx|lustre")


def _says_efs(name: str) -> bool:
    """A name that says EFS and not FSx (``fsx-or-efs-scratch`` says both: no evidence)."""
    name = bounded(name)
    return EFS_NAME.search(name) is not None and _FSX_NAME.search(name) is None


def checkpoint_on_efs(record: Record, pattern: str, name_evidence: bool = True) -> Any:
    """Evidence that checkpoints go to EFS: a name/tag/path that says so on an EFS-backed object;
    with ``name_evidence``, also a claim or StorageClass not defined in the scan whose name says
    EFS (the message says the evidence is the name)."""
    rx = re.compile(pattern)
    if name_evidence and isinstance(record, Volume):
        found = _volume_on_efs(record, rx)
        return found if isinstance(found, Evidence) else (_efs_by_name(record, rx) or found)
    if isinstance(record, FileSystem):
        if record.fs_type != "efs":
            return None
        candidates = [("name", record.name), ("creation_token", record.creation_token)]
        candidates += [("tags", v) for v in record.tags.values() if isinstance(v, str)]
        for field_name, value in candidates:
            if _matches(rx, value) is not None:
                line = record.line_of(field_name) or record.location.line
                return Evidence(f"EFS file system '{value}' holds checkpoints", line)
        return None
    if isinstance(record, Volume):
        return _volume_on_efs(record, rx)
    if isinstance(record, TrainingJob):
        return _job_on_efs(record)
    return None


def _mount_for(path: str, mounts: Iterable[Mount]) -> Mount | None:
    """The mount a path lies on: the longest mount path that contains it."""
    best: Mount | None = None
    best_length = -1
    for mount in mounts:
        if isinstance(mount.mount_path, str) and _under(path, mount.mount_path):
            length = len(mount.mount_path.rstrip("/"))
            if length > best_length:
                best, best_length = mount, length
    return best


def _mounted(mount: Mount) -> str:
    """What a mount puts where, for a message: its path, or its volume when the path is unknown."""
    if isinstance(mount.mount_path, str):
        return f"checkpoint path '{mount.mount_path}'"
    reason = mount.mount_path.reason if isinstance(mount.mount_path, Unknown) else "not known"
    name = f" '{mount.volume}'" if isinstance(mount.volume, str) else ""
    return f"checkpoint volume{name} (mounted at a path not known: {reason})"


def _checkpoint_path_on_efs(volume: Volume) -> Any:
    """A path a container is told to checkpoint to (``--checkpoint-dir=/state/ckpt``,
    ``CHECKPOINT_DIR``) that lies under an EFS mount: the longest matching mount wins."""
    unknown = None
    for entry in volume.checkpoint_paths:
        path = entry.path
        mount = _mount_for(path, volume.mounts)
        if mount is None:
            continue
        if mount.is_efs is True:
            via = f" through claim '{mount.claim_name}'" if isinstance(mount.claim_name, str) else ""
            return Evidence(
                f"checkpoint path '{path}' ({entry.source}) is under the mount "
                f"'{mount.mount_path}' on EFS{via}",
                entry.line or mount.line or volume.location.line,
                chain=mount.via,
            )
        if is_unknown(mount.is_efs):
            unknown = mount.is_efs
    return unknown


def _efs_by_name(volume: Volume, rx: re.Pattern[str]) -> Evidence | None:
    """A checkpoint mount from a claim, or a checkpoint claim of a StorageClass, that the scan
    does not define (nothing linked, no file in its chain) but whose name says EFS."""
    if volume.volume_kind == "workload":
        for mount in volume.mounts:
            claim = mount.claim_name
            if mount.is_efs is not None or mount.via or not isinstance(claim, str):
                continue
            if _says_efs(claim) and _matches(rx, mount.mount_path, claim, mount.volume) is not None:
                return Evidence(
                    f"mounts {_mounted(mount)} from claim '{claim}', which is not "
                    "defined in the scan: EFS by name only (medium confidence: the claim's name says EFS)",
                    mount.line or volume.location.line,
                )
        for entry in volume.checkpoint_paths:  # --ckpt-path /efs/x under a mount of such a claim
            under = _mount_for(entry.path, volume.mounts)
            claim = under.claim_name if under is not None else None
            if under is None or under.is_efs is not None or under.via or not isinstance(claim, str):
                continue
            if _says_efs(claim):
                return Evidence(
                    f"checkpoint path '{entry.path}' ({entry.source}) is under the mount "
                    f"'{under.mount_path}' of claim '{claim}', which is not defined in the scan: EFS by "
                    "name only (medium confidence: the claim's name says EFS)",
                    entry.line or under.line or volume.location.line,
                )
        return None
    sc = volume.storage_class
    if volume.volume_kind not in ("pvc", "pv") or volume.is_efs is not None or volume.via:
        return None
    if not isinstance(sc, str) or not _says_efs(sc):
        return None
    hit = _matches(rx, volume.name, volume.address.rsplit("/", 1)[-1])
    if hit is None:
        return None
    kind = "PersistentVolumeClaim" if volume.volume_kind == "pvc" else "PersistentVolume"
    return Evidence(
        f"{kind} '{hit}' uses StorageClass '{sc}', which is not defined in the scan: EFS by name "
        "only (medium confidence: the class's name says EFS)",
        volume.line_of("storage_class") or volume.location.line,
    )


def _volume_on_efs(volume: Volume, rx: re.Pattern[str]) -> Any:
    if volume.volume_kind == "workload":
        unknown = None
        for mount in volume.mounts:
            hit = _matches(rx, mount.mount_path, mount.claim_name, mount.volume)
            if hit is None:
                continue
            if mount.is_efs is True:
                via = f" through claim '{mount.claim_name}'" if isinstance(mount.claim_name, str) else ""
                return Evidence(
                    f"mounts {_mounted(mount)} on EFS{via}",
                    mount.line or volume.location.line,
                    chain=mount.via,
                )
            if is_unknown(mount.is_efs):
                unknown = mount.is_efs
        by_path = _checkpoint_path_on_efs(volume)
        return by_path if by_path is not None else unknown
    if volume.volume_kind == "efs-mount-target":
        return None
    if volume.is_efs is not True:
        return volume.is_efs if is_unknown(volume.is_efs) else None
    candidates: list[tuple[str, Any]] = [
        ("name", volume.name),
        ("root_path", volume.root_path),
        ("storage_class", volume.storage_class),
        ("address", volume.address.rsplit("/", 1)[-1]),
    ]
    field_name, hit = next(((f, v) for f, v in candidates if _matches(rx, v) is not None), ("", None))
    if hit is None:
        return None
    kind = {
        "pvc": "PersistentVolumeClaim",
        "pv": "PersistentVolume",
        "storage-class": "StorageClass",
        "efs-access-point": "EFS access point",
    }.get(volume.volume_kind, volume.volume_kind)
    line = volume.line_of(field_name) or volume.location.line
    return Evidence(f"{kind} '{hit}' puts checkpoints on EFS", line, chain=volume.via)


def _job_on_efs(job: TrainingJob) -> Any:
    if job.checkpoint_s3_uri is None and job.checkpoint_local_path is None:
        return None
    path = job.checkpoint_local_path
    if path is None:
        path = job.checkpoint_local_path_default
    if not isinstance(path, str):
        return path if is_unknown(path) else None
    mount = _mount_for(path, job.file_system_mounts)
    if mount is not None and mount.is_efs is True:
        line = job.line_of("checkpoint_local_path") or mount.line or job.location.line
        return Evidence(
            f"checkpoint path '{path}' is on the EFS mount '{mount.mount_path}'", line, chain=mount.via
        )
    if mount is not None and is_unknown(mount.is_efs):
        return mount.is_efs
    return None


def price(finding: Finding, ctx: CostContext) -> Cost:
    rec = finding.record
    if rec is None:
        return unpriced(KIND, "no record to price")
    params = ctx.params(rec)
    pricing = ctx.pricing_for(params)
    size, size_how = checkpoint_volume(rec, ctx, params, finding.line)
    fsx_gb = float(params.get("fsx_lustre_gb", 1200))
    tier = int(params.get("fsx_throughput_mb_s_per_tib", 250))

    # One region for every price: the saving subtracts them, and never across regions.
    std, lustre, s3_std, w_q, thr_q, s3_put, ia, ia_put = pricing.same_region(
        ("efs", "standard_gb_month"),
        ("fsx_lustre", f"PERSISTENT_2/{tier}"),
        ("s3", "STANDARD"),
        ("efs", "elastic_write_gb"),
        ("efs", "provisioned_throughput_mibps_month"),
        ("s3", "STANDARD/put_per_1000_requests"),
        ("s3", "STANDARD_IA"),
        ("s3", "STANDARD_IA/put_per_1000_requests"),
    )
    for q, what in (
        (std, "EFS Standard storage"),
        (lustre, f"FSx for Lustre PERSISTENT_2 at {tier} MB/s/TiB"),
        (s3_std, "S3 Standard"),
    ):
        if q is None:
            return unpriced(KIND, pricing.missing(what), region=pricing.region)
    assert std and lustre and s3_std
    quotes: list[PriceQuote] = [std]

    fs = ctx.index.efs_file_system(rec)
    mode = fs.throughput_mode if fs is not None and isinstance(fs.throughput_mode, str) else None
    stream = checkpoint_stream(params)
    assumptions: dict[str, Any] = {"checkpoint_gb": size, "checkpoint_gb_source": size_how}

    efs_parts = [f"{num(size)} GB stored x {std.rate()} = {usd(size * std.usd)}"]
    efs_total = size * std.usd
    if (
        mode == "provisioned"
        and fs is not None
        and known(fs.provisioned_throughput_mibps)
        and thr_q is not None
    ):
        charge = provisioned_charge(float(fs.provisioned_throughput_mibps), size, thr_q)  # type: ignore[arg-type]
        efs_total += charge.usd
        efs_parts.append(charge.text(thr_q))
        quotes.append(thr_q)
        assumptions["provisioned_mibps"] = charge.provisioned_mibps
        assumptions["billed_throughput_mibps"] = charge.billed_mibps
    lower_bound = ""
    if stream.gb_per_month is None:
        lower_bound = (
            "EFS storage only — a lower bound: the checkpoint write traffic is not counted "
            "(set checkpoint_size_gb, checkpoint_writers and training_hours_per_month in the usage file). "
        )
    elif mode in (None, "elastic"):
        if w_q is not None:
            w = stream.gb_per_month
            assumed = "" if mode == "elastic" else ", Elastic throughput assumed (file system not linked)"
            efs_total += w * w_q.usd
            efs_parts.append(f"{num(round(w, 2))} GB written x {w_q.rate()} = {usd(w * w_q.usd)}{assumed}")
            quotes.append(w_q)
    else:
        efs_parts.append(f"no per-GB write charge in {mode} throughput mode")
    if stream.gb_per_month is not None:
        assumptions["checkpoint_write_gb_per_month"] = stream.gb_per_month
        assumptions.update(stream.facts)

    part_mb = float(params.get("s3_part_size_mb", 8))
    s3_total, s3_text, s3_quotes = _s3_side((s3_std, s3_put, ia, ia_put), size, stream, part_mb)
    alt_total = fsx_gb * lustre.usd + s3_total
    saving = max(0.0, efs_total - alt_total)
    quotes += [lustre, *s3_quotes]
    pricing.used(*quotes)
    stream_text = f"Checkpoint stream: {stream.how}. " if stream.gb_per_month is not None else ""
    none_text = " (no saving at this size)" if efs_total <= alt_total else ""
    total_text = f" = {usd(efs_total)}" if len(efs_parts) > 1 else ""
    basis = (
        f"{lower_bound}{stream_text}Checkpoints on EFS: {' + '.join(efs_parts)}{total_text}/month "
        f"(checkpoint volume: {size_how}). Alternative: FSx for Lustre PERSISTENT_2 at {tier} MB/s/TiB, "
        f"{num(fsx_gb)} GB x {lustre.rate()} = {usd(fsx_gb * lustre.usd)} + {s3_text}; total "
        f"{usd(alt_total)}/month. Saving {usd(efs_total)} - {usd(alt_total)} = {usd(saving)}/month"
        f"{none_text}. {price_note(*quotes)}"
    )
    shared = CountedOnce("storage", ctx.index.storage_key(rec, finding.line))
    assumptions.update(
        storage=shared.resource,
        lower_bound=stream.gb_per_month is None,
        throughput_mode=mode or "not linked (Elastic assumed)",
        fsx_lustre_gb=fsx_gb,
        fsx_throughput_mb_s_per_tib=tier,
        efs_monthly_usd=efs_total,
        alternative_monthly_usd=alt_total,
        region=std.region,
        prices=quote_json(*quotes),
    )
    brief = brief_text(
        f"saves EFS {usd(efs_total)} - FSx + S3 {usd(alt_total)} for {num(size)} GB of checkpoints"
        + (" (storage only: a lower bound)" if stream.gb_per_month is None else "")
    )
    return Cost(saving, None, KIND, basis, assumptions, counted_once=shared, brief=brief)


def _s3_side(
    quotes: tuple[PriceQuote, PriceQuote | None, PriceQuote | None, PriceQuote | None],
    size: float,
    stream: Stream,
    part_mb: float,
) -> tuple[float, str, list[PriceQuote]]:
    """S3 for the checkpoint copies: Standard, or Standard-IA when cheaper despite its 30-day minimum."""
    std, std_put, ia, ia_put = quotes
    if stream.gb_per_month is None or std_put is None:
        text = (
            f"{num(size)} GB on S3 Standard x {std.rate()} = {usd(size * std.usd)} (no minimum storage "
            "duration; request charges not counted without the checkpoint stream)"
        )
        return size * std.usd, text, [std]
    w = stream.gb_per_month
    puts = w * 1024.0 / part_mb
    std_total = size * std.usd + puts / 1000.0 * std_put.usd
    std_text = (
        f"S3 Standard {num(size)} GB x {std.rate()} = {usd(size * std.usd)} + {num(round(puts))} PUTs "
        f"({num(round(w, 2))} GB in {num(part_mb)} MB parts) x {std_put.rate()} = "
        f"{usd(puts / 1000.0 * std_put.usd)}"
    )
    if ia is not None and ia_put is not None:
        billed = max(size, w * IA_MINIMUM_DAYS / DAYS_PER_MONTH)
        ia_total = billed * ia.usd + puts / 1000.0 * ia_put.usd
        if ia_total < std_total:
            text = (
                f"S3 Standard-IA {num(round(billed, 2))} GB-month (every GB written billed for its "
                f"{num(IA_MINIMUM_DAYS)}-day minimum) x {ia.rate()} + {num(round(puts))} PUTs x "
                f"{ia_put.rate()} = {usd(ia_total)} (S3 Standard would be {usd(std_total)})"
            )
            return ia_total, text, [ia, ia_put]
        std_text += (
            f" (Standard-IA would be {usd(ia_total)}: checkpoints replaced within 30 days are billed "
            f"for 30 days each)"
        )
    return std_total, std_text, [std, std_put]


RULE = Rule("FIN401", facts=(checkpoint_on_efs,), cost_model="efs-checkpoints", price=price)
