"""A chart copied into a private folder before anything renders it (docs/limits.md#helm).

The scanned repository is untrusted (docs/security.md): a chart may hold a symlink to
``/proc/self/environ`` or ``~/.aws/credentials`` that ``.Files.Get`` or a template would print
into the rendered output, and neither Helm's chart loader nor helm-python-sdk refuses to follow
one. So a chart is never rendered where it lies: its regular files are copied into a private
temporary folder (symlinks resolved; one that leaves the scan roots refuses the whole chart),
bounded in file count and total size, and the renderer reads only that copy.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from finlint.confine import Roots
from finlint.loaders.common.discovery import MIB, read_bytes

MAX_CHART_BYTES = 20 * MIB
MAX_CHART_FILES = 2_000
MAX_DEPTH = 32  # folders below the chart (a symlinked folder inside the roots counts too)
COPY_NAME = "chart"  # the copy's folder in the private folder; Helm names sources after Chart.yaml


class ChartRefused(Exception):
    """The chart (or one file in it) may not be rendered; ``path`` is the refused one."""

    def __init__(self, path: Path | str, why: str) -> None:
        self.path = str(path)
        self.why = why
        super().__init__(f"{self.path}: {why}")


def private_folder() -> Path:
    """A new folder only this user can read (``mkdtemp`` makes it 0700)."""
    return Path(tempfile.mkdtemp(prefix="finlint-helm-"))


def copy_chart(directory: Path, roots: Roots, into: Path) -> Path:
    """Copy the chart at ``directory`` to ``into/chart`` and return that path.

    Raises :class:`ChartRefused` when the chart folder or any file or folder in it resolves
    outside ``roots``, or the chart has more than :data:`MAX_CHART_FILES` files or
    :data:`MAX_CHART_BYTES` bytes. FIFOs, sockets, devices and dangling symlinks are skipped.
    """
    if not roots.contains(directory):
        raise ChartRefused(directory, "the chart folder resolves outside the scanned tree")
    target = into / COPY_NAME
    budget = {"files": MAX_CHART_FILES, "bytes": MAX_CHART_BYTES}
    _copy_folder(Path(os.path.realpath(directory)), directory, target, roots, budget, set(), 0)
    return target


def _copy_folder(
    real: Path, shown: Path, target: Path, roots: Roots, budget: dict[str, int], seen: set[Path], depth: int
) -> None:
    if real in seen:  # a symlink loop inside the roots: copied once
        return
    if depth > MAX_DEPTH:
        raise ChartRefused(shown, f"folders nested more than {MAX_DEPTH} deep")
    seen = {*seen, real}
    target.mkdir(mode=0o700)
    try:
        entries = sorted(os.scandir(real), key=lambda e: e.name)
    except OSError as exc:
        raise ChartRefused(shown, f"cannot list the folder ({exc.strerror or exc})") from exc
    for entry in entries:
        path, name = Path(entry.path), entry.name
        if entry.is_symlink():
            if not roots.contains(path):
                raise ChartRefused(shown / name, "a symlink that resolves outside the scanned tree")
            resolved = Path(os.path.realpath(path))
        else:
            resolved = path
        try:
            info = os.stat(resolved)
        except OSError:  # a dangling symlink
            continue
        if stat.S_ISDIR(info.st_mode):
            _copy_folder(resolved, shown / name, target / name, roots, budget, seen, depth + 1)
        elif stat.S_ISREG(info.st_mode):
            _copy_file(resolved, shown / name, target / name, budget)


def _copy_file(source: Path, shown: Path, target: Path, budget: dict[str, int]) -> None:
    budget["files"] -= 1
    if budget["files"] < 0:
        raise ChartRefused(shown.parent, f"the chart has more than {MAX_CHART_FILES:,} files")
    data = read_bytes(source, budget["bytes"])  # non-blocking, regular files only, bounded
    if isinstance(data, str):
        if "too large" in data:
            raise ChartRefused(shown, f"the chart is larger than {MAX_CHART_BYTES // MIB} MiB")
        return  # it changed under us (now a FIFO, unreadable): Helm would not read it either
    budget["bytes"] -= len(data)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
