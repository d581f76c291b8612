"""Slurm command-line options as ``sbatch``/``srun`` read them, written in ``#SBATCH`` lines or on a
command line: the options finlint reads (time, nodes, GPUs, partition, exclusive, job name), their
values as IR values, and Slurm's time formats. Pure functions over text; nothing is executed.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field

from finlint.ir import Unknown

#: long option -> the name finlint keeps (short options map to the same names)
_LONG = {
    "time": "time",
    "nodes": "nodes",
    "gres": "gres",
    "gpus-per-node": "gpus_per_node",
    "gpus": "gpus",
    "partition": "partition",
    "exclusive": "exclusive",
    "job-name": "job_name",
    "wrap": "wrap",
}
_SHORT = {"t": "time", "N": "nodes", "p": "partition", "J": "job_name", "G": "gpus"}
#: options that take no value (so the next word is not theirs): sbatch and srun flags
_LONG_FLAGS = frozenset(
    [
        "exclusive",
        "label",
        "unbuffered",
        "overlap",
        "pty",
        "verbose",
        "quiet",
        "no-kill",
        "requeue",
        "no-requeue",
        "test-only",
        "hold",
        "parsable",
        "contiguous",
        "overcommit",
        "spread-job",
        "use-min-nodes",
        "oversubscribe",
        "disable-status",
        "exact",
        "whole",
        "ignore-pbs",
        "get-user-env",
        "help",
        "usage",
        "version",
        "no-allocate",
        "kill-on-bad-exit",
        "multi-prog",
        "preserve-env",
    ]
)
_SHORT_FLAGS = frozenset("luvQKOHIWksXEhV")
#: a value that is a shell or template placeholder: never read as a literal
_PLACEHOLDER = re.compile(r"\$|\{\{|\{%|`")
#: at most this many words of one command line are looked at
MAX_WORDS = 400


@dataclass
class Options:
    """The options read from directives or one command line: name -> (raw value, line)."""

    values: dict[str, tuple[str | bool, int]] = field(default_factory=dict)
    #: a word that may expand to options (``"${ARGS[@]}"``): options not seen may be set there
    expanded: str | None = None
    #: the first word after the options (the script ``sbatch`` submits, the program ``srun`` runs)
    operand: str | None = None
    operand_line: int | None = None

    def put(self, name: str, value: str | bool, line: int) -> None:
        self.values[name] = (value, line)  # the last occurrence wins, as in Slurm


def words(text: str) -> list[str]:
    """Shell words of one line or joined command (comments dropped); a line shlex cannot split
    (an unbalanced quote) is split on whitespace."""
    try:
        lexer = shlex.shlex(text, posix=True, punctuation_chars=False)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        out: list[str] = []
        for word in lexer:
            out.append(word)
            if len(out) >= MAX_WORDS:
                break
        return out
    except ValueError:
        return text.split("#", 1)[0].split()[:MAX_WORDS]


def parse(tokens: list[str], line: int, into: Options, stop_at_operand: bool) -> int:
    """Read options from ``tokens`` (all on ``line``) into ``into``; returns how many tokens were
    options. With ``stop_at_operand`` the first non-option word ends the options (a command line)."""
    i = 0
    while i < len(tokens):
        word = tokens[i]
        if _PLACEHOLDER.search(word) and not word.startswith("-"):
            if stop_at_operand and into.expanded is None and _looks_like_option_list(word):
                into.expanded = word
                i += 1
                continue
            if stop_at_operand:
                into.operand, into.operand_line = word, line
                return i
            i += 1
            continue
        if word == "--":
            return i + 1
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            takes = name not in _LONG_FLAGS
            if not eq and takes and name != "exclusive" and i + 1 < len(tokens):
                value = tokens[i + 1]
                i += 1
            kept = _LONG.get(name)
            if kept == "exclusive":
                into.put(kept, True, line)
            elif kept is not None and (eq or takes):
                into.put(kept, value, line)
            i += 1
            continue
        if word.startswith("-") and len(word) > 1:
            letter, attached = word[1], word[2:]
            if letter in _SHORT_FLAGS:
                i += 1
                continue
            value = attached.lstrip("=")
            if not attached and i + 1 < len(tokens):
                value = tokens[i + 1]
                i += 1
            if letter in _SHORT:
                into.put(_SHORT[letter], value, line)
            i += 1
            continue
        if stop_at_operand:
            into.operand, into.operand_line = word, line
            return i
        i += 1
    return i


def _looks_like_option_list(word: str) -> bool:
    """``"${ARGS[@]}"`` or ``$SRUN_OPTS``: a whole word that is a variable may hold options."""
    return word.startswith("$")


# --------------------------------------------------------------------------- values

#: Slurm's time formats: minutes, minutes:seconds, hours:minutes:seconds, days-hours,
#: days-hours:minutes, days-hours:minutes:seconds
_TIME = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")
UNLIMITED = ("unlimited", "infinite")


def time_seconds(raw: str) -> int | Unknown | None:
    """``--time`` in seconds; None for no limit (UNLIMITED, INFINITE, 0); Unknown for a
    placeholder or a value Slurm would reject."""
    text = raw.strip().strip("'\"")
    if _PLACEHOLDER.search(text):
        return Unknown(f"--time is a placeholder ({text!r})", text)
    if text.lower() in UNLIMITED:
        return None
    match = _TIME.match(text)
    if match is None:
        return Unknown(f"--time {text!r} is not a Slurm time")
    days_s, first, second, third = match.groups()
    a, b, c = int(first), int(second) if second else None, int(third) if third else None
    if days_s is not None:  # days-hours[:minutes[:seconds]]
        seconds = int(days_s) * 86400 + a * 3600 + (b or 0) * 60 + (c or 0)
    elif c is not None:  # hours:minutes:seconds
        seconds = a * 3600 + (b or 0) * 60 + c
    elif b is not None:  # minutes:seconds
        seconds = a * 60 + b
    else:  # minutes
        seconds = a * 60
    return seconds if seconds > 0 else None  # 0: "no time limit be imposed"


def count(raw: str, what: str) -> int | Unknown:
    """A node or GPU count: a whole number; a range (``2-4``) or a placeholder is Unknown."""
    text = raw.strip().strip("'\"")
    if _PLACEHOLDER.search(text):
        return Unknown(f"{what} is a placeholder ({text!r})", text)
    if text.isdigit():
        return int(text)
    return Unknown(f"{what} {text!r} is not one number")


def gres_gpus(raw: str) -> int | Unknown | None:
    """GPUs per node of ``--gres`` (``gpu:8``, ``gpu:a100:8``, ``gpu`` = 1); None: no GPU gres."""
    text = raw.strip().strip("'\"")
    if _PLACEHOLDER.search(text):
        return Unknown(f"--gres is a placeholder ({text!r})", text)
    for part in text.split(","):
        name, _, rest = part.partition(":")
        if name.strip() != "gpu":
            continue
        last = rest.rsplit(":", 1)[-1] if rest else "1"
        last = last.split("(", 1)[0]
        return int(last) if last.isdigit() else 1
    return None


def gpus_value(raw: str, what: str) -> int | Unknown:
    """``--gpus-per-node`` / ``--gpus``: ``8`` or ``a100:8``."""
    text = raw.strip().strip("'\"")
    return count(text.rsplit(":", 1)[-1], what)


def name_value(raw: str, what: str) -> str | Unknown:
    text = raw.strip().strip("'\"")
    if _PLACEHOLDER.search(text):
        return Unknown(f"{what} is a placeholder ({text!r})", text)
    return text
