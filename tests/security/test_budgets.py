"""Resource exhaustion in loaders and evaluators (issue 24): each hostile input, small in this
source, must cost one file a notice or FIN000 within seconds, and the rest of the tree keeps its
findings."""

from __future__ import annotations

import importlib
import json
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from finlint.scan import ScanOptions, lint

GOOD_REQUEST = """{
  "TrainingJobName": "x",
  "RoleArn": "arn:aws:iam::111122223333:role/R",
  "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50}
}
"""


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the block runs longer than ``seconds``."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def scan(tree: Path, seconds: int = 20) -> tuple[Any, float]:
    started = time.monotonic()
    with deadline(seconds):
        result = lint(ScanOptions(paths=[tree]))
    return result, time.monotonic() - started


def rules(result: Any, name: str) -> set[str]:
    return {f.rule_id for f in result.findings if Path(f.file).name == name}


def test_notebook_with_many_cells_is_linear(tmp_path: Path) -> None:
    # 30,001 cells (2 MB): every cell was parsed below a padding of all the lines before it
    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "metadata": {}, "source": ["from sagemaker.pytorch import PyTorch\n"]}
    ]
    cells += [{"cell_type": "code", "metadata": {}, "source": ["x = 1\n", "y = 2"]} for _ in range(30_000)]
    cells.append({"cell_type": "code", "metadata": {}, "source": ["def broken(:\n"]})
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "big.ipynb").write_text(json.dumps(notebook, indent=1))
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    result, elapsed = scan(tmp_path)
    assert elapsed < 10
    assert "FIN101" in rules(result, "good.json")
    # the broken last cell is still reported at its own notebook line
    (note,) = [n for n in result.notices if Path(n.file).name == "big.ipynb"]
    assert "notebook cell 30002 skipped" in note.message
    lines = (tmp_path / "big.ipynb").read_text().split("\n")
    assert "def broken(:" in lines[note.line - 1]


@pytest.mark.parametrize(
    ("target", "name", "text"),
    [
        ("finlint.loaders.terraform.hcl.parse_text", "main.tf", '# hostile\nlocals {\n  a = "b"\n}\n'),
        ("ast.parse", "train.py", "import sagemaker  # hostile\n"),
        ("finlint.yamlload._check_node_count", "pod.yaml", "# hostile\nkind: Pod\nmetadata: {name: x}\n"),
    ],
)
def test_memory_error_is_reported_honestly_at_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str, name: str, text: str
) -> None:
    (tmp_path / name).write_text(text)
    good = tmp_path / "jobs"
    good.mkdir()
    (good / "good.json").write_text(GOOD_REQUEST)
    module_name, _, attr = target.rpartition(".")

    owner: Any = importlib.import_module(module_name)
    real: Callable[..., Any] = getattr(owner, attr)

    def exhausted(*args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, str) and "# hostile" in a for a in args):
            raise MemoryError  # only the hostile file runs out of memory
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, attr, exhausted)
    result, _ = scan(tmp_path)
    errors = [f for f in result.findings if f.rule_id == "FIN000"]
    assert errors, result.findings
    assert all("out of memory while reading" in f.message for f in errors)
    assert all("nested too deeply" not in f.message for f in errors)
    assert {Path(f.file).name for f in errors} == {name}
    assert "FIN101" in rules(result, "good.json")
