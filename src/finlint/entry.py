"""The ``finlint`` command: the fastest way into the command line.

A pre-commit run checks one or a few files, so its time is mostly interpreter start, imports
and interpreter shutdown. Three things keep it short:

* :mod:`finlint.startup`: compiled dataclass methods from the user's cache, and no slow
  PyYAML pattern to compile;
* a well-formed ``finlint scan`` command line runs without importing click
  (:mod:`finlint.fastcli`, then the same :func:`finlint.runner.scan` the click command calls).
  Everything else, and every command line with a mistake in it, goes to click
  (:mod:`finlint.cli`), which prints help, errors and usage;
* the process ends with ``os._exit`` once the exit handlers have run and the output is flushed:
  tearing down ~200 modules one by one costs ~12 ms and has nothing left to do.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    """The console script."""
    _exit(run(sys.argv[1:]))


def run(argv: list[str]) -> int:
    """The exit code of ``finlint ARGV`` (in this process; nothing exits)."""
    from finlint import startup

    startup.prepare()
    code = _fast_scan(argv)
    if code is not None:
        return code
    from finlint.cli import main as cli_main

    try:
        cli_main(args=argv, prog_name="finlint")
    except SystemExit as exc:
        return _code(exc.code)
    return 0


def _code(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    print(value, file=sys.stderr)  # sys.exit("message"), as the interpreter would
    return 1


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
    except SystemExit as exc:
        return _code(exc.code)
    except LoaderUnavailable as exc:
        print(f"finlint: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("Aborted!", file=sys.stderr)  # as click says it
        return 1
    except BrokenPipeError:  # `finlint scan | head`: the reader left; exit 1, no traceback (as click)
        _quiet_stdout()
        return 1


def _quiet_stdout() -> None:
    """Whatever is still buffered for a closed pipe goes nowhere (the final flush cannot fail)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _exit(code: int) -> None:
    """Run the exit handlers, flush, and end the process without tearing down every module."""
    import atexit

    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if run_handlers is None:  # not CPython: the ordinary way out
        sys.exit(code)
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader left: no traceback
            _quiet_stdout()
            code = code or 1
        except (OSError, ValueError):
            pass
    os._exit(code)
