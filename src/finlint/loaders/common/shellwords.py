"""Shell words every launcher format shares: the paths a ``--*checkpoint*`` flag names and
``$VAR``/``${VAR}``/``$(VAR)`` expansion. Kubernetes container args, ConfigMap scripts (linking)
and Slurm batch scripts all read them the same way, from here."""

from __future__ import annotations

import re

CHECKPOINT_WORD = re.compile(r"checkpoint|ckpt", re.IGNORECASE)
_NAME_RUN = re.compile(r"[\w.-]+")
_FLAG_PATH = re.compile(r"/[^\s'\";,]*")
_SPACES = re.compile(r"\s*")
#: ``$(VAR)`` (Kubernetes), ``${VAR}`` and ``$VAR`` (shell)
VAR = re.compile(r"\$\(([A-Za-z_]\w*)\)|\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")


def checkpoint_flag_paths(word: str) -> list[str]:
    """The paths ``word`` gives a ``--*checkpoint*``/``--*ckpt*`` flag (``--ckpt-dir=/x``,
    ``--checkpoint_path /x``), in one linear pass: the regex this replaces,
    ``--?[\\w.-]*(?:checkpoint|ckpt)[\\w.-]*(?:=|\\s+)(/...)``, backtracked from every dash
    (150 KB of dashes in one argument: minutes)."""
    if not CHECKPOINT_WORD.search(word):
        return []
    paths: list[str] = []
    done = 0
    for run in _NAME_RUN.finditer(word):  # a flag name is a run of [\w.-] with a dash
        if run.start() < done:
            continue
        dash = run.group().find("-")
        if dash < 0 or not CHECKPOINT_WORD.search(run.group(), dash + 1):
            continue
        after = run.end()
        if after < len(word) and word[after] == "=":
            start = after + 1
        else:
            spaces = _SPACES.match(word, after)
            start = spaces.end() if spaces else after
            if start == after:
                continue
        path = _FLAG_PATH.match(word, start)
        if path:
            paths.append(path.group())
            done = path.end()
    return paths


def expand(text: str, env: dict[str, str], depth: int = 0) -> str:
    """``text`` with every variable ``env`` defines replaced (others left as written)."""
    if depth > 5 or "$" not in text:
        return text
    result = VAR.sub(lambda m: env.get(next(g for g in m.groups() if g), m.group(0)), text)
    return result if result == text else expand(result, env, depth + 1)
