"""Errors that point at a place in a file the user wrote (config, usage file, policy): exit 2."""

from __future__ import annotations


class LocatedError(Exception):
    """``file:line: message``, the shape every tool in an editor or CI log can jump to."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message


class UsageError(Exception):
    """A command-line mistake found after parsing (an unknown rule, a bad ``--var``, formats that
    would share stdout): exit 2. The click shell prints it as click prints its own usage errors
    (``param_hint`` names the option); the click-free fast path hands the run to that shell."""

    def __init__(self, message: str, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param_hint = param_hint


class ReportWriteError(Exception):
    """A report file that could not be written after the scan (exit 2)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"Could not open file {path!r}: {reason}")
        self.path = path
        self.reason = reason
