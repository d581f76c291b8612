"""The JSON report's encoder writes exactly what ``json.dumps(data, indent=2)`` writes."""

from __future__ import annotations

import enum
import json
import math
from collections import OrderedDict
from pathlib import Path
from typing import Any

import pytest

from finlint.reporters import ReportContext, jsontext
from finlint.reporters.json_report import as_dict, render
from finlint.scan import ScanOptions, lint

REPO = Path(__file__).resolve().parents[2]


class Colour(enum.IntEnum):
    RED = 1


class Text(str):
    pass


EDGES: list[Any] = [
    {},
    [],
    (),
    "",
    0,
    -1,
    2**70,
    1.5,
    -0.0,
    1e300,
    1e-7,
    True,
    False,
    None,
    'é ü \u2028 \x00 " \\ / \n\t 😀',
    {"a": {}, "b": [], "c": [{}], "d": [[], [[]]], "e": {"f": {"g": None}}},
    [1, "two", 3.0, None, True, [False, {"x": ()}]],
    {"nan": math.nan, "inf": [math.inf, -math.inf]},  # json's NaN / Infinity spelling
    {3: "int key", 2.5: "float key", True: "bool key", None: "none key"},
    {"enum": Colour.RED, "sub": Text("s"), "ordered": OrderedDict(b=1, a=2)},
    OrderedDict(z=[1], y={"k": "v"}),
    [Colour.RED, Text("x")],
]


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
@pytest.mark.parametrize("indent", [2, 4])
def test_edge_cases(value: Any, indent: int) -> None:
    assert jsontext.dumps(value, indent) == json.dumps(value, indent=indent)


def test_errors_are_json_s() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsontext.dumps({"a": [object()]})
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        jsontext.dumps({"loop": loop})


def test_real_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fixture corpus (every format, findings with costs, errors, notices, undetermined)
    and a generated tree: the report text is json.dumps's."""
    monkeypatch.syspath_prepend(str(REPO / "bench"))
    from bench_scan import generate

    generate(tmp_path, 30)
    for root in (REPO / "fixtures", tmp_path):
        monkeypatch.chdir(root)
        result = lint(ScanOptions(paths=[Path(".")]))
        data = as_dict(result)
        assert data["findings"]
        assert jsontext.dumps(data) == json.dumps(data, indent=2)
        report = render(result, ReportContext())
        assert json.loads(report)["findings"] == data["findings"]
