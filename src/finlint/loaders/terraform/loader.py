"""Terraform HCL: a directory is one configuration, loaded as Terraform sees it.

Variables are bound from defaults, ``terraform.tfvars`` / ``*.auto.tfvars`` (and their
``.json`` forms), ``--var-file`` and ``--var``; ``local.*``, references to literal
arguments of other resources, ``count`` / ``for_each`` and local modules are resolved by
:mod:`.eval`. Remote modules are never fetched: the copies listed in
``.terraform/modules/modules.json`` are used when present, the EKS module's node-group maps
are read from the caller's inputs, anything else is skipped with one notice. Records come
from :mod:`.mapping`, shared with the plan loader. The work is split by concern: ``files``
(run state, parsing), ``tfvars``, ``modules`` (one module instance), ``values`` (resource
bodies), ``embedded`` (manifests and state machines inside .tf files), ``eks_module``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from finlint import ir
from finlint.confine import Roots
from finlint.loaders.base import no_finalize
from finlint.loaders.common.discovery import read_bytes
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform import mapping as m
from finlint.loaders.terraform.files import FORMAT, TF_SUFFIXES, Run, parse_files
from finlint.loaders.terraform.modules import Module
from finlint.loaders.terraform.tfjson import json_to_hcl
from finlint.loaders.terraform.tfvars import root_tfvars

__all__ = ["FORMAT", "finalize", "load_directory", "module_calls", "module_directories", "modules_called"]
finalize = no_finalize  # no whole-scan pass


# --- entry points --------------------------------------------------------------------------------


def load_directory(
    directory: Path, files: list[Path], display: Callable[[Path], str], options: dict[str, Any] | None = None
) -> ir.LoadResult:
    """All resources of the configuration in ``directory`` (``files`` are its .tf files).

    Every path the configuration names (``file()``, module sources, ``modules.json``,
    symlinked files) is read only inside ``options["roots"]`` (a scan's roots; in a direct
    call, the checkout holding ``directory``, else ``directory``): docs/security.md.
    """
    opts = dict(options or {})
    roots = opts.get("roots")
    run = Run(directory, display, opts, roots if isinstance(roots, Roots) else Roots.of([directory]))
    parsed = parse_files(run, sorted(files))
    tfvars = root_tfvars(run, directory)
    try:
        module = Module(run, directory, parsed, "", None, tfvars, 0, ())
        module.load()
        run.result.records.extend(m.map_items(run.items))
    except RecursionError:
        run.result.errors.append(
            ir.LoadError(display(directory), 1, "configuration is nested too deeply to load")
        )
    except MemoryError:
        run.result.errors.append(ir.LoadError(display(directory), 1, "out of memory while evaluating"))
    run.result.records.extend(run.embedded)
    return run.result


def module_directories(dirs: Iterable[Path]) -> set[Path]:
    """Directories that another of ``dirs`` calls as a local module (not to be loaded standalone).

    A directory is skipped only when a directory that is loaded calls it (directly or through
    other modules). In a cycle nobody else calls (``a`` sources ``../b``, ``b`` sources ``../a``)
    the first directory in sorted order is loaded as the root, so the cycle's resources are
    still scanned once (the loader reports the cyclic call as a notice).
    """
    return modules_called({d: module_calls(d) for d in dirs})


def module_calls(directory: Path) -> set[Path]:
    """The resolved directories ``directory``'s files call as local modules (``./``, ``../``
    sources): what :func:`modules_called` needs of one directory. Under ``--jobs`` a worker
    finds them after loading the directory (its files already parsed), not the main process
    before."""
    targets: set[Path] = set()
    for tf in sorted(f for suffix in TF_SUFFIXES for f in directory.glob(f"*{suffix}")):
        raw = read_bytes(tf, h.MAX_FILE_BYTES)  # never a FIFO or a device
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else None
            if text is not None and tf.name.endswith(".json"):
                text = json_to_hcl(text)
            # no `module` keyword, no module block: the file is parsed once, by the load
            body = h.parse_text(text) if text is not None and "module" in text else None
        except (h.HclError, UnicodeDecodeError, MemoryError):  # the load reports it
            continue
        if body is None:
            continue
        for block in body.blocks_of("module"):
            source = block.body.attrs.get("source")
            if source is None or not isinstance(source.expr, h.Template):
                continue
            text = "".join(p for p in source.expr.parts if isinstance(p, str))
            if text.startswith(("./", "../")):
                targets.add((directory / text).resolve())
    return targets


def modules_called(calls: Mapping[Path, set[Path]]) -> set[Path]:
    """:func:`module_directories` of the directories ``calls`` maps to their :func:`module_calls`."""
    candidates = {d.resolve(): d for d in calls}
    edges: dict[Path, set[Path]] = {
        d: {candidates[t] for t in calls[d] if t in candidates and t != d.resolve()}
        for d in candidates.values()
    }
    called = {t for targets in edges.values() for t in targets}
    roots = [d for d in sorted(edges) if d not in called]
    reached: set[Path] = set()

    def visit(start: Path) -> None:
        stack = [start]
        while stack:
            for target in sorted(edges[stack.pop()]):
                if target not in reached:
                    reached.add(target)
                    stack.append(target)

    for root in roots:
        visit(root)
    for d in sorted(edges):  # cycles no root reaches: the first member loads the rest
        if d not in reached and d in called:
            visit(d)
            reached.discard(d)
            roots.append(d)
    return reached - set(roots)


# --- files -----------------------------------------------------------------------------------------
