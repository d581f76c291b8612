"""Regions: only regions with prices, one fallback notice per run, no difference across regions,
and an overlay whose instance key is misspelled is an error with a did-you-mean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from finlint.cli import main
from finlint.cost.pricing import PricingError, load_pricing

DEMO = "fixtures/demo"
JOB = "fixtures/demo/sagemaker-api/train-request.json"


@pytest.mark.parametrize("command", ["scan", "cost"])
def test_unknown_region_exits_2_listing_the_snapshot_regions(command: str) -> None:
    res = CliRunner().invoke(main, [command, JOB, "--region", "me-south-1"])
    assert res.exit_code == 2, res.output
    assert "'me-south-1'" in res.output and "eu-west-1, eu-west-2" in res.output
    typo = CliRunner().invoke(main, [command, JOB, "--region", "us-east1"])
    assert typo.exit_code == 2 and "us-east-1, us-east-2" in typo.output


def test_config_and_usage_file_regions_are_checked(tmp_path: Path) -> None:
    (tmp_path / "job.json").write_text(Path(JOB).read_text())
    (tmp_path / ".finlint.yaml").write_text("region: af-south-1\n")
    res = CliRunner().invoke(main, ["scan", str(tmp_path)])
    assert res.exit_code == 2 and "'af-south-1'" in res.output and "us-west-2" in res.output
    (tmp_path / ".finlint.yaml").unlink()
    usage = tmp_path / "u.yml"
    usage.write_text("defaults:\n  region: eu-south-1\n")
    res = CliRunner().invoke(main, ["scan", str(tmp_path), "--usage-file", str(usage)])
    assert res.exit_code == 2 and "'eu-south-1'" in res.output and str(usage) in res.output


def overlay(tmp_path: Path, region: str, table: str, prices: dict[str, float]) -> Path:
    f = tmp_path / "prices.json"
    block = {"source": "our rate card", "date": "2026-11-01", "prices": prices}
    f.write_text(json.dumps({"regions": {region: {table: [block]}}}))
    return f


def test_an_overlay_adds_a_region(tmp_path: Path) -> None:
    f = overlay(tmp_path, "eu-west-1", "sagemaker_hourly", {"ml.g5.2xlarge": 1.7})
    res = CliRunner().invoke(
        main, ["cost", JOB, "--region", "eu-west-1", "--pricing", str(f), "--format", "json"]
    )
    assert res.exit_code == 0, res.output
    (item,) = json.loads(res.output)["resources"]
    assert item["per_run_usd"] == round(1.7 * 24, 2) and item["unit_price"]["region"] == "eu-west-1"


def test_one_fallback_notice_per_run() -> None:
    res = CliRunner().invoke(main, ["scan", DEMO, "--region", "us-west-2", "--format", "json"])
    data = json.loads(res.output)
    notes = [n["message"] for n in data["notices"] if n["message"].startswith("cost:")]
    assert len(notes) == 1  # many findings fell back; one notice says which prices did
    assert "ml.p5.48xlarge (sagemaker_hourly)" in notes[0] and "standard_gb_month (efs)" in notes[0]
    assert "provisioned_throughput_mibps_month (efs)" in notes[0]  # FIN403 on the demo's training EFS
    assert "archive_gb_month" not in notes[0]  # only prices a figure used
    text = CliRunner().invoke(main, ["cost", DEMO, "--region", "us-west-2"]).output
    assert sum("notice: prices for us-west-2" in ln for ln in text.splitlines()) == 1


def test_a_difference_never_mixes_regions(tmp_path: Path) -> None:
    """An overlay prices EFS in us-west-2 but not FSx or S3: every FIN401 price comes from one region."""
    f = overlay(tmp_path, "us-west-2", "efs", {"standard_gb_month": 0.33})
    res = CliRunner().invoke(
        main, ["scan", f"{DEMO}/terraform", "--region", "us-west-2", "--pricing", str(f), "--format", "json"]
    )
    (fin401,) = [x for x in json.loads(res.output)["findings"] if x["rule_id"] == "FIN401"]
    regions = {q["region"] for q in fin401["cost"]["assumptions"]["prices"].values()}
    assert regions == {"us-east-1"}  # FSx and S3 have no us-west-2 price: all from the fallback
    assert "$0.30/GB-month" in fin401["cost"]["basis"]  # not the us-west-2 $0.33 against us-east-1 prices
    both = load_pricing("us-west-2", f).same_region(("efs", "standard_gb_month"))
    assert both[0] and both[0].usd == 0.33 and both[0].region == "us-west-2"


@pytest.mark.parametrize(
    ("table", "key", "hint"),
    [
        ("ec2_hourly", "p5.48xlarg", "p5.48xlarge"),
        ("ec2_hourly", "p5.24xlarge", "p5.4xlarge"),  # no such size in a family finlint knows
        ("sagemaker_hourly", "ml.p4d.24xlage", "ml.p4d.24xlarge"),
        ("ec2_hourly", "g6e.12xlarg", "g6e.12xlarge"),
    ],
)
def test_misspelled_overlay_key_is_an_error_with_did_you_mean(
    tmp_path: Path, table: str, key: str, hint: str
) -> None:
    f = overlay(tmp_path, "us-east-1", table, {key: 1.0})
    with pytest.raises(PricingError) as exc:
        load_pricing("us-east-1", f)
    assert repr(key) in str(exc.value) and f"did you mean {hint!r}" in str(exc.value)
    res = CliRunner().invoke(main, ["scan", JOB, "--pricing", str(f)])
    assert res.exit_code == 2 and repr(key) in res.output


def test_overlay_keys_finlint_does_not_know_but_are_well_formed_are_accepted(tmp_path: Path) -> None:
    f = overlay(tmp_path, "us-east-1", "ec2_hourly", {"m6a.large": 0.0864})
    q = load_pricing("us-east-1", f).hourly("m6a.large")
    assert q and q.usd == 0.0864
    wrong_table = overlay(tmp_path, "us-east-1", "ec2_hourly", {"ml.g5.xlarge": 1.0})
    with pytest.raises(PricingError, match="no ml. prefix"):
        load_pricing("us-east-1", wrong_table)
