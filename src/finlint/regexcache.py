"""Compiled regular expressions, kept across runs.

A one-file scan compiles ~60 patterns (finlint's own, PyYAML's resolvers, the standard
library's): 12 ms of a 72 ms run, the largest share after the imports themselves. ``re``
compiles a pattern in two steps, parsing it in Python and turning the parse into a list of
integers (the pattern's code), then hands that list to ``_sre.compile``, which is fast. This
module stores each pattern's code (and what ``_sre.compile`` takes with it) with :mod:`marshal`
in the user's cache directory, one file per Python build and ``_sre`` version, and at start
puts ``_sre.compile``'s patterns into ``re``'s own cache under the keys ``re`` looks up, so
``re.compile`` finds them there. ``_sre.compile`` checks the code it is given, and a stored
entry is only written after the pattern it makes was compared equal (text, flags and code) to
the one ``re`` compiled. A missing, foreign or unreadable file is a miss, never an error.

Only the command line installs it (``finlint.entry``); importing finlint as a library changes
nothing in the host process.
"""

from __future__ import annotations

import _sre
import atexit
import marshal
import re
import sys
import zlib
from contextlib import suppress
from pathlib import Path
from typing import Any

from finlint.usercache import cache_dir, read_marshal, write_private

#: a cache that grew past this keeps only what this run used
MAX_ENTRIES = 2000

#: what is stored per pattern: (pattern, flags) -> _sre.compile's other arguments
Entry = tuple[int, list[int], int, dict[str, int], tuple[str | None, ...]]
_stored: dict[tuple[str | bytes, int], Entry] = {}
_state: dict[str, Any] = {"path": None, "seeded": frozenset()}


def _file_name() -> str:
    tag = f"{sys.implementation.cache_tag}-{zlib.crc32(sys.version.encode()):08x}-{_sre.MAGIC}"
    return f"regex-code-{tag}.marshal"


def install() -> int:
    """Seed ``re``'s cache from the file; how many patterns it got (idempotent)."""
    cache = getattr(re, "_cache", None)
    if not isinstance(cache, dict) or _state["path"] is not None:
        return 0
    where = cache_dir()
    if where is None:
        return 0
    path = where / _file_name()
    _state["path"] = path
    _stored.update(_read(path))
    seeded = set()
    for (pattern, flags), (final, code, groups, groupindex, indexgroup) in _stored.items():
        key = (type(pattern), pattern, flags)
        if key in cache:
            continue
        try:
            cache[key] = _sre.compile(pattern, final, code, groups, groupindex, indexgroup)
        except Exception:  # noqa: BLE001 - code _sre rejects is a miss
            continue
        seeded.add(key)
    _state["seeded"] = frozenset(seeded)
    atexit.register(save)
    return len(seeded)


def _read(path: Path) -> dict[tuple[str | bytes, int], Entry]:
    data = read_marshal(path)
    if not isinstance(data, list):
        return {}
    entries: dict[tuple[str | bytes, int], Entry] = {}
    for item in data:
        if _well_formed(item):
            pattern, flags, *rest = item
            entries[(pattern, flags)] = tuple(rest)
    return entries


def _well_formed(item: object) -> bool:
    if not (isinstance(item, tuple) and len(item) == 7):
        return False
    pattern, flags, final, code, groups, groupindex, indexgroup = item
    return (
        isinstance(pattern, (str, bytes))
        and all(isinstance(n, int) for n in (flags, final, groups))
        and isinstance(code, list)
        and isinstance(groupindex, dict)
        and isinstance(indexgroup, tuple)
    )


def entry(pattern: str | bytes, flags: int) -> Entry:
    """What ``re`` gives ``_sre.compile`` for this pattern (its own two steps, as it runs them)."""
    if sys.version_info >= (3, 11):
        from re import _compiler, _parser
    else:  # pragma: no cover - the 3.10 names of the same modules
        import sre_compile as _compiler
        import sre_parse as _parser
    parsed: Any = _parser.parse(pattern, flags)  # type: ignore[arg-type]  # bytes too
    code = _compiler._code(parsed, flags)  # type: ignore[attr-defined]  # re's own second step
    groupindex = dict(parsed.state.groupdict)
    indexgroup: list[str | None] = [None] * parsed.state.groups
    for name, index in groupindex.items():
        indexgroup[index] = name
    final = int(flags | parsed.state.flags)
    # the opcodes are int subclasses (named constants): plain ints for marshal
    return final, [int(op) for op in code], int(parsed.state.groups - 1), groupindex, tuple(indexgroup)


def save() -> None:
    """Write the file when this run compiled patterns it did not have (never raises: it runs
    at exit, where a traceback would be noise)."""
    with suppress(Exception):  # a cache that cannot be written is a miss next time
        _save()


def _save() -> None:
    path = _state["path"]
    cache = getattr(re, "_cache", None)
    if path is None or not isinstance(cache, dict):
        return
    new: dict[tuple[str | bytes, int], Entry] = {}
    for key, compiled in list(cache.items()):
        if key in _state["seeded"] or not isinstance(compiled, re.Pattern):
            continue
        kind, pattern, flags = key
        if compiled.pattern != pattern:  # put there under another text (startup's PyYAML pattern)
            continue
        if (pattern, flags) in _stored or flags & re.DEBUG or kind not in (str, bytes):
            continue
        try:
            made = entry(pattern, flags)
            if _sre.compile(pattern, *made) != compiled:  # not what re made: not kept
                continue
        except Exception:  # noqa: BLE001 - a pattern this cannot redo is not kept
            continue
        new[(pattern, int(flags))] = made
    if not new:
        return
    entries = {**_stored, **new}
    if len(entries) > MAX_ENTRIES:
        used = {(k[1], k[2]) for k in cache}
        entries = {k: v for k, v in entries.items() if k in used}
    write_private(path.parent, path, marshal.dumps([(p, f, *rest) for (p, f), rest in entries.items()]))
    _stored.update(new)
