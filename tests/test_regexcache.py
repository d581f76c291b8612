"""Compiled regular expressions from the user's cache: the patterns ``re`` would compile."""

from __future__ import annotations

import json
import marshal
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ONE_FILE = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"

#: a process that starts as the command does and reports what re's cache holds
_PROBE = """
import json, re, sys
from finlint import regexcache, startup
startup.prepare()
seeded = sorted(repr(k[1]) for k in regexcache._state["seeded"])
from finlint.entry import run
code = run(["scan", sys.argv[1], "--format", "json", "-o", sys.argv[2], "--exit-zero"])
regexcache.save()
same = []
for (kind, pattern, flags), compiled in list(re._cache.items()):
    if compiled.pattern == pattern and not flags & re.DEBUG:
        re.purge()  # compile it afresh: the seeded object must equal what re makes
        same.append(compiled == re.compile(pattern, flags))
print(json.dumps({"seeded": len(seeded), "code": code, "all_equal": all(same), "checked": len(same)}))
"""


def _probe(cache: Path, tmp_path: Path, name: str) -> dict[str, object]:
    env = {**os.environ, "FINLINT_CACHE_DIR": str(cache)}
    out = tmp_path / f"{name}.json"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, str(ONE_FILE), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    assert done.stderr == ""
    result: dict[str, object] = json.loads(done.stdout)
    result["report"] = json.loads(out.read_text())["findings"]
    return result


def test_a_second_run_gets_every_pattern_from_the_cache_and_they_equal_res(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _probe(cache, tmp_path, "first")
    assert first["seeded"] == 0 and list(cache.glob("regex-code-*.marshal"))
    second = _probe(cache, tmp_path, "second")
    assert isinstance(second["seeded"], int) and second["seeded"] >= 30  # finlint's, PyYAML's, the stdlib's
    assert second["all_equal"] is True and second["checked"] >= second["seeded"]  # type: ignore[operator]
    assert second["report"] == first["report"] and first["code"] == second["code"] == 0


def test_a_broken_or_tampered_cache_is_a_miss(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _probe(cache, tmp_path, "fill")
    (path,) = cache.glob("regex-code-*.marshal")
    entries = marshal.loads(path.read_bytes())
    pattern, flags, final, code, groups, groupindex, indexgroup = entries[0]
    bad = [(pattern, flags, final, [9999, *code], groups, groupindex, indexgroup), ("x", "not a flag")]
    path.write_bytes(marshal.dumps(bad + entries[1:]))
    os.chmod(path, 0o600)
    assert _probe(cache, tmp_path, "tampered")["all_equal"] is True  # the bad entry was not used
    path.write_bytes(b"\x00garbage")
    os.chmod(path, 0o600)
    result = _probe(cache, tmp_path, "garbage")
    assert result["seeded"] == 0 and result["code"] == 0


def test_a_pattern_put_in_res_cache_under_another_text_is_not_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """startup puts an equivalent of PyYAML's slowest pattern under that pattern's text: the
    cache must not compile the slow one to store it, nor store the equivalent under its name."""
    from finlint import regexcache, startup

    monkeypatch.setenv("FINLINT_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(regexcache, "_state", {"path": None, "seeded": frozenset()})
    monkeypatch.setattr(regexcache, "_stored", {})
    monkeypatch.setattr(re, "_cache", {})
    regexcache.install()
    re._cache[(str, startup.YAML_NON_PRINTABLE, 0)] = re.compile(startup.YAML_NON_PRINTABLE_EQUIVALENT)
    re.compile(r"finlint-test-(\d+)-(?P<name>\w+)", re.IGNORECASE)
    regexcache.save()
    (path,) = tmp_path.glob("regex-code-*.marshal")
    stored = {(p, f) for p, f, *_ in marshal.loads(path.read_bytes())}
    assert (r"finlint-test-(\d+)-(?P<name>\w+)", int(re.IGNORECASE)) in stored
    assert (startup.YAML_NON_PRINTABLE, 0) not in stored


def test_importing_finlint_leaves_res_cache_alone() -> None:
    code = "import re, finlint.scan, finlint.regexcache as r; print(r._state['path'] is None)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "True"
