"""The indexed lookups of the cost models answer what a scan of every record answered.

The reference functions below are the scans the EFS model did per finding before pricing was
indexed (cost/efs.py): the first match in record order wins, so ties (two PVCs of one name, two
file systems sharing an id) must go to the same record. Since issue 27 a workload is sized from
its EFS claims only (never a dataset claim it also mounts) and a PV's bill is its bound claim's.
"""

from __future__ import annotations

import random
from typing import Any

from finlint.cost.index import RecordIndex
from finlint.ir import FileSystem, Location, Mount, Record, TrainingJob, Unknown, Volume, is_unknown

LOC = Location("k.yaml", 1, 9)


def known(value: Any) -> bool:
    return value is not None and not is_unknown(value)


def old_find_fs(rec: Record, records: list[Record]) -> FileSystem | None:
    if isinstance(rec, FileSystem):
        return rec
    refs: list[str] = []
    if isinstance(rec, Volume):
        refs += [v for v in (rec.efs_target, rec.file_system_ref) if isinstance(v, str)]
        refs += [m.file_system_ref for m in rec.mounts if isinstance(m.file_system_ref, str)]
    if isinstance(rec, TrainingJob):
        refs += [m.file_system_ref for m in rec.file_system_mounts if isinstance(m.file_system_ref, str)]
    for other in records:
        if isinstance(other, FileSystem) and other.fs_type == "efs":
            ids = {other.address, *other.ref_ids}
            if any(r in ids for r in refs):
                return other
    return None


def old_storage_key(rec: Record, records: list[Record]) -> str:
    if isinstance(rec, Volume) and rec.volume_kind == "workload":
        claims = {m.claim_name for m in rec.mounts if isinstance(m.claim_name, str) and m.is_efs is True}
        pvcs = [r for r in records if isinstance(r, Volume) and r.volume_kind == "pvc" and r.name in claims]
        for pvc in pvcs:
            if pvc.namespace == rec.namespace or not known(rec.namespace):
                return pvc.address
    if isinstance(rec, Volume) and rec.volume_kind == "pv" and isinstance(rec.name, str):
        for other in records:
            if isinstance(other, Volume) and other.volume_kind == "pvc" and other.volume_name == rec.name:
                return other.address
    return rec.address


def old_claim_size(rec: Record, records: list[Record]) -> tuple[float | None, str]:
    if isinstance(rec, Volume) and rec.volume_kind in ("pvc", "pv") and known(rec.capacity_gb):
        return float(rec.capacity_gb), f"the {rec.volume_kind.upper()}'s requested size"  # type: ignore[arg-type]
    if isinstance(rec, Volume) and rec.volume_kind == "workload":
        claims = {m.claim_name for m in rec.mounts if isinstance(m.claim_name, str) and m.is_efs is True}
        for other in records:
            if (
                isinstance(other, Volume)
                and other.volume_kind == "pvc"
                and other.name in claims
                and known(other.capacity_gb)
                and (other.namespace == rec.namespace or not known(rec.namespace))
            ):
                return float(other.capacity_gb), f"claim '{other.name}' requested size"  # type: ignore[arg-type]
    return None, ""


def random_records(rng: random.Random, n: int) -> list[Record]:
    """Few names and ids, so that ties (equal names, shared ids) are common."""
    names: list[Any] = ["a", "b", "c", "d", Unknown("x"), None]
    namespaces: list[Any] = ["ml", "dev", None, Unknown("ns")]
    ids = ["fs-1", "fs-2", "fs-3", "Fs", "Other"]
    sizes: list[Any] = [None, 100, 2000, Unknown("size")]
    out: list[Record] = []

    def mounts() -> tuple[Mount, ...]:
        return tuple(
            Mount(
                volume="v",
                mount_path="/ckpt",
                claim_name=rng.choice(names),
                file_system_ref=rng.choice([*ids, None, Unknown("ref")]),
                is_efs=rng.choice([True, False, None]),
            )
            for _ in range(rng.randint(0, 3))
        )

    for i in range(n):
        kind = rng.randrange(5)
        if kind == 0:
            out.append(
                FileSystem(
                    address=rng.choice(ids) if rng.random() < 0.3 else f"fs{i}",
                    location=LOC,
                    source_format="t",
                    fs_type=rng.choice(["efs", "efs", "fsx-lustre"]),
                    ref_ids=tuple(rng.sample(ids, rng.randint(0, 2))),
                )
            )
        elif kind == 4:
            out.append(
                TrainingJob(address=f"job{i}", location=LOC, source_format="t", file_system_mounts=mounts())
            )
        else:
            out.append(
                Volume(
                    address=f"vol{i}",
                    location=LOC,
                    source_format="t",
                    name=rng.choice(names),
                    namespace=rng.choice(namespaces),
                    volume_kind=rng.choice(["pvc", "pvc", "pv", "workload", "workload"]),
                    capacity_gb=rng.choice(sizes),
                    volume_name=rng.choice(names),
                    file_system_ref=rng.choice([*ids, None]),
                    efs_target=rng.choice([*ids, None, None]),
                    mounts=mounts(),
                )
            )
    return out


def test_indexed_lookups_choose_the_record_the_scan_chose() -> None:
    rng = random.Random(25)
    for _ in range(200):
        records = random_records(rng, rng.randint(0, 40))
        index = RecordIndex(records)
        for rec in records:
            assert index.efs_file_system(rec) is old_find_fs(rec, records)
            assert index.storage_key(rec) == old_storage_key(rec, records)
            assert index.claim_size(rec) == old_claim_size(rec, records)


def test_ties_go_to_the_first_record() -> None:
    first = Volume(address="PVC/ml/ckpt#1", location=LOC, source_format="k", name="ckpt", capacity_gb=10)
    second = Volume(address="PVC/ml/ckpt#2", location=LOC, source_format="k", name="ckpt", capacity_gb=20)
    pod = Volume(
        address="Job/ml/train", location=LOC, source_format="k", volume_kind="workload",
        mounts=(Mount(volume="c", mount_path="/ckpt", claim_name="ckpt", is_efs=True),
                Mount(volume="d", mount_path="/d", file_system_ref="fs-2")),
    )  # fmt: skip
    fs_a = FileSystem(address="A", location=LOC, source_format="t", ref_ids=("fs-2",))
    fs_b = FileSystem(address="B", location=LOC, source_format="t", ref_ids=("fs-2",))
    index = RecordIndex([second, fs_b, pod, first, fs_a])
    assert index.storage_key(pod) == "PVC/ml/ckpt#2"
    assert index.claim_size(pod) == (20.0, "claim 'ckpt' requested size")
    assert index.efs_file_system(pod) is fs_b
