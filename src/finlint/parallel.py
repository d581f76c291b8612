"""``--jobs N``: parse files and evaluate rules in N worker processes, with output identical to
``--jobs 1``.

Each file is independent until linking, so the per-file loaders (YAML/JSON documents, SDK
scripts and notebooks) run on chunks of the sorted file list in a
:class:`concurrent.futures.ProcessPoolExecutor`; discovery submits chunks as it finds them.
Results are taken in list order, so records, errors and notices are in exactly the order a
serial run produces and everything after loading (linking, rules, pricing, reports) is
unchanged. Directory units whose loader says they load alone (``LoaderSpec.independent_units``:
Terraform configurations) are loaded the same way, after the files, groups of whole units per
task (:func:`load_units`), each unit with the local modules it calls, so no file is parsed in
this process first; the units another unit calls are left out here, as a serial scan does.
Helm charts stay in this process.

Rules run after linking, over every record at once. With many records (:data:`MIN_RECORDS`)
and a process that can fork (:func:`can_fork`: no other thread runs in it), the record indices
are dealt into shares kind by kind (each share gets every k-th record of each kind, so every
share has its part of the expensive kinds) and evaluated by forked workers, which inherit the
linked records (nothing is sent to them). Results come back tagged with their place in the
serial order and are merged into exactly that order, their findings re-attached to this
process's records.

Small scans stay serial: a worker costs a process and its imports, which only pays off from a
few hundred files (:data:`MIN_FILES`). A chunk or share that fails in a worker (it cannot be
sent back, a worker died) is done again in this process, so parallelism can never lose a file;
a loader that cannot be imported still fails the run (exit 2), as in a serial scan.
"""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from finlint.ir import LoadResult
from finlint.loaders import DirectoryLoader, IndependentDirectoryLoader, LoaderSpec, LoaderUnavailable

if TYPE_CHECKING:
    from concurrent.futures import Future

    from finlint.engine import EngineConfig, Policy, Undetermined
    from finlint.engine.run import Tagged
    from finlint.finding import Finding
    from finlint.ir import Record
    from finlint.options import ScanOptions

#: Fewer files than this are parsed in the main process whatever ``--jobs`` says.
MIN_FILES = 200
#: Files per task at most: large enough to amortise a task's cost, small enough to balance the load.
MAX_CHUNK = 32
#: Chunks per process (while the files found are few, chunks are smaller).
CHUNKS_PER_JOB = 8
#: Fewer records than this are evaluated in the main process (a fork costs more than they do).
MIN_RECORDS = 2000
#: Rule shares per worker: enough that the last one taken is short, few enough to be cheap.
SHARES_PER_JOB = 4

Loaded = tuple[str, "list[str] | None", LoadResult]

_options: ScanOptions | None = None  # the worker's copy, set once by _init
#: what forked rule workers inherit: (policies, records, config, want_undetermined)
_engine_input: tuple[list[Policy], list[Record], EngineConfig, bool] | None = None


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))  # type: ignore[attr-defined,unused-ignore]
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _init(options: ScanOptions) -> None:
    global _options
    _options = options


def _run_chunk(paths: list[Path]) -> tuple[list[Loaded], list[str]]:
    """What the pool is handed (by name): the chunk's results (loaded by whatever
    ``_load_chunk`` is in the worker) and the loader modules the worker has imported (the main
    process imports them too, so every loader that made records gets its whole-scan
    ``finalize``)."""
    assert _options is not None
    loaded = _load_chunk(paths, _options)
    return loaded, sorted(m for m in sys.modules if m.startswith("finlint.loaders."))


def _load_chunk(paths: list[Path], options: ScanOptions) -> list[Loaded]:
    from finlint.loaders.dispatch import load_file

    return [load_file(path, options) for path in paths]


def _preload(paths: list[Path]) -> None:
    """Import the loaders these files need before forking (the main process needs them for
    ``finalize`` anyway), so workers do not each pay for the imports."""
    from finlint import loaders

    suffixes = {p.suffix for p in paths}
    for spec in loaders.REGISTRY:
        if spec.unit in ("document", "file") and suffixes & set(spec.suffixes):
            spec.load()


def load_files(paths: Iterable[Path], options: ScanOptions) -> Iterator[Loaded]:
    """``(display path, lines or None, LoadResult)`` per file, in the order of ``paths``.

    ``paths`` may be a generator (discovery): in a parallel scan the workers start on the
    first chunks while it is still running. Nothing is yielded before it is exhausted."""
    from finlint.loaders.dispatch import load_file

    jobs = min(options.jobs, default_jobs() * 4)
    stream = iter(paths)
    head = list(itertools.islice(stream, MIN_FILES)) if jobs > 1 else list(stream)
    if jobs <= 1 or len(head) < MIN_FILES:
        for path in head:
            yield load_file(path, options)
        return
    yield from _load_in_pool(head, stream, jobs, options)


