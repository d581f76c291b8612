"""The ``finlint`` console script and ``python -m finlint``: the click command line."""

from __future__ import annotations

from finlint.cli import main as _cli


def main() -> None:
    """The console script."""
    _cli(prog_name="finlint")
