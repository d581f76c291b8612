"""The user's cache directory, shared by every cache finlint keeps (never in the repository).

``$FINLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/finlint``, else ``~/.cache/finlint``
(``%LOCALAPPDATA%\\finlint`` on Windows); ``FINLINT_CACHE_DIR=off`` disables every cache.
Kept free of other finlint imports so the earliest code of a run can use it.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any


def cache_dir() -> Path | None:
    """Where the caches live, or None when disabled."""
    configured = os.environ.get("FINLINT_CACHE_DIR")
    if configured is not None:
        return None if configured.strip().lower() in ("", "0", "off", "false", "no") else Path(configured)
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "finlint"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "finlint"


def trusted(path: Path) -> bool:
    """Owned by us and not writable by anyone else (file and directory): only such a cache file
    is read, since it holds pickled or compiled objects that finlint itself wrote."""
    if not hasattr(os, "getuid"):
        return True  # Windows: the per-user LOCALAPPDATA is private
    for item in (path, path.parent):
        info = item.stat()
        if info.st_uid != os.getuid() or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return False
    return True


def write_private(where: Path, path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (a temporary file in the same directory, then a
    rename), creating the directory private to the user. Never raises: a cache is a courtesy."""
    try:
        where.mkdir(mode=0o700, parents=True, exist_ok=True)
        tmp = where / f".{path.name}.{os.getpid()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        pass


def read_marshal(path: Path) -> Any:
    """What a trusted cache file holds (:mod:`marshal`), or None (missing, foreign, broken)."""
    import marshal

    try:
        if path.is_file() and trusted(path):
            return marshal.loads(path.read_bytes())
    except Exception:  # noqa: BLE001 - a broken cache is a miss
        pass
    return None


def json_file(path: Path) -> Any:
    """The parsed JSON of one of finlint's own data files (the instance catalog, the pricing
    snapshot), from a :mod:`marshal` copy in the cache while the file is unchanged: parsing the
    48 KB of JSON was 2.6 % of a one-file run, loading the copy a third of that. The copy's key
    is the file's path, size and mtime and the Python version; anything else is a miss."""
    import json
    import marshal
    import zlib

    info = path.stat()
    key = f"{path.resolve()}:{info.st_size}:{info.st_mtime_ns}:{sys.version}"
    where = cache_dir()
    if where is None:
        return json.loads(path.read_text("utf-8"))
    cached = where / f"data-{zlib.crc32(key.encode()):08x}.marshal"
    stored = read_marshal(cached)
    if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == key:
        return stored[1]
    data = json.loads(path.read_text("utf-8"))
    write_private(where, cached, marshal.dumps((key, data)))  # JSON values always marshal
    return data