def can_fork() -> bool:
    """Whether this process may fork workers: the OS forks, and no other thread runs here. A
    forked child has only the thread that forked, so a lock another thread held at that moment
    (Python's, malloc's, or one of the Go runtime that helm-python-sdk starts when it renders a
    chart) stays held in the child forever. A multi-threaded caller (a library user's server, a
    scan that rendered a chart) gets spawned workers for loading and one pass for the rules."""
    if not hasattr(os, "fork"):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1  # every OS thread, native ones included
    except OSError:  # no /proc (macOS, BSD): the threads Python knows of
        import threading

        return threading.active_count() == 1


def _load_in_pool(
    head: list[Path], rest: Iterator[Path], jobs: int, options: ScanOptions
) -> Iterator[Loaded]:
    """Chunks submitted to ``jobs`` workers while discovery goes on, results taken in order."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    from finlint.loaders.dispatch import load_file

    # Workers get what loading needs: no progress stream, no cost settings (not picklable).
    worker_options = replace(options, progress=None, cost_settings=None)
    forked = can_fork()
    if forked:
        _preload(head)  # imported once here, inherited by every forked worker
    context = multiprocessing.get_context("fork" if forked else "spawn")
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init, initargs=(worker_options,)) as pool:
        chunks: list[list[Path]] = []
        futures: list[Future[tuple[list[Loaded], list[str]]] | None] = []

        def submit(chunk: list[Path]) -> None:
            chunks.append(chunk)
            try:
                futures.append(pool.submit(_run_chunk, chunk))
            except BrokenProcessPool:  # a worker died (the OOM killer): the rest is loaded here
                futures.append(None)

        chunk: list[Path] = []
        for found, path in enumerate(itertools.chain(head, rest), 1):  # discovery goes on here
            chunk.append(path)
            if len(chunk) >= _chunk_size(found, len(head), jobs):
                submit(chunk)
                chunk = []
        if chunk:
            submit(chunk)
        for chunk, future in zip(chunks, futures, strict=True):
            try:
                if future is None:
                    raise BrokenProcessPool
                loaded, modules = future.result()
            except LoaderUnavailable:
                raise
            except Exception:  # noqa: BLE001 - the chunk is loaded again here, never lost
                loaded, modules = [load_file(path, options) for path in chunk], []
            for name in modules:
                if name not in sys.modules:
                    importlib.import_module(name)
            yield from loaded


Unit = tuple[Path, list[Path]]  # a directory and the files its loader is handed


def load_units(spec: LoaderSpec, units: list[Unit], options: ScanOptions) -> Iterator[LoadResult]:
    """One LoadResult per directory unit that no other unit calls as a module (the loader's
    ``module_directories``), in the order of ``units``: in ``--jobs`` workers when the format's
    units are independent and hold :data:`MIN_FILES` files or more.

    Serially, the module calls are found first (the files with a ``module`` block parsed, then
    kept for the load). In workers, each unit is loaded and then says which modules it calls
    (from the files its load just parsed), and the units called by others are left out here:
    nothing is parsed in this process before the workers start, where a Terraform tree whose
    configurations call modules had most of its files parsed serially. A called module's
    standalone load is the work this costs; the output is the serial one."""
    from finlint.loaders.dispatch import load_unit

    jobs = min(options.jobs, default_jobs() * 4)
    files = sum(len(unit_files) for _, unit_files in units)
    if jobs <= 1 or not spec.independent_units or len(units) < 2 or files < MIN_FILES:
        directory_loader: DirectoryLoader = spec.load()
        skip = directory_loader.module_directories([directory for directory, _ in units])
        for directory, unit_files in units:
            if directory not in skip:
                yield load_unit(spec, directory, unit_files, options)
        return
    module: IndependentDirectoryLoader = spec.load()
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    worker_options = replace(options, progress=None, cost_settings=None)
    context = multiprocessing.get_context("fork" if can_fork() else "spawn")
    # groups of whole units, about CHUNKS_PER_JOB per worker (at most MAX_CHUNK files, but at
    # least one unit): few enough to amortise a task, enough to balance the load
    size = min(MAX_CHUNK, files // (jobs * CHUNKS_PER_JOB) or 1)
    groups: list[list[Unit]] = [[]]
    for unit in units:
        if groups[-1] and sum(len(f) for _, f in groups[-1]) + len(unit[1]) > size:
            groups.append([])
        groups[-1].append(unit)
    done: list[tuple[LoadResult | None, set[Path] | None]] = []
    with ProcessPoolExecutor(jobs, mp_context=context, initializer=_init, initargs=(worker_options,)) as pool:
        futures: list[Future[list[tuple[LoadResult | None, set[Path]]]] | None] = []
        for group in groups:
            try:
                futures.append(pool.submit(_run_units, spec, group))
            except BrokenProcessPool:  # a worker died: the rest is loaded here
                futures.append(None)
        for group, future in zip(groups, futures, strict=True):
            try:
                if future is None:
                    raise BrokenProcessPool
                done.extend(future.result())
            except LoaderUnavailable:
                raise
            except Exception:  # noqa: BLE001 - the group is loaded again here, never lost
                done.extend((None, None) for _ in group)
    calls = {
        directory: found if found is not None else module.module_calls(directory)
        for (directory, _), (_, found) in zip(units, done, strict=True)
    }
    skip = module.modules_called(calls)
    for (directory, unit_files), (result, _) in zip(units, done, strict=True):
        if directory in skip:
            continue
        # None: the unit used the run's shared state (a Helm render's once-per-run notice), or
        # its worker failed: loaded here, in order, with this run's state, as a serial scan does
        yield result if result is not None else load_unit(spec, directory, unit_files, options)


class _RunState(dict[str, Any]):
    """A worker's stand-in for the run's shared state (``loader_options["run"]``): it notes
    whether a unit's loader looked at it at all."""

    touched = False

    def get(self, *args: Any) -> Any:
        self.touched = True
        return super().get(*args)

    def __getitem__(self, key: str) -> Any:
        self.touched = True
        return super().__getitem__(key)

    def __setitem__(self, key: str, value: Any) -> None:
        self.touched = True
        super().__setitem__(key, value)

    def __contains__(self, key: object) -> bool:
        self.touched = True
        return super().__contains__(key)

    def setdefault(self, key: str, default: Any = None) -> Any:
        self.touched = True
        return super().setdefault(key, default)


