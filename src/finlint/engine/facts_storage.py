"""Facts about notebooks, checkpoint buckets and training file systems (FIN302, FIN402-FIN404).

Registered in :data:`finlint.engine.facts.FACTS` (imported at the end of ``facts.py``).
"""

from __future__ import annotations

import re
from typing import Any

from finlint.domain import catalog
from finlint.engine.facts import Evidence, fact
from finlint.ir import Bucket, FileSystem, Notebook, Record, Unknown, Volume, is_unknown
from finlint.untrusted import bounded


def _first_match(rx: re.Pattern[str], candidates: list[tuple[str, Any]]) -> tuple[str, str] | None:
    for field_name, value in candidates:
        if isinstance(value, str) and rx.search(bounded(value)):
            return field_name, value
    return None


# --- notebooks -------------------------------------------------------------------------------


@fact
def gpu_notebook_without_auto_stop(record: Record) -> Any:
    """Evidence that an accelerated notebook (or Studio default) has nothing that stops it when idle."""
    if not isinstance(record, Notebook):
        return None
    itype = record.instance_type
    if itype is None or is_unknown(itype):
        return itype
    spec = catalog.lookup(str(itype))
    if spec is None:
        return Unknown(f"{itype} is not in the instance catalog") if str(itype).startswith("ml.") else None
    if not (spec.accelerators or spec.gpu_name):
        return None
    idle = record.idle_shutdown
    if idle is None or idle is True:
        return None
    if isinstance(idle, Unknown):
        return idle
    line = record.line_of("idle_shutdown") or record.line_of("instance_type") or record.location.line
    if record.notebook_kind == "studio-domain":
        text = f"Studio domain defaults JupyterLab to {itype} with no idle shutdown (AppLifecycleManagement)"
    elif isinstance(record.lifecycle_config, str):
        config = record.lifecycle_config
        text = f"{itype} notebook's lifecycle configuration {config} has no idle check that stops it"
    else:
        text = f"{itype} notebook has no lifecycle configuration that stops it when idle"
    return Evidence(text, line, {"instance_type": str(itype)})


# --- checkpoint buckets ----------------------------------------------------------------------


def _effective_rules(rules: Any) -> Any:
    """Enabled rules that transition or expire objects; Unknown when the rules are unresolved."""
    if rules is None:
        return []
    if isinstance(rules, Unknown):
        return rules
    return [r for r in rules if r.enabled and (r.transitions or r.expiration_days is not None)]


@fact
def checkpoint_bucket_without_lifecycle(record: Record, pattern: str) -> Any:
    """Evidence that a bucket holding checkpoints has no rule that transitions or expires objects."""
    if not isinstance(record, Bucket):
        return None
    rx = re.compile(pattern)
    hit = _first_match(
        rx,
        [
            ("bucket_name", record.bucket_name),
            ("name", record.name),
            ("address", record.address.rsplit(".", 1)[-1]),
        ],
    )
    why: str
    if record.checkpoint_jobs:
        jobs = ", ".join(record.checkpoint_jobs[:3])
        why = f"is the checkpoint bucket of {jobs}"
    elif hit is not None:
        why = f"is named for checkpoints ('{hit[1]}')"
    else:
        return None  # an unresolved or unrelated name says nothing about checkpoints
    effective = _effective_rules(record.lifecycle_rules)
    if isinstance(effective, Unknown):
        return effective
    if effective:
        return None
    what = (
        "no lifecycle configuration"
        if not record.lifecycle_rules
        else "no enabled lifecycle rule that transitions or expires objects"
    )
    line = record.line_of("lifecycle_rules") or record.line_of("bucket_name") or record.location.line
    return Evidence(f"{why} and has {what}", line, {"checkpoint_jobs": list(record.checkpoint_jobs)})


# --- EFS provisioned throughput ---------------------------------------------------------------


def _named(record: FileSystem, rx: re.Pattern[str]) -> tuple[str, str] | None:
    candidates: list[tuple[str, Any]] = [("name", record.name), ("creation_token", record.creation_token)]
    candidates += [("tags", v) for v in record.tags.values()]
    candidates.append(("address", record.address.rsplit(".", 1)[-1].rsplit("/", 1)[-1]))
    return _first_match(rx, candidates)


@fact
def efs_provisioned_for_training(record: Record, pattern: str) -> Any:
    """Evidence that an EFS file system in provisioned throughput mode serves training."""
    if not isinstance(record, FileSystem) or record.fs_type != "efs":
        return None
    mode = record.throughput_mode
    if not isinstance(mode, str):
        return mode if is_unknown(mode) else None
    if mode.lower() != "provisioned":
        return None
    if record.mounted_by:
        why = f"mounted by {', '.join(record.mounted_by[:3])}"
    else:
        hit = _named(record, re.compile(pattern))
        if hit is None:
            return None
        why = f"named for training ('{hit[1]}')"
    mibps = record.provisioned_throughput_mibps
    amount = f"{mibps:,.0f} MiB/s " if isinstance(mibps, (int, float)) else ""
    line = record.line_of("throughput_mode") or record.location.line
    return Evidence(
        f"provisions {amount}of throughput and is {why}", line, {"mounted_by": list(record.mounted_by)}
    )


# --- scratch Lustre for checkpoints -----------------------------------------------------------


@fact
def scratch_lustre_checkpoints(record: Record, pattern: str) -> Any:
    """Evidence that checkpoints live on a SCRATCH FSx for Lustre file system with no S3 link."""
    rx = re.compile(pattern)
    if isinstance(record, FileSystem) and record.fs_type == "fsx-lustre":
        hit = _named(record, rx)
        kind = "FSx for Lustre file system"
    elif isinstance(record, Volume) and record.volume_kind == "storage-class":
        hit = _first_match(rx, [("name", record.name), ("address", record.address.rsplit("/", 1)[-1])])
        kind = "FSx for Lustre StorageClass"
    else:
        return None
    deployment = record.deployment_type
    if deployment is None and isinstance(record, FileSystem):
        # The FSx API's default deployment type is SCRATCH_1 (CreateFileSystemLustreConfiguration).
        deployment = "SCRATCH_1 (the default when no deployment type is set)"
    if not isinstance(deployment, str):
        return deployment if is_unknown(deployment) else None
    if not deployment.upper().startswith("SCRATCH") or hit is None:
        return None
    linked = record.data_repository
    if linked is None or linked is True:
        return None
    if isinstance(linked, Unknown):
        return linked
    line = record.line_of("deployment_type") or record.location.line
    return Evidence(
        f"{kind} '{hit[1]}' holds checkpoints on {deployment} with no S3 data repository or export",
        line,
        {"deployment_type": deployment},
    )
