"""Progress on stderr for long scans: ``finlint: parsing 1,234/10,000 files``.

Shown only when stderr is a terminal and ``--quiet`` is not given; CI logs and pipes stay
clean. Updates are rate-limited (10 per second) and the line is erased when the scan ends,
so the report on stdout is never interleaved with it.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Callable as ``progress(phase, done, total)``; ``close()`` erases the line."""

    def __init__(
        self, stream: TextIO | None = None, enabled: bool | None = None, interval: float = 0.1
    ) -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.interval = interval
        self._last = 0.0
        self._width = 0

    def __call__(self, phase: str, done: int = 0, total: int = 0) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done and done != total and now - self._last < self.interval:
            return
        self._last = now
        text = f"finlint: {phase}"
        if total:
            text += f" {done:,}/{total:,} files"
        self.stream.write("\r" + text.ljust(self._width))
        self.stream.flush()
        self._width = len(text)

    def close(self) -> None:
        if self.enabled and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0
