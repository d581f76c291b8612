"""What the ``finlint`` command does before anything else, so a one-file run starts fast.

Measured with callgrind instruction counts on a one-file scan (``bench/bench_cold_start.py``):

* ``dataclasses`` compiling the source of the methods it generates: ~240 functions per run
  (:mod:`finlint.codecache` keeps the compiled code in the user's cache);
* ``re`` compiling ~60 patterns, 12 ms (:mod:`finlint.regexcache` keeps their code);
* cyclic garbage collection runs over and over while ~200 modules load, finding nothing
  (:func:`pause_gc` until the scan starts, then :func:`resume_gc` freezes what was loaded);
* importing PyYAML compiles ``yaml.reader.Reader.NON_PRINTABLE``, a negated character class
  whose last range runs to U+10FFFF: 58 M instructions, two thirds of a bare interpreter
  start, for a pattern only PyYAML's pure-Python reader uses (finlint parses with libyaml).
  :func:`seed_yaml_reader_pattern` puts the same set of characters, written as the positive
  class of its complement (4 M instructions to compile), into ``re``'s cache under the original
  text, so ``yaml.reader`` gets an equivalent pattern (``tests/test_startup.py`` checks every
  code point) without compiling the slow one.

Only the command line does this; importing finlint as a library changes nothing.
"""

from __future__ import annotations

import sys

#: ``yaml.reader.Reader.NON_PRINTABLE`` as PyYAML 5.1-6.x writes it (flags 0)
YAML_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
#: the same characters: everything that is not in the class above
YAML_NON_PRINTABLE_EQUIVALENT = "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]"


_GC = {"paused": False}


def prepare() -> None:
    """All of the above, before the command imports anything else."""
    pause_gc()
    from finlint import regexcache  # first: the modules imported next compile patterns

    regexcache.install()
    from finlint import codecache  # imports dataclasses (inspect, ast, ...): after the pause

    codecache.install()
    seed_yaml_reader_pattern()


def pause_gc() -> None:
    """No cyclic garbage collection while the modules load: the ~200 modules of a run allocate
    enough to trigger it again and again, and none of it is garbage (3 % of a one-file run)."""
    import gc

    if gc.isenabled():
        gc.disable()
        _GC["paused"] = True


def resume_gc() -> None:
    """Collection back on before the scan allocates (a large tree needs it), with everything
    loaded so far frozen: later collections never walk the modules again."""
    import gc

    if _GC["paused"]:
        gc.freeze()
        gc.enable()
        _GC["paused"] = False


def seed_yaml_reader_pattern() -> bool:
    """Whether the equivalent pattern was put in ``re``'s cache (not when yaml is already
    imported, or this Python's ``re`` keeps its cache differently)."""
    import re

    cache = getattr(re, "_cache", None)
    if "yaml" in sys.modules or not isinstance(cache, dict):
        return False
    cache[(str, YAML_NON_PRINTABLE, 0)] = re.compile(YAML_NON_PRINTABLE_EQUIVALENT)
    return True
