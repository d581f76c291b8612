"""SARIF ``fixes`` for a finding with a :class:`~finlint.finding.Fix` (SARIF 2.1.0 §3.55).

Kept apart from :mod:`finlint.reporters.sarif` so the result shape there stays small: each fix
is one ``fix`` object whose ``artifactChanges`` group the edits by file; a replacement's
``deletedRegion`` uses SARIF's 1-based columns (a TextEdit's are 0-based), and an insertion is
an empty region (start == end).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from finlint.finding import Finding


def fixes(f: Finding, uri: Callable[[str], dict[str, str]]) -> list[dict[str, Any]]:
    """``[fix]`` for a fixable finding, else ``[]``; ``uri`` makes an artifactLocation."""
    if f.fix is None or not f.fix.edits:
        return []
    by_file: dict[str, list[dict[str, Any]]] = {}
    for e in f.fix.edits:
        by_file.setdefault(e.file, []).append(
            {
                "deletedRegion": {
                    "startLine": e.start_line,
                    "startColumn": e.start_col + 1,
                    "endLine": e.end_line,
                    "endColumn": e.end_col + 1,
                },
                "insertedContent": {"text": e.new_text},
            }
        )
    changes = [{"artifactLocation": uri(file), "replacements": reps} for file, reps in by_file.items()]
    return [{"description": {"text": f.fix.description}, "artifactChanges": changes}]
