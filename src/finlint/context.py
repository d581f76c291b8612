"""Changed-file scans keep the repository's context.

pre-commit hands ``finlint scan`` only the files a commit changes, but many findings come from
links between files: a job mounts a claim defined elsewhere, whose StorageClass says EFS; a
``terraform.tfvars`` sets the instance type of a resource in ``main.tf``; a Helm template takes
its values from ``values.yaml``. When ``scan`` is given files, this module finds the other
files of the same repository those files need (the *context*), and afterwards decides which
findings the given files are part of.

* **Root**: the git work tree root (the nearest ``.git``), else the config file's folder, else
  the common parent of the given files. Context never comes from outside it.
* **Sniffing, not parsing**: every candidate file is read once with a few regular expressions
  (Kubernetes ``kind``/``name``/``claimName``/``storageClassName``/``volumeName`` values,
  Terraform local ``module`` sources). Only the files a link needs are parsed. The sniffs are
  cached per repository under the user's cache directory (never in the repository; the same one
  as the policy cache, ``FINLINT_CACHE_DIR=off`` disables both), keyed by each file's mtime and
  size.
* **Hooks**: :data:`HOOKS` is the one list of context providers; each takes the given files and
  the :class:`RepoIndex` and returns the context paths it needs (files, or directories that are
  loaded whole). Built in: Kubernetes storage links (both directions), Terraform configurations
  that call a changed local module, the Helm chart a file belongs to (any directory with a
  ``Chart.yaml``: a chart loader reads the whole chart), and the Python launchers that read a
  changed config file or import a changed sibling module.
* **What is reported**: a finding whose location is in a given file, or whose chain includes a
  given file: the files in its ``evidence["chain_files"]`` (filled from the linking pass),
  ``record.extra["inputs"]`` (files a loader read values from: config files, SDK defaults), or
  the :class:`Unit` it belongs to (a Terraform configuration with its tfvars and local modules
  is read as one; a chart's templates share its values files and helpers). A finding reported
  through another file says so in its message. Context files never report findings of their
  own (nor parse errors or notices), but their in-source suppressions still apply.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from finlint.discovery import SKIP_DIRS
from finlint.finding import Finding
from finlint.policy_cache import cache_dir  # one cache directory: FINLINT_CACHE_DIR, off disables

STRUCTURED = (".yaml", ".yml", ".json")
PYTHON = (".py", ".ipynb")
MAX_SNIFF_BYTES = 2 * 1024 * 1024
MAX_CLOSURE_ROUNDS = 16
CACHE_VERSION = 1
#: a record's loader may list the other files it read values from here (display paths)
INPUTS_KEY = "inputs"

_DOC_SPLIT = re.compile(r"^---[ \t]*$", re.MULTILINE)
_KIND = re.compile(r"""(?:^|[\s{,])["']?kind["']?[ \t]*:[ \t]*["']?([A-Za-z]+)""", re.MULTILINE)
_NAME = re.compile(r"""(?:^|[\s{,\-])["']?name["']?[ \t]*:[ \t]*["']?([\w.\-/]+)""", re.MULTILINE)
_REF = re.compile(
    r"""["']?(?:claimName|storageClassName|volumeName|volume\.beta\.kubernetes\.io/storage-class)["']?"""
    r"""[ \t]*:[ \t]*["']?([\w.\-/]+)""",
)
_STORAGE_KINDS = frozenset({"StorageClass", "PersistentVolume", "PersistentVolumeClaim"})
_MODULE_SOURCE = re.compile(r"""^\s*source\s*=\s*"(\.{1,2}/[^"]*)\"""", re.MULTILINE)


def _norm(path: Path) -> Path:
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

    def to_json(self) -> list[list[str]]:
        return [list(self.defines), list(self.refs), list(self.module_dirs)]

    @classmethod
    def from_json(cls, data: Any) -> Sniff | None:
        if not isinstance(data, list) or len(data) != 3:
            return None
        if not all(isinstance(part, list) and all(isinstance(x, str) for x in part) for part in data):
            return None
        return cls(tuple(data[0]), tuple(data[1]), tuple(data[2]))


def sniff_text(path: Path, text: str, root: Path) -> Sniff:
    if path.suffix == ".tf":
        dirs = []
        for match in _MODULE_SOURCE.finditer(text):
            target = os.path.normpath(path.parent / match.group(1))
            try:
                dirs.append(Path(target).relative_to(root).as_posix())
            except ValueError:
                continue
        return Sniff(module_dirs=tuple(dict.fromkeys(dirs)))
    if "kind" not in text:
        return Sniff()
    defines: dict[str, None] = {}
    refs: dict[str, None] = {}
    for doc in _DOC_SPLIT.split(text) if path.suffix != ".json" else [text]:
        kinds = set(_KIND.findall(doc))
        if not kinds:
            continue
        if kinds & _STORAGE_KINDS:
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
        self._cache: dict[str, Any] = {}
        self._cache_dirty = False
        self._cache_loaded = False

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
        for dirpath, dirnames, filenames in os.walk(self._root, followlinks=False):
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
        key = self._key(path)
        stamp = [st.st_mtime_ns, st.st_size]
        cached = self._cached().get(key)
        sniff: Sniff | None = None
        if isinstance(cached, list) and len(cached) == 2 and cached[0] == stamp:
            sniff = Sniff.from_json(cached[1])
        if sniff is None:
            sniff = self._read_sniff(Path(path), st.st_size)
            if self.use_cache:
                self._cache[key] = [stamp, sniff.to_json()]
                self._cache_dirty = True
        self._sniffs[path] = sniff
        return sniff

    def _read_sniff(self, path: Path, size: int) -> Sniff:
        if size > MAX_SNIFF_BYTES:
            return Sniff()
        try:
            text = path.read_bytes().decode("utf-8-sig", errors="replace")
        except OSError:
            return Sniff()
        return sniff_text(path, text, self.root)

    def _cache_file(self) -> Path | None:
        directory = cache_dir()
        if directory is None:
            return None
        digest = zlib.crc32(self._root.encode("utf-8", "surrogateescape"))  # the file says its root too
        return directory / f"context-{digest:08x}.json"

    def _cached(self) -> dict[str, Any]:
        if not self._cache_loaded:
            self._cache_loaded = True
            if self.use_cache:
                target = self._cache_file()
                try:
                    data = json.loads(target.read_text("utf-8")) if target is not None else None
                except (OSError, ValueError):
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
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(
                json.dumps({"version": CACHE_VERSION, "root": self._root, "files": files}), encoding="utf-8"
            )
            os.replace(tmp, target)
        except OSError:
            return


# --- hooks: given files -> the context they need ----------------------------------------------

ContextHook = Callable[[Sequence[Path], RepoIndex], Iterable[Path]]


def kubernetes_storage(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """Objects that claims, volumes and storage classes resolve to, in both directions.

    Forward: a workload's ``claimName`` -> the file defining that claim -> its StorageClass or
    PV. Backward: a changed StorageClass -> the claims and PVs of that class -> the workloads
    that mount those claims. Names are matched as sniffed (a superset); parsing decides.
    """
    given_set = {str(p) for p in given}
    wanted_defs: set[str] = set()  # names someone refers to: find where they are defined
    wanted_refs: set[str] = set()  # names defined here: find who refers to them
    for changed in given:
        if changed.suffix in STRUCTURED:
            sniff = index.sniff(changed)
            wanted_defs.update(sniff.refs)
            wanted_refs.update(sniff.defines)
    if not wanted_defs and not wanted_refs:
        return
    sniffs = [(p, index.sniff(p)) for p in index.entries(STRUCTURED) if p not in given_set]
    sniffs = [(p, s) for p, s in sniffs if s.defines or s.refs]
    taken: set[str] = set()
    for _round in range(MAX_CLOSURE_ROUNDS):
        grew = False
        for path, sniff in sniffs:
            if path in taken:
                continue
            forward = not wanted_defs.isdisjoint(sniff.defines)
            backward = not wanted_refs.isdisjoint(sniff.refs)
            if forward or backward:
                taken.add(path)
                grew = True
                if forward:
                    wanted_defs.update(sniff.refs)
                if backward:
                    wanted_refs.update(sniff.defines)
        if not grew:
            break
    yield from (Path(p) for p in sorted(taken))


def terraform_callers(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """The configurations that call a changed local module (up to the root that calls nothing).

    A changed ``.tf``/``.tfvars`` already loads its own directory; a module directory is loaded
    through its callers so its variables are bound to what they pass.
    """
    wanted = {_norm(p.parent) for p in given if p.suffix in (".tf", ".tfvars")}
    if not wanted:
        return
    callers: dict[Path, list[Path]] = {}
    for tf in index.files((".tf",)):
        for module_dir in index.sniff(tf).module_dirs:
            callers.setdefault(_norm(index.root / module_dir), []).append(tf)
    seen: set[Path] = set()
    frontier = list(wanted)
    while frontier:
        directory = frontier.pop()
        for tf in callers.get(directory, ()):
            caller = _norm(tf.parent)
            if caller in seen or caller in wanted:
                continue
            seen.add(caller)
            frontier.append(caller)
            yield tf


def helm_chart(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """The chart a file belongs to: the nearest directory up to the root with a ``Chart.yaml``.

    The chart directory is passed whole, so a chart loader (directory unit) renders it with its
    values; without one, its manifests are read as usual.
    """
    root = _norm(index.root)
    seen: set[Path] = set()
    for path in given:
        directory = _norm(path.parent)
        while True:
            if (directory / "Chart.yaml").is_file():
                if directory not in seen:
                    seen.add(directory)
                    yield directory
                break
            if directory == root or directory.parent == directory or not directory.is_relative_to(root):
                break
            directory = directory.parent


_SDK_DEFAULTS = re.compile(r"^SchemaVersion\s*:", re.MULTILINE)


def python_launchers(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """Launchers that read a changed file: a config file named in their text (same folder or
    the one above), a sibling module they import, or every launcher beside a SageMaker SDK
    defaults file (``SchemaVersion:``), which the SDK applies by location."""
    seen: set[Path] = set()
    for path in given:
        if path.suffix in PYTHON and path.suffix != ".py":
            continue
        folders = [path.parent] if path.suffix == ".py" else [path.parent, path.parent.parent]
        if path.suffix == ".py":
            pattern = re.compile(rf"(?:^|\s)(?:from|import)\s+\.?{re.escape(path.stem)}\b", re.MULTILINE)
        else:
            pattern = re.compile(re.escape(path.name))
            try:
                if _SDK_DEFAULTS.search(path.read_text("utf-8", errors="replace")[:4096]):
                    pattern = re.compile("")
            except OSError:
                continue
        for folder in folders:
            if not folder.is_relative_to(index.root):
                continue
            for candidate in sorted(folder.glob("*")):
                if candidate.suffix not in PYTHON or candidate == path or candidate in seen:
                    continue
                if index.is_excluded(candidate) or not candidate.is_file():
                    continue
                try:
                    if candidate.stat().st_size > MAX_SNIFF_BYTES:
                        continue
                    text = candidate.read_text("utf-8", errors="replace")
                except OSError:
                    continue
                if pattern.search(text):
                    seen.add(candidate)
                    yield candidate


#: The context providers, in order. A new format adds its hook here.
HOOKS: tuple[ContextHook, ...] = (kubernetes_storage, terraform_callers, helm_chart, python_launchers)


# --- the plan and the filter ------------------------------------------------------------------


@dataclass(frozen=True)
class Unit:
    """Files read as one: a record located in ``members`` is part of every change to ``shared``."""

    members: frozenset[str]
    shared: frozenset[str]


@dataclass
class ContextPlan:
    """The context of one changed-file scan, and (after loading) what counts as given."""

    root: Path
    paths: list[Path]  # context paths to load (files, or directories loaded whole)
    given: set[str] = field(default_factory=set)  # display paths of the given files and units
    read: set[str] = field(default_factory=set)  # display paths of context files read
    units: list[Unit] = field(default_factory=list)

    def add_units(self, fmt: str, directories: Iterable[Path], display: Callable[[Path], str]) -> None:
        """The units of the directories a directory loader read (a Terraform configuration)."""
        builder = UNIT_BUILDERS.get(fmt)
        if builder is not None:
            self.units += builder(directories, display)

    def finish(self, display: Callable[[Path], str]) -> None:
        """Units of the charts in the context (after loading)."""
        self.units += chart_units((p for p in self.paths if (p / "Chart.yaml").is_file()), display)

    def concerns(self, file: str) -> bool:
        """Do a given file's changes reach ``file`` (for errors and notices)?"""
        if file in self.given:
            return True
        return any(file in u.members and not u.shared.isdisjoint(self.given) for u in self.units)

    def linked_files(self, finding: Finding) -> set[str]:
        """The files a finding's chain goes through, besides its own."""
        out: set[str] = set()
        chain = finding.evidence.get("chain_files")
        if isinstance(chain, list):
            out.update(str(f) for f in chain)
        record = finding.record
        if record is not None:
            inputs = record.extra.get(INPUTS_KEY) if record.extra else None
            if isinstance(inputs, (list, tuple)):
                out.update(str(f) for f in inputs)
        for unit in self.units:
            if finding.file in unit.members:
                out.update(unit.shared)
        out.discard(finding.file)
        return out

    def part_of_change(self, finding: Finding) -> bool:
        """Report the finding? Its location is in a given file, or a given file is in its chain.
        One reported through another file says which changed file links it."""
        if finding.file in self.given:
            return True
        through = sorted(self.linked_files(finding) & self.given)
        if not through:
            return False
        finding.message += f" (linked through changed file {', '.join(through)})"
        return True


def plan(
    files: Sequence[Path],
    excluded: Callable[[Path], bool] | None,
    config_file: Path | None = None,
    hooks: Sequence[ContextHook] = HOOKS,
    use_cache: bool = True,
) -> ContextPlan:
    """The context ``files`` (the given files, not directories) need from their repository."""
    absolute = [f.absolute() for f in files]
    root = find_root(absolute, config_file)
    index = RepoIndex(root, excluded, use_cache)
    paths: dict[Path, None] = {}
    given = set(absolute)
    for hook in hooks:
        try:
            found = list(hook(absolute, index))
        except (OSError, ValueError, RecursionError):  # unreadable corners: less context, no crash
            continue
        for path in found:
            if path not in given:
                paths[path] = None
    index.save()
    return ContextPlan(root, list(paths))


MAX_MODULE_DIRS = 256


def _terraform_dir(directory: Path, display: Callable[[Path], str]) -> tuple[set[str], list[Path]]:
    """A Terraform directory's files (tf and tfvars, as displayed) and the local modules it calls."""
    files: set[str] = set()
    calls: list[Path] = []
    for f in sorted(directory.glob("*")):
        name = f.name
        if not name.endswith((".tf", ".tfvars", ".tfvars.json")) or not f.is_file():
            continue
        files.add(display(f))
        if name.endswith(".tf"):
            try:
                text = f.read_text("utf-8", errors="replace")
            except OSError:
                continue
            calls += [_norm(directory / m.group(1)) for m in _MODULE_SOURCE.finditer(text)]
    return files, calls


def terraform_units(directories: Iterable[Path], display: Callable[[Path], str]) -> list[Unit]:
    """A Terraform directory is one unit with the local modules it calls: a change to any of its
    files (a ``.tf``, ``terraform.tfvars``) reaches every record of the directory and of those
    modules (they get its inputs); a change inside a module reaches only that module's records
    (and its own modules'), never the caller's resources."""
    tree: dict[Path, tuple[set[str], list[Path]]] = {}
    stack = [_norm(d) for d in directories]
    while stack and len(tree) < MAX_MODULE_DIRS:
        current = stack.pop()
        if current not in tree and current.is_dir():
            tree[current] = _terraform_dir(current, display)
            stack += tree[current][1]

    def below(directory: Path) -> set[str]:
        out: set[str] = set()
        seen: set[Path] = set()
        todo = [directory]
        while todo:
            d = todo.pop()
            if d in seen or d not in tree:
                continue
            seen.add(d)
            out |= tree[d][0]
            todo += tree[d][1]
        return out

    return [Unit(frozenset(below(d)), frozenset(files)) for d, (files, _) in tree.items() if files]


_CHART_SHARED = re.compile(r"(^|/)(Chart\.yaml|values[^/]*\.ya?ml|templates/_[^/]*)$")


def chart_units(charts: Iterable[Path], display: Callable[[Path], str]) -> list[Unit]:
    """A chart's templates share its ``Chart.yaml``, values files and ``_helpers`` templates."""
    units = []
    for chart in charts:
        members, shared = set(), set()
        for dirpath, dirnames, filenames in os.walk(chart):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS]
            for name in filenames:
                f = Path(dirpath) / name
                shown = display(f)
                members.add(shown)
                if _CHART_SHARED.search(f.relative_to(chart).as_posix()):
                    shared.add(shown)
        units.append(Unit(frozenset(members), frozenset(shared)))
    return units


#: Directory loaders whose unit links its files together, by format.
UNIT_BUILDERS: dict[str, Callable[[Iterable[Path], Callable[[Path], str]], list[Unit]]] = {
    "terraform": terraform_units,
}
