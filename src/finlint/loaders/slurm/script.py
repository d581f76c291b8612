"""One shell file read as Slurm sees it: the ``#SBATCH`` directives (sbatch reads them only up to
the first command; a directive below it is ignored, and said so), and the ``sbatch``/``srun``
command lines (continuations joined) with their literal options. Linear in the file's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from finlint.loaders.slurm.options import Options, parse, words

DIRECTIVE = "#SBATCH"
#: a command line that runs sbatch or srun (after env assignments, ``exec``, ``time``, ``nohup``)
_COMMAND = re.compile(
    r"^\s*(?:(?:[A-Za-z_][A-Za-z0-9_]*=\S*|exec|time|nohup|command)\s+)*(?P<tool>sbatch|srun)(?=\s|$)"
)
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


def read(text: str) -> Script:
    script = Script()
    lines = text.splitlines()
    script.end_line = max(1, len(lines))
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
