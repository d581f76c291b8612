"""Values read from another file (a config file next to a launcher, the SageMaker SDK's
defaults file): the finding says so and points where the user edits.

A loader records ``record.extra["value_sources"] = {field: {"file", "line", "what"}}``. When
the field a policy points at (its ``at`` list) came from such a file, the finding's location
is that file and line, and the message names every sourced field the policy points at.
``record.extra["finding_note"]`` (a launch checked under a value other than the one written,
e.g. a local-mode argparse default) is appended to every finding of the record.
"""

from __future__ import annotations

from typing import Any

from finlint.engine.policy import Policy
from finlint.ir import Record


def sourced_location(policy: Policy, record: Record, line: int, end_line: int) -> tuple[str, int, int, str]:
    """``(file, line, end_line, note)`` for a finding: the record's own unless its ``at`` value
    came from another file."""
    sources: Any = record.extra.get("value_sources") if record.extra else None
    extra_note = record.extra.get("finding_note") if record.extra else None
    extra_note = extra_note if isinstance(extra_note, str) else ""
    file = record.location.file
    if not isinstance(sources, dict):
        return file, line, end_line, extra_note
    named = [(name, sources[name]) for name in policy.at if isinstance(sources.get(name), dict)]
    if not named:
        return file, line, end_line, extra_note
    first = named[0][1]
    parts = [
        f"{name} from {src.get('what', 'file')} {src.get('file')}:{src.get('line')}" for name, src in named
    ]
    target_line = int(first.get("line") or line)
    note = f" ({'; '.join(parts)})" + extra_note
    return str(first.get("file") or file), target_line, target_line, note
