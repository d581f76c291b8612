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


def test_notebook_with_many_cells_is_linear(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 30,001 cells (2 MB): every cell was parsed below a padding of all the lines before it
    cells: list[dict[str, Any]] = [
        {"cell_type": "code", "metadata": {}, "source": ["from sagemaker.pytorch import PyTorch\n"]}
    ]
    cells += [{"cell_type": "code", "metadata": {}, "source": ["x = 1\n", "y = 2"]} for _ in range(30_000)]
    cells.append({"cell_type": "code", "metadata": {}, "source": ["def broken(:\n"]})
    notebook = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "big.ipynb").write_text(json.dumps(notebook, indent=1))
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    import ast

    parsed = 0
    real_parse = ast.parse

    def counting(source: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal parsed
        parsed += len(source)
        return real_parse(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    size = (tmp_path / "big.ipynb").stat().st_size
    result, _ = scan(tmp_path, seconds=120)
    # linear: the text handed to the parser is a few times the file, not a padding per cell
    assert parsed < 8 * size
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
        (
            "finlint.loaders.common.yamlload._check_node_count",
            "pod.yaml",
            "# hostile\nkind: Pod\nmetadata: {name: x}\n",
        ),
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


def scan_bounded(tree: Path, memory_mib: int = 1536, seconds: int = 60) -> dict[str, Any]:
    """``finlint scan --format json TREE`` in a child with an address-space limit: an evaluator
    that allocates gigabytes fails the test instead of the machine."""
    import os
    import subprocess
    import sys

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_mib << 20, memory_mib << 20))

    proc = subprocess.run(
        [sys.executable, "-m", "finlint", "scan", "--format", "json", str(tree)],
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
        preexec_fn=limit if os.name == "posix" else None,  # noqa: PLW1509 - no threads here
    )
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    report: dict[str, Any] = json.loads(proc.stdout)
    return report


def _launch(name_expr: str, *setup: str) -> str:
    return "\n".join(
        [
            "from sagemaker.pytorch import PyTorch",
            *setup,
            f"PyTorch(entry_point='t.py', role='r', instance_type='ml.p5.48xlarge', "
            f"instance_count=1, base_job_name={name_expr}).fit()",
            "",
        ]
    )


@pytest.mark.parametrize(
    "source",
    [
        _launch("a", "a = 'x'", *["a = f'{a}{a}'"] * 40),  # 24 GB before
        _launch("'{:>1999999999}'.format('x')"),  # 2 GB before
        _launch("a", "import os", "a = os.environ['X']", *["a = a + a"] * 40),  # partial strings
        _launch("'/'.join([a] * 3)", "a = 'x' * 9000"),
    ],
    ids=["doubling-fstring", "format-padding", "doubling-partial", "join"],
)
def test_sdk_string_folding_is_budgeted(tmp_path: Path, source: str) -> None:
    (tmp_path / "launch.py").write_text(source)
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    report = scan_bounded(tmp_path)
    found = {(Path(f["file"]).name, f["rule_id"]) for f in report["findings"]}
    assert ("launch.py", "FIN101") in found and ("good.json", "FIN101") in found
    notes = [n["message"] for n in report["notices"] if n["file"].endswith("launch.py")]
    assert len(notes) <= 1 and all("too large to evaluate" in n for n in notes)


def test_nested_fn_sub_is_budgeted(tmp_path: Path) -> None:
    """1.6 KB of Fn::Sub, each level doubling its text: 2**40 characters, then a hang, before."""
    value: Any = {"Fn::Sub": "x"}
    for _ in range(40):
        value = {"Fn::Sub": ["${a}${a}", {"a": value}]}
    template = {
        "AWSTemplateFormatVersion": "2010-09-09",
        "Resources": {
            "Nb": {
                "Type": "AWS::SageMaker::NotebookInstance",
                "Properties": {
                    "InstanceType": "ml.p5.48xlarge",
                    "RoleArn": "r",
                    "NotebookInstanceName": value,
                },
            }
        },
    }
    (tmp_path / "t.json").write_text(json.dumps(template))
    (tmp_path / "good.json").write_text(GOOD_REQUEST)
    report = scan_bounded(tmp_path, seconds=60)
    assert "FIN302" in {f["rule_id"] for f in report["findings"] if f["file"].endswith("t.json")}
    (note,) = [n["message"] for n in report["notices"] if n["file"].endswith("t.json")]
    assert "too large to evaluate" in note


NOTEBOOK_TF = """resource "aws_sagemaker_notebook_instance" "nb" {{
  name          = {name}
  role_arn      = "arn:aws:iam::111122223333:role/r"
  instance_type = "ml.p5.48xlarge"
}}
"""


@pytest.mark.parametrize(
    ("prelude", "name", "said"),
    [
        (  # sixty doubling locals: 2 GB before
            'locals {\n  l0 = "x"\n'
            + "".join(f'  l{i} = "${{local.l{i - 1}}}${{local.l{i - 1}}}"\n' for i in range(1, 61))
            + "}\n",
            "local.l60",
            "over 65,536 characters",
        ),
        ("", 'format("%1999999999s", "x")', "format(): a width or precision"),  # 2 GB before
        ("", 'format("%*s", 1999999999, "x")', "format(): a width or precision"),
        (  # 120 items squared: a list past the budget
            "locals {\n  l = [" + ", ".join(str(i) for i in range(120)) + "]\n"
            '  big = flatten([for i in local.l : [for j in local.l : "${i}-${j}"]])\n}\n',
            "length(local.big)",
            "over 10,000 items",
        ),
        (  # six nested for over 30 items: 7e8 values, a hang before
            "locals {\n  l = [" + ", ".join(str(i) for i in range(30)) + "]\n"
            "  deep = [for a in local.l : [for b in local.l : [for c in local.l : [for d in local.l : "
            '[for e in local.l : [for f in local.l : "${a}${f}"]]]]]]\n}\n',
            "length(local.deep)",
            "over 100,000 steps",
        ),
    ],
    ids=["doubling-locals", "format-width", "format-star", "squared-for", "nested-for"],
)
def test_terraform_evaluation_is_budgeted(tmp_path: Path, prelude: str, name: str, said: str) -> None:
    (tmp_path / "main.tf").write_text(prelude + NOTEBOOK_TF.format(name=name))
    report = scan_bounded(tmp_path)
    assert "FIN302" in {f["rule_id"] for f in report["findings"]}  # the notebook is still read
    notes = [n["message"] for n in report["notices"] if n["file"].endswith("main.tf")]
    assert len(notes) == 1 and said in notes[0], notes
