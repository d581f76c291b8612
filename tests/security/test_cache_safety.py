"""Issue 24, hole 1 and 8: a cache a pull request (or a poisoned CI cache) plants is never code
and never trusted. The cache directory inside the checkout is the usual GitLab setting
(``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache``)."""

from __future__ import annotations

import json
import marshal
import os
import pickle
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from finlint import __version__
from finlint.context.index import CACHE_VERSION, RepoIndex
from finlint.engine.policy import builtin_policy_dir

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"


def _planted_code(marker: Path) -> bytes:
    return marshal.dumps(compile(f"open({str(marker)!r}, 'w').write('ran')", "<planted>", "exec"))


class _Planted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, ("touch planted-pickle-ran",))


def _old_policy_cache_key() -> str:
    parts = [__version__, sys.version]
    directory = builtin_policy_dir()
    parts.append(f"dir:{directory.resolve()}")
    for path in sorted(directory.rglob("*.y*ml")):
        info = path.stat()
        parts.append(f"{path}:{info.st_mtime_ns}:{info.st_size}")
    return "\n".join(parts)


def test_a_committed_cache_runs_no_code(tmp_path: Path) -> None:
    """Every name the old code, regex and policy caches used, planted in the checkout's cache
    folder: a scan runs, finds what it always finds, and executes none of it."""
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "t.yaml").write_text(TEMPLATE.read_text(encoding="utf-8"), encoding="utf-8")
    cache = repo / ".cache" / "finlint"
    cache.mkdir(parents=True)
    marker = tmp_path / "planted-code-ran"
    tag = f"{sys.implementation.cache_tag}-{zlib.crc32(sys.version.encode()):08x}"
    code = _planted_code(marker)
    (cache / f"dataclass-code-{tag}.marshal").write_bytes(marshal.dumps({"x": code}))
    (cache / f"regex-{tag}.marshal").write_bytes(code)
    key = _old_policy_cache_key()  # what the pickled policy cache was keyed by, until issue 24
    name = f"policies-{__version__}-{zlib.crc32(key.encode()):08x}.pickle"
    (cache / name).write_bytes(pickle.dumps((key, _Planted())))
    for data in ("instances.json", "pricing.json"):
        path = REPO / "src" / "finlint" / "data" / data
        info = path.stat()
        data_key = f"{path.resolve()}:{info.st_size}:{info.st_mtime_ns}:{sys.version}"
        (cache / f"data-{zlib.crc32(data_key.encode()):08x}.marshal").write_bytes(code)
    env = {**os.environ, "XDG_CACHE_HOME": str(repo / ".cache")}
    env.pop("FINLINT_CACHE_DIR", None)
    proc = subprocess.run(
        [sys.executable, "-m", "finlint", "scan", "--format", "json", "t.yaml"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 1, proc.stderr
    assert any(f["rule_id"] == "FIN201" for f in json.loads(proc.stdout)["findings"])
    assert not marker.exists()
    assert not (repo / "planted-pickle-ran").exists()
    written = sorted(p.name for p in cache.iterdir())
    assert not [n for n in written if n.startswith("context-")]  # nothing written into the checkout


def _claims_repo(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "r"
    root.mkdir()
    claims = root / "claims.yaml"
    claims.write_text(
        "kind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {storageClassName: team-shared}\n",
        encoding="utf-8",
    )
    return root, claims


def _poison(cache_file: Path, root: Path, claims: Path) -> None:
    st = claims.stat()
    cache_file.parent.mkdir(parents=True, exist_ok=True)
    entry = [[st.st_mtime_ns, st.st_size], [[], [], [], []]]  # "refers to nothing"
    cache_file.write_text(
        json.dumps({"version": CACHE_VERSION, "root": str(root), "files": {"claims.yaml": entry}})
    )


def test_a_context_cache_inside_the_repository_is_neither_read_nor_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, claims = _claims_repo(tmp_path)
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(root / ".cache"))
    index = RepoIndex(root, lambda p: False)
    assert index._cache_file() is None
    index.sniff(claims)
    index.save()
    assert not (root / ".cache").exists()


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX ownership")
def test_a_context_cache_others_can_write_is_a_miss(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, claims = _claims_repo(tmp_path)
    cache = tmp_path / "cache"
    monkeypatch.setenv("FINLINT_CACHE_DIR", str(cache))
    target = RepoIndex(root, lambda p: False)._cache_file()
    assert target is not None
    _poison(target, root, claims)
    os.chmod(target, 0o666)
    planted_ignored = RepoIndex(root, lambda p: False).sniff(claims)
    assert "team-shared" in planted_ignored.refs
    os.chmod(target, 0o600)
    os.chmod(cache, 0o700)
    assert RepoIndex(root, lambda p: False).sniff(claims).refs == ()  # our own file is used (the control)
