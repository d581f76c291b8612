"""The linking pass: resolve references across the files of one scan.

Only following the chain shows "checkpoints on EFS": a workload mounts a claim by name, the
claim names a StorageClass or binds a PersistentVolume, and only that one says
``efs.csi.aws.com``. Records are immutable, so linking returns updated copies.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace
from typing import Any

from finlint.domain.places import closeness
from finlint.ir import (
    ConfigMap,
    FileSystem,
    JobQueue,
    Mount,
    Record,
    TrainingJob,
    TrainingScript,
    Unknown,
    Volume,
    is_unknown,
)
from finlint.linking.storage import link_storage

EFS_DRIVERS = ("efs.csi.aws.com",)


def _by_name(volumes: list[Volume], kind: str) -> dict[str, list[Volume]]:
    index: dict[str, list[Volume]] = {}
    for v in volumes:
        if v.volume_kind == kind and isinstance(v.name, str):
            index.setdefault(v.name, []).append(v)
        elif v.volume_kind == kind and template_key(v.name, v.location.file) is not None:
            index.setdefault(str(template_key(v.name, v.location.file)), []).append(v)
    return index


def template_key(name: Any, file: str) -> str | None:
    """A name written as template text (an unrendered ``run-${RUN_ID}-state``): the same text in
    the same directory (one file, one chart's templates) is the same name."""
    template = getattr(name, "template", None) if is_unknown(name) else None
    if not isinstance(template, str):
        return None
    return f"\0{posixpath.dirname(file)}\0{template}"


def _pick(candidates: list[Volume], namespace: Any, near: str = "") -> Volume | None:
    """Prefer the object in the same namespace (cluster-scoped objects have none), then the one
    nearest to the referring file (the same file, then the same folder: two environments or
    clusters in one repository often reuse names); the first of equals."""
    if not candidates:
        return None
    return max(candidates, key=lambda v: (v.namespace == namespace, closeness(v.location.file, near)))


def _class_is_efs(classes: dict[str, list[Volume]], name: Any, near: str = "") -> tuple[Any, tuple[str, ...]]:
    """Is the StorageClass ``name`` EFS, and the file that says so (its chain)."""
    key = name if isinstance(name, str) else template_key(name, near)
    if key is None or (not isinstance(name, str) and key not in classes):
        return (name if is_unknown(name) else None), ()
    sc = _pick(classes.get(key, []), None, near)
    if sc is None:
        return None, ()
    via = (sc.location.file,)
    if isinstance(sc.provisioner, str):
        return sc.provisioner in EFS_DRIVERS, via
    return (sc.provisioner if is_unknown(sc.provisioner) else None), via


def _chain(*parts: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f for part in parts for f in part))


