"""The storage half of the linking pass: who uses a file system, which jobs checkpoint to a bucket.

``FileSystem.mounted_by``: training jobs (``FileSystemDataSource`` / file system mounts) and
workloads that mount it directly (EFS/FSx id or logical id / Terraform address). A mount through
a PersistentVolumeClaim is followed by :mod:`finlint.linking` as far as "is EFS"; which
file system a dynamically provisioned claim gets is not visible in code.
``Bucket.checkpoint_jobs``: training jobs whose known ``checkpoint_s3_uri`` names the bucket.
"""

from __future__ import annotations

from dataclasses import replace

from finlint.ir import Bucket, FileSystem, Mount, Record, TrainingJob, Volume


def _bucket_of(uri: object) -> str | None:
    if not isinstance(uri, str) or not uri.startswith("s3://"):
        return None
    name = uri[5:].split("/", 1)[0]
    return name or None


def link_storage(records: list[Record]) -> list[Record]:
    users: dict[str, list[str]] = {}
    checkpoints: dict[str, list[str]] = {}
    for r in records:
        mounts: tuple[Mount, ...] = ()
        if isinstance(r, TrainingJob):
            mounts = r.file_system_mounts
            bucket = _bucket_of(r.checkpoint_s3_uri)
            if bucket is not None:
                checkpoints.setdefault(bucket, []).append(r.address)
        elif isinstance(r, Volume) and r.volume_kind == "workload":
            mounts = r.mounts
        for m in mounts:
            if isinstance(m.file_system_ref, str):
                users.setdefault(m.file_system_ref, []).append(r.address)
    if not users and not checkpoints:
        return records
    out: list[Record] = []
    for r in records:
        if isinstance(r, FileSystem):
            found = [a for ref in (r.address, *r.ref_ids) for a in users.get(ref, ())]
            if found:
                r = replace(r, mounted_by=tuple(dict.fromkeys(found)))
        elif isinstance(r, Bucket) and isinstance(r.bucket_name, str) and r.bucket_name in checkpoints:
            r = replace(r, checkpoint_jobs=tuple(dict.fromkeys(checkpoints[r.bucket_name])))
        out.append(r)
    return out
