"""``finlint scan`` without click: the pre-commit case, parsed from :mod:`finlint.cli_spec`.

Importing click (and what it imports: inspect's helpers, uuid, datetime, threading, gettext)
is ~15 ms of a one-file run that takes ~100 ms. This parser accepts exactly the command lines
click would accept for ``scan`` and builds exactly the parameters click would (the same
types, defaults and last-one-wins rules; ``tests/test_fastcli.py`` compares the two on
generated command lines). Anything else returns None and the run goes to the click command,
which prints its own help, errors and usage: ``--help``, an unknown or malformed option, a
missing value, a path that does not exist, a number out of range, another command. So the
fast path never prints an error of its own; it only skips the import when nothing is wrong.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

from finlint.cli_spec import ARGUMENT, DEFAULTS, HELP_OPTIONS, OPTIONS

#: parameter -> its spec (the options of one parameter share it; --x/--no-x differ only in kind)
_BY_DEST = {spec[0]: spec for spec in OPTIONS.values()}


class _Decline(Exception):
    """Not a command line the fast path handles: click takes it."""


def parse_scan(argv: list[str]) -> tuple[dict[str, Any], bool] | None:
    """``(params, fail_on_given)`` for ``argv`` = ``["scan", ...]``, or None to let click parse."""
    if not argv or argv[0] != "scan" or os.name != "posix":  # click expands globs on Windows
        return None
    try:
        return _parse(argv[1:])
    except _Decline:
        return None


def _parse(args: list[str]) -> tuple[dict[str, Any], bool]:
    given: dict[str, list[Any]] = {}
    positional: list[str] = []
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            positional.extend(rest)
            break
        if arg in HELP_OPTIONS:
            raise _Decline
        if len(arg) > 1 and arg.startswith("-"):
            _option(arg, rest, given)
        else:
            positional.append(arg)
    params = dict(DEFAULTS)
    name, kind = ARGUMENT
    params[name] = tuple(_convert(kind, value) for value in positional)
    for dest, values in given.items():
        _, how, multiple, kind = _BY_DEST[dest]
        if how != "value":
            params[dest] = values[-1]  # a flag, or the last of --x/--no-x
            continue
        converted = [_convert(kind, v) for v in values]
        params[dest] = tuple(converted) if multiple else converted[-1]  # click: the last one wins
    return params, "fail_on" in given


def _option(arg: str, rest: list[str], given: dict[str, list[Any]]) -> None:
    """One option token (``--name``, ``--name=value``, ``-o value``, ``-ovalue``, ``-qj2``)."""
    name, eq, attached = arg.partition("=")
    # click tries every option token as a long option first; "-o" is a short one (one letter)
    if name in OPTIONS and (name.startswith("--") or len(name) > 2):
        dest, how, _, _ = OPTIONS[name]
        if how == "value":
            given.setdefault(dest, []).append(attached if eq else _next(rest))
        elif eq:
            raise _Decline  # a flag given a value: click's error
        else:
            given[dest] = [how != "off"]
        return
    if arg.startswith("--"):
        raise _Decline  # no such option
    for i, char in enumerate(arg[1:], start=1):  # short options, possibly combined
        spec = OPTIONS.get(f"-{char}")
        if spec is None:
            raise _Decline
        dest, how, _, _ = spec
        if how == "value":
            tail = arg[i + 1 :]
            given.setdefault(dest, []).append(tail if tail else _next(rest))
            return
        given[dest] = [how != "off"]


def _next(rest: list[str]) -> str:
    if not rest:
        raise _Decline  # "option requires an argument"
    return rest.pop(0)


def _convert(kind: tuple[Any, ...], value: Any) -> Any:
    """A value as click converts it, or :class:`_Decline` where click would fail."""
    if isinstance(value, bool):
        return value
    name = kind[0]
    if name == "str":
        return value
    if name == "choice":
        if value not in kind[1]:
            raise _Decline
        return value
    if name == "path":
        return _path(value, *kind[1:])
    if name in ("int", "float"):
        return _number(value, *kind)
    if name == "budget":
        from finlint.budget import parse_budget

        try:
            return parse_budget(value)
        except ValueError:
            raise _Decline from None
    raise _Decline


def _path(value: str, exists: bool, file_okay: bool, dir_okay: bool, readable: bool) -> Path:
    """click.Path: stat (following links); a missing path is fine unless it must exist."""
    try:
        info = os.stat(value)
    except OSError:
        if exists:
            raise _Decline from None
        return Path(value)
    if (not file_okay and stat.S_ISREG(info.st_mode)) or (not dir_okay and stat.S_ISDIR(info.st_mode)):
        raise _Decline
    if readable and not os.access(value, os.R_OK):
        raise _Decline
    return Path(value)


def _number(
    value: str, name: str, low: float | None, high: float | None, low_open: bool, high_open: bool
) -> int | float:
    try:
        number: int | float = int(value) if name == "int" else float(value)
    except ValueError:
        raise _Decline from None
    below = low is not None and (number <= low if low_open else number < low)
    above = high is not None and (number >= high if high_open else number > high)
    if below or above:
        raise _Decline
    return number
