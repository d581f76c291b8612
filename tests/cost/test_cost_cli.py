"""CLI wiring of the cost options: `finlint cost`, --max-monthly-usd, --usage-file errors, --region."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from finlint.cli import main

DEMO = "fixtures/demo/sagemaker-api/train-request.json"  # ml.g5.2xlarge x 1, no max runtime (24 h default)


def test_cost_breakdown_json() -> None:
    res = CliRunner().invoke(main, ["cost", DEMO, "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    (item,) = [i for i in data["resources"] if i["resource"] == "demo-classifier"]
    assert item["per_run_usd"] == round(1.52 * 1 * 24, 2)  # 36.48
    assert item["unit_price"]["usd"] == 1.52
    assert data["total_monthly_usd"] >= 36.48 and data["region"] == "us-east-1"


def test_cost_breakdown_text_with_usage(tmp_path: Path) -> None:
    usage = tmp_path / "u.yml"
    usage.write_text("defaults:\n  runs_per_month: 10\n  expected_runtime_hours: 3\n")
    res = CliRunner().invoke(main, ["cost", DEMO, "--usage-file", str(usage)])
    assert res.exit_code == 0, res.output
    assert "$45.60" in res.output  # 1.52 x 1 x 3 h x 10 runs
    assert "Total: $45.60/month" in res.output


def test_scan_budget_gate_is_on_the_avoidable_spend_not_the_exposure() -> None:
    runner = CliRunner()
    # the request's only figure is FIN101's exposure, 1.52 x 24 = $36.48 if a run gets stuck:
    # conditional, so it never trips the budget (the avoidable spend is $0)
    exposed = runner.invoke(main, ["scan", DEMO, "--fail-on", "critical", "--max-monthly-usd", "30"])
    assert exposed.exit_code == 0, exposed.output
    assert "avoidable $0/month" in exposed.output and "exposure $36/month" in exposed.output
    spot = "fixtures/cloudformation/bad/sfn-spot-no-checkpoint.yaml"  # FIN201: expected waste
    over = runner.invoke(main, ["scan", spot, "--fail-on", "critical", "--max-monthly-usd", "0.01"])  # $0.07
    assert over.exit_code == 1 and "monthly budget exceeded: the findings' avoidable spend" in over.output
    under = runner.invoke(main, ["scan", spot, "--fail-on", "critical", "--max-monthly-usd", "1000000"])
    assert under.exit_code == 0, under.output


def test_bad_usage_file_exits_2_with_line(tmp_path: Path) -> None:
    usage = tmp_path / "u.yml"
    usage.write_text("defaults:\n  runs_per_month: 2\n  runz: 3\n")
    res = CliRunner().invoke(main, ["scan", DEMO, "--usage-file", str(usage)])
    assert res.exit_code == 2
    assert f"{usage}:3: unknown key 'runz'" in res.output


def test_region_fallback_is_stated() -> None:
    res = CliRunner().invoke(main, ["scan", DEMO, "--format", "json", "--region", "us-west-2"])
    data = json.loads(res.output)
    costs = [f["cost"] for f in data["findings"] if f["cost"]]
    assert costs and "us-east-1 price used for us-west-2" in costs[0]["basis"]
    notes = [n["message"] for n in data["notices"] if "cost:" in n["message"]]
    assert notes == ["cost: prices for us-west-2 missing from the snapshot, us-east-1 prices used instead: "
                     "ml.g5.2xlarge (sagemaker_hourly)"]  # fmt: skip


def test_cost_breakdown_per_run_is_per_tuning_run() -> None:
    """The demo evaluator is a 12-job tuner on managed spot: a run is 12 jobs."""
    res = CliRunner().invoke(main, ["cost", "fixtures/demo/python", "--format", "json"])
    (item,) = [i for i in json.loads(res.output)["resources"] if i["resource"] == "launch_finetune:evaluator"]
    assert item["per_run_usd"] == round(1.52 * 0.4 * 1 * 24 * 12, 2)  # $0.608/h x 24 h x 12 jobs = 175.10
    assert item["monthly_usd"] == item["per_run_usd"]  # 1 run a month
    assert "12 jobs per tuning run" in item["quantity"]
