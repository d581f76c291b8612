"""The linking pass: resolve references across the files of one scan.

Only following the chain shows "checkpoints on EFS": a workload mounts a claim by name, the
claim names a StorageClass or binds a PersistentVolume, and only that one says
``efs.csi.aws.com``. Records are immutable, so linking returns updated copies.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from finlint.ir import FileSystem, Mount, Record, TrainingJob, Unknown, Volume, is_unknown

EFS_DRIVERS = ("efs.csi.aws.com",)


def _by_name(volumes: list[Volume], kind: str) -> dict[str, list[Volume]]:
    index: dict[str, list[Volume]] = {}
    for v in volumes:
        if v.volume_kind == kind and isinstance(v.name, str):
            index.setdefault(v.name, []).append(v)
    return index


def _pick(candidates: list[Volume], namespace: Any) -> Volume | None:
    """Prefer the object in the same namespace; cluster-scoped objects have none."""
    if not candidates:
        return None
    for v in candidates:
        if v.namespace == namespace:
            return v
    return candidates[0]


def _class_is_efs(classes: dict[str, list[Volume]], name: Any) -> Any:
    if not isinstance(name, str):
        return name if is_unknown(name) else None
    sc = _pick(classes.get(name, []), None)
    if sc is None:
        return None
    if isinstance(sc.provisioner, str):
        return sc.provisioner in EFS_DRIVERS
    return sc.provisioner if is_unknown(sc.provisioner) else None


def link(records: list[Record]) -> list[Record]:
    volumes = [r for r in records if isinstance(r, Volume)]
    efs_ids = {
        ref
        for r in records
        if isinstance(r, FileSystem) and r.fs_type == "efs"
        for ref in (r.address, *r.ref_ids)
    }
    classes = _by_name(volumes, "storage-class")

    # Every PV is linked (two PVs may share a name in different files or clusters); a claim
    # bound by volumeName sees the first PV of that name.
    linked: dict[int, Volume] = {}
    linked_pvs: dict[str, Volume] = {}
    for items in _by_name(volumes, "pv").values():
        for pv in items:
            if pv.is_efs is None:
                linked[id(pv)] = replace(pv, is_efs=_class_is_efs(classes, pv.storage_class))
            linked_pvs.setdefault(str(pv.name), linked.get(id(pv), pv))

    def pvc_is_efs(pvc: Volume) -> Any:
        if pvc.is_efs is not None:
            return pvc.is_efs
        if isinstance(pvc.volume_name, str) and pvc.volume_name in linked_pvs:
            return linked_pvs[pvc.volume_name].is_efs
        return _class_is_efs(classes, pvc.storage_class)

    claims = _by_name(volumes, "pvc")

    def mount_is_efs(mount: Mount, namespace: Any) -> Any:
        if mount.is_efs is not None:
            return mount.is_efs
        if isinstance(mount.file_system_ref, str):
            ref = mount.file_system_ref
            return True if ref in efs_ids or ref.upper() == "EFS" else None
        if isinstance(mount.claim_name, str):
            pvc = _pick(claims.get(mount.claim_name, []), namespace)
            return pvc_is_efs(pvc) if pvc is not None else None
        if is_unknown(mount.claim_name):
            return Unknown("claim name is unresolved")
        return None

    out: list[Record] = []
    for r in records:
        if isinstance(r, Volume):
            if r.volume_kind == "pv":
                r = linked.get(id(r), r)
            elif r.volume_kind == "pvc":
                r = replace(r, is_efs=pvc_is_efs(r))
            elif r.volume_kind == "workload" and r.mounts:
                r = replace(
                    r, mounts=tuple(replace(m, is_efs=mount_is_efs(m, r.namespace)) for m in r.mounts)
                )
        elif isinstance(r, TrainingJob) and r.file_system_mounts:
            r = replace(
                r,
                file_system_mounts=tuple(
                    replace(m, is_efs=mount_is_efs(m, None)) for m in r.file_system_mounts
                ),
            )
        out.append(r)
    return out
