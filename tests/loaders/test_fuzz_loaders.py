"""Property-based fuzzing (hypothesis): mutated real inputs never raise out of a loader.

Seeds are the repository's own fixtures (CloudFormation, Kubernetes, SageMaker API requests,
Terraform, SDK scripts, notebooks); hypothesis deletes, duplicates and swaps spans and
inserts syntax characters. Each loader is called directly, without the scan's safety net
(``loaders.dispatch._safe``), so an exception escaping a loader fails the test. The normal suite runs a
few dozen examples per loader; ``bench/fuzz.py`` runs thousands
(``FINLINT_FUZZ_EXAMPLES``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finlint.ir import LoadResult
from finlint.scan import display_path, load_structured

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
EXAMPLES = int(os.environ.get("FINLINT_FUZZ_EXAMPLES", "40"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=EXAMPLES <= 100,  # the normal suite is reproducible; bench/fuzz.py explores
)

SYNTAX = [
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "-",
    "- ",
    "\n",
    "\n  ",
    '"',
    "'",
    "&a ",
    "*a",
    "!Ref ",
    "!GetAtt ",
    "<<: ",
    "${",
    "{{",
    "#",
    "\t",
    "=",
    "(",
    ")",
    "\\",
    "\x00",
    "\ufeff",
    "1e308",
    "-1",
    "null",
    "ml.p5.48xlarge",
    "var.x",
    "module.",
    "lambda: 0",
    "**",
    '"""',
]


def _seeds(*suffixes: str) -> list[str]:
    out = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.name.endswith(suffixes) and path.stat().st_size < 40_000:
            out.append(path.read_text(encoding="utf-8"))
    assert out, f"no fixtures with {suffixes}"
    return out


@st.composite
def mutated(draw: st.DrawFn, seeds: list[str]) -> str:
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(1, 6))):
        n = len(text)
        i = draw(st.integers(0, n))
        j = draw(st.integers(i, min(n, i + 80)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "truncate"]))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            piece = draw(st.one_of(st.sampled_from(SYNTAX), st.text(max_size=8)))
            text = text[:i] + piece + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "swap":
            k = draw(st.integers(0, n))
            text = text[:i] + text[k : k + (j - i)] + text[j:]
        else:
            text = text[:j]
    return text


def _check(result: object) -> None:
    assert isinstance(result, LoadResult)
    for item in [*result.errors, *result.notices]:
        assert isinstance(item.line, int) and item.line >= 1 and item.message


YAML_SEEDS = _seeds(".yaml", ".yml")
JSON_SEEDS = _seeds(".json")


@FUZZ
@given(mutated(YAML_SEEDS))
def test_mutated_yaml_never_raises(text: str) -> None:
    _check(load_structured(Path("fuzz.yaml"), "fuzz.yaml", text, {}))


@FUZZ
@given(mutated(JSON_SEEDS))
def test_mutated_json_never_raises(text: str) -> None:
    _check(load_structured(Path("fuzz.json"), "fuzz.json", text, {}))


@FUZZ
@given(mutated(_seeds(".py")))
def test_mutated_python_never_raises(text: str) -> None:
    from finlint.loaders.sagemaker_sdk.loader import load_file

    _check(load_file(Path("fuzz.py"), "fuzz.py", text, {}))


@FUZZ
@given(mutated(_seeds(".ipynb")))
def test_mutated_notebook_never_raises(text: str) -> None:
    from finlint.loaders.sagemaker_sdk.loader import load_file

    _check(load_file(Path("fuzz.ipynb"), "fuzz.ipynb", text, {}))


@FUZZ
@given(mutated(_seeds(".sbatch", ".slurm", ".sh")))
def test_mutated_slurm_script_never_raises(text: str) -> None:
    from finlint.loaders import slurm

    result = slurm.load_file(Path("fuzz.sbatch"), "fuzz.sbatch", text, {})
    _check(result)
    slurm.finalize(list(result.records))


@FUZZ
@given(mutated(_seeds(".tf")), mutated(_seeds(".tf", ".tfvars")))
def test_mutated_terraform_never_raises(main_tf: str, other: str) -> None:
    from finlint.loaders.terraform.loader import load_directory

    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "main.tf").write_text(main_tf, encoding="utf-8")
        (directory / "other.tf").write_text(other, encoding="utf-8")
        files = sorted(directory.glob("*.tf"))
        _check(load_directory(directory, files, display_path, {}))


@pytest.mark.parametrize("seeds", [YAML_SEEDS[:1], JSON_SEEDS[:1]])
def test_seeds_themselves_load(seeds: list[str]) -> None:
    """The seeds are real inputs that load cleanly: the mutations start from valid files."""
    suffix = ".json" if seeds is JSON_SEEDS[:1] else ".yaml"
    result = load_structured(Path("seed" + suffix), "seed" + suffix, seeds[0], {})
    _check(result)
