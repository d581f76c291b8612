"""A cache of the compiled policy pack, so a one-file pre-commit run does not re-parse it.

Parsing and checking the policy YAML costs ~17 ms per run; unpickling the compiled pack
~0.3 ms. The cache lives in the user's cache directory (``$FINLINT_CACHE_DIR``, else
``$XDG_CACHE_HOME/finlint``, else ``~/.cache/finlint``; ``%LOCALAPPDATA%\\finlint`` on Windows),
never in the repository. Its key is the finlint and Python versions plus the path, mtime and
size of every policy file, so an edited, added or removed policy is a miss. Set
``FINLINT_CACHE_DIR=off`` to disable it.

Only a cache file the current user owns, in a directory only they can write, is read (the
file is a pickle, written by finlint itself); anything unreadable or stale is a miss, never
an error.
"""

from __future__ import annotations

import pickle
import sys
import zlib
from pathlib import Path
from typing import Iterable

from finlint import __version__
from finlint.engine import Policy, load_policies
from finlint.engine.policy import builtin_policy_dir
from finlint.usercache import cache_dir, trusted, write_private

__all__ = ["cache_dir", "cache_key", "load_policies_cached"]


def cache_key(extra_dirs: Iterable[Path] = ()) -> str:
    """finlint and Python versions + every policy file's path, mtime and size."""
    parts = [__version__, sys.version]
    for directory in [builtin_policy_dir(), *(Path(d) for d in extra_dirs)]:
        parts.append(f"dir:{directory.resolve()}")
        for path in sorted(directory.rglob("*.y*ml")) if directory.is_dir() else []:
            info = path.stat()
            parts.append(f"{path}:{info.st_mtime_ns}:{info.st_size}")
    return "\n".join(parts)


def _file_name(key: str) -> str:
    # crc32 only names the file (zlib is already loaded; hashlib costs ~2 ms of imports); the
    # full key is stored in the file and compared, so a collision is a miss, never a wrong pack
    return f"policies-{__version__}-{zlib.crc32(key.encode()):08x}.pickle"


def load_policies_cached(extra_dirs: Iterable[Path] = ()) -> list[Policy]:
    """:func:`finlint.engine.load_policies`, from the cache when nothing changed."""
    dirs = list(extra_dirs)
    where = cache_dir()
    if where is None:
        return load_policies(dirs)
    try:
        key = cache_key(dirs)
    except OSError:
        return load_policies(dirs)
    path = where / _file_name(key)
    try:
        if path.is_file() and trusted(path):
            stored_key, cached = pickle.loads(path.read_bytes())
            if stored_key == key and isinstance(cached, list) and all(isinstance(p, Policy) for p in cached):
                return cached
    except Exception:  # noqa: BLE001 - a broken cache is a miss
        pass
    policies = load_policies(dirs)  # errors (PolicyError) propagate, and nothing is cached
    _store(where, path, key, policies)
    return policies


def _store(where: Path, path: Path, key: str, policies: list[Policy]) -> None:
    try:
        data = pickle.dumps((key, policies), protocol=pickle.HIGHEST_PROTOCOL)
        if where.is_dir():
            packs = sorted(where.glob("policies-*.pickle"), key=lambda p: p.stat().st_mtime)
            for old in packs[: max(0, len(packs) - 15)]:  # keep the 15 newest (projects, policy dirs)
                old.unlink(missing_ok=True)
    except (OSError, pickle.PicklingError):
        return
    write_private(where, path, data)
