"""A static reading of ``action.yml``: what a reviewer checks by eye, checked on every change.

- every ``inputs.X`` the Action reads is declared, and every declared input is read;
- every ``uses:`` is pinned to a 40-hex commit SHA with the version in a comment;
- input text reaches a program only as an option's value or after ``--`` / ``--end-of-options``
  (the taint of each input followed through shell variables and arrays), never where it could
  become an option;
- every step that runs finlint runs the one the install step put in its venv (``$FINLINT``):
  the job's own interpreter has no finlint.

The checker is shown to fail on scripts that break each rule, so a pass means something.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
TEXT = (REPO / "action.yml").read_text("utf-8")
ACTION: dict[str, Any] = yaml.safe_load(TEXT)
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]

#: the shell's tests, which read their operands as operands (``read`` is followed separately)
_SAFE_COMMANDS = {"[", "[[", "test"}
_KEYWORDS = {"if", "then", "elif", "else", "fi", "!", "do", "done", "while", "until", "{", "}", "||", "&&"}
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)(\+?=)(.*)$", re.S)
_UNSAFE_FINLINT = re.compile(r"(^|[\s;|&(])finlint\s")


def _value_options() -> set[str]:
    """finlint's options that take a value (from the click commands): an input may follow one."""
    import click

    from finlint.cli import main

    out: set[str] = set()
    for command in getattr(main, "commands", {}).values():
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag and not param.count:
                out.update(param.opts)
    return out


VALUE_OPTIONS = _value_options()


def statements(script: str) -> list[list[str]]:
    """The script's simple statements as shell words (continuations joined, heredocs skipped)."""
    joined = re.sub(r"\\\n\s*", " ", script)
    joined = re.sub(r"<<-?\s*'?(\w+)'?\n.*?\n\1\n", "\n", joined, flags=re.S)
    out: list[list[str]] = []
    for line in joined.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        try:
            words = list(lexer)
        except ValueError:  # an unbalanced quote in an expression the shell reads: not a command
            continue
        current: list[str] = []
        for word in words:
            if word in (";", "&&", "||", "|", "&"):
                if current:
                    out.append(current)
                current = []
            else:
                current.append(word)
        if current:
            out.append(current)
    return out


def _expands(word: str, names: set[str]) -> bool:
    return any(re.search(rf"\$\{{?{re.escape(n)}\b", word) for n in names)


def _starts_with_expansion(word: str, names: set[str]) -> bool:
    return any(re.match(rf"\$\{{?(!|#)?{re.escape(n)}\b", word) for n in names)


def _safe_args(args: list[str], tainted: set[str], start: int = 0) -> list[str]:
    """Words of ``args`` (from ``start``) where tainted text could be read as an option."""
    bad = []
    for i, word in enumerate(args[start:], start):
        if not _expands(word, tainted):
            continue
        if any(w in ("--", "--end-of-options") for w in args[:i]):
            continue  # after the end of options
        if not _starts_with_expansion(word, tainted):
            continue  # `--opt=$X` or `prefix$X`: cannot start with `-`
        if i > 0 and args[i - 1] in VALUE_OPTIONS:
            continue  # the value of the finlint option before it
        bad.append(word)
    return bad


def check_script(script: str, tainted: set[str]) -> list[str]:
    """Problems in one ``run:`` script, given the env names bound to inputs."""
    tainted = set(tainted)
    problems: list[str] = []
    for words in statements(script):
        while words and words[0] in _KEYWORDS:
            words = words[1:]
        if not words:
            continue
        command = words[0]
        if match := _ASSIGN.match(command):  # `x=...`, `x=(...)`, `x+=(...)`
            name, _, value = match.groups()
            values = [value.strip("()"), *words[1:]] if value.startswith("(") else [value]
            values = [v.rstrip(")") for v in values if v.rstrip(")")]
            if any(_expands(v, tainted) for v in values):
                if value.startswith("("):  # an array later splatted into a command: checked here
                    problems += [f"{name}: {w}" for w in _safe_args(values, tainted)]
                else:
                    tainted.add(name)
            continue
        if command == "read":  # `read -r -a paths <<< "$INPUT_PATHS"`
            if any(_expands(w, tainted) for w in words):
                tainted.add(next(w for w in reversed(words[:-2]) if not w.startswith("-")))
            continue
        if command in _SAFE_COMMANDS:
            continue
        problems += [f"{' '.join(words[:2])}: {w}" for w in _safe_args(words, tainted, 1)]
    return problems


