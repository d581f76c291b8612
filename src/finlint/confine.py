"""The one rule for every path a scanned repository names: resolve it, then refuse it outside the roots.

The scanned repository is untrusted (docs/security.md). A path it names (a Terraform ``file()``
argument, a module ``source``, a chart folder, a ``.finlint.yaml`` setting, a symlink in the
tree) is read only when, with every symlink resolved, it lies inside one of the scan's roots.
Paths given on the command line are the user's, not the repository's, and are not checked here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path


class OutsideRoot(ValueError):
    """A repository-named path that resolves outside every scan root."""

    def __init__(self, path: Path | str, why: str = "outside the scanned tree") -> None:
        self.path = str(path)
        super().__init__(f"refused to read {self.path!r}: {why}")


def _resolve(path: Path) -> Path:
    """``path`` with every symlink resolved (missing tails kept), never raising on loops."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):  # a symlink loop on old Pythons, a NUL byte
        return Path(os.path.abspath(path))


def _work_tree(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` holding ``.git`` (a directory or a worktree's
    file), or None."""
    for directory in (folder, *folder.parents):
        try:
            if (directory / ".git").exists():
                return directory
        except OSError:
            return None
    return None


@dataclass(frozen=True)
class Roots:
    """The folders a scan may read: each scanned directory (a scanned file's folder), resolved."""

    paths: tuple[Path, ...]

    @classmethod
    def of(cls, targets: Iterable[Path]) -> Roots:
        """The roots of a scan of ``targets``: the git work tree each one is in (so a module
        in ``../modules`` of the same checkout is read), else the target's folder (a file
        stands for its folder). Nothing above a checkout is ever a root."""
        roots: list[Path] = []
        for target in targets:
            real = _resolve(target)
            folder = real if real.is_dir() else real.parent
            root = _work_tree(folder) or folder
            if root not in roots:
                roots.append(root)
        return cls(tuple(roots))

    def contains(self, path: Path | str) -> bool:
        """Whether ``path``, symlinks resolved, lies inside one of the roots."""
        if "\x00" in str(path):
            return False
        real = _resolve(Path(path))
        return any(real == root or root in real.parents for root in self.paths)

    def check(self, path: Path | str) -> Path:
        """The resolved ``path``, or :class:`OutsideRoot` when it leaves every root."""
        if not self.contains(path):
            raise OutsideRoot(path)
        return _resolve(Path(path))


def inside(path: Path | str, root: Path) -> bool:
    """Whether ``path`` (symlinks resolved) lies inside ``root`` (resolved too)."""
    return Roots((_resolve(root),)).contains(path)