def link(records: list[Record]) -> list[Record]:
    """Resolve every claim, PV and mount to EFS or not, recording the files each link came from
    (``Volume.via``, ``Mount.via``): a changed StorageClass is part of the chain of the jobs
    that mount a claim of that class (``finlint.context`` reports them)."""
    if any(isinstance(r, ConfigMap) for r in records):  # imported only then (Kubernetes helpers)
        from finlint.linking.env import link_env_from

        records = link_env_from(records)
    if any(isinstance(r, TrainingScript) for r in records):
        from finlint.linking.entrypoints import link_script_defaults

        records = link_script_defaults(records)
    if any(isinstance(r, JobQueue) or getattr(r, "launcher", None) == "aws-batch-submit" for r in records):
        from finlint.linking.batch import link_batch

        records = link_batch(records)
    volumes = [r for r in records if isinstance(r, Volume)]
    efs_files: dict[str, str] = {}
    for r in records:
        if isinstance(r, FileSystem) and r.fs_type == "efs":
            for ref in (r.address, *r.ref_ids):
                efs_files.setdefault(ref, r.location.file)
    classes = _by_name(volumes, "storage-class")

    # Every PV is linked (two PVs may share a name in different files or clusters); a claim
    # bound by volumeName sees the nearest PV of that name.
    linked: dict[int, Volume] = {}
    linked_pvs: dict[str, list[Volume]] = {}
    for items in _by_name(volumes, "pv").values():
        for pv in items:
            if pv.is_efs is None:
                is_efs, via = _class_is_efs(classes, pv.storage_class, pv.location.file)
                linked[id(pv)] = replace(pv, is_efs=is_efs, via=via)
            name = template_key(pv.name, pv.location.file) or str(pv.name)
            linked_pvs.setdefault(name, []).append(linked.get(id(pv), pv))

    # a PV reserved for a claim by its spec.claimRef (static provisioning, storageClassName "")
    reserved: dict[str, list[Volume]] = {}
    for pvs in linked_pvs.values():
        for pv in pvs:
            if isinstance(pv.claim_ref, str):
                reserved.setdefault(pv.claim_ref, []).append(pv)

    def pvc_is_efs(pvc: Volume) -> tuple[Any, tuple[str, ...]]:
        if pvc.is_efs is not None:
            return pvc.is_efs, pvc.via
        volume = template_key(pvc.volume_name, pvc.location.file) or pvc.volume_name
        if isinstance(volume, str) and volume in linked_pvs:
            pv = _pick(linked_pvs[volume], None, pvc.location.file)
            if pv is not None:
                return pv.is_efs, _chain((pv.location.file,), pv.via)
        if pvc.volume_name is None and isinstance(pvc.name, str):
            candidates = [
                pv
                for pv in reserved.get(pvc.name, [])
                if not isinstance(pv.claim_ref_namespace, str)
                or pv.claim_ref_namespace == (pvc.namespace or "default")
            ]
            pv = _pick(candidates, None, pvc.location.file)
            if pv is not None:
                return pv.is_efs, _chain((pv.location.file,), pv.via)
        return _class_is_efs(classes, pvc.storage_class, pvc.location.file)

    claims = _by_name(volumes, "pvc")

    def mount_is_efs(mount: Mount, namespace: Any, near: str) -> tuple[Any, tuple[str, ...]]:
        if mount.is_efs is not None:
            return mount.is_efs, mount.via
        if isinstance(mount.file_system_ref, str):
            ref = mount.file_system_ref
            if ref in efs_files:
                return True, (efs_files[ref],)
            return (True if ref.upper() == "EFS" else None), ()
        claim = template_key(mount.claim_name, near) or mount.claim_name
        if isinstance(claim, str) and (isinstance(mount.claim_name, str) or claim in claims):
            pvc = _pick(claims.get(claim, []), namespace, near)
            if pvc is None:
                return None, ()
            is_efs, via = pvc_is_efs(pvc)
            return is_efs, _chain((pvc.location.file,), via)
        if is_unknown(mount.claim_name):
            return Unknown("claim name is unresolved"), ()
        return None, ()

    def linked_mount(mount: Mount, namespace: Any, near: str) -> Mount:
        is_efs, via = mount_is_efs(mount, namespace, near)
        return replace(mount, is_efs=is_efs, via=via)

    out: list[Record] = []
    for r in records:
        if isinstance(r, Volume):
            if r.volume_kind == "pv":
                r = linked.get(id(r), r)
            elif r.volume_kind == "pvc":
                is_efs, via = pvc_is_efs(r)
                r = replace(r, is_efs=is_efs, via=via)
            elif r.volume_kind == "workload" and r.mounts:
                r = replace(r, mounts=tuple(linked_mount(m, r.namespace, r.location.file) for m in r.mounts))
        elif isinstance(r, TrainingJob) and r.file_system_mounts:
            r = replace(
                r,
                file_system_mounts=tuple(
                    linked_mount(m, None, r.location.file) for m in r.file_system_mounts
                ),
            )
        out.append(r)
    from finlint.linking.entrypoints import link_entry_points, link_warm_pools

    out = link_storage(link_warm_pools(link_entry_points(out)))
    if any(isinstance(r, TrainingJob) and r.placement is not None for r in out):
        from finlint.linking.landing import link_landing  # Kubernetes training jobs only

        out = link_landing(out)
    return out
