"""The user's cache directory, for the one cache finlint keeps (changed-file context sniffs, JSON).

``$FINLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/finlint``, else ``~/.cache/finlint``
(``%LOCALAPPDATA%\\finlint`` on Windows); ``FINLINT_CACHE_DIR=off`` disables it. No cache holds
code or pickles; a cache is plain data, validated when read, and never used when it lies inside
the scanned tree (``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache`` is a usual GitLab setting).
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path


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
    is read (a file another user could plant is a miss)."""
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
