"""Regenerate the HTML report's screenshots from the demo, and the figures they show.

    python scripts/html_screenshot.py

runs ``finlint scan fixtures/demo --format html`` (and ``--format json`` in the same scan), opens
the page in headless Chromium at 800 and 1,400 px (``tests/browser.py``, the browser tests' own
harness: Debian's ``chromium`` over the DevTools pipe) with the first finding's basis open, and
writes ``docs/img/html-report-800.png``, ``docs/img/html-report-1400.png``, the README's
``docs/img/html-report.png`` (the 1,400 px one) and ``docs/img/html-report.json``: the figures the
screenshots show. ``tests/reporters/test_reporter_html_layout.py`` fails when the demo's figures
no longer match that file, so a screenshot cannot silently go stale. Look at the images before
committing them.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser import Browser, find_chromium  # noqa: E402

DEMO = "fixtures/demo"
IMG = ROOT / "docs" / "img"
#: page width -> the height of the top of the page shown (header, charts, the first findings)
SHOTS = {800: 2600, 1400: 2300}
README_WIDTH = 1400
SIDECAR = IMG / "html-report.json"


def usd(amount: float) -> str:
    """As the report's headline shows a figure (``reporters.markdown.usd``)."""
    from finlint.reporters.markdown import usd as shown

    return shown(amount)


def scan(out: Path) -> dict[str, object]:
    """The demo scan as the README shows it (run from the repository root: relative paths)."""
    html, report = out / "demo.html", out / "demo.json"
    command = [sys.executable, "-m", "finlint", "scan", DEMO, "--format", "html", "-o", str(html)]
    command += ["--format", "json", "-o", str(report)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)  # noqa: S603
    if done.returncode not in (0, 1):  # 1: findings at or above fail-on, as the demo has
        raise SystemExit(f"finlint scan failed ({done.returncode}): {done.stderr}")
    summary = json.loads(report.read_text("utf-8"))["summary"]
    return {
        "command": f"finlint scan {DEMO} --format html",
        "findings": summary["findings"],
        "avoidable_usd": summary["monthly_usd"],
        "exposure_usd": summary["exposure_usd"],
        "shown": {
            "findings": f"Findings ({summary['findings']})",
            "avoidable": f"{usd(summary['monthly_usd'])}/month",
            "exposure": f"{usd(summary['exposure_usd'])}/month",
        },
        "widths": sorted(SHOTS),
        "html": str(html),
    }


def shoot(browser: Browser, page: Path, width: int, height: int, target: Path) -> dict[str, str]:
    """One screenshot of the top of the page; returns the figures the page shows there."""
    browser.open(page.resolve().as_uri(), width=width, height=height)
    if browser.problems():
        raise SystemExit(f"the page logged problems at {width} px: {browser.problems()}")
    browser.evaluate("document.querySelector('#findings details').open = true")
    shown = browser.evaluate(
        """({findings: document.querySelector('#findings').closest('section').querySelector('h2').textContent,
            avoidable: document.querySelector('#total > b').textContent,
            exposure: document.querySelector('#exposure > b').textContent})"""
    )
    browser.screenshot(target, full_page=True, max_height=height)
    return {str(k): str(v) for k, v in shown.items()}


def main() -> int:
    exe = find_chromium()
    if exe is None:
        print("chromium is not installed (apt-get install chromium)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="finlint-shot-") as tmp:
        figures = scan(Path(tmp))
        page = Path(str(figures.pop("html")))
        with Browser(exe) as browser:
            for width, height in SHOTS.items():
                target = IMG / f"html-report-{width}.png"
                shown = shoot(browser, page, width, height, target)
                if shown != figures["shown"]:
                    raise SystemExit(f"the page shows {shown}, the JSON report {figures['shown']}")
                print(f"wrote {target.relative_to(ROOT)}")
    (IMG / "html-report.png").write_bytes((IMG / f"html-report-{README_WIDTH}.png").read_bytes())
    SIDECAR.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    print(
        f"wrote docs/img/html-report.png ({README_WIDTH} px), {SIDECAR.relative_to(ROOT)}: {figures['shown']}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
