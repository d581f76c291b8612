"""Round trip over every fixture tree: apply every fix (unsafe too), then scan again. No fixable
finding is left, no file fails to parse that parsed before, and only the edited lines changed."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from finlint.fixes import plan, reader_for
from finlint.scan import ScanOptions, lint

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
TREES = sorted(p for p in FIXTURES.iterdir() if p.is_dir())
EXPECT_FIXES = {
    "aws-batch",
    "demo",
    "kubernetes",
    "parallelcluster",
    "sagemaker-api",
    "sagemaker-sdk",
    "slurm",
    "terraform",
}


def _fix_all(root: Path) -> list[tuple[str, str, str, set[int]]]:
    options = ScanOptions(paths=[root], display_root=root)
    found = plan(lint(options).findings, reader_for(options), options, unsafe=True)
    out = []
    for ff in found.files:
        (root / ff.file).write_text(ff.after, encoding="utf-8")
        # an inserted block may be shown by difflib as many lines earlier as it is long (its
        # last lines repeat the ones above it: "  }" of the block before a new block)
        lines = {
            e.start_line - k
            for _, fx in ff.fixes
            for e in fx.edits
            for k in range(e.new_text.count("\n") + 1)
        }
        out.append((ff.file, ff.before, ff.after, lines))
    return out


@pytest.mark.parametrize("tree", TREES, ids=[t.name for t in TREES])
def test_fixes_round_trip(tree: Path, tmp_path: Path) -> None:
    root = tmp_path / tree.name
    shutil.copytree(tree, root, symlinks=True)
    before = lint(ScanOptions(paths=[root], display_root=root)).findings
    changed = _fix_all(root)
    if tree.name in EXPECT_FIXES:  # the round trip is not vacuous where fixes exist
        assert changed
    after = lint(ScanOptions(paths=[root], display_root=root)).findings
    parse_errors = {f.file for f in before if f.rule_id == "FIN000"}
    assert {f.file for f in after if f.rule_id == "FIN000"} <= parse_errors
    assert _fix_all(root) == []  # nothing fixable is left
    for name, old, new, edited in changed:
        for group in difflib.SequenceMatcher(None, old.splitlines(), new.splitlines()).get_opcodes():
            tag, i1, i2, _, _ = group
            if tag == "equal":
                continue
            # an insertion before line i1 + 1, or a change of lines i1 + 1 .. i2, is at an edit
            touched = set(range(i1 + 1, max(i2, i1 + 1) + 1))
            assert touched & edited, (name, group)