def _run_units(spec: LoaderSpec, group: list[Unit]) -> list[tuple[LoadResult | None, set[Path]]]:
    """A worker's task: a group of directory units of ``spec``'s format, each loaded (None for a
    unit whose loader used the run's shared state: the main process loads it again, with the
    real one) with the local modules it calls (its files are parsed by then)."""
    from finlint.loaders.dispatch import load_unit

    assert _options is not None
    module: IndependentDirectoryLoader = spec.load()
    out: list[tuple[LoadResult | None, set[Path]]] = []
    for directory, unit_files in group:
        state = _RunState()
        options = replace(_options, loader_options={**_options.loader_options, "run": state})
        result = load_unit(spec, directory, unit_files, options)
        out.append((None if state.touched else result, module.module_calls(directory)))
    return out


def _chunk_size(found: int, head: int, jobs: int) -> int:
    """Chunks grow with the files found: large enough to amortise a chunk's cost, small
    enough that the last ones balance the load."""
    return min(MAX_CHUNK, max(head, found) // (jobs * CHUNKS_PER_JOB) or 1)


def run_policies(
    policies: list[Policy],
    records: list[Record],
    config: EngineConfig,
    undetermined: list[Undetermined] | None,
    jobs: int,
) -> list[Finding]:
    """:func:`finlint.engine.run_policies`, over slices of ``records`` in forked processes."""
    from finlint.engine import run as engine
    from finlint.finding import Finding

    jobs = min(jobs, default_jobs() * 4)
    if jobs <= 1 or len(records) < MIN_RECORDS:
        return engine.run_policies(policies, records, config, undetermined)
    if not can_fork():  # Windows (no inherited records), or another thread runs here
        return engine.run_policies(policies, records, config, undetermined)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _engine_input
    _engine_input = (policies, records, config, undetermined is not None)
    shares = _deal(records, jobs * SHARES_PER_JOB)
    parts: list[list[Tagged]] = []
    try:
        # forked workers inherit _engine_input: only a share's indices go to them
        with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_run_share, share) for share in shares]  # before any can die
            for share, future in zip(shares, futures, strict=True):
                try:
                    parts.append(future.result())
                except Exception:  # noqa: BLE001 - a worker died or could not send it back
                    parts.append(_evaluate_slice(share))
    except Exception:  # noqa: BLE001 - a share that fails here fails in one pass too: say so there
        return engine.run_policies(policies, records, config, undetermined)
    finally:
        _engine_input = None
    tagged = sorted((item for part in parts for item in part), key=lambda item: item[0])
    for (_, _, index), item in tagged:
        if isinstance(item, Finding) and item.record is None:
            item.record = records[index]  # sent back without it: the records here are the ones
    return engine.collect(tagged, undetermined)


def _deal(records: list[Record], parts: int) -> list[list[int]]:
    """The records' indices dealt into ``parts`` shares, kind by kind: each share gets every
    ``parts``-th record of each kind. (Every ``parts``-th record overall is not enough: a file's
    records sit next to each other, so with a notebook and its file system in each template,
    one share got every notebook.)"""
    by_kind: dict[str, list[int]] = {}
    for index, record in enumerate(records):
        by_kind.setdefault(record.KIND, []).append(index)
    shares: list[list[int]] = [[] for _ in range(parts)]
    for indices in by_kind.values():
        for share in range(parts):
            shares[share].extend(indices[share::parts])
    return shares


def _run_share(indices: list[int]) -> list[Tagged]:
    """A forked worker's task: a share's record indices, its findings sent back without their
    records (this process has them; pickling them would copy them)."""
    from finlint.finding import Finding

    tagged = _evaluate_slice(indices)
    for _, item in tagged:
        if isinstance(item, Finding):
            item.record = None
    return tagged


def _evaluate_slice(indices: list[int]) -> list[Tagged]:
    from finlint.engine import run as engine

    assert _engine_input is not None
    policies, records, config, want_undetermined = _engine_input
    return engine.evaluate_records(policies, records, config, indices, want_undetermined)
