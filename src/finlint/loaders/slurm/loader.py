"""Slurm batch scripts -> TrainingJob records (a FileLoader; nothing is executed).

A file is read when it holds ``#SBATCH`` or a ``sbatch`` command (a cheap substring check comes
first: a plain shell script is not ours). A ``.sbatch``/``.slurm`` file, or a shell script whose
header has ``#SBATCH`` directives, is one job: ``--time`` is its runtime limit, ``--nodes`` its
instance count, ``--gres=gpu:N``/``--gpus-per-node`` and ``--partition`` go to ``extra``. A
``srun --time`` in the script limits the step that does the work, so it counts as a limit. Every
``sbatch`` command line (a wrapper's, or a script's own) is a submission: :func:`finalize` applies
its literal options to the script it submits when the scan holds it, else keeps it as a job of
its own (``--wrap``, or a script the scan does not hold), and gives a job the instance type of the
ParallelCluster queue its partition names when the scan holds one cluster configuration.
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import Any

from finlint import ir
from finlint.ir import LoadResult, Location, TrainingJob, Unknown
from finlint.loaders.slurm import options as opt
from finlint.loaders.slurm.conf import is_conf, load_conf
from finlint.loaders.slurm.script import DIRECTIVE, Command, Script, read

FORMAT = "slurm"
LAUNCHER = "slurm-sbatch"
JOB_SUFFIXES = (".sbatch", ".slurm")
#: what a job without a limit does (FIN101's message)
NO_LIMIT = (
    "without #SBATCH --time a Slurm job runs until its partition's MaxTime "
    "(often UNLIMITED on HyperPod and ParallelCluster)"
)
LIMIT_FIELD = "#SBATCH --time"
#: extra key of a submission record: the display path of the script it submits (None: --wrap)
SUBMITS = "slurm_submits"
#: at most this many submission records per file
MAX_SUBMISSIONS = 100
#: the head of a file with no extension that :func:`sniff` reads (as discovery does)
SNIFF_BYTES = 4096


def ours(text: str) -> bool:
    """The cheap check: Slurm directives or an sbatch command somewhere in the text."""
    return DIRECTIVE in text or "sbatch" in text


def sniff(head: str) -> bool:
    """A file with no extension is a Slurm script when its first bytes are a shebang and then,
    before any command, ``#SBATCH`` directives (``train``, ``run_pretrain``): a plain script
    or a Makefile is not read."""
    if not head.startswith("#!"):
        return False
    for raw in head.splitlines()[1:]:
        stripped = raw.strip()
        if stripped.startswith(DIRECTIVE):
            return len(stripped) == len(DIRECTIVE) or stripped[len(DIRECTIVE)].isspace()
        if stripped and not stripped.startswith("#"):
            return False  # a command before any directive: sbatch would read none
    return False


def load_file(path: Path, display: str, text: str, options: dict[str, Any]) -> LoadResult:
    result = LoadResult()
    if is_conf(display):
        return load_conf(display, text)
    if not ours(text):
        return result
    if "." not in posixpath.basename(display) and not sniff(text[:SNIFF_BYTES]):
        return result  # a file with no extension is read only as a script with directives
    script = read(text)
    is_job = display.endswith(JOB_SUFFIXES) or script.first_directive is not None
    if is_job:
        result.records.append(_script_job(display, script))
    submissions = [c for c in script.commands if c.tool == "sbatch"][:MAX_SUBMISSIONS]
    for index, command in enumerate(submissions):
        result.records.append(_submission(display, command, index))
    return result


def _fields(found: opt.Options, lines: dict[str, int], extra: dict[str, Any]) -> dict[str, Any]:
    """IR fields of the options finlint reads, their lines in ``lines``."""
    values = found.values
    out: dict[str, Any] = {"default_note": NO_LIMIT}
    if "time" in values:
        raw, line = values["time"]
        out["max_runtime_s"] = opt.time_seconds(str(raw))
        lines["max_runtime_s"] = line
        if out["max_runtime_s"] is None:
            out["default_note"] = f"--time={str(raw).strip()} at line {line} sets no limit; {NO_LIMIT}"
    if "nodes" in values:
        raw, line = values["nodes"]
        out["instance_count"] = opt.count(str(raw), "--nodes")
        lines["instance_count"] = line
    gpus: Any = None
    if "gpus_per_node" in values:
        gpus = opt.gpus_value(str(values["gpus_per_node"][0]), "--gpus-per-node")
    elif "gres" in values:
        gpus = opt.gres_gpus(str(values["gres"][0]))
    if gpus is not None:
        extra["gpus_per_node"] = gpus
    if "partition" in values:
        raw, line = values["partition"]
        part = opt.name_value(str(raw), "--partition")
        if isinstance(part, str) and "," in part:
            part = Unknown(f"--partition lists several partitions ({part})")
        extra["partition"] = part
        lines["partition"] = line
    if "exclusive" in values:
        extra["exclusive"] = True
    if "job_name" in values:
        raw, line = values["job_name"]
        out["name"] = opt.name_value(str(raw), "--job-name")
        lines["name"] = line
    return out


def _base(
    address: str,
    display: str,
    line: int,
    end: int,
    fields: dict[str, Any],
    lines: dict[str, int],
    extra: dict[str, Any],
) -> TrainingJob:
    return TrainingJob(
        address=address,
        location=Location(display, line, end),
        source_format=FORMAT,
        attr_lines=lines,
        extra=extra,
        launcher=LAUNCHER,
        runtime_limit_field=LIMIT_FIELD,
        checkpoint_local_path_default=None,
        **fields,
    )


def _script_job(display: str, script: Script) -> TrainingJob:
    lines: dict[str, int] = {}
    extra: dict[str, Any] = {}
    fields = _fields(script.directives, lines, extra)
    if "max_runtime_s" not in fields:
        step = _step_limit(script.commands)
        if step is not None:
            fields["max_runtime_s"], lines["max_runtime_s"] = step
            extra["runtime_from"] = f"srun --time at line {step[1]} (the step's limit)"
    ignored = [(n, body) for n, body in script.ignored if body.startswith(("--time", "-t"))]
    if ignored and "max_runtime_s" not in fields:
        n, body = ignored[0]
        fields["default_note"] = (
            f"#SBATCH {body} at line {n} is below the first command, so sbatch ignores it; {NO_LIMIT}"
        )
    if script.checkpoints:
        lines["checkpoint_local_path"], fields["checkpoint_local_path"] = script.checkpoints[0]
        fields["checkpoint_in_sight"] = fields["checkpoint_local_path"]  # FIN201 on a spot queue
    if script.mounts:
        fields["file_system_mounts"] = tuple(
            ir.Mount(volume=path, mount_path=path, line=n, is_efs=efs) for n, path, efs in script.mounts
        )
    line = script.first_directive or 1
    return _base(
        f"sbatch:{posixpath.basename(display)}", display, line, script.end_line, fields, lines, extra
    )


def _step_limit(commands: list[Command]) -> tuple[Any, int] | None:
    """The largest literal ``srun --time`` of the script, when every srun has one."""
    runs = [c for c in commands if c.tool == "srun"]
    if not runs or any("time" not in c.options.values for c in runs):
        return None
    limits = [(opt.time_seconds(str(c.options.values["time"][0])), c.options.values["time"][1]) for c in runs]
    if any(v is None for v, _ in limits):
        return None  # an unlimited step: no limit
    unknown = next(((v, n) for v, n in limits if isinstance(v, Unknown)), None)
    if unknown is not None:
        return unknown
    known = [(int(v), n) for v, n in limits if isinstance(v, int)]
    return max(known, key=lambda pair: pair[0])


def _submission(display: str, command: Command, index: int) -> TrainingJob:
    lines: dict[str, int] = {}
    extra: dict[str, Any] = {}
    found = command.options
    fields = _fields(found, lines, extra)
    target: Any = None
    if "wrap" not in found.values:
        operand = found.operand
        if operand is None:
            target = Unknown("sbatch reads the script from stdin")
        elif opt.name_value(operand, "script") != operand:
            target = Unknown(f"the submitted script is a placeholder ({operand!r})", operand)
        else:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(display), operand))
    extra[SUBMITS] = target
    if found.expanded is not None:
        extra["expanded"] = found.expanded
    if "max_runtime_s" not in fields:
        if found.expanded is not None:
            fields["max_runtime_s"] = Unknown(f"the sbatch options expand from {found.expanded}")
            lines["max_runtime_s"] = command.line
        elif target is not None:
            shown = target if isinstance(target, str) else target.reason
            fields["max_runtime_s"] = Unknown(f"the submitted script is not in the scan ({shown})")
            lines["max_runtime_s"] = command.line
    what = posixpath.basename(target) if isinstance(target, str) else "wrap" if target is None else "script"
    address = f"sbatch:{posixpath.basename(display)}>{what}#{index + 1}"
    return _base(address, display, command.line, command.line, fields, lines, extra)


def finalize(records: list[ir.Record]) -> list[ir.Record]:
    from finlint.loaders.slurm import link

    linked = link.link_partitions(link.link_hyperpod_groups(link.apply_submissions(records)))
    return link.link_shared_storage(link.link_time_limits(linked))
