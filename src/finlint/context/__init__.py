"""Changed-file scans keep the repository's context.

pre-commit hands ``finlint scan`` only the files a commit changes, but many findings come from
links between files: a job mounts a claim defined elsewhere, whose StorageClass says EFS; a
``terraform.tfvars`` sets the instance type of a resource in ``main.tf``; a Helm template takes
its values from ``values.yaml``. When ``scan`` is given files, this package finds the other
files of the same repository those files need (the *context*), and afterwards decides which
findings the given files are part of.

* **Root**: the git work tree root (the nearest ``.git``), else the config file's folder, else
  the common parent of the given files. Context never comes from outside it.
* **Sniffing, not parsing** (:mod:`.index`): every candidate file is read once with a few
  regular expressions (Kubernetes ``kind``/``name``/``claimName``/``storageClassName``/
  ``volumeName`` values, Terraform local ``module`` sources, the modules a Python file or
  notebook imports); only the files a link needs are
  parsed. Sniffs are cached per repository in the user's cache directory (the policy cache's;
  never in the repository; ``FINLINT_CACHE_DIR=off`` disables both), keyed by mtime and size.
* **Hooks** (:mod:`.hooks`): :data:`HOOKS` is the one list of context providers; each takes
  the given files and the :class:`RepoIndex` and returns the context paths it needs (files, or
  directories loaded whole). Built in: Kubernetes storage links (both directions), Terraform
  configurations that call a changed local module, the Helm chart a file belongs to (any
  directory with a ``Chart.yaml``), the launchers that read a changed config file or import
  a changed module (from anywhere in the repository: :meth:`RepoIndex.importers`), and the
  launchers that run a changed training script (its ``entry_point``/``source_dir``: FIN601
  needs the job's instance type), and the manifests a changed ``.env`` (envsubst) or training
  script (an argparse checkpoint default) sets container checkpoint paths for, with their storage.
* **What is reported**: a finding whose location is in a given file, or whose chain includes a
  given file: its ``chain_files`` (from the linking pass), ``record.inputs``
  (files a loader read the record's values from: config files, SDK defaults), or the
  :class:`Unit` it belongs to (:mod:`.units`: a Terraform directory with its tfvars reaches its
  own records and those of the local modules it calls; a chart's templates share its values
  files and helpers). A finding reported through another file says so in its message. Context
  files never report findings of their own (nor parse errors or notices), but their in-source
  suppressions still apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from finlint.context import index as _index
from finlint.context.hooks import HOOKS, ContextHook
from finlint.context.index import RepoIndex, Sniff, find_root, sniff_text
from finlint.context.units import UNIT_BUILDERS, Unit, chart_units
from finlint.finding import Finding

__all__ = [
    "HOOKS",
    "ContextHook",
    "ContextPlan",
    "RepoIndex",
    "Sniff",
    "Unit",
    "find_root",
    "plan",
    "sniff_text",
]


@dataclass
class ContextPlan:
    """The context of one changed-file scan, and (after loading) what counts as given."""

    root: Path
    paths: list[Path]  # context paths to load (files, or directories loaded whole)
    given: set[str] = field(default_factory=set)  # display paths of the given files and units
    read: set[str] = field(default_factory=set)  # display paths of context files read
    units: list[Unit] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said once, as notices on the root

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
        out.update(finding.chain_files)
        record = finding.record
        if record is not None:
            out.update(record.inputs)
            out.add(record.location.file)  # a finding pointed into another file (a runtime, a config)
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


#: Context files read at most: a name shared across a huge folder (every copy of a fixture in
#: /tmp) must not turn a one-file scan into a scan of thousands of files.
MAX_CONTEXT_FILES = 400


def _nearest_first(paths: list[Path], given: list[Path]) -> list[Path]:
    """Context files ordered by how close they are to a given file (shared path prefix)."""

    def distance(path: Path) -> tuple[int, str]:
        best = min(len(path.parts) + len(g.parts) - 2 * _shared(path, g) for g in given)
        return best, str(path)

    return sorted(paths, key=distance)


def _shared(a: Path, b: Path) -> int:
    n = 0
    for x, y in zip(a.parts, b.parts, strict=False):
        if x != y:
            break
        n += 1
    return n


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
    chosen = _nearest_first(list(paths), absolute)
    result = ContextPlan(root, chosen[:MAX_CONTEXT_FILES])
    if len(chosen) > MAX_CONTEXT_FILES:
        result.notes.append(
            f"context: {len(chosen):,} files under {root} link to the given files; only the "
            f"{MAX_CONTEXT_FILES:,} nearest were read (scan inside a git repository, or pass --no-context)"
        )
    if index.truncated:
        result.notes.append(
            f"context: more than {_index.MAX_CANDIDATES:,} candidate files under {root}; only the first were "
            "searched for links (scan inside a git repository, or pass --no-context)"
        )
    if index.budget_spent:
        result.notes.append(
            f"context: stopped reading candidate files under {root} after "
            f"{_index.MAX_SNIFF_TOTAL_BYTES // 2**20} MB or {_index.MAX_SNIFF_SECONDS:g} s; links beyond "
            "them were not followed (scan inside a git repository, or pass --no-context)"
        )
    return result
