"""The command line: click commands (:mod:`.commands`), their shared options (:mod:`.options`),
what the commands do (:mod:`.runner`), writing reports (:mod:`.outputs`) and the progress line."""

from finlint.cli.commands import main

__all__ = ["main"]
