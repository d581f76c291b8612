"""FIN404 scratch-lustre-for-checkpoints: Checkpoints on a SCRATCH FSx for Lustre file system with
no S3 link.

The policy is ``policies/FIN404-scratch-lustre-for-checkpoints.yaml``; this module holds its
facts and its price."""

from __future__ import annotations

import re
from typing import Any

from finlint.engine.facts import Evidence
from finlint.ir import FileSystem, Record, Unknown, Volume, is_unknown
from finlint.rules.base import Rule
from finlint.rules.storage.names import first_match, named


def scratch_lustre_checkpoints(record: Record, pattern: str) -> Any:
    """Evidence that checkpoints live on a SCRATCH FSx for Lustre file system with no S3 link."""
    rx = re.compile(pattern)
    if isinstance(record, FileSystem) and record.fs_type == "fsx-lustre":
        hit = named(record, rx)
        kind = "FSx for Lustre file system"
    elif isinstance(record, Volume) and record.volume_kind == "storage-class":
        hit = first_match(rx, [("name", record.name), ("address", record.address.rsplit("/", 1)[-1])])
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
    )


RULE = Rule("FIN404", facts=(scratch_lustre_checkpoints,), cost_model=None, price=None)
