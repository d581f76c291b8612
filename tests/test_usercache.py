"""finlint's own data files through the user cache: the same data, re-read when the file changes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from finlint import usercache


def test_a_data_file_is_the_same_data_from_the_cache_and_changes_with_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(tmp_path / "cache"))
    data = tmp_path / "prices.json"
    data.write_text(json.dumps({"a": [1, 2.5, None, True, "x"], "b": {"c": "d"}}))
    first = usercache.json_file(data)
    (copy,) = (tmp_path / "cache").glob("data-*.marshal")
    assert usercache.json_file(data) == first == json.loads(data.read_text())
    data.write_text(json.dumps({"a": 2}))
    os.utime(data, ns=(1, 1))  # a new mtime whatever the clock's resolution
    assert usercache.json_file(data) == {"a": 2}
    copy.write_bytes(b"broken")
    assert usercache.json_file(data) == {"a": 2}  # a broken copy is a miss


def test_cache_off_reads_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINLINT_CACHE_DIR", "off")
    data = tmp_path / "d.json"
    data.write_text('{"k": 1}')
    assert usercache.json_file(data) == {"k": 1}
