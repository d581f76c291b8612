"""PyTorch ``DataLoader(...)`` calls in Python training code -> :class:`~finlint.ir.DataLoader`.

Read with ``ast``, never imported or run. A call counts when ``DataLoader`` resolves to
``torch.utils.data.DataLoader`` through the file's imports (``from torch.utils.data import
DataLoader``, ``import torch`` + ``torch.utils.data.DataLoader``, ``from torch.utils import data``
+ ``data.DataLoader``, aliases); a class of another library with the same name is not read.

Argument values: literals, module-level constants, and ``args.x`` where ``x`` is an argparse
option with a literal default (the value the script runs with unless the launcher passes the
hyperparameter; a launcher that does so is named in FIN601's known false positives). Anything
else, and any argument a ``**kwargs`` may carry, is Unknown, so the rule stays silent on it.
Whether the code runs on a GPU comes from the training job whose entry point the file is
(``linking``), else from the script naming CUDA.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable

from finlint.ir import DataLoader, Location, Maybe, Unknown

FORMAT = "sagemaker-python"
MARKER = "DataLoader"
TORCH_DATALOADER = "torch.utils.data.DataLoader"
#: CUDA named in the script: ``.cuda()``, ``device="cuda"``/``"cuda:0"``, ``torch.cuda.*``.
#: Not evidence: asking whether there is a GPU (``torch.cuda.is_available()``,
#: ``torch.cuda.device_count()``) and the device-agnostic choice ``"cuda" if ... else "cpu"``,
#: which runs on whatever the instance has (an evaluation script on a CPU processing job).
_CUDA = re.compile(
    r"\.cuda\(|(?<!else )[\"']cuda(?::\d+)?[\"'](?!\s+if\b)|torch\.cuda\.(?!is_available\b|device_count\b)"
)

LineMap = Callable[[int], int]


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> qualified name, for every import in the module (any depth)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    names[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _qualname(node: ast.expr, imports: dict[str, str]) -> str | None:
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in imports:
        return None
    return ".".join([imports[node.id], *reversed(parts)])


def _constants(tree: ast.Module) -> dict[str, Any]:
    """Module-level ``NAME = literal`` (the last assignment wins; a reassigned name stays as is)."""
    out: dict[str, Any] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                out.pop(node.targets[0].id, None)
    return out


def _argparse_defaults(tree: ast.Module) -> dict[str, Any]:
    """``add_argument("--num-workers", type=int, default=4)`` -> {"num_workers": 4}."""
    out: dict[str, Any] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "add_argument"
        ):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        dest_node = keywords.get("dest")
        if isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str):
            dest = dest_node.value
        else:
            longs = [f for f in flags if f.startswith("--")]
            chosen = longs[0] if longs else (flags[0] if flags else "")
            dest = chosen.lstrip("-").replace("-", "_")
        if not dest:
            continue
        default = keywords.get("default")
        action = keywords.get("action")
        if default is not None:
            try:
                out[dest] = ast.literal_eval(default)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                out[dest] = Unknown(f"argparse default of --{dest} is an expression")
        elif isinstance(action, ast.Constant) and action.value in ("store_true", "store_false"):
            out[dest] = action.value == "store_false"
        else:
            out[dest] = None
    return out


class _Values:
    def __init__(self, tree: ast.Module) -> None:
        self.constants = _constants(tree)
        self.argparse = _argparse_defaults(tree)

    def value(self, node: ast.expr) -> Any:
        """A literal, a module constant, an argparse default, or Unknown with the expression."""
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            pass
        if isinstance(node, ast.Name) and node.id in self.constants:
            return self.constants[node.id]
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.attr in self.argparse
        ):
            found = self.argparse[node.attr]
            if found is None:
                return Unknown(f"argparse option --{node.attr} has no default")
            return found
        return Unknown(f"{ast.unparse(node)[:60]} is not known statically")


def _int(value: Any, what: str) -> Maybe[int]:
    if value is None or isinstance(value, Unknown):
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        return Unknown(f"{what}={value!r} is not an integer")
    return value


def _bool(value: Any, what: str) -> Maybe[bool]:
    if value is None or isinstance(value, (bool, Unknown)):
        return value
    if isinstance(value, int):
        return bool(value)
    return Unknown(f"{what}={value!r} is not a boolean")


def load_data_loaders(
    tree: ast.Module, line_map: LineMap, display: str, text: str, stem: str
) -> list[DataLoader]:
    """Every torch DataLoader call in the module, in source order."""
    imports = _imports(tree)
    if not any(q.startswith("torch") for q in imports.values()):
        return []
    values = _Values(tree)
    # the module's own source (a notebook's code cells, not its JSON), so quotes are Python's
    cells = getattr(tree, "finlint_source_lines", None)
    source = "\n".join(cells) if isinstance(cells, list) else text
    cuda = _CUDA.search(source)
    gpu_line = line_map(source.count("\n", 0, cuda.start()) + 1) if cuda else None
    calls = sorted(
        (
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and _qualname(n.func, imports) == TORCH_DATALOADER
        ),
        key=lambda n: (n.lineno, n.col_offset),
    )
    out: list[DataLoader] = []
    for index, call in enumerate(calls, 1):
        keywords = {k.arg: k for k in call.keywords if k.arg}
        opaque = any(k.arg is None for k in call.keywords)  # **kwargs may carry anything
        lines: dict[str, int] = {}
        found: dict[str, Any] = {}
        for name in ("num_workers", "pin_memory", "prefetch_factor"):
            kw = keywords.get(name)
            if kw is not None:
                found[name] = values.value(kw.value)
                lines[name] = line_map(kw.value.lineno)
            elif opaque:
                found[name] = Unknown(f"{name} may be passed in **kwargs")
            else:
                found[name] = None
        if len(call.args) > 5 and "num_workers" not in keywords:  # positional num_workers (6th)
            found["num_workers"] = values.value(call.args[5])
            lines["num_workers"] = line_map(call.args[5].lineno)
        address = f"{stem}:DataLoader" + (f"#{index}" if len(calls) > 1 else "")
        out.append(
            DataLoader(
                address=address,
                location=Location(display, line_map(call.lineno), line_map(call.end_lineno or call.lineno)),
                source_format=FORMAT,
                attr_lines=lines,
                num_workers=_int(found["num_workers"], "num_workers"),
                pin_memory=_bool(found["pin_memory"], "pin_memory"),
                prefetch_factor=_int(found["prefetch_factor"], "prefetch_factor"),
                gpu=True if cuda else None,
                gpu_evidence=f"the script uses CUDA (line {gpu_line})" if gpu_line else None,
            )
        )
    return out
