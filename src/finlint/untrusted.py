"""Reading what the scanned repository names: its config, policies, usage, pricing and baseline files.

The repository, and so its ``.finlint.yaml``, is untrusted (docs/security.md): a file it names
may be a FIFO (opening it would block), ``/dev/zero`` (reading it never ends) or very large, and
a regex it writes may backtrack for hours on text it also wrote. So every such file is read with
:func:`read_bytes` (non-blocking open, regular files only, bounded size), and
every regex a policy or a config takes is checked by :func:`regex_problem` before it runs:

* it must compile, and be at most :data:`MAX_PATTERN_CHARS` long;
* no quantifier may repeat something that is itself repeated or an alternation (``(a+)+``,
  ``(a|aa)*``: exponential backtracking), and no backreference (``(a*)\\1``);
* at most one unbounded quantifier (``*``, ``+``, ``{n,}`` or a count over
  :data:`MAX_BOUNDED_REPEAT`), and the product of all repeat counts stays under
  :data:`MAX_REPEAT_PRODUCT` (an unbounded one counts as the text limit): ``\\s*\\s*x`` takes
  78 s on 4,096 spaces (cubic), ``\\s*x`` 0.05 s;
* and the text it runs on is at most :data:`MATCH_TEXT_LIMIT` characters (:func:`bounded`),
  so a pattern that passes runs in time linear in that bound.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

MATCH_TEXT_LIMIT = 1024
MAX_PATTERN_CHARS = 1000
MAX_BOUNDED_REPEAT = 100
MAX_REPEAT_PRODUCT = 1 << 13


class Unreadable(Exception):
    """A config-named file that was not read: a FIFO, a device, too large, not UTF-8, missing."""


def read_text(path: Path, max_bytes: int) -> str:
    """The UTF-8 text of ``path``, or :class:`Unreadable` with why not (never blocks, bounded)."""
    data = read_bytes(path, max_bytes)
    if isinstance(data, str):
        raise Unreadable(data)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise Unreadable(f"not valid UTF-8 text (line {line})") from exc


def bounded(text: str) -> str:
    """The part of an attacker-written value a policy regex runs on."""
    return text[:MATCH_TEXT_LIMIT]


def regex_problem(pattern: Any) -> str | None:
    """Why ``pattern`` may not run on untrusted text (None: it is safe to)."""
    if not isinstance(pattern, str):
        return f"expected a regular expression (a string), got {pattern!r}"
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"regular expression is longer than {MAX_PATTERN_CHARS} characters"
    try:
        re.compile(pattern)
        parsed = _parser().parse(pattern)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return f"invalid regular expression {pattern!r}: {exc}"
    state = {"unbounded": 0, "product": 1}
    why = _walk(parsed, False, state)
    if why is None and state["unbounded"] > 1:
        why = "more than one unbounded repeat (*, +, {n,})"
    if why is None and state["product"] > MAX_REPEAT_PRODUCT:
        why = "its repeat counts multiply to too many ways to match"
    if why is not None:
        return (
            f"regular expression {pattern!r} could take exponential or polynomial time: {why}; "
            "write a simpler one (bounded repeats such as {1,8} are fine)"
        )
    return None


_REPEATS = {"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _walk(items: Any, in_repeat: bool, state: dict[str, int]) -> str | None:
    """Check a parsed pattern (``re._parser`` items); ``in_repeat``: inside a repeat of more than one."""
    for op, arg in items:
        name = str(op)
        if name in _REPEATS:
            low, high, body = arg
            many = high is _MAXREPEAT or high > 1
            if in_repeat and low != high:
                return "a repeat inside a repeat, such as (a+)+"
            if high is _MAXREPEAT or high > MAX_BOUNDED_REPEAT:
                state["unbounded"] += 1
                state["product"] *= MATCH_TEXT_LIMIT
            elif high > low:
                state["product"] *= high - low + 1  # the number of counts it can try
            why = _walk(body, in_repeat or many, state)
        elif name == "BRANCH":
            if in_repeat:
                return "an alternation inside a repeat, such as (a|aa)*"
            why = None
            for branch in arg[1]:
                why = why or _walk(branch, in_repeat, state)
        elif name in ("GROUPREF", "GROUPREF_EXISTS"):
            return "a backreference"
        elif name == "SUBPATTERN":
            why = _walk(arg[-1], in_repeat, state)
        elif name in ("ASSERT", "ASSERT_NOT"):
            why = _walk(arg[1], in_repeat, state)
        elif name == "ATOMIC_GROUP":
            why = _walk(arg, in_repeat, state)
        else:
            why = None
        if why is not None:
            return why
    return None


def _parser() -> Any:
    if sys.version_info >= (3, 11):
        from re import _parser as parser
    else:  # pragma: no cover - the 3.10 name of the same module
        import sre_parse as parser
    return parser


_MAXREPEAT: Any = _parser().MAXREPEAT


def read_bytes(path: Path, max_bytes: int) -> bytes | str:
    """The file's bytes, or why it was not read (a message).

    Opened non-blocking (a FIFO cannot hang the open), checked with ``fstat`` on the open
    descriptor (regular file, size within the cap), read with a bounded read.
    """
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    )
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        return f"cannot read file: {exc.strerror or exc}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file (a FIFO, socket or device); not read"
        if info.st_size > max_bytes:
            return _too_large(info.st_size, max_bytes)
        chunks: list[bytes] = []
        remaining = max_bytes + 1
        # the first read asks for the size fstat gave (+1, to see the end): os.read allocates
        # what it is asked for, and a 1 MiB buffer per small file costs an mmap and munmap each
        want = info.st_size + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, want))
            want = 1 << 16
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        if len(data) > max_bytes:  # it grew while we read it
            return _too_large(len(data), max_bytes)
        return data
    except OSError as exc:
        return f"cannot read file: {exc.strerror or exc}"
    finally:
        os.close(fd)


def read_head(path: Path, size: int) -> bytes | None:
    """At most the first ``size`` bytes of a regular file (a sniff of its content), or None when
    it is not a regular file or cannot be read: opened non-blocking, checked with ``fstat``."""
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    )
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


MIB = 1024 * 1024


def _too_large(size: int, max_bytes: int) -> str:
    return f"file is too large to scan ({size / MIB:.1f} MiB > {max_bytes / MIB:g} MiB limit)"
