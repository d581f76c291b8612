"""The click-free fast path of ``finlint scan`` accepts what click accepts and means the same.

``finlint.fastcli`` parses ``scan`` command lines from ``finlint.cli_spec`` (generated from the
click command). The contract: whenever it accepts a command line, click accepts it too and
builds the same parameters; everything else is declined and goes to click.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from click.core import ParameterSource
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from finlint import cli_spec
from finlint.cli import main
from finlint.fastcli import parse_scan

REPO = Path(__file__).resolve().parents[1]
ONE = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("gen_cli_spec", REPO / "scripts" / "gen_cli_spec.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_spec_is_current() -> None:
    options, argument, defaults, help_options = _generator().compute()
    assert options == cli_spec.OPTIONS, "run: python scripts/gen_cli_spec.py"
    assert argument == cli_spec.ARGUMENT
    assert defaults == cli_spec.DEFAULTS
    assert help_options == cli_spec.HELP_OPTIONS


def _click_parse(args: list[str]) -> tuple[dict[str, Any], bool] | None:
    """What click makes of ``finlint scan ARGS``: (params, fail_on given) or None on an error."""
    command = main.commands["scan"]
    parent = main.make_context("finlint", ["scan"])
    try:
        ctx = command.make_context("scan", list(args), parent=parent)
    except click.exceptions.Exit:
        return None  # --help
    except click.ClickException:
        return None
    given = ctx.get_parameter_source("fail_on") is not ParameterSource.DEFAULT
    return dict(ctx.params), given


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fastcli")
    (root / "a.yaml").write_text("x: 1\n")
    (root / "vars.tfvars").write_text('a = "b"\n')
    (root / "dir").mkdir()
    return root


#: tokens drawn for generated command lines: every option string, values of each kind (good
#: and bad), paths that exist as files or directories or not at all, and odd tokens
TOKENS = [
    *cli_spec.OPTIONS,
    "--help",
    "-h",
    "--",
    "-",
    "-qj2",
    "-jq",
    "-oreport.json",
    "-o=report.json",
    "-q=1",
    "-j=2",
    "-qo=x.json",
    "-qo",
    "--jobs=2",
    "--jobs=0",
    "--quiet=1",
    "--format=json",
    "--format=JSON",
    "--fail-on=high",
    "--nosuch",
    "-x",
    "json",
    "sarif",
    "high",
    "low",
    "0",
    "2",
    "1_0",
    " 3",
    "-1",
    "1e3",
    "nan",
    "inf",
    "abc",
    "1000001",
    "a.yaml",
    "dir",
    "missing.yaml",
    "vars.tfvars",
    "out/report.json",
    "FIN301",
    "a=b",
    "",
]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), max_size=8))
def test_fast_parse_equals_click_parse(tree: Path, tokens: list[str]) -> None:
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        fast = parse_scan(["scan", *tokens])
        slow = _click_parse(tokens)
    finally:
        os.chdir(cwd)
    if fast is not None:
        assert slow is not None, f"fast path accepted what click rejects: {tokens}"
        assert fast == slow, tokens


@pytest.mark.parametrize(
    "tokens",
    [
        [],
        ["a.yaml"],
        ["a.yaml", "dir", "--format", "json", "-o", "out.json", "--format", "sarif", "--output=s.sarif"],
        ["--fail-on", "high", "-q", "-j", "2", "--select", "FIN1,FIN301", "--ignore", "FIN202"],
        ["--var-file", "vars.tfvars", "--var", "a=b", "--exclude", "x/*", "--no-context", "a.yaml"],
        ["--color", "--no-color", "--max-monthly-usd", "100", "--max-file-mb", "5", "--max-yaml-nodes", "10"],
        ["-qj2", "--", "dir", "a.yaml"],
    ],
)
def test_the_pre_commit_shapes_take_the_fast_path(tree: Path, tokens: list[str]) -> None:
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        fast = parse_scan(["scan", *tokens])
        assert fast is not None and fast == _click_parse(tokens)
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize(
    "argv",
    [
        ["scan", "--help"],
        ["scan", "missing.yaml"],
        ["scan", "--jobs", "0"],
        ["scan", "--format"],
        ["scan", "--nosuch"],
        ["rules"],
        ["--version"],
        [],
    ],
)
def test_everything_else_goes_to_click(tree: Path, argv: list[str]) -> None:
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        assert parse_scan(argv) is None
    finally:
        os.chdir(cwd)


def _run(args: list[str], cwd: Path, entry: str) -> subprocess.CompletedProcess[str]:
    """``finlint ARGS`` through the console script (``entry``) or straight into click (``cli``)."""
    env = {**os.environ, "FINLINT_CACHE_DIR": str(cwd / ".cache")}
    call = "main()" if entry == "entry" else "main(prog_name='finlint')"
    return subprocess.run(
        [sys.executable, "-c", f"from finlint.{entry} import main; {call}", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


@pytest.mark.parametrize(
    "args",
    [
        ["scan", "one.yaml"],
        ["scan", "one.yaml", "--format", "json"],
        ["scan", "one.yaml", "--fail-on", "critical"],
        ["scan", "one.yaml", "--select", "nosuch"],  # a usage error found after parsing
        ["scan", "one.yaml", "--var", "novalue"],
        ["scan", "one.yaml", "--format", "json", "--format", "sarif"],  # two formats on stdout
        ["scan", "missing.yaml"],
        ["scan", "one.yaml", "--output", "dir"],  # an output that is a directory
    ],
)
def test_the_command_says_the_same_with_and_without_click(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "one.yaml").write_text(ONE.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "dir").mkdir()
    fast = _run(args, tmp_path, "entry")
    slow = _run(args, tmp_path, "cli")
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.returncode, slow.stdout, slow.stderr)


def test_a_one_file_scan_does_not_import_click(tmp_path: Path) -> None:
    (tmp_path / "one.yaml").write_text(ONE.read_text(encoding="utf-8"), encoding="utf-8")
    probe = (
        "import sys\nfrom finlint.entry import run\nrun(sys.argv[1:])\n"
        "print('click' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, "scan", "one.yaml", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert '"FIN201"' in proc.stdout
    assert proc.stderr.strip().splitlines()[-1] == "False"


def test_a_reader_that_leaves_early_gets_exit_1_and_no_traceback(tmp_path: Path) -> None:
    """``finlint scan | head``: a report larger than the pipe's buffer meets a closed pipe."""
    for i in range(40):
        (tmp_path / f"t{i}.yaml").write_text(ONE.read_text(encoding="utf-8"), encoding="utf-8")
    for entry in ("entry", "cli"):
        read, write = os.pipe()
        os.close(read)
        try:
            call = "main()" if entry == "entry" else "main(prog_name='finlint')"
            proc = subprocess.run(
                [sys.executable, "-c", f"from finlint.{entry} import main; {call}", "scan", "."],
                cwd=tmp_path,
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                timeout=120,
                check=False,
            )
        finally:
            os.close(write)
        assert (proc.returncode, proc.stderr) == (1, ""), entry


@pytest.mark.parametrize("token", TOKENS)
def test_every_token_alone_and_before_a_value_parses_as_click_parses(tree: Path, token: str) -> None:
    """Deterministic beside the generated lines: each token alone, and followed by a value."""
    cwd = os.getcwd()
    os.chdir(tree)
    try:
        for tokens in ([token], [token, "a.yaml"], ["a.yaml", token, "json"]):
            fast = parse_scan(["scan", *tokens])
            if fast is not None:
                assert fast == _click_parse(tokens), tokens
    finally:
        os.chdir(cwd)