def input_env(step: dict[str, Any]) -> set[str]:
    return {name for name, value in (step.get("env") or {}).items() if "inputs." in str(value)}


def test_inputs_read_are_declared_and_declared_inputs_are_read() -> None:
    used = set(re.findall(r"\binputs\.([\w-]+)", TEXT))
    declared = set(ACTION["inputs"])
    assert used <= declared, used - declared
    assert declared <= used, declared - used  # an input nothing reads would be silently ignored


def test_every_uses_is_pinned_by_sha_with_a_version_comment() -> None:
    uses = [s for s in STEPS if "uses" in s]
    assert uses, "the Action uses other actions"
    for step in uses:
        name, _, ref = step["uses"].partition("@")
        assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{name}@{ref}: not a commit SHA"
        (line,) = [x for x in TEXT.splitlines() if re.search(rf"uses:\s*{re.escape(step['uses'])}\b", x)]
        assert re.search(r"#\s*v\d+(\.\d+){0,2}\b", line), f"{name}: no version comment"


@pytest.mark.parametrize("step", [s for s in STEPS if "run" in s], ids=lambda s: str(s["name"]))
def test_inputs_reach_programs_only_as_values_or_after_dashdash(step: dict[str, Any]) -> None:
    assert check_script(step["run"], input_env(step)) == []


def test_steps_run_the_installed_finlint() -> None:
    for step in STEPS:
        if "run" in step and step["name"] != "Install finlint":
            script = re.sub(r"#.*", "", step["run"])
            assert not _UNSAFE_FINLINT.search(script), (
                f"{step['name']}: runs `finlint` from PATH, not $FINLINT"
            )


def test_the_checker_finds_each_kind_of_mistake() -> None:
    """A pass above means something: each rule fails on a script that breaks it."""
    taint = {"INPUT_PATHS", "INPUT_REF"}
    assert check_script('"$FINLINT" scan -- "$INPUT_PATHS"', taint) == []
    assert check_script('"$FINLINT" scan --config "$INPUT_PATHS" .', taint) == []
    assert check_script('"$FINLINT" scan "$INPUT_PATHS"', taint) != []
    assert check_script('mkdir -p "$INPUT_PATHS"', taint) != []  # any program, not only finlint
    assert check_script('echo "fetching $INPUT_REF"', taint) == []  # text first: never an option
    assert check_script('git fetch origin "${INPUT_REF#origin/}"', taint) != []
    assert check_script('git fetch origin -- "${INPUT_REF#origin/}"', taint) == []
    assert check_script('git rev-parse --verify --end-of-options "${INPUT_REF}^{commit}"', taint) == []
    # through a variable and an array
    assert check_script('base="$INPUT_REF"\ngit checkout "$base"', taint) != []
    assert check_script('read -r -a p <<< "$INPUT_PATHS"\nargs=("${p[@]}")', taint) != []
    assert check_script('read -r -a p <<< "$INPUT_PATHS"\nargs=(-- "${p[@]}")', taint) == []
    assert check_script('opts=(--fail-on "$INPUT_REF")\n"$FINLINT" scan "${opts[@]}" -- .', taint) == []
    assert check_script("\\\n".join(['"$FINLINT" scan ', ' "$INPUT_PATHS"']), taint) != []
    assert (
        check_script('git rev-parse --verify "${INPUT_REF}^{commit}"', taint) != []
    )  # a flag takes no value
    assert _UNSAFE_FINLINT.search("set -e\nfinlint suggest --github")
    assert not _UNSAFE_FINLINT.search('"${FINLINT:-finlint}" suggest --github')


def test_the_checker_reads_the_real_scan_step() -> None:
    """Dropping any `--` from the Action's own scan step is caught."""
    (step,) = [s for s in STEPS if s["name"] == "Run finlint"]
    script, taint = step["run"], input_env(step)
    assert {"INPUT_PATHS", "INPUT_BASELINE", "INPUT_CONFIG"} <= taint
    for guarded in (
        'args=(-- "${paths[@]}")',
        'args=(-- "$INPUT_BASELINE" "${paths[@]}")',
    ):
        assert guarded in script
        assert check_script(script.replace(guarded, guarded.replace("-- ", "", 1)), taint) != [], guarded
    assert "git fetch" not in script  # a missing base is fetched by `finlint diff --fetch`, one place
