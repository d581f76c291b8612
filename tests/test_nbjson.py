"""The notebook reader gives the YAML loader's cells and lines (and leaves what it refuses to it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from finlint.loaders.common.yamlload import LineDict, LineList, load_all
from finlint.loaders.sagemaker_sdk.nbjson import NotSimple, read_notebook

REPO = Path(__file__).resolve().parents[1]


def _view(value: Any) -> Any:
    """What the SDK loader reads of a notebook: cells, their type, their source, and lines."""
    if isinstance(value, LineDict):
        keys = [k for k in value if k in ("cells", "worksheets", "source", "input", "cell_type")]
        return ("dict", value.line, {k: (value.line_of(k), _view(value[k])) for k in keys}, sorted(value))
    if isinstance(value, LineList):
        return ("list", value.line, [(value.line_of(i), _view(v)) for i, v in enumerate(value)])
    if isinstance(value, (dict, list)):
        return ("plain", type(value).__name__)
    return value


def _both(text: str) -> tuple[Any, Any]:
    return _view(read_notebook(text)), _view(load_all(text, is_json=True)[0])


def _notebook(sources: list[Any], outputs: Any = None, cell_type: str = "code") -> dict[str, Any]:
    return {
        "cells": [
            {"cell_type": cell_type, "metadata": {"tags": ["x"]}, "outputs": outputs or [], "source": s}
            for s in sources
        ],
        "metadata": {"kernelspec": {"name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }


@pytest.mark.parametrize("indent", [None, 0, 1, 2, "\t"])
def test_every_layout_gives_the_yaml_loaders_lines(indent: Any) -> None:
    nb = _notebook(
        [["import sagemaker\n", "est = Estimator(\n", "  instance_type='ml.p5.48xlarge')"],
         "x = 'one string source'\n", [], ["é ünïcode \\ escapes \"quoted\" \U0001F600\n"]],
        outputs=[{"data": {"image/png": "iVBORw0KGgo" * 50, "text/plain": ["\"source\": [", "]"]}}],
    )  # fmt: skip
    for ascii_only in (False, True):  # as Jupyter writes it, and with \uXXXX escapes
        ours, theirs = _both(json.dumps(nb, indent=indent, ensure_ascii=ascii_only))
        assert ours == theirs
        assert ours[2]["cells"][1][2][0][1][2]["source"][1][2][2][1] == "  instance_type='ml.p5.48xlarge')"


def test_escaped_astral_characters_are_read() -> None:
    """``json.dumps`` writes an emoji as a surrogate-pair escape, which libyaml refuses ("invalid
    Unicode character escape code"): such a notebook was skipped as invalid; it is read now
    (and by the YAML loader too: ``yamlload._json_for_libyaml``)."""
    text = json.dumps(_notebook([["print('done \U0001f600')\n", "x = 1"]]), indent=1)
    assert "\\ud83d\\ude00" in text
    cells = read_notebook(text)["cells"]
    assert cells[0]["source"] == ["print('done \U0001f600')\n", "x = 1"]
    assert cells[0]["source"].line_of(1) == text.splitlines().index('    "x = 1"') + 1


def test_nbformat_3_worksheets() -> None:
    nb = {"worksheets": [{"cells": [{"cell_type": "code", "input": ["a = 1\n", "b = 2"], "outputs": []}]}]}
    ours, theirs = _both(json.dumps(nb, indent=1))
    assert ours == theirs


def test_the_repositorys_notebooks() -> None:
    notebooks = sorted(REPO.glob("fixtures/**/*.ipynb"))
    assert notebooks
    for path in notebooks:
        ours, theirs = _both(path.read_text(encoding="utf-8"))
        assert ours == theirs, path


@pytest.mark.parametrize(
    "text",
    ['{"cells": [', '{"cells": []} trailing', "[1, 2]", "", '{"cells": [{"source": "a" "b"}]}',
     '{"cells": [], }', "{'cells': []}", '{"a": NaN-}', '{"cells": [' * 5000, '{"cells": []\r}'],
)  # fmt: skip
def test_what_it_refuses_goes_to_the_yaml_loader(text: str) -> None:
    with pytest.raises(NotSimple):
        read_notebook(text)


#: any text (lone surrogates are not: a file is decoded as UTF-8)
_CHARS = st.characters(blacklist_categories=("Cs",))
_LINES = st.lists(st.text(_CHARS, max_size=12), max_size=4)


@settings(max_examples=60, deadline=None)
@given(
    sources=st.lists(st.one_of(_LINES, st.text(_CHARS, max_size=10)), max_size=4),
    indent=st.sampled_from([None, 1, 2]),
    extra=st.dictionaries(st.text(max_size=5), st.recursive(st.none() | st.integers(), st.lists), max_size=3),
)
def test_random_notebooks_match(sources: list[Any], indent: Any, extra: dict[str, Any]) -> None:
    nb = _notebook(sources)
    for cell in nb["cells"]:
        cell.update({k: v for k, v in extra.items() if k not in cell})
    for ascii_only in (False, True):  # as Jupyter writes it, and with \uXXXX escapes
        ours, theirs = _both(json.dumps(nb, indent=indent, ensure_ascii=ascii_only))
        assert ours == theirs
