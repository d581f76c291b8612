"""Compiled ``@dataclass`` methods, kept across runs.

A one-file run (the pre-commit case) is mostly imports, and most of that was ``dataclasses``
compiling the source of the methods it generates: ~240 ``__init__``/``__eq__``/``__repr__``/
``__hash__``/``__setattr__`` functions for finlint's ~50 dataclasses, 33 ms of a ~100 ms run
(measured with ``bench/bench_cold_start.py``). The source text of each is fixed by the class
definition, so its compiled code object can be reused: ``install`` gives the ``dataclasses``
module an ``exec`` that compiles a source text once, remembers the code object, and runs it
exactly as the builtin would (same text, same ``<string>`` file name, no inherited
``__future__`` flags). The code objects are stored with :mod:`marshal` in the user's cache
directory (:mod:`finlint.usercache`), one file per Python build, each entry unmarshalled only
when its text comes up, and the file is written at exit only when something new was compiled.
A missing, foreign or unreadable file is a miss, never an error.

Only the command line installs it (``finlint.entry``); importing finlint as a library changes
nothing in the host process.
"""

from __future__ import annotations

import atexit
import dataclasses
import marshal
import sys
import zlib
from pathlib import Path
from types import CodeType
from typing import Any

from finlint.usercache import cache_dir, read_marshal, write_private

#: a cache that grew past this (many class shapes over many versions) keeps only this run's texts
MAX_ENTRIES = 5000

_codes: dict[str, CodeType] = {}
#: what the file holds: source text -> marshalled code, unmarshalled only when that text comes
#: up (the cache serves every command, and a scan needs about half of its entries)
_stored: dict[str, bytes] = {}
_used: set[str] = set()  # the texts this run asked for: what a cache that outgrew its cap keeps
_state: dict[str, Any] = {"path": None, "new": 0}


def _file_name() -> str:
    # marshal's format and the bytecode are per interpreter build: the name says which
    return f"dataclass-code-{sys.implementation.cache_tag}-{zlib.crc32(sys.version.encode()):08x}.marshal"


def cached_exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:
    """``exec`` for ``dataclasses``: a source text is compiled once per cache, then reused."""
    if isinstance(source, str):
        _used.add(source)
        code = _codes.get(source)
        if code is None:
            code = _load(source)
        source = code
    exec(source, globals, locals)  # noqa: S102 - the dataclasses module's own generated code


def _load(source: str) -> CodeType:
    stored = _stored.get(source)
    code = None
    if stored is not None:
        try:
            code = marshal.loads(stored)
        except (ValueError, EOFError, TypeError):
            code = None
    if not isinstance(code, CodeType):
        code = compile(source, "<string>", "exec", dont_inherit=True)
        _state["new"] += 1
    _codes[source] = code
    return code


def install() -> None:
    """Route ``dataclasses``' code generation through the cache (idempotent)."""
    if getattr(dataclasses, "exec", None) is cached_exec:
        return
    where = cache_dir()
    if where is not None:
        path = where / _file_name()
        _state["path"] = path
        _stored.update(_read(path))
        atexit.register(save)
    dataclasses.exec = cached_exec  # type: ignore[attr-defined]  # a module global shadows the builtin


def uninstall() -> None:
    """Back to the builtin ``exec`` (tests)."""
    if getattr(dataclasses, "exec", None) is cached_exec:
        del dataclasses.exec  # type: ignore[attr-defined]


def _read(path: Path) -> dict[str, bytes]:
    data = read_marshal(path)
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, bytes)}


def save() -> None:
    """Write the cache when this run compiled something it did not have."""
    path = _state["path"]
    if path is None or not _state["new"]:
        return
    entries = {**_stored, **{text: marshal.dumps(code) for text, code in _codes.items()}}
    if len(entries) > MAX_ENTRIES:
        entries = {text: entries[text] for text in _used if text in entries}
    write_private(path.parent, path, marshal.dumps(entries))
    _state["new"] = 0
