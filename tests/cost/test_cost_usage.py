"""The usage file: defaults, glob overrides, and errors that carry the offending line."""

from __future__ import annotations

from pathlib import Path

import pytest

from finlint import rules
from finlint.cost import price_findings, total_monthly_usd
from finlint.cost.usage import PARAMS, UsageFileError, load_usage, parse_usage
from finlint.finding import Finding
from finlint.ir import Location, Notebook

TEXT = """\
version: 1
defaults:
  runs_per_month: 4
  spot_discount: 0.5
resources:
  "train-*":
    runs_per_month: 10
  "train-big":
    expected_runtime_hours: 12
"""


def test_defaults_and_overrides() -> None:
    u = parse_usage(TEXT, "u.yml")
    assert u.for_resource("other")["runs_per_month"] == 4
    assert u.for_resource("other")["checkpoint_interval_minutes"] == 15  # built-in default
    big = u.for_resource("Job/x", "train-big")
    assert big["runs_per_month"] == 10 and big["expected_runtime_hours"] == 12 and big["spot_discount"] == 0.5
    assert u.source_of("runs_per_month", "train-big") == "usage file"
    assert u.source_of("hours_per_month", "train-big") == "default"


@pytest.mark.parametrize(
    ("text", "line", "words"),
    [
        ("defaults:\n  runs_per_month: 4\n  spot_discont: 0.5\n", 3, "unknown key 'spot_discont'"),
        ("defaults:\n  spot_discount: 1.5\n", 2, "expected a fraction"),
        ("version: 1\nresources:\n  a*:\n    runs: 3\n", 4, "unknown key 'runs'"),
        ("version: 1\nextra: true\n", 2, "unknown key 'extra'"),
        ("version: 2\n", 1, "unsupported version"),
        ("defaults:\n  runs_per_month: [\n", 3, "invalid YAML"),
        ("defaults:\n  spot_interruption_band: high\n", 2, "one of"),
    ],
)
def test_errors_have_lines(text: str, line: int, words: str) -> None:
    with pytest.raises(UsageFileError) as exc:
        parse_usage(text, "finlint-usage.yml")
    assert exc.value.line == line and exc.value.file == "finlint-usage.yml"
    assert words in exc.value.message
    assert str(exc.value).startswith(f"finlint-usage.yml:{line}: ")


def test_load_usage_from_cwd(tmp_path: Path) -> None:
    assert load_usage(None, tmp_path).defaults["runs_per_month"] == PARAMS["runs_per_month"].default
    (tmp_path / "finlint-usage.yml").write_text("defaults:\n  hours_per_month: 200\n")
    assert load_usage(None, tmp_path).defaults["hours_per_month"] == 200
    with pytest.raises(UsageFileError):
        load_usage(tmp_path / "missing.yml")


def test_usage_region_and_totals() -> None:
    loc = Location("n.yaml", 1, 2)
    nb = Notebook(address="NB", location=loc, source_format="x", instance_type="ml.p5.48xlarge")
    model = "oversized-p5"
    a = Finding("FIN301", model, "medium", "n.yaml", 1, 1, "NB", "m", record=nb, cost_model=model)
    b = Finding("FIN301", model, "medium", "n.yaml", 1, 1, "NB", "m", record=nb, cost_model=model)
    b.suppressed = "accepted"
    a.params = b.params = {"alternative": "p4d.24xlarge"}
    c = Finding("FIN999", "x", "low", "n.yaml", 1, 1, "NB", "m", record=nb, cost_model="nope")
    d = Finding("FIN998", "x", "low", "n.yaml", 1, 1, "NB", "m", record=nb)
    usage = parse_usage("defaults:\n  region: us-west-2\n  hours_per_month: 100\n")
    price_findings([a, b, c, d], [nb], {"usage": usage}, rules.registry().cost_models)
    assert a.cost and a.cost.monthly_usd == pytest.approx((63.296 - 25.2513) * 100)  # active <= in service
    assert "us-east-1 price used for us-west-2" in a.cost.basis  # no SageMaker prices for us-west-2
    assert c.cost and c.cost.monthly_usd is None and c.cost.reason and "nope" in c.cost.reason
    assert d.cost is None
    assert total_monthly_usd([a, b, c, d]) == pytest.approx((63.296 - 25.2513) * 100)  # b is suppressed
