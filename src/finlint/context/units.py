"""Units: files read as one, so a change to a shared file reaches every record of its members
(a Terraform directory with the local modules it calls; a Helm chart's templates and its values).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from finlint.context.index import MODULE_SOURCE, norm
from finlint.loaders.common.discovery import SKIP_DIRS


@dataclass(frozen=True)
class Unit:
    """Files read as one: a record located in ``members`` is part of every change to ``shared``."""

    members: frozenset[str]
    shared: frozenset[str]


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
            calls += [norm(directory / m.group(1)) for m in MODULE_SOURCE.finditer(text)]
    return files, calls


def terraform_units(directories: Iterable[Path], display: Callable[[Path], str]) -> list[Unit]:
    """A Terraform directory is one unit with the local modules it calls: a change to any of its
    files (a ``.tf``, ``terraform.tfvars``) reaches every record of the directory and of those
    modules (they get its inputs); a change inside a module reaches only that module's records
    (and its own modules'), never the caller's resources."""
    tree: dict[Path, tuple[set[str], list[Path]]] = {}
    stack = [norm(d) for d in directories]
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


#: Directory loaders whose unit links its files, by ``LoaderSpec.format``. A chart loader
#: registered as a directory loader named "helm" gets chart units for the charts it renders
#: (charts pulled in as context get them either way: ``ContextPlan.finish``).
UNIT_BUILDERS: dict[str, Callable[[Iterable[Path], Callable[[Path], str]], list[Unit]]] = {
    "terraform": terraform_units,
    "helm": chart_units,
}
