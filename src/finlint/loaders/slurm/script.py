"""One shell file read as Slurm sees it: the ``#SBATCH`` directives (sbatch reads them only up to
the first command; a directive below it is ignored, and said so), and the ``sbatch``/``srun``
command lines (continuations joined) with their literal options, and the absolute paths the
script tells its training to checkpoint to (``--checkpoint-dir /fsx/ckpt``, ``CKPT_DIR=/fsx/ckpt``).
Linear in the file's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from finlint.loaders.common.shellwords import checkpoint_flag_paths
from finlint.loaders.slurm.options import Options, parse, words

DIRECTIVE = "#SBATCH"
#: a command line that runs sbatch or srun (after env assignments, ``exec``, ``time``, ``nohup``)
_COMMAND = re.compile(
    r"^\s*(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|exec|time|nohup|command)\s+)*(?P<tool>sbatch|srun)(?=\s|$)"
)
#: a shell assignment of a checkpoint directory (``export CKPT_DIR=/fsx/ckpt``)
_CHECKPOINT_ENV = re.compile(
    r"^\s*(?:export\s+)?[A-Za-z0-9_]*(?:CHECKPOINT|CKPT)[A-Za-z0-9_]*=[\"']?(/[^\s'\";]*)", re.IGNORECASE
)
CHECKPOINT_WORD = re.compile(r"checkpoint|ckpt", re.IGNORECASE)
#: one command spans at most this many continuation lines
MAX_CONTINUATIONS = 200
#: at most this many sbatch/srun command lines of one file are read
MAX_COMMANDS = 500


@dataclass
class Command:
    """One sbatch/srun command line: the tool, its first line, its literal options."""

    tool: str  # sbatch | srun
    line: int  # where it starts
    options: Options


@dataclass
class Script:
    """A file as Slurm reads it: header directives, ignored directives, command lines."""

    directives: Options = field(default_factory=Options)
    first_directive: int | None = None
    #: directive lines below the first command: sbatch ignores them
    ignored: list[tuple[int, str]] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    end_line: int = 1
    #: (line, path) of each literal checkpoint path a command line or assignment names
    checkpoints: list[tuple[int, str]] = field(default_factory=list)
    #: (line, directory, is EFS) of each ``mount -t TYPE SOURCE DIR`` the script runs
    mounts: list[tuple[int, str, bool]] = field(default_factory=list)


def read(text: str) -> Script:
    script = Script()
    lines = text.splitlines()
    script.end_line = max(1, len(lines))
    script.checkpoints = _checkpoints(lines)
    script.mounts = _mounts(lines)
    in_header = True
    number = 0
    while number < len(lines):
        raw = lines[number]
        number += 1
        stripped = raw.strip()
        if stripped.startswith(DIRECTIVE) and (len(stripped) == len(DIRECTIVE) or stripped[7].isspace()):
            body = stripped[len(DIRECTIVE) :]
            if not in_header:
                script.ignored.append((number, body.strip()))
                continue
            if script.first_directive is None:
                script.first_directive = number
            parse(words(body), number, script.directives, stop_at_operand=False)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        in_header = False
        match = _COMMAND.match(raw)
        if match is None or len(script.commands) >= MAX_COMMANDS:
            continue
        start = number
        joined = raw[match.end() :]
        taken = 0
        while joined.rstrip().endswith("\\") and number < len(lines) and taken < MAX_CONTINUATIONS:
            joined = joined.rstrip()[:-1] + " " + lines[number]
            number += 1
            taken += 1
        command = Command(match.group("tool"), start, Options())
        parse(words(joined), start, command.options, stop_at_operand=True)
        script.commands.append(command)
    return script


def _checkpoints(lines: list[str]) -> list[tuple[int, str]]:
    """Literal absolute checkpoint paths outside comments, in line order."""
    out: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if stripped.startswith("#") or not CHECKPOINT_WORD.search(stripped):
            continue
        env = _CHECKPOINT_ENV.match(raw)
        found = [env.group(1)] if env else checkpoint_flag_paths(stripped)
        out.extend((number, path) for path in found)
    return out


def _mounts(lines: list[str]) -> list[tuple[int, str, bool]]:
    """``mount -t efs fs-1:/ /efs`` (EFS), ``mount -t nfs4 fs-1.efs.REGION.amazonaws.com:/ /efs``
    (EFS by its DNS name), ``mount -t lustre ... /fsx`` (not EFS): literal mounts only."""
    out: list[tuple[int, str, bool]] = []
    for number, raw in enumerate(lines, 1):
        parts = raw.split()
        if parts[:1] == ["sudo"]:
            parts = parts[1:]
        if parts[:1] != ["mount"] or "-t" not in parts:
            continue
        kind, rest, skip = "", [], False
        for i, part in enumerate(parts[1:], 1):
            if skip:
                skip = False
            elif part in ("-t", "-o"):
                skip = True
                kind = parts[i + 1] if part == "-t" and i + 1 < len(parts) else kind
            elif not part.startswith("-"):
                rest.append(part)
        if len(rest) < 2 or not rest[-1].startswith("/"):
            continue
        efs = kind == "efs" or (kind.startswith("nfs") and ".efs." in rest[-2])
        out.append((number, rest[-1].rstrip("/") or "/", efs))
    return out
