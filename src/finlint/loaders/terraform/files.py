"""One load_directory run: its state, the .tf files it parsed, and the limits it works within."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from finlint import ir
from finlint.confine import OutsideRoot, Roots
from finlint.loaders.common.discovery import read_bytes
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform import mapping as m

FORMAT = "terraform"
MAX_MODULE_DEPTH = 12
MAX_INSTANCES = 256  # for_each keys expanded one by one; beyond that: one record, multiplied
META_ARGS = {"count", "for_each", "provider", "depends_on", "lifecycle", "provisioner", "connection"}
MODULE_META = {"source", "version", "count", "for_each", "providers", "depends_on"}
TF_SUFFIXES = (".tf", ".tf.json")  # native and JSON syntax: one configuration
_NOT_RESOURCE_ROOTS = {"var", "local", "data", "module", "each", "count", "path", "terraform", "self"}
UNKNOWN_TEXT = "${unknown}"


@dataclass
class TfFile:
    """One parsed ``.tf`` file of a configuration."""

    path: Path
    display: str
    text: str
    body: h.Body

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


@dataclass
class Decl:
    """A top-level block and the file it is declared in."""

    block: h.Block
    file: TfFile


@dataclass
class Run:
    """State of one load_directory call."""

    root: Path
    display: Callable[[Path], str]
    options: dict[str, Any]
    #: where a path the configuration names may lead (finlint.confine; docs/security.md)
    roots: Roots
    result: ir.LoadResult = field(default_factory=ir.LoadResult)
    items: list[m.Item] = field(default_factory=list)
    embedded: list[ir.Record] = field(default_factory=list)
    #: module key -> its local copy, or why the copy ``modules.json`` names is not read
    modules_json: dict[str, Path | OutsideRoot] | None = None
    notified: set[str] = field(default_factory=set)

    def notice(self, file: str, line: int, message: str) -> None:
        if message not in self.notified:
            self.notified.add(message)
            self.result.notices.append(ir.Notice(file, line, message))

    def shown(self, path: Path) -> str:
        """``path`` as reports show it (normalized; as written when the display function only
        knows the scanned tree)."""
        normal = Path(os.path.normpath(path))
        try:
            return self.display(normal)
        except ValueError:
            return normal.as_posix()

    def confined(self, path: Path, file: str | None = None, line: int = 1) -> bool:
        """Whether ``path`` (a path the configuration names) resolves inside the roots; if not,
        one notice naming it (at ``file``:``line``, else at the path itself)."""
        if self.roots.contains(path):
            return True
        shown = self.shown(path)
        self.notice(file if file is not None else shown, line, str(OutsideRoot(shown)))
        return False


def read_file(run: Run, path: Path) -> str | None:
    shown = run.display(path)
    raw = read_bytes(path, h.MAX_FILE_BYTES)  # regular files only, bounded (no FIFO, no /dev/zero)
    if isinstance(raw, str):
        if raw.startswith("not a regular file"):
            run.result.notices.append(ir.Notice(shown, 1, raw))
        else:
            run.result.errors.append(ir.LoadError(shown, 1, raw))
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        run.result.errors.append(ir.LoadError(shown, 1, "not UTF-8 text (a binary file?)"))
        return None


def parse_files(run: Run, files: list[Path]) -> list[TfFile]:
    out: list[TfFile] = []
    for path in files:
        if not run.confined(path):  # a symlinked .tf file leading out of the checkout
            continue
        text = read_file(run, path)
        if text is None:
            continue
        shown = run.display(path)
        try:
            if path.name.endswith(".tf.json"):  # JSON syntax: the same body, same lines
                from finlint.loaders.terraform.tfjson import json_to_hcl

                body = h.parse_text(json_to_hcl(text))
            else:
                body = h.parse_text(text)
        except h.HclError as exc:
            run.result.errors.append(ir.LoadError(shown, exc.line, exc.message))
            continue
        except MemoryError:  # this file's fault, said at its path (not the directory's `.:1`)
            run.result.errors.append(ir.LoadError(shown, 1, "out of memory while reading"))
            continue
        for name, line in duplicates(body):
            run.result.notices.append(
                ir.Notice(
                    shown, line, f"argument {name!r} is defined twice in one block; the last one is used"
                )
            )
        out.append(TfFile(path, shown, text, body))
    return out


def duplicates(body: h.Body) -> list[tuple[str, int]]:
    out = list(body.duplicates)
    for block in body.blocks:
        out.extend(duplicates(block.body))
    return out
