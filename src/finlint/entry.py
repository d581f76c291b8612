"""The ``finlint`` command: the fastest way into the command line.

A pre-commit run checks one or a few files, so its time is mostly interpreter start and
imports. Two things keep it short: compiled dataclass methods come from the user's cache
(:mod:`finlint.codecache`), and a well-formed ``finlint scan`` command line runs without
importing click (:mod:`finlint.fastcli`, then the same :func:`finlint.runner.scan` the click
command calls). Everything else, and every command line with a mistake in it, goes to click
(:mod:`finlint.cli`), which prints help, errors and usage.
"""

from __future__ import annotations

import sys


def main() -> None:
    from finlint import codecache

    codecache.install()
    code = _fast_scan(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from finlint.cli import main as cli_main

    cli_main()


def _fast_scan(argv: list[str]) -> int | None:
    """The exit code of a scan run without click, or None when click must take the command line."""
    from finlint.fastcli import parse_scan

    parsed = parse_scan(argv)
    if parsed is None:
        return None
    params, fail_on_given = parsed
    if not fail_on_given:
        params["fail_on"] = None  # the config's, else the default
    from finlint import runner
    from finlint.errors import UsageError
    from finlint.loaders import LoaderUnavailable

    try:
        return runner.scan(**params, raw_args=argv[1:])
    except UsageError:
        return None  # found before anything was scanned or written: click prints it with the usage
    except LoaderUnavailable as exc:
        runner.fail(str(exc))
    except KeyboardInterrupt:
        print("Aborted!", file=sys.stderr)  # as click says it
        return 1
    except BrokenPipeError:
        _quiet_pipes()
        return 1


def _quiet_pipes() -> None:
    """``finlint scan | head``: the reader left; no traceback at exit (as click does)."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
