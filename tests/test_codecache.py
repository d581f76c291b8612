"""Compiled dataclass methods from the user's cache: the same classes, built faster."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from finlint import codecache


def _shape() -> Any:
    @dataclasses.dataclass(frozen=True)
    class Shape:
        name: str
        sides: int = 3
        tags: tuple[str, ...] = ()
        extra: dict[str, Any] = dataclasses.field(default_factory=dict, hash=False)

    return Shape


def _methods(cls: Any) -> dict[str, tuple[Any, ...]]:
    out = {}
    for name in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
        fn = getattr(cls, name)
        code = fn.__code__
        out[name] = (code.co_code, code.co_consts, code.co_names, code.co_varnames, fn.__annotations__)
    return out


def test_cached_classes_are_the_classes_dataclasses_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = _shape()
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(tmp_path))
    codecache.install()
    try:
        first, second = _shape(), _shape()  # compiled, then from the in-memory cache
    finally:
        codecache.uninstall()
    assert _methods(first) == _methods(plain) == _methods(second)
    assert first("tri") == first("tri") and hash(first("tri")) == hash(first("tri"))
    assert repr(first("sq", 4)).endswith("Shape(name='sq', sides=4, tags=(), extra={})")
    with pytest.raises(dataclasses.FrozenInstanceError):
        first("tri").sides = 4  # type: ignore[misc]


_PROBE = """
import sys
from finlint import codecache
codecache.install()
before = len(codecache._stored)
import finlint.ir
print(before, codecache._state["new"])
"""


def _probe(cache: Path) -> tuple[int, int]:
    env = {**os.environ, "FINLINT_CACHE_DIR": str(cache)}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True, env=env
    )
    loaded, compiled = proc.stdout.split()
    return int(loaded), int(compiled)


def test_the_second_run_compiles_nothing(tmp_path: Path) -> None:
    loaded, compiled = _probe(tmp_path)
    # the IR's generated methods, compiled and saved at exit: one text per method up to Python
    # 3.12, one per class from 3.13 (the IR has more than ten dataclasses)
    assert loaded == 0 and compiled > 10
    files = list(tmp_path.glob("dataclass-code-*.marshal"))
    assert len(files) == 1 and files[0].stat().st_mode & 0o077 == 0
    first = compiled
    loaded, compiled = _probe(tmp_path)
    assert loaded >= first and compiled == 0


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_a_cache_others_can_write_or_a_broken_one_is_a_miss(tmp_path: Path) -> None:
    _probe(tmp_path)
    (cache,) = tmp_path.glob("dataclass-code-*.marshal")
    cache.chmod(0o666)
    assert _probe(tmp_path)[0] == 0  # not trusted: never read (and rewritten private)
    cache.write_bytes(b"\x00garbage")
    cache.chmod(0o600)
    assert _probe(tmp_path)[0] == 0  # unreadable: a miss, no error


def test_cache_off(tmp_path: Path) -> None:
    env = {**os.environ, "FINLINT_CACHE_DIR": "off", "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=60, check=True, env=env
    )
    assert proc.stdout.split()[0] == "0"
    assert not list(tmp_path.rglob("*.marshal"))
