"""Markdown PR comment: a fixable finding shows its suggested edit as a diff block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from tests.reporters.test_reporter_fix_outputs import fixed_scan

from finlint.finding import Finding, Fix, TextEdit
from finlint.reporters import ReportContext, markdown
from finlint.reporters.markdown_fixes import MAX_FIXES, SAFE, UNSAFE, section

FILE = "infra/a.yaml"


def finding(fix: Fix | None, resource: str = "X/a") -> Finding:
    return Finding("FIN305", "slug", "high", FILE, 2, 2, resource, "m", fix=fix)


def write(root: Path, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (root / "infra").mkdir(exist_ok=True)
    (root / FILE).write_text(text, encoding="utf-8")
    monkeypatch.chdir(root)


def test_scan_comment_shows_the_changed_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = markdown.render(fixed_scan(tmp_path, monkeypatch), ReportContext())
    fixes = text.split("<details><summary>Suggested fixes (1)</summary>")[1].split("</details>")[0]
    assert f"**FIN301** `ResearchNotebook` (`infra/notebook.yaml:6`): use ml.g5.2xlarge ({UNSAFE})" in fixes
    assert fixes.split("\n")[4:12] == [
        "  ```diff",
        "  @@ -6,2 +6,3 @@",
        "  -      InstanceType: ml.p5.48xlarge",
        "  +      InstanceType: ml.g5.2xlarge",
        "  +      # sized down",
        "         RoleArn: arn:aws:iam::111122223333:role/SageMakerNotebookRole",
        "  ```",
        "",
    ]
    assert text.index("Suggested fixes") < text.index("Suppressed in source")


def test_no_fix_no_section_and_safe_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "kind: X\nspec:\n  size: 10\n", monkeypatch)
    assert section([finding(None), finding(Fix("nothing", True, ()))]) == []
    out = section([finding(Fix("cap size at 10", True, (TextEdit(FILE, 3, 8, 3, 10, "10 # cap"),)))])
    assert f"cap size at 10 ({SAFE})" in out[3]
    assert out[5:9] == ["  ```diff", "  @@ -3,1 +3,1 @@", "  -  size: 10", "  +  size: 10 # cap"]


def test_repository_text_cannot_close_the_fence_or_escape(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "kind: X\nnote: `````x\n", monkeypatch)  # five backticks already in the file
    hostile = "y\n   ```\n# @admin \x1b[31mred\u202e"
    out = section(
        [finding(Fix("d [x](https://e.example) <b>", False, (TextEdit(FILE, 2, 6, 2, 12, hostile),)))]
    )
    block = out[out.index("  ``````diff") + 1 :]
    closing = block.index("  ``````")
    inner = block[:closing]
    assert inner == [
        "  @@ -2,1 +2,3 @@",
        "  -note: `````x",
        "  +note: y",
        "  +   ```",
        "  +# @admin \\x1b[31mred\\u202e",
    ]
    # no inner line can close a six-backtick fence, and the description is inert text
    assert not any(re.match(r" {0,5}`{6,}\s*$", line) for line in inner)
    assert "[x](https" not in out[3] and "<b>" not in out[3] and "&lt;b&gt;" in out[3]


def test_stale_or_unreadable_file_shows_only_the_new_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "kind: X\n", monkeypatch)
    out = section([finding(Fix("d", True, (TextEdit(FILE, 9, 0, 9, 1, "size: 2"),)))])
    assert "```diff" not in "\n".join(out)
    assert "changed since the scan; the new text for lines 9–9:" in out[5]
    assert out[7:10] == ["  ```", "  size: 2", "  ```"]
    backwards = finding(Fix("d", True, (TextEdit(FILE, 1, 5, 1, 2, "x"),)))
    assert "```diff" not in "\n".join(section([backwards]))
    elsewhere = finding(Fix("d", True, (TextEdit("missing/b.yaml", 1, 0, 1, 0, "x: 1\n"),)))
    out = section([elsewhere])
    assert "  `missing/b.yaml`" in out and any("cannot be read here" in line for line in out)


def test_many_fixes_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, "a: 1\nb: 2\n", monkeypatch)
    fixes = [Fix("d", True, (TextEdit(FILE, 1, 3, 1, 4, str(i)),)) for i in range(MAX_FIXES + 3)]
    out = section([finding(fix, f"X/{i}") for i, fix in enumerate(fixes)])
    assert out[1] == f"<details><summary>Suggested fixes ({MAX_FIXES + 3})</summary>"
    assert sum(line.startswith("- **FIN305**") for line in out) == MAX_FIXES
    assert any(line.startswith("…and 3 more") for line in out)
