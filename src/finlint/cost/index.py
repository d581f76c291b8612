"""The scan's records indexed once for the cost models: lookups by name and id, not scans.

A cost model asks, per finding, for the record behind it (the EFS file system a volume mounts,
the claim a workload mounts). Scanning every record per finding made pricing quadratic in the
size of the repository; :class:`RecordIndex` builds each table on first use, once per run, and
answers in the time of the candidates a name has. Every answer is the one the scan gave: the
first matching record in record order (candidates keep their position, ties go to the first).
"""

from __future__ import annotations

import heapq
from typing import Callable, Iterable, Iterator

from finlint.ir import FileSystem, Record, TrainingJob, Volume, is_unknown


def _known(value: object) -> bool:
    return value is not None and not is_unknown(value)


class RecordIndex:
    """Records by what the cost models look them up by; each table is built on first use."""

    def __init__(self, records: list[Record]) -> None:
        self._records = records
        self._efs: dict[str, tuple[int, FileSystem]] | None = None
        self._pvcs: dict[str, list[tuple[int, Volume]]] | None = None
        self._bound: dict[str, Volume] | None = None

    # -- tables ---------------------------------------------------------------------------

    def _efs_by_id(self) -> dict[str, tuple[int, FileSystem]]:
        """Every id of an EFS file system (address, ref ids) -> its first such record."""
        if self._efs is None:
            table: dict[str, tuple[int, FileSystem]] = {}
            for pos, rec in enumerate(self._records):
                if isinstance(rec, FileSystem) and rec.fs_type == "efs":
                    for ident in (rec.address, *rec.ref_ids):
                        if isinstance(ident, str):
                            table.setdefault(ident, (pos, rec))
            self._efs = table
        return self._efs

    def _pvcs_by_name(self) -> dict[str, list[tuple[int, Volume]]]:
        """Claim name -> the PVC records of that name, in record order."""
        if self._pvcs is None:
            table: dict[str, list[tuple[int, Volume]]] = {}
            for pos, rec in enumerate(self._records):
                if isinstance(rec, Volume) and rec.volume_kind == "pvc" and isinstance(rec.name, str):
                    table.setdefault(rec.name, []).append((pos, rec))
            self._pvcs = table
        return self._pvcs

    def _claims_by_volume_name(self) -> dict[str, Volume]:
        """PV name -> the first PVC bound to it by ``spec.volumeName``."""
        if self._bound is None:
            table: dict[str, Volume] = {}
            for rec in self._records:
                if isinstance(rec, Volume) and rec.volume_kind == "pvc" and isinstance(rec.volume_name, str):
                    table.setdefault(rec.volume_name, rec)
            self._bound = table
        return self._bound

    def _claims(self, names: Iterable[str]) -> Iterator[Volume]:
        """The PVCs named by any of ``names``, in record order (each once)."""
        table = self._pvcs_by_name()
        lists = [table[n] for n in dict.fromkeys(names) if n in table]
        for _, pvc in heapq.merge(*lists, key=_position):
            yield pvc

    # -- lookups --------------------------------------------------------------------------

    def efs_file_system(self, rec: Record) -> FileSystem | None:
        """The EFS FileSystem record behind a finding's record, when linking found one."""
        if isinstance(rec, FileSystem):
            return rec
        refs: list[str] = []
        if isinstance(rec, Volume):
            refs += [v for v in (rec.efs_target, rec.file_system_ref) if isinstance(v, str)]
            refs += [m.file_system_ref for m in rec.mounts if isinstance(m.file_system_ref, str)]
        if isinstance(rec, TrainingJob):
            refs += [m.file_system_ref for m in rec.file_system_mounts if isinstance(m.file_system_ref, str)]
        table = self._efs_by_id()
        hits = [table[r] for r in refs if r in table]
        return min(hits, key=_position)[1] if hits else None

    def storage_key(self, rec: Record, line: int | None = None) -> str:
        """The storage object a finding's money is really about: a workload's EFS claim (the one
        mounted at ``line`` first), a PV's bound claim (``spec.volumeName``), else itself."""
        if isinstance(rec, Volume) and rec.volume_kind == "workload":
            for claims in _efs_claims(rec, line):
                pvc = self._first_claim(rec, claims, lambda pvc: True)
                if pvc is not None:
                    return pvc.address
        if isinstance(rec, Volume) and rec.volume_kind == "pv" and isinstance(rec.name, str):
            bound = self._claims_by_volume_name().get(rec.name)
            if bound is None and isinstance(rec.claim_ref, str):  # the claim its claimRef reserves it for
                bound = next(
                    (
                        pvc
                        for pvc in self._claims([rec.claim_ref])
                        if pvc.volume_name is None
                        and (
                            not isinstance(rec.claim_ref_namespace, str)
                            or rec.claim_ref_namespace == (pvc.namespace or "default")
                        )
                    ),
                    None,
                )
            if bound is not None:
                return bound.address
        return rec.address

    def claim_size(self, rec: Record, line: int | None = None) -> tuple[float | None, str]:
        """The checkpoint volume's requested size: the PVC or PV itself, or the EFS claim a
        workload mounts (the one mounted at ``line``, the finding's, first); never the size of
        another claim the workload mounts (a dataset volume)."""
        if isinstance(rec, Volume) and rec.volume_kind in ("pvc", "pv") and _known(rec.capacity_gb):
            return float(rec.capacity_gb), f"the {rec.volume_kind.upper()}'s requested size"  # type: ignore[arg-type]
        if isinstance(rec, Volume) and rec.volume_kind == "workload":
            for claims in _efs_claims(rec, line):
                pvc = self._first_claim(rec, claims, lambda pvc: _known(pvc.capacity_gb))
                if pvc is not None:
                    return float(pvc.capacity_gb), f"claim '{pvc.name}' requested size"  # type: ignore[arg-type]
        return None, ""

    def _first_claim(self, rec: Volume, claims: list[str], ok: Callable[[Volume], bool]) -> Volume | None:
        """The first PVC (record order) named in ``claims`` in the workload's namespace (any
        namespace when the workload's is not known) for which ``ok`` holds."""
        for pvc in self._claims(claims):
            if ok(pvc) and (pvc.namespace == rec.namespace or not _known(rec.namespace)):
                return pvc
        return None


def _efs_claims(rec: Volume, line: int | None) -> list[list[str]]:
    """The claims of a workload's EFS mounts to try in turn: the one mounted at ``line`` (the
    finding's), then all of them."""
    claims = [m.claim_name for m in rec.mounts if isinstance(m.claim_name, str) and m.is_efs is True]
    at_line = [m.claim_name for m in rec.mounts if m.line == line and m.claim_name in claims]
    return [[c for c in at_line if isinstance(c, str)], claims] if at_line else [claims]


def _position(entry: tuple[int, Record]) -> int:
    return entry[0]
