"""The repository side of changed-file context: its root, and a cheap sniff of each candidate
file (what it defines and refers to), cached per repository under the user's cache directory.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from finlint.confine import inside
from finlint.loaders.common.discovery import SKIP_DIRS
from finlint.usercache import cache_dir, trusted, write_private  # FINLINT_CACHE_DIR; off disables

STRUCTURED = (".yaml", ".yml", ".json")
PYTHON = (".py", ".ipynb")
MAX_SNIFF_BYTES = 2 * 1024 * 1024
#: A context search reads at most this much (uncached) or for this long, then stops with a notice:
#: a file passed from a huge folder outside any repository must not cost minutes (a pre-commit run
#: inside a repository stays far below both: 2,000 files sniff in ~40 ms).
MAX_SNIFF_TOTAL_BYTES = 64 * 1024 * 1024
MAX_SNIFF_SECONDS = 3.0
MAX_CLOSURE_ROUNDS = 16
#: 3: a Sniff records a Python file's imports
CACHE_VERSION = 3
#: the SDK loader resolves an import from the importer's folder or a base up to this many folders
#: above it (``sagemaker_sdk.sources.MAX_PARENT_LEVELS``)
MAX_IMPORT_LEVELS = 3
#: import names kept per file (a generated module must not bloat the cache)
MAX_IMPORTS = 256
#: a repository with more candidate files than this is only partly searched for context (a
#: file outside any repository whose folder is a home directory must not walk all of it)
MAX_CANDIDATES = 50_000

_DOC_SPLIT = re.compile(r"^---[ \t]*$", re.MULTILINE)
_KIND = re.compile(r"""(?:^|[\s{,])["']?kind["']?[ \t]*:[ \t]*["']?([A-Za-z]+)""", re.MULTILINE)
_NAME = re.compile(r"""(?:^|[\s{,\-])["']?name["']?[ \t]*:[ \t]*["']?([\w.\-/]+)""", re.MULTILINE)
_REF = re.compile(
    r"""["']?(?:claimName|storageClassName|volumeName|volume\.beta\.kubernetes\.io/storage-class)["']?"""
    r"""[ \t]*:[ \t]*["']?([\w.\-/]+)""",
)
STORAGE_KINDS = frozenset({"StorageClass", "PersistentVolume", "PersistentVolumeClaim"})
# Kubernetes storage through the Terraform kubernetes provider (``kubernetes_*`` resources)
_TF_STORAGE = re.compile(r'resource\s+"kubernetes_(?:storage_class|persistent_volume)')  # PVs and claims too
_TF_NAME = re.compile(r'\bname\s*=\s*"([\w.\-/]+)"')
_TF_REF = re.compile(r'\b(?:claim_name|storage_class_name|volume_name)\s*=\s*"([\w.\-/]+)"')
MODULE_SOURCE = re.compile(r"""^\s*source\s*=\s*"(\.{1,2}/[^"]*)\"""", re.MULTILINE)
# Python imports: after a line start, blank, ``;`` or the quote opening a notebook's JSON source
# line (``"from helpers import X\n"``); names stop at a line end or the ``\n`` escape
_IMPORT = re.compile(
    r"""(?<![^\s"';])(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\(?([\w \t,]*)"""
    r"""|import[ \t]+([\w.][\w. \t,]*))"""
)
_IMPORT_WORD = re.compile(r"import[ \t(]")
_DOTTED = re.compile(r"\.*(?:[^\W\d]\w*(?:\.[^\W\d]\w*)*)?")


def norm(path: Path) -> Path:
    """Absolute and normalised (``..`` removed) without resolving symlinks, so display paths
    stay relative to the directory the user typed."""
    return Path(os.path.normpath(path.absolute()))


# --- the repository root -----------------------------------------------------------------------


def find_root(files: Sequence[Path], config_file: Path | None = None) -> Path:
    """The git work tree root (nearest ``.git`` dir or file), else the config's folder, else the
    common parent of ``files`` (all absolute)."""
    start = files[0].parent
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    if config_file is not None:
        return config_file.resolve().parent
    return Path(os.path.commonpath([str(f.parent) for f in files]))


# --- sniffing ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Sniff:
    """What a cheap read of one file says it defines and refers to."""

    defines: tuple[str, ...] = ()  # names of StorageClass / PV / PVC objects (over-approximated)
    refs: tuple[str, ...] = ()  # claimName / storageClassName / volumeName values
    module_dirs: tuple[str, ...] = ()  # local module directories a .tf file calls (root-relative)
    imports: tuple[str, ...] = ()  # modules a .py/.ipynb imports: ``a.b``, ``.c``, ``..d.e``

    def to_json(self) -> list[list[str]]:
        return [list(self.defines), list(self.refs), list(self.module_dirs), list(self.imports)]

    @classmethod
    def from_json(cls, data: Any) -> Sniff | None:
        if not isinstance(data, list) or len(data) != 4:
            return None
        if not all(isinstance(part, list) and all(isinstance(x, str) for x in part) for part in data):
            return None
        return cls(tuple(data[0]), tuple(data[1]), tuple(data[2]), tuple(data[3]))


def sniff_text(path: Path, text: str, root: Path) -> Sniff:
    """What ``text`` defines and refers to: Kubernetes storage names (in YAML/JSON manifests, in
    ``kubernetes_*`` Terraform resources and manifests embedded in .tf files), local modules, and
    the modules a Python file or notebook imports."""
    if path.suffix in PYTHON:
        return Sniff(imports=sniff_imports(text))
    if path.suffix != ".tf":
        return _manifest_sniff(text, path.suffix == ".json")
    dirs = []
    for match in MODULE_SOURCE.finditer(text):
        target = os.path.normpath(path.parent / match.group(1))
        try:
            dirs.append(Path(target).relative_to(root).as_posix())
        except ValueError:
            continue
    defines: dict[str, None] = {}
    refs: dict[str, None] = dict.fromkeys(_TF_REF.findall(text))
    if _TF_STORAGE.search(text):
        defines.update(dict.fromkeys(_TF_NAME.findall(text)))
    embedded = _manifest_sniff(text, False)  # kubectl_manifest / kubernetes_manifest heredocs
    defines.update(dict.fromkeys(embedded.defines))
    refs.update(dict.fromkeys(embedded.refs))
    return Sniff(tuple(defines), tuple(refs), tuple(dict.fromkeys(dirs)))


def sniff_imports(text: str) -> tuple[str, ...]:
    """The module names in ``text``'s import statements, by a regular expression (no parse, so
    also in notebooks): ``import a.b, c as d`` -> ``a.b``, ``c``; ``from .x import y`` -> ``.x``;
    ``from . import y, z`` -> ``.y``, ``.z``. A superset (words after "import" in a comment count);
    the loader's parse decides. A parenthesised name list is read up to its first line end."""
    if "import" not in text:
        return ()
    lines: dict[int, int] = {}  # the lines holding the word (a literal search is fast; a notebook
    for word in _IMPORT_WORD.finditer(text):  # is mostly outputs), then the statement's regex there
        start = text.rfind("\n", 0, word.start()) + 1
        if start not in lines:
            end = text.find("\n", word.end())
            lines[start] = len(text) if end < 0 else end
    names: dict[str, None] = {}
    matches = (match for start, end in lines.items() for match in _IMPORT.finditer(text, start, end))
    for match in matches:
        source, listed, plain = match.groups()
        if plain is not None:
            found = [item.split()[0] for item in plain.split(",") if item.strip()]
        elif source.strip("."):
            found = [source]
        elif source:  # from . import a, b: modules of the package
            found = [source + item.split()[0] for item in listed.split(",") if item.strip()]
        else:
            continue
        names.update(dict.fromkeys(n for n in found if _DOTTED.fullmatch(n) and n.strip(".")))
        if len(names) >= MAX_IMPORTS:
            break
    return tuple(names)[:MAX_IMPORTS]


def _manifest_sniff(text: str, is_json: bool) -> Sniff:
    if "kind" not in text:
        return Sniff()
    defines: dict[str, None] = {}
    refs: dict[str, None] = {}
    for doc in [text] if is_json else _DOC_SPLIT.split(text):
        kinds = set(_KIND.findall(doc))
        if not kinds:
            continue
        if kinds & STORAGE_KINDS:
            defines.update(dict.fromkeys(_NAME.findall(doc)))
        refs.update(dict.fromkeys(_REF.findall(doc)))
    return Sniff(tuple(defines), tuple(refs))


class RepoIndex:
    """The repository's candidate files and their sniffs, computed lazily and cached.

    Paths are plain strings inside (a 2,000-file walk through pathlib costs more than the sniffs).
    """

    def __init__(
        self, root: Path, excluded: Callable[[Path], bool] | None = None, use_cache: bool = True
    ) -> None:
        self.root = root
        self.excluded = excluded
        self.use_cache = use_cache
        self._root = str(root)
        self._files: dict[str, list[str]] | None = None
        self._sniffs: dict[str, Sniff] = {}
        self._imports: dict[str, list[tuple[str, tuple[str, ...]]]] | None = None
        self._cache: dict[str, Any] = {}
        self._cache_dirty = False
        self._cache_loaded = False
        self.truncated = False  # the walk stopped at MAX_CANDIDATES
        self.budget_spent = False  # sniffing stopped at MAX_SNIFF_TOTAL_BYTES / MAX_SNIFF_SECONDS
        self._read_bytes = 0
        self._started = time.monotonic()

    # -- files ------------------------------------------------------------------------------------

    def entries(self, suffixes: tuple[str, ...]) -> list[str]:
        """Absolute paths (strings) of the repository's files with these suffixes."""
        if self._files is None:
            self._files = self._walk()
        return [p for suffix in suffixes for p in self._files.get(suffix, [])]

    def files(self, suffixes: tuple[str, ...]) -> list[Path]:
        return [Path(p) for p in self.entries(suffixes)]

    def is_excluded(self, path: Path) -> bool:
        return self.excluded is not None and self.excluded(path)

    def _walk(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        wanted = (*STRUCTURED, ".tf", *PYTHON)
        join, exists, splitext = os.path.join, os.path.exists, os.path.splitext
        excluded = self.excluded or (lambda _path: False)
        count = 0
        for dirpath, dirnames, filenames in os.walk(self._root, followlinks=False):
            if count >= MAX_CANDIDATES:
                self.truncated = True
                break
            dirnames[:] = sorted(
                d
                for d in dirnames
                if d not in SKIP_DIRS
                and not exists(join(dirpath, d, "pyvenv.cfg"))
                and (self.excluded is None or not excluded(Path(dirpath, d)))
            )
            for name in filenames:
                suffix = splitext(name)[1]
                if suffix in wanted:
                    path = join(dirpath, name)
                    if self.excluded is None or not excluded(Path(path)):
                        out.setdefault(suffix, []).append(path)
                        count += 1
        for paths in out.values():
            paths.sort()
        return out

    def _key(self, path: str) -> str:
        if path.startswith(self._root + os.sep):
            path = path[len(self._root) + 1 :]
        return path.replace(os.sep, "/")

    # -- sniffs -----------------------------------------------------------------------------------

    def sniff(self, path: Path | str) -> Sniff:
        path = str(path)
        found = self._sniffs.get(path)
        if found is not None:
            return found
        try:
            st = os.stat(path)
        except OSError:
            return Sniff()
        if not stat.S_ISREG(st.st_mode):  # a FIFO would block, a device never ends: never read
            self._sniffs[path] = Sniff()
            return self._sniffs[path]
        key = self._key(path)
        stamp = [st.st_mtime_ns, st.st_size]
        cached = self._cached().get(key)
        sniff: Sniff | None = None
        if isinstance(cached, list) and len(cached) == 2 and cached[0] == stamp:
            sniff = Sniff.from_json(cached[1])
        if sniff is None:
            sniff = self._read_sniff(Path(path), st.st_size)
            if self.use_cache and not self.budget_spent:  # an unread file is not a sniff to keep
                self._cache[key] = [stamp, sniff.to_json()]
                self._cache_dirty = True
        self._sniffs[path] = sniff
        return sniff

    # -- imports --------------------------------------------------------------------------------

    def importers(self, module: Path | str) -> list[str]:
        """The repository's Python files and notebooks (absolute) whose sniffed imports name
        ``module`` (a ``.py``, or a package's ``__init__.py``) as the SDK loader resolves them: a
        dotted name from a base that is the importer's folder or one up to
        :data:`MAX_IMPORT_LEVELS` above it (``c``, ``b.c``, ``a.b.c`` for ``a/b/c.py``), or a
        relative import from the package it is in (``.c``, ``..b.c``). From the sniff cache."""
        key = self._key(str(norm(Path(module))))
        if os.path.isabs(key) or not key.endswith(".py"):
            return []
        parts = key[: -len(".py")].split("/")
        if parts[-1] == "__init__":
            parts.pop()
        by_name = self._import_map()
        out: dict[str, None] = {}
        for k in range(len(parts)):
            tail = parts[k:]
            if not all(p.isidentifier() for p in tail):
                continue
            base, dotted = tuple(parts[:k]), ".".join(tail)
            for importer, folder in by_name.get(dotted, ()):
                if 0 <= len(folder) - k <= MAX_IMPORT_LEVELS and folder[:k] == base:
                    out[importer] = None
            for level in range(1, MAX_IMPORT_LEVELS + 2):  # from .c / from ..b.c import
                for importer, folder in by_name.get("." * level + dotted, ()):
                    if len(folder) - (level - 1) == k and folder[:k] == base:
                        out[importer] = None
        out.pop(str(module), None)
        return list(out)

    def _import_map(self) -> dict[str, list[tuple[str, tuple[str, ...]]]]:
        """Import name -> the files importing it, with their folder (root-relative parts)."""
        if self._imports is None:
            self._imports = {}
            for path in self.entries(PYTHON):
                names = self.sniff(path).imports
                if names:
                    folder = tuple(self._key(path).split("/")[:-1])
                    for name in names:
                        self._imports.setdefault(name, []).append((path, folder))
        return self._imports

    def _read_sniff(self, path: Path, size: int) -> Sniff:
        if size > MAX_SNIFF_BYTES:
            return Sniff()
        over_time = time.monotonic() - self._started > MAX_SNIFF_SECONDS
        if self.budget_spent or over_time or self._read_bytes + size > MAX_SNIFF_TOTAL_BYTES:
            self.budget_spent = True
            return Sniff()
        self._read_bytes += size
        try:
            text = path.read_bytes().decode("utf-8-sig", errors="replace")
        except OSError:
            return Sniff()
        return sniff_text(path, text, self.root)

    def _cache_file(self) -> Path | None:
        """The cache file of this repository, or None: caching is off, or the cache directory
        lies inside the repository (``XDG_CACHE_HOME=$CI_PROJECT_DIR/.cache``), where a pull
        request could commit a cache that hides a finding."""
        directory = cache_dir()
        if directory is None or inside(directory, self.root):
            return None
        digest = zlib.crc32(self._root.encode("utf-8", "surrogateescape"))  # the file says its root too
        return directory / f"context-{digest:08x}.json"

    def _cached(self) -> dict[str, Any]:
        if not self._cache_loaded:
            self._cache_loaded = True
            if self.use_cache:
                target = self._cache_file()
                try:  # only a file of ours nobody else can write (else another user plants one)
                    trusted_file = target is not None and target.is_file() and trusted(target)
                    data = json.loads(target.read_text("utf-8")) if trusted_file and target else None
                except (OSError, ValueError, RecursionError):
                    data = None
                if (
                    isinstance(data, dict)
                    and data.get("version") == CACHE_VERSION
                    and data.get("root") == self._root
                ):
                    files = data.get("files")
                    if isinstance(files, dict):
                        self._cache = files
        return self._cache

    def save(self) -> None:
        """Write the sniff cache when it changed; a cache that cannot be written is no error."""
        if not (self.use_cache and self._cache_dirty):
            return
        live = {self._key(p) for paths in (self._files or {}).values() for p in paths}
        files = {k: v for k, v in self._cache.items() if k in live} if live else self._cache
        target = self._cache_file()
        if target is None:
            return
        data = json.dumps({"version": CACHE_VERSION, "root": self._root, "files": files})
        write_private(target.parent, target, data.encode("utf-8"))
