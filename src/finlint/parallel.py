"""``--jobs N``: parse files in parallel processes, with output identical to ``--jobs 1``.

Each file is independent until linking, so the per-file loaders (YAML/JSON documents, SDK
scripts and notebooks) run in worker processes on chunks of the sorted file list; results come
back in that order, so records, errors and notices are in exactly the order a serial run
produces and everything after loading (linking, rules, pricing, reports) is unchanged.
Directory loaders (Terraform) stay in the main process.

Small scans stay serial: a worker costs a process and its imports, which only pays off from a
few hundred files (:data:`MIN_FILES`). A chunk that fails in a worker (it cannot be sent back,
a worker died) is loaded again in the main process, so parallelism can never lose a file; a
loader that cannot be imported still fails the run (exit 2), as in a serial scan.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from finlint.ir import LoadResult
from finlint.loaders import LoaderUnavailable

if TYPE_CHECKING:
    from concurrent.futures import Future

    from finlint.scan import ScanOptions

#: Fewer files than this are parsed in the main process whatever ``--jobs`` says.
MIN_FILES = 200
#: Files per task: large enough to amortise the round trip, small enough to balance the load.
MAX_CHUNK = 64

Loaded = tuple[str, "list[str] | None", LoadResult]

_options: ScanOptions | None = None  # the worker's copy, set once by _init


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _init(options: ScanOptions) -> None:
    global _options
    _options = options


def _load_chunk(paths: list[Path]) -> tuple[list[Loaded], list[str]]:
    """The chunk's results and the loader modules the worker has imported (the main process
    imports them too, so every loader that made records gets its whole-scan ``finalize``)."""
    from finlint.scan import load_file

    assert _options is not None
    loaded = [load_file(path, _options) for path in paths]
    return loaded, sorted(m for m in sys.modules if m.startswith("finlint.loaders."))


def _preload(paths: list[Path]) -> None:
    """Import the loaders these files need before forking (the main process needs them for
    ``finalize`` anyway), so workers do not each pay for the imports."""
    from finlint import loaders

    suffixes = {p.suffix for p in paths}
    for spec in loaders.REGISTRY:
        if spec.unit in ("document", "file") and suffixes & set(spec.suffixes):
            spec.load()


def load_files(paths: list[Path], options: ScanOptions) -> Iterator[Loaded]:
    """``(display path, lines or None, LoadResult)`` per file, in the order of ``paths``."""
    from finlint.scan import load_file

    jobs = min(options.jobs, default_jobs() * 4)
    if jobs <= 1 or len(paths) < MIN_FILES:
        for path in paths:
            yield load_file(path, options)
        return
    size = max(1, min(MAX_CHUNK, len(paths) // (jobs * 4) or 1))
    chunks = [paths[i : i + size] for i in range(0, len(paths), size)]
    # Workers get what loading needs: no progress stream, no cost settings (not picklable).
    worker_options = replace(options, progress=None, cost_settings=None)
    import multiprocessing  # only here: a serial scan does not pay for these imports
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    if context.get_start_method() == "fork":
        _preload(paths)  # imported once here, inherited by every forked worker
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init, initargs=(worker_options,)) as pool:
        futures: list[Future[tuple[list[Loaded], list[str]]]] = [
            pool.submit(_load_chunk, chunk) for chunk in chunks
        ]
        for chunk, future in zip(chunks, futures, strict=True):
            try:
                loaded, modules = future.result()
            except LoaderUnavailable:
                raise
            except Exception:  # noqa: BLE001 - the chunk is loaded again here, never lost
                loaded, modules = [load_file(path, options) for path in chunk], []
            for name in modules:
                if name not in sys.modules:
                    importlib.import_module(name)
            yield from loaded
