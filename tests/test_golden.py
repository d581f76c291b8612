"""Golden snapshots: every fixture tree's IR records and findings (ids, lines, dollars).

A refactor is behaviour-preserving exactly when these do not change. After an intended change,
regenerate with ``python scripts/update_goldens.py`` and review the diff like code.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.golden_units import GOLDEN_DIR, golden_file, scan_unit, units

from finlint.snapshot import scan_snapshot


@pytest.mark.parametrize("unit", units(), ids=lambda p: p.name)
def test_golden(unit: Path) -> None:
    target = golden_file(unit)
    assert target.exists(), f"no golden for {unit}: run python scripts/update_goldens.py"
    expected = json.loads(target.read_text(encoding="utf-8"))
    actual = json.loads(json.dumps(scan_snapshot(scan_unit(unit))))
    assert actual["findings"] == expected["findings"]
    assert actual["records"] == expected["records"]
    assert actual == expected


def test_no_stale_goldens() -> None:
    wanted = {golden_file(u).name for u in units()}
    present = {p.name for p in GOLDEN_DIR.glob("*.expected.json")}
    assert present == wanted
