"""File paths as CI services link them: relative to the repository root, not the working directory.

GitHub resolves ``::error file=`` and SARIF ``artifactLocation.uri`` against
``GITHUB_WORKSPACE``; GitLab resolves Code Quality's ``location.path`` against
``CI_PROJECT_DIR``. A scan run under ``working-directory: infra`` prints ``main.tf``, a file
neither service finds; these reporters need ``infra/main.tf``. One rule for all three:

1. relative to the CI variable's directory when it is set and the file lies under it;
2. else relative to the git root: the nearest directory at or above the scan's working
   directory holding a ``.git`` entry (a directory, or a file in a worktree or submodule).
   git itself is never run: a report needs no subprocess, and the repository's git config is
   untrusted;
3. else the path the scan printed (relative to the working directory, or absolute).

Symlinked directories (``/tmp`` -> ``/private/tmp``) compare by their real path; the file's own
name is kept, so a symlinked file is named as the user sees it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

GITHUB = "GITHUB_WORKSPACE"
GITLAB = "CI_PROJECT_DIR"


def git_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` with a ``.git`` entry, else None (no git run)."""
    start = Path(os.path.abspath(start))
    for directory in (start, *start.parents):
        try:
            if os.path.lexists(directory / ".git"):
                return directory
        except (OSError, ValueError):
            return None
    return None


def _real_dir(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return os.path.abspath(path)


class RepoPaths:
    """Maps the paths a scan printed to paths relative to the repository root (the rules above)."""

    def __init__(self, roots: tuple[Path, ...], cwd: Path) -> None:
        self.roots = roots
        self.cwd = cwd
        self._real_roots = tuple(_real_dir(str(r)) for r in roots)
        self._cache: dict[str, tuple[str, Path | None]] = {}

    @classmethod
    def for_ci(
        cls, variable: str, cwd: Path | None = None, environ: Mapping[str, str] | None = None
    ) -> RepoPaths:
        """The roots for one CI service: its variable's directory (when set), then the git root."""
        env = os.environ if environ is None else environ
        here = Path(os.path.abspath(cwd if cwd is not None else Path.cwd()))
        roots: list[Path] = []
        if value := env.get(variable, "").strip():
            roots.append(Path(os.path.abspath(here / value)))
        found = git_root(here)
        if found is not None and found not in roots:
            roots.append(found)
        return cls(tuple(roots), here)

    @property
    def root(self) -> Path | None:
        """The first root: what a relative path is relative to, unless :meth:`locate` says otherwise."""
        return self.roots[0] if self.roots else None

    def locate(self, file: str) -> tuple[str, Path | None]:
        """``(path with '/' separators, the root it is relative to)``; the root is None when the
        file lies under none of them (the path is then the one the scan printed, less ``./``)."""
        if file in self._cache:
            return self._cache[file]
        absolute = os.path.normpath(os.path.join(self.cwd, file))
        directory, name = os.path.split(absolute)
        real = os.path.join(_real_dir(directory), name)
        found: tuple[str, Path | None] = (_plain(file), None)
        for root, real_root in zip(self.roots, self._real_roots, strict=True):
            for candidate, base in ((absolute, str(root)), (real, real_root)):
                try:
                    rel = os.path.relpath(candidate, base)
                except ValueError:  # another drive on Windows
                    continue
                if rel != os.curdir and rel != os.pardir and not rel.startswith(os.pardir + os.sep):
                    found = (rel.replace(os.sep, "/"), root)
                    break
            if found[1] is not None:
                break
        self._cache[file] = found
        return found

    def __call__(self, file: str) -> str:
        return self.locate(file)[0]


def _plain(file: str) -> str:
    path = file.replace("\\", "/") if os.sep == "\\" else file
    while path.startswith("./"):
        path = path[2:]
    return path


__all__ = ["GITHUB", "GITLAB", "RepoPaths", "git_root"]
