"""Values read from another file (a config file next to a launcher, the SageMaker SDK's
defaults file): the finding says so and points where the user edits.

A loader records ``record.value_sources`` (``ValueSource(attr, file, line, what)``). When
the field a policy points at (its ``at`` list) came from such a file, the finding's location
is that file and line, and the message names every sourced field the policy points at.
``record.finding_note`` (a launch checked under a value other than the one written,
e.g. a local-mode argparse default) is appended to every finding of the record.
"""

from __future__ import annotations

from finlint.engine.policy import Policy
from finlint.ir import Record


def sourced_location(policy: Policy, record: Record, line: int, end_line: int) -> tuple[str, int, int, str]:
    """``(file, line, end_line, note)`` for a finding: the record's own unless its ``at`` value
    came from another file."""
    extra_note = record.finding_note
    file = record.location.file
    if not record.value_sources:
        return file, line, end_line, extra_note
    named = [(name, src) for name in policy.at if (src := record.value_source(name)) is not None]
    if not named:
        return file, line, end_line, extra_note
    first = named[0][1]
    parts = [f"{name} from {src.what} {src.file}:{src.line}" for name, src in named]
    target_line = first.line or line
    note = f" ({'; '.join(parts)})" + extra_note
    return first.file or file, target_line, target_line, note
