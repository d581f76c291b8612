"""The HTML report is text: no NUL or other C0 control byte (grep and `file` treat one as binary,
and an HTML parser reports it as an error). The sort keys once joined file and line with NUL."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from finlint.cli import main

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo"


def test_demo_report_has_no_control_bytes(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    result = CliRunner().invoke(main, ["scan", str(DEMO), "--format", "html", "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    data = out.read_bytes()
    assert b"data-sort" in data
    bad = sorted({b for b in data if b < 32 and b not in (9, 10, 13)})
    assert bad == [], f"control bytes in the HTML report: {bad}"
    # nor a control character escaped into visible text (the old NUL separator became "\\x00")
    assert b"\\x00" not in data
