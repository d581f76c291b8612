"""One rule selector for the CLI, the config file and the engine (issue 9, bug 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint import selector
from finlint.cli import main
from finlint.engine import EngineConfig
from finlint.rules import load_policies

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "fixtures" / "demo"


@pytest.fixture(scope="module")
def policies():  # type: ignore[no-untyped-def]
    return load_policies()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("FIN301", {"FIN301"}),
        ("fin301", {"FIN301"}),
        ("oversized-p5", {"FIN301"}),
        ("Oversized-P5", {"FIN301"}),
        ("FIN2", {"FIN201", "FIN202"}),
        ("fin9", {"FIN900", "FIN901"}),
    ],
)
def test_selector_matches(policies, text: str, expected: set[str]) -> None:  # type: ignore[no-untyped-def]
    got = {p.id for p in policies if selector.RuleSelector(text).matches(p)}
    assert expected <= got
    assert all(g.startswith(text.upper()) for g in got) or got == expected


def test_name_prefix_is_an_error_with_a_suggestion(policies) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(selector.SelectorError) as info:
        selector.check(["over"], policies)
    assert "oversized-p5" in str(info.value) and "did you mean" in str(info.value)


def test_cli_select_typo_exits_2_with_did_you_mean() -> None:
    """Regression: `--select over` was accepted and matched nothing (0 findings, exit 0)."""
    result = CliRunner().invoke(main, ["scan", str(DEMO), "--select", "over"])
    assert result.exit_code == 2
    assert "did you mean 'oversized-p5'" in result.output


def test_cli_lowercase_id_selects(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["scan", str(DEMO), "--select", "fin301", "--format", "json"])
    assert result.exit_code == 1
    assert '"FIN301"' in result.output and '"FIN101"' not in result.output


def test_engine_config_keys_are_case_insensitive(policies) -> None:  # type: ignore[no-untyped-def]
    fin301 = next(p for p in policies if p.id == "FIN301")
    config = EngineConfig(
        select=("fin3",), params={"fin301": {"min_gpu_hours": 5}}, severity={"fin301": "low"}
    )
    assert config.enabled(fin301)
    assert config.params_for(fin301)["min_gpu_hours"] == 5
    assert config.severity_for(fin301) == "low"


def test_config_file_typo_names_line_and_suggestion(tmp_path: Path) -> None:
    (tmp_path / ".finlint.yaml").write_text("select:\n  - oversized\n", encoding="utf-8")
    (tmp_path / "x.yaml").write_text("a: 1\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["scan", str(tmp_path)])
    assert result.exit_code == 2
    assert ".finlint.yaml:2" in result.output and "oversized-p5" in result.output


def test_rule_command_is_case_insensitive() -> None:
    assert CliRunner().invoke(main, ["rule", "fin301"]).exit_code == 0
    bad = CliRunner().invoke(main, ["rule", "oversize-p5"])
    assert bad.exit_code == 2 and "oversized-p5" in bad.output
