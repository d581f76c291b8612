"""The compiled policy pack is cached in the user cache dir, keyed by the policy files."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import finlint.policy_cache as pc
from finlint.engine.policy import builtin_policy_dir


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[int]:
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(tmp_path / "cache"))
    seen: list[int] = []
    real = pc.load_policies
    monkeypatch.setattr(pc, "load_policies", lambda dirs=(): seen.append(1) or real(dirs))
    return seen


def test_second_load_comes_from_the_cache(calls: list[int], tmp_path: Path) -> None:
    first = pc.load_policies_cached()
    second = pc.load_policies_cached()
    assert calls == [1]
    assert [p.id for p in second] == [p.id for p in first] and second[0].params == first[0].params
    assert len(list((tmp_path / "cache").glob("policies-*.pickle"))) == 1
    assert not list(Path.cwd().glob("policies-*.pickle"))  # never in the repository


def test_an_edited_policy_is_a_miss(calls: list[int], tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    source = next(builtin_policy_dir().rglob("*.yaml"))
    text = source.read_text().replace("id: FIN", "id: XYZ", 1)
    name_line = next(line for line in text.splitlines() if line.startswith("name:"))
    (extra / "mine.yaml").write_text(text.replace(name_line, "name: my-copy", 1))
    ids = {p.id for p in pc.load_policies_cached([extra])}
    assert any(i.startswith("XYZ") for i in ids)
    pc.load_policies_cached([extra])
    assert calls == [1]
    (extra / "mine.yaml").write_text(text.replace(name_line, "name: my-copy-edited", 1) + "\n")
    names = {p.name for p in pc.load_policies_cached([extra])}
    assert calls == [1, 1] and "my-copy-edited" in names


def test_a_corrupt_cache_is_a_miss(calls: list[int], tmp_path: Path) -> None:
    pc.load_policies_cached()
    (cached,) = (tmp_path / "cache").glob("policies-*.pickle")
    cached.write_bytes(b"not a pickle")
    assert pc.load_policies_cached() and calls == [1, 1]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_cache_others_can_write_is_not_read(calls: list[int], tmp_path: Path) -> None:
    pc.load_policies_cached()
    (cached,) = (tmp_path / "cache").glob("policies-*.pickle")
    cached.chmod(0o666)
    pc.load_policies_cached()
    assert calls == [1, 1]


def test_disabled(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("FINLINT_CACHE_DIR", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert pc.cache_dir() is None and pc.load_policies_cached()
    assert not list(tmp_path.rglob("*.pickle"))


def test_default_location_is_the_user_cache_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("FINLINT_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform != "win32":
        assert pc.cache_dir() == tmp_path / "finlint"


def test_a_file_with_another_key_is_a_miss(calls: list[int], tmp_path: Path) -> None:
    """The file name is a checksum; the full key inside the file decides."""
    import pickle

    first = pc.load_policies_cached()
    (cached,) = (tmp_path / "cache").glob("policies-*.pickle")
    cached.write_bytes(pickle.dumps(("another key", first[:1])))
    cached.chmod(0o600)
    assert len(pc.load_policies_cached()) == len(first) and calls == [1, 1]
