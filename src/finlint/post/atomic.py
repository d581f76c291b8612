"""Writing a report or baseline file atomically, never through a symlink (the scanned repository
may have committed one at the path): a temporary file in the same folder, renamed over the path."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from finlint.errors import ReportWriteError


def write_file(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in the same folder, renamed over
    the path, so a failure or Ctrl-C leaves the old file whole. A symlink at the path (one the
    scanned repository may have committed) is refused, not followed. Lone surrogates (a
    non-UTF-8 file name) are written as ``\\udcXX``, never a crash."""
    data = text.encode("utf-8", "backslashreplace")
    tmp: str | None = None
    try:
        if path.is_symlink():
            raise ReportWriteError(str(path), "is a symbolic link; refusing to write through it")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        with contextlib.suppress(OSError):
            os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise ReportWriteError(str(path), exc.strerror or str(exc)) from exc
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
