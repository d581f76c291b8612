"""Errors that point at a place in a file the user wrote (config, usage file, policy): exit 2."""

from __future__ import annotations


class LocatedError(Exception):
    """``file:line: message``, the shape every tool in an editor or CI log can jump to."""

    def __init__(self, file: str, line: int, message: str) -> None:
        super().__init__(f"{file}:{line}: {message}")
        self.file = file
        self.line = line
        self.message = message
