"""The user cache directory: never code, never inside the scanned tree, private when written."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from finlint import usercache


def test_the_cache_dir_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(tmp_path / "c"))
    assert usercache.cache_dir() == tmp_path / "c"
    monkeypatch.setenv("FINLINT_CACHE_DIR", "off")
    assert usercache.cache_dir() is None
    monkeypatch.delenv("FINLINT_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert usercache.cache_dir() == tmp_path / "xdg" / "finlint"


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership")
def test_a_file_others_can_write_is_not_trusted(tmp_path: Path) -> None:
    where = tmp_path / "cache"
    usercache.write_private(where, where / "x.json", b"{}")
    assert stat.S_IMODE(where.stat().st_mode) == 0o700
    assert stat.S_IMODE((where / "x.json").stat().st_mode) == 0o600
    assert usercache.trusted(where / "x.json")
    os.chmod(where / "x.json", 0o666)
    assert not usercache.trusted(where / "x.json")


def test_no_cache_module_holds_code() -> None:
    """The code and regex caches are gone: nothing finlint reads from a cache is executed."""
    src = Path(usercache.__file__).parent
    for path in src.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        needles = ("import marshal", "import pickle", "pickle.loads", "marshal.loads", "re._cache", "_sre")
        for needle in needles:
            assert needle not in text, f"{path.name} uses {needle}"
