"""Config file: discovery, every key through the CLI, CLI flags win, errors name file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK, training_request

from finlint.cli import main
from finlint.config import find_config, load_config

NOTEBOOK = P5_NOTEBOOK
SPOT_JOB = training_request(
    "spot-job",
    "ml.p5.48xlarge",
    EnableManagedSpotTraining=True,
    CheckpointConfig={"S3Uri": "s3://bucket/ckpt"},
    StoppingCondition={"MaxRuntimeInSeconds": 36000, "MaxWaitTimeInSeconds": 72000},
)


@pytest.fixture()
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()  # the search stops at the repository root
    (tmp_path / "infra" / "nested").mkdir(parents=True)
    (tmp_path / "infra" / "nested" / "notebook.yaml").write_text(NOTEBOOK, encoding="utf-8")
    (tmp_path / "infra" / "job.json").write_text(json.dumps(SPOT_JOB), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def scan(*args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    result = CliRunner().invoke(main, ["scan", *args, "--format", "json"])
    try:
        return result.exit_code, json.loads(result.stdout), result.stderr
    except json.JSONDecodeError:
        return result.exit_code, {}, result.stderr


def rules_fired(doc: dict) -> list[tuple[str, str]]:  # type: ignore[type-arg]
    return sorted((f["rule_id"], f["severity"]) for f in doc["findings"])


def test_no_config(repo: Path) -> None:
    code, doc, _ = scan("infra")
    assert code == 1
    # FIN301 on the notebook and on the job (8 GPUs x 10 h = 80 GPU-hours < 1000); FIN202 on the job;
    # FIN302: the p5 notebook has nothing that stops it when idle
    assert rules_fired(doc) == [
        ("FIN202", "low"),
        ("FIN301", "high"),
        ("FIN301", "high"),
        ("FIN302", "medium"),
    ]


def test_yaml_config_found_by_walking_up(repo: Path) -> None:
    (repo / ".finlint.yaml").write_text(
        "select: [FIN2, FIN301]\n"
        "ignore: [spot-checkpoint-local-path-implicit]\n"
        "fail-on: critical\n"
        "rules:\n"
        "  FIN301:\n"
        "    severity: medium\n"
        "    params: {min_gpu_hours: 50}\n",
        encoding="utf-8",
    )
    assert find_config(repo / "infra" / "nested" / "notebook.yaml") == repo / ".finlint.yaml"
    code, doc, _ = scan("infra/nested/notebook.yaml", "infra/job.json")
    # FIN202 ignored; the job's 80 GPU-hours are over min_gpu_hours 50; severity downgraded; fail-on critical
    assert rules_fired(doc) == [("FIN301", "medium")]
    assert code == 0


def test_cli_flags_win(repo: Path) -> None:
    (repo / ".finlint.yaml").write_text(
        "fail-on: critical\nselect: [FIN202]\nexclude: [infra/nested]\n", "utf-8"
    )
    code, doc, _ = scan("infra")
    assert rules_fired(doc) == [("FIN202", "low")] and code == 0
    code, doc, _ = scan("infra", "--fail-on", "low", "--select", "FIN301")
    assert rules_fired(doc) == [("FIN301", "high")] and code == 1  # the nested notebook stays excluded


def test_pyproject_table_and_max_monthly_usd(repo: Path) -> None:
    (repo / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.finlint]\nselect = ["FIN301"]\nfail-on = "critical"\n'
        'max-monthly-usd = 100\n\n[tool.finlint.rules.oversized-p5]\nseverity = "low"\n',
        encoding="utf-8",
    )
    code, doc, _ = scan("infra/nested")
    assert rules_fired(doc) == [("FIN301", "low")]
    assert code == 1  # not for severity (fail-on critical) but for the budget: a p5 notebook > $100/month
    code, _, _ = scan("infra/nested", "--max-monthly-usd", "1000000")
    assert code == 0


def test_yaml_wins_over_pyproject_and_config_flag_overrides_search(repo: Path, tmp_path: Path) -> None:
    (repo / "pyproject.toml").write_text('[tool.finlint]\nselect = ["FIN202"]\n', "utf-8")
    assert find_config(repo) == repo / "pyproject.toml"
    (repo / ".finlint.yml").write_text("select: [FIN301]\n", "utf-8")
    assert find_config(repo) == repo / ".finlint.yml"
    other = repo / "ci" / "strict.yaml"
    other.parent.mkdir()
    other.write_text("select: [FIN202]\n", "utf-8")
    _, doc, _ = scan("infra", "--config", str(other))
    assert rules_fired(doc) == [("FIN202", "low")]


def test_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    (tmp_path / ".finlint.yaml").write_text("select: [FIN202]\n", "utf-8")  # above the repo: never used
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    assert find_config(tmp_path / "repo") is None
    assert find_config(tmp_path) == tmp_path / ".finlint.yaml"


def test_pyproject_without_table_is_skipped(repo: Path) -> None:
    (repo / "infra" / "pyproject.toml").write_text('[project]\nname = "x"\n', "utf-8")
    (repo / ".finlint.yaml").write_text("select: [FIN202]\n", "utf-8")
    assert find_config(repo / "infra") == repo / ".finlint.yaml"


def test_relative_paths_are_relative_to_the_config_file(repo: Path) -> None:
    (repo / "conf").mkdir()
    (repo / "conf" / "usage.yml").write_text("defaults: {}\n", "utf-8")
    (repo / "conf" / "finlint.yaml").write_text(
        "usage-file: usage.yml\npolicy-dirs: [extra]\nbaseline: base.json\n", "utf-8"
    )
    (repo / "conf" / "extra").mkdir()
    config = load_config(repo / "conf" / "finlint.yaml")
    assert config.usage_file == repo / "conf" / "usage.yml"
    assert config.policy_dirs == (repo / "conf" / "extra",)
    assert config.baseline == repo / "conf" / "base.json"


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("select: [FIN301]\nfail_on: high\nfial-on: low\n", 3, "unknown key 'fial-on'"),
        ("fail-on: severe\n", 1, "fail-on: expected one of info, low, medium, high, critical, got 'severe'"),
        ("select:\n  - FIN301\n  - FIN999\n", 3, "select: no rule matches 'FIN999'"),
        (
            "rules:\n  FIN301:\n    severity: high\n  FIN777: {severity: low}\n",
            4,
            "rules: unknown rule 'FIN777'",
        ),
        ("rules:\n  FIN301:\n    params:\n      min_gpu_hour: 5\n", 4, "FIN301 has no param 'min_gpu_hour'"),
        ("rules:\n  FIN301:\n    params:\n      min_gpu_hours: lots\n", 4, "expected a number, got 'lots'"),
        ("rules:\n  FIN301:\n    sevrity: low\n", 3, "rules.FIN301: unknown key 'sevrity'"),
        ("max-monthly-usd: -5\n", 1, "expected a non-negative number of dollars"),
        ("region: moon-1\n", 1, "expected an AWS region"),
        ("exclude: 7\n", 1, "exclude: expected a list of strings"),
        ("select: [FIN301\n", 2, "invalid YAML"),
    ],
)
def test_bad_yaml_config_is_exit_2_with_file_and_line(repo: Path, text: str, line: int, message: str) -> None:
    (repo / ".finlint.yaml").write_text(text, encoding="utf-8")
    code, _, err = scan("infra")
    assert code == 2
    assert f".finlint.yaml:{line}: " in err and message in err, err


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('[tool.finlint]\nselect = ["FIN301"]\nfail-on = "nope"\n', 3, "fail-on: expected one of"),
        (
            '[tool.finlint]\nselect = ["FIN301"]\n\n[tool.finlint.rules.FIN301]\nsevrity = "low"\n',
            5,
            "sevrity",
        ),
        ("[tool.finlint]\nrules = { FIN301 = { params = { min_gpu_hour = 1 } } }\n", 2, "min_gpu_hour"),
        ("[tool.finlint]\ncolour = true\n", 2, "unknown key 'colour'"),
        ("[tool.finlint]\nselect = [\n", 2, "invalid TOML"),
    ],
)
def test_bad_pyproject_is_exit_2_with_file_and_line(repo: Path, text: str, line: int, message: str) -> None:
    (repo / "pyproject.toml").write_text(text, encoding="utf-8")
    code, _, err = scan("infra")
    assert code == 2
    assert f"pyproject.toml:{line}: " in err and message in err, err
