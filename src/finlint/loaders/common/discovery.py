"""Finding the files of a scan and reading them safely.

Hostile trees must cost one notice, never the scan: an unlistable directory, a FIFO named
``*.yaml`` (opening it would block forever), a symlink to ``/dev/zero`` or ``/dev/urandom``
(reading it never ends), a file larger than the cap. So:

* discovery never follows directory symlinks (no loops) and reports each one, and each
  directory it cannot list, as a notice;
* only regular files are read: the type and size are checked with ``fstat`` on the opened
  descriptor (opened non-blocking, so a FIFO cannot hang the open), and the read itself is
  bounded to the cap plus one byte, so a file that grows or lies about its size cannot
  exhaust memory;
* a scan's own output and baseline files are skipped silently (not counted as scanned).

The limits (:class:`Limits`) are configurable: ``--max-file-mb`` / ``max-file-mb`` and
``--max-yaml-nodes`` / ``max-yaml-nodes`` (see docs/limits.md for the measurements).
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from finlint.confine import OutsideRoot, Roots
from finlint.ir import LoadError, Notice
from finlint.untrusted import read_bytes as read_bytes

MIB = 1024 * 1024
DEFAULT_MAX_FILE_BYTES = 20 * MIB
DEFAULT_MAX_YAML_NODES = 250_000

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".terraform",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".nox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "site-packages",
        ".ipynb_checkpoints",
    }
)


@dataclass(frozen=True)
class Limits:
    """How much of one file a scan will read and parse.

    ``max_file_bytes``: larger files are refused before they are read. ``max_yaml_nodes``: a
    YAML/JSON file with more nodes (scalars, mappings, sequences; counted on libyaml's event
    stream before anything is built) is refused, and so is a document whose aliases expand to
    more nodes than that (an alias bomb).
    """

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_yaml_nodes: int = DEFAULT_MAX_YAML_NODES


def display_path(path: Path, root: Path | None = None) -> str:
    """Relative to ``root`` (default: the CWD) with '/' separators; absolute when outside it."""
    try:
        rel = os.path.relpath(path if root is None else root / path, root)
    except ValueError:  # another drive on Windows
        rel = str(path)
    if rel.startswith(".."):
        rel = str(path.absolute() if root is None else (root / path).absolute())
    return rel.replace(os.sep, "/")


def excluded(path: Path, patterns: Iterable[str], root: Path | None = None) -> bool:
    patterns = list(patterns)
    if not patterns:
        return False
    text = display_path(path, root)
    return any(fnmatch.fnmatch(text, p) or fnmatch.fnmatch(path.name, p) for p in patterns)


def _same_file_key(path: Path) -> str:
    try:
        return str(path.resolve())
    except (OSError, RuntimeError):  # a symlink loop
        return str(path.absolute())


#: A directory's listing: its path, its subdirectories (the caller may prune them, as with
#: ``os.walk``) and its other entries, each with whether it is known to be a regular file
#: that is not a symlink (from the listing's file type, no ``stat``).
_Listing = tuple[str, list[os.DirEntry[str]], list[tuple[str, bool]]]


def _walk(top: str, onerror: Callable[[OSError], None]) -> Iterator[_Listing]:
    """``os.walk(top, onerror=onerror, followlinks=False)`` (top-down, the same order and the
    same errors), but with the ``DirEntry`` of each subdirectory and the file type of each
    other entry, so that regular files need no ``stat`` of their own."""
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            listing = os.scandir(directory)
        except OSError as exc:
            onerror(exc)
            continue
        dirs: list[os.DirEntry[str]] = []
        others: list[tuple[str, bool]] = []
        with listing:
            try:
                for entry in listing:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if is_dir:
                        dirs.append(entry)
                        continue
                    try:
                        regular = entry.is_file(follow_symlinks=False)
                    except OSError:
                        regular = False
                    others.append((entry.name, regular))
            except OSError as exc:  # as os.walk: a listing that fails midway yields nothing
                onerror(exc)
                continue
        yield directory, dirs, others
        stack.extend(os.path.join(directory, d.name) for d in reversed(dirs) if not d.is_symlink())


def discover(
    paths: list[Path],
    exclude: list[str],
    errors: list[LoadError],
    suffixes: tuple[str, ...],
    notices: list[Notice] | None = None,
    skip_files: Iterable[Path] = (),
    display_root: Path | None = None,
    confine_to: Roots | None = None,
    sniff: Callable[[Path], bool] | None = None,
) -> Iterator[Path]:
    """Files under ``paths`` whose name ends with one of ``suffixes``, in sorted order; with
    ``sniff``, also the files it accepts that have no extension (it reads their first bytes).

    A path that does not exist is a :class:`LoadError`. Directory symlinks are never followed
    (no loops) and, like directories that cannot be listed and files that are not regular
    files (FIFOs, sockets, devices), are reported in ``notices``. ``skip_files`` (the scan's
    own report and baseline files) are left out silently. A file symlink found in a directory
    that leads outside the scanned tree is skipped with a notice; with ``confine_to``, so is
    every path, the given ones included (the context search's paths are not the user's).
    """
    out = notices if notices is not None else []
    skip = {_same_file_key(p) for p in skip_files}
    # a regular file that is not a symlink resolves to a path with its own name: only those
    # names need resolving (resolve() costs a stat per path component)
    skip_names = {os.path.basename(key) for key in skip}
    seen: set[str] = set()
    roots = confine_to or Roots.of(paths)

    def wanted(path: Path, regular: bool = False, found: bool = False) -> bool:
        """Not one of the scan's own files, and a regular file (or a notice says what it is);
        ``regular``: the directory listing says it is one (not a symlink); ``found``: found by
        walking a directory (not named on the command line), so a symlink must stay in the tree."""
        if skip and (not regular or path.name in skip_names) and _same_file_key(path) in skip:
            return False
        if regular:
            return True
        try:
            mode = path.stat().st_mode
        except OSError:
            return True  # a dangling link or a loop: read_text says why
        if stat.S_ISREG(mode):
            if found and not roots.contains(path):  # a symlink out of the tree: never read
                shown = display_path(path, display_root)  # said as every reader says it
                out.append(Notice(shown, 1, str(OutsideRoot(shown))))
                return False
            return True
        what = (
            "a FIFO"
            if stat.S_ISFIFO(mode)
            else "a device"
            if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
            else "a socket"
            if stat.S_ISSOCK(mode)
            else "not a regular file"
        )
        out.append(Notice(display_path(path, display_root), 1, f"skipped: {what}, not a regular file"))
        return False

    for root in paths:
        try:
            is_dir = root.is_dir()
            exists = root.exists() or root.is_symlink()
        except OSError as exc:
            errors.append(
                LoadError(display_path(root, display_root), 1, f"cannot read path: {exc.strerror or exc}")
            )
            continue
        if not exists:
            errors.append(LoadError(display_path(root, display_root), 1, "no such file or directory"))
            continue
        if not is_dir:
            if not excluded(root, exclude, display_root) and wanted(root, found=confine_to is not None):
                yield root
            continue

        def unlistable(exc: OSError, root: Path = root) -> None:
            where = Path(exc.filename) if exc.filename else root
            reason = exc.strerror or str(exc)
            out.append(
                Notice(
                    display_path(where, display_root),
                    1,
                    f"cannot list directory ({reason}); its files were not scanned",
                )
            )

        for dirpath, dirs, others in _walk(os.fspath(root), unlistable):
            base = Path(dirpath)
            kept = []
            for entry in sorted(dirs, key=lambda e: e.name):
                sub = base / entry.name
                if entry.name in SKIP_DIRS or excluded(sub, exclude, display_root):
                    continue
                if entry.is_symlink():
                    out.append(
                        Notice(
                            display_path(sub, display_root),
                            1,
                            "directory symlink not followed (no loops); "
                            "scan its target directly to include it",
                        )
                    )
                    continue
                if os.path.exists(sub / "pyvenv.cfg"):  # False when unreadable
                    continue
                kept.append(entry)
            dirs[:] = kept
            for name, regular in sorted(others):
                listed = name.endswith(suffixes)
                if not listed and (sniff is None or "." in name or not regular):
                    continue
                path = base / name
                if excluded(path, exclude, display_root):
                    continue
                if not listed and sniff is not None and not sniff(path):  # no extension: its head decides
                    continue
                key = str(path)
                if key not in seen and wanted(path, regular, found=True):
                    seen.add(key)
                    yield path


def read_text(path: Path, display: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> str | LoadError:
    """The file's text, or why it cannot be scanned (binary, too large, unreadable, a loop)."""
    data = read_bytes(path, max_bytes)
    if isinstance(data, str):
        if data.startswith("file is too large"):
            data += "; raise it with --max-file-mb"
        return LoadError(display, 1, data)
    if b"\x00" in data[:8192]:
        return LoadError(display, 1, "binary file (contains NUL bytes)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return LoadError(display, line, "file is not valid UTF-8 text")


# Words that only infrastructure files a loader reads contain: CloudFormation, Kubernetes /
# Karpenter / eksctl, SageMaker API requests, Step Functions, Terraform plans, ParallelCluster
# configurations, HyperPod provisioning parameters and AWS Batch requests.
_INFRA_MARKERS = re.compile(
    r"AWSTemplateFormatVersion|\bResources\b|AWS::|\bapiVersion\b|\bkind\b|TrainingJobName|"
    r"AlgorithmSpecification|ResourceConfig|\bStartAt\b|\bStates\b|resource_changes|planned_values|"
    r"format_version|terraform_version|SlurmQueues|jobDefinitionName|computeEnvironmentName|"
    r"jobQueueName|workload_manager"
)


def claimed_by_content(text: str) -> bool:
    """Whether a file that could not be parsed looks like something a loader reads.

    Only such files are FIN000 when broken; a ``tsconfig.json`` with comments, a ``mkdocs.yml``
    with ``!!python/name:`` tags or an empty ``.json`` are not infrastructure and never fail a run.
    """
    return _INFRA_MARKERS.search(text) is not None
