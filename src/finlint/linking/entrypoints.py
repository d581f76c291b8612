"""Linking training jobs to the scripts they run: a DataLoader in a job's entry point runs on
that job's instances.

An SDK launch names its script (``entry_point="train.py"``, ``source_dir="src"``; ModelTrainer
``SourceCode(source_dir=..., entry_script=...)``), relative to the launcher file's directory
(the SDK resolves ``source_dir`` relative to the working directory, which is usually the
launcher's; an absolute or unresolved path is not followed). A DataLoader in that file gets
``gpu`` from the job's instance type (True for NVIDIA GPU types, False for CPU and Trainium)
and ``job`` = the job's address. The whole ``source_dir`` is uploaded and runs on the job's
instances, so a DataLoader in another module of that directory (a ``data.py`` the entry point
imports) is linked too; the entry point itself is matched first. With several jobs running one
file, a GPU job wins.
"""

from __future__ import annotations

import posixpath
from dataclasses import replace

from finlint.domain.catalog import gpu_of_instance
from finlint.ir import CheckpointPath, DataLoader, Record, TrainingJob, TrainingScript, Volume


def _script_path(job: TrainingJob) -> str | None:
    entry = job.entry_point
    if not isinstance(entry, str) or not entry or entry.startswith(("/", "s3://")):
        return None
    source = job.source_dir
    if source is not None and not isinstance(source, str):
        return None  # an unresolved source_dir: the script could be anywhere
    if isinstance(source, str) and (source.startswith(("/", "s3://")) or "://" in source):
        return None
    base = posixpath.dirname(job.location.file)
    return posixpath.normpath(posixpath.join(base, source or "", entry))


def _source_dir(job: TrainingJob) -> str | None:
    """The job's uploaded directory (relative to the launcher), when it names a relative one."""
    source = job.source_dir
    if not isinstance(source, str) or not source or source.startswith("/") or "://" in source:
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(job.location.file), source))


def _jobs_for(
    path: str, scripts: dict[str, list[TrainingJob]], dirs: list[tuple[str, TrainingJob]]
) -> list[TrainingJob]:
    if path in scripts:
        return scripts[path]
    return [job for directory, job in dirs if directory != "." and path.startswith(directory + "/")]


def link_entry_points(records: list[Record]) -> list[Record]:
    if not any(isinstance(r, DataLoader) for r in records):
        return records
    scripts: dict[str, list[TrainingJob]] = {}
    dirs: list[tuple[str, TrainingJob]] = []
    for r in records:
        if isinstance(r, TrainingJob):
            path = _script_path(r)
            if path is not None:
                scripts.setdefault(path, []).append(r)
                directory = _source_dir(r)
                if directory is not None:
                    dirs.append((directory, r))
    if not scripts:
        return records
    out: list[Record] = []
    for r in records:
        if isinstance(r, DataLoader):
            jobs = _jobs_for(posixpath.normpath(r.location.file), scripts, dirs)
            if jobs:
                verdicts = [(gpu_of_instance(j.instance_type), j) for j in jobs]
                gpu_job = next(((g, j) for g, j in verdicts if g is True), None)
                gpu, job = gpu_job or verdicts[0]
                how = (
                    "the entry point"
                    if posixpath.normpath(r.location.file) in scripts
                    else "in the source_dir"
                )
                evidence = f"it is {how} of {job.address} ({job.instance_type})"
                r = replace(r, gpu=gpu, job=job.address, gpu_evidence=evidence)
        out.append(r)
    return out


def link_warm_pools(records: list[Record]) -> list[Record]:
    """``warm_pool_peers``: how many other jobs in the same file could reuse a job's warm pool.

    SageMaker hands a retained pool to the next job with the same instance type and count (and
    role, network and volume settings finlint does not compare); several such launches in one file
    are the back-to-back iteration warm pools exist for. Only jobs with a known type and count
    and a positive keep-alive are counted.
    """
    keyed: dict[tuple[str, str, int], list[int]] = {}
    for index, r in enumerate(records):
        if (
            isinstance(r, TrainingJob)
            and isinstance(r.keep_alive_s, int)
            and r.keep_alive_s > 0
            and isinstance(r.instance_type, str)
        ):
            count = 1 if r.instance_count is None else r.instance_count
            if isinstance(count, int):
                keyed.setdefault((r.location.file, r.instance_type, count), []).append(index)
    out = list(records)
    for indexes in keyed.values():
        if len(indexes) > 1:
            for index in indexes:
                job = records[index]
                assert isinstance(job, TrainingJob)
                out[index] = replace(job, warm_pool_peers=len(indexes) - 1)
    return out


def _script_for(word: str, near: str, scripts: dict[str, TrainingScript]) -> TrainingScript | None:
    """The scanned script a container's command word names: the path beside the manifest when
    the word is relative, else the one file whose path ends with the most of the word's parts
    (``/workspace/src/train.py`` -> ``.../src/train.py``); None when two are equally close."""
    beside = posixpath.normpath(posixpath.join(posixpath.dirname(near), word))
    if not word.startswith("/") and beside in scripts:
        return scripts[beside]
    parts = [p for p in word.split("/") if p not in ("", ".")]
    best: list[TrainingScript] = []
    best_depth = 0
    for path, script in scripts.items():
        theirs = path.split("/")
        depth = 0
        while depth < len(parts) and depth < len(theirs) and parts[-1 - depth] == theirs[-1 - depth]:
            depth += 1
        if depth and depth > best_depth:
            best, best_depth = [script], depth
        elif depth and depth == best_depth:
            best.append(script)
    return best[0] if len(best) == 1 else None


def link_script_defaults(records: list[Record]) -> list[Record]:
    """A container that runs a scanned script without its checkpoint option checkpoints to the
    option's argparse default: added to ``Volume.checkpoint_paths`` at the command's line, the
    script's file in ``Record.inputs`` (a changed script reports the workload's findings)."""
    scripts = {posixpath.normpath(r.location.file): r for r in records if isinstance(r, TrainingScript)}
    if not scripts:
        return records
    out: list[Record] = []
    for r in records:
        if isinstance(r, Volume) and r.runs_scripts:
            added: list[CheckpointPath] = []
            inputs: list[str] = []
            for run in r.runs_scripts:
                script = _script_for(run.script, r.location.file, scripts)
                if script is None:
                    continue
                for arg in script.checkpoint_args:
                    if any(option in run.given for option in arg.options):
                        continue  # the command sets it: its own path, if any, is already read
                    where = f"{script.location.file}:{arg.line}"
                    source = f"argparse default of {arg.options[0]} in {where} (not given by the command)"
                    added.append(CheckpointPath(arg.default, run.line, source))
                    inputs.append(script.location.file)
            if added:
                r = replace(
                    r,
                    checkpoint_paths=(*r.checkpoint_paths, *added),
                    inputs=tuple(dict.fromkeys((*r.inputs, *inputs))),
                )
        out.append(r)
    return out
