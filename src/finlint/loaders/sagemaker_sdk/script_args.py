"""A training script's argparse checkpoint options with a path default -> ``TrainingScript``.

``parser.add_argument("--checkpoint-dir", default="/efs/ckpt")`` in ``train.py`` is where a
container that runs ``python train.py`` without the option checkpoints; only the script says
so. Read with ``ast`` (never run): literal option strings naming a checkpoint
(``checkpoint``/``ckpt``) whose ``default`` is a literal absolute path. ``linking.entrypoints``
gives the defaults to the workloads whose containers run the script.
"""

from __future__ import annotations

import ast
from typing import Callable

from finlint.ir import Location, Record, ScriptArg, TrainingScript
from finlint.loaders.common.shellwords import CHECKPOINT_WORD

#: the cheap pre-filter (the text must hold it before anything is parsed)
MARKER = "add_argument"


def mentions_checkpoint_args(text: str) -> bool:
    return MARKER in text and CHECKPOINT_WORD.search(text) is not None


def _arg(node: ast.Call) -> ScriptArg | None:
    options = tuple(
        a.value
        for a in node.args
        if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value.startswith("-")
    )
    if not options or not any(CHECKPOINT_WORD.search(o) for o in options):
        return None
    default = next((k.value for k in node.keywords if k.arg == "default"), None)
    if not (isinstance(default, ast.Constant) and isinstance(default.value, str)):
        return None
    if not default.value.startswith("/"):
        return None
    return ScriptArg(options, default.value, default.lineno)


def load_script_args(
    tree: ast.Module, line_map: Callable[[int], int], display: str, fmt: str
) -> list[Record]:
    """One ``TrainingScript`` for the file when it has such options, else none."""
    found: list[ScriptArg] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == MARKER:
            arg = _arg(node)
            if arg is not None:
                found.append(ScriptArg(arg.options, arg.default, line_map(arg.line)))
    if not found:
        return []
    found.sort(key=lambda a: a.line)
    return [
        TrainingScript(
            address=display,
            location=Location(display, found[0].line, found[-1].line),
            source_format=fmt,
            attr_lines={"checkpoint_args": found[0].line},
            checkpoint_args=tuple(found),
        )
    ]
