"""Regenerate tests/golden/*.expected.json from the current code; review the diff like code."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.golden_units import GOLDEN_DIR, golden_file, scan_unit, units  # noqa: E402

from finlint.snapshot import scan_snapshot  # noqa: E402


def main() -> int:
    GOLDEN_DIR.mkdir(exist_ok=True)
    wanted = set()
    for unit in units():
        target = golden_file(unit)
        wanted.add(target)
        text = json.dumps(scan_snapshot(scan_unit(unit)), indent=1, sort_keys=True) + "\n"
        changed = not target.exists() or target.read_text(encoding="utf-8") != text
        target.write_text(text, encoding="utf-8")
        print(f"{'updated' if changed else 'same   '} {target.relative_to(GOLDEN_DIR.parent.parent)}")
    for stale in set(GOLDEN_DIR.glob("*.expected.json")) - wanted:
        stale.unlink()
        print(f"removed {stale.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
