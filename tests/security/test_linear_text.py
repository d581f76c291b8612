"""Issue 24: no regex applied to repository text backtracks super-linearly. Each scanner that
replaced a regex gives the regex's answers (the old pattern is the oracle, on short strings),
and the inputs that took minutes scan in seconds."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from tests.security.test_budgets import deadline

from finlint.loaders.common import template_text
from finlint.loaders.common.shellwords import checkpoint_flag_paths
from finlint.scan import ScanOptions, lint

OLD_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}|%\{.*?\}|\$\{[^{}]*\}", re.DOTALL)
OLD_KEY = re.compile(
    r"""^((?:-\s+)*)((?:"[^"]*"|'[^']*'|[^\s#'"{}\[\],&*!|>%@`-][^#]*?|[A-Za-z0-9_./-]+?))\s*:(\s+|$)(.*)$"""
)
OLD_HEAD = re.compile(r"^((?:-\s+)*)([^:#'\"]*?)\s*:(\s|$)")
OLD_FLAG = re.compile(r"--?[\w.-]*(?:checkpoint|ckpt)[\w.-]*(?:=|\s+)(/[^\s'\";,]*)", re.IGNORECASE)

TEMPLATE_TEXT = st.text(alphabet=list("{}%#$ -:ab'\"\n\t/."), max_size=30)
KEY_TEXT = st.text(alphabet=list("ab -:#'\"{}[]x/._$%\t"), max_size=16)
FLAG_TEXT = st.lists(
    st.sampled_from(
        ["-", "--", "ckpt", "CKPT", "checkpoint", "=", "/", " ", "\t", "a", "_", ".", ",", "'", ";"]
    ),
    max_size=12,
).map("".join)


@settings(max_examples=3000, deadline=None)
@given(TEMPLATE_TEXT)
def test_tag_spans_are_the_old_patterns(text: str) -> None:
    assert template_text.Tags.spans(text) == [m.span() for m in OLD_TAG.finditer(text)]


@settings(max_examples=3000, deadline=None)
@given(KEY_TEXT)
def test_keys_are_the_old_patterns(text: str) -> None:
    old = OLD_KEY.match(text)
    assert template_text.key_match(text) == ((old.group(1), old.group(2), old.group(4)) if old else None)
    head = OLD_HEAD.match(text)
    assert template_text.head_key(text) == (head.group(2) if head else "")


@settings(max_examples=3000, deadline=None)
@given(FLAG_TEXT)
def test_checkpoint_flags_are_the_old_pattern(text: str) -> None:
    assert checkpoint_flag_paths(text) == [m.group(1) for m in OLD_FLAG.finditer(text)]


REPO = Path(__file__).resolve().parents[2]
JOB = (REPO / "fixtures" / "kubernetes" / "bad" / "job-nfs-efs-checkpoints.yaml").read_text(encoding="utf-8")


def _scan(tmp_path: Path, name: str, text: str) -> object:
    (tmp_path / name).write_text(text)
    with deadline(30):
        return lint(ScanOptions(paths=[tmp_path]))


def test_200_kb_of_unclosed_tags_is_a_notice(tmp_path: Path) -> None:
    result = _scan(
        tmp_path, "t.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  note: " + "{{ " * 70_000 + "\n"
    )
    (note,) = result.notices  # type: ignore[attr-defined]
    assert "left open" in note.message and note.line == 4


def test_a_tag_open_at_the_top_of_a_long_file_is_a_notice(tmp_path: Path) -> None:
    result = _scan(tmp_path, "t.yaml", "kind: Pod\na: {{ x\n" + "b: 1\n" * 100_000)
    assert any("left open" in n.message for n in result.notices)  # type: ignore[attr-defined]


def test_a_long_templated_key_line_is_linear(tmp_path: Path) -> None:
    result = _scan(tmp_path, "t.yaml", "kind: Pod\na" + " " * 200_000 + "{{ .Values.x }}\n")
    assert result is not None


def _rules(result: object) -> set[str]:
    return {f.rule_id for f in result.findings}  # type: ignore[attr-defined]


def test_150_kb_of_dashes_in_an_argument_is_read(tmp_path: Path) -> None:
    plain = _rules(_scan(tmp_path, "job.yaml", JOB))
    assert plain, "the fixture has findings: the comparison means something"
    hostile = JOB.replace('"train.py", ', '"train.py", "' + "-" * 150_000 + '", ')
    assert hostile != JOB
    result = _scan(tmp_path, "job.yaml", hostile)
    assert result.errors == []  # type: ignore[attr-defined]
    assert _rules(result) == plain
