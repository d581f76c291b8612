"""Suggested fixes in the Markdown PR comment: each fixable finding's edit as a ``diff`` block.

A :class:`~finlint.finding.TextEdit` names a span, not the text it replaces, so the changed
lines are read back from the scanned file (bounded, :func:`finlint.untrusted.read_bytes`). When
the file cannot be read or the edit does not fit it (the file changed since the scan), only the
new text is shown, said as such. Everything in a block comes from the untrusted repository:
each line is made printable and the fence is longer than any backtick run in the block.
"""

from __future__ import annotations

from pathlib import Path

from finlint import escape
from finlint.escape import code_fence
from finlint.finding import Finding, TextEdit
from finlint.textedit import whole_lines
from finlint.untrusted import read_bytes

MAX_FIXES = 20  # a PR comment holds 65,536 characters
MAX_FILE_BYTES = 4 * 1024 * 1024
MAX_BLOCK_LINES = 60  # per file, old and new lines together
MAX_ALSO = 5  # other findings one edit resolves, named on its entry
SAFE = "safe: behaviour is unchanged"
UNSAFE = "unsafe: changes behaviour, check the value before applying"


def _line(text: str) -> str:
    """One printable line (tabs kept, other control characters escaped)."""
    return "\t".join(escape.clean(part) for part in text.split("\t"))


def _source(file: str) -> list[str] | None:
    """The scanned file's lines as it is now, or None when it cannot be read as UTF-8."""
    data = read_bytes(Path(file), MAX_FILE_BYTES)
    if isinstance(data, str):
        return None
    try:
        return data.decode("utf-8-sig").split("\n")
    except UnicodeDecodeError:
        return None


def _block(file: str, edits: list[TextEdit]) -> list[str]:
    edits = sorted(edits, key=lambda e: (e.start_line, e.start_col))
    lines = _source(file)
    touched = whole_lines(lines, edits) if lines is not None else None
    if touched is None:
        span = f"{edits[0].start_line}–{max(e.end_line for e in edits)}"
        new = "".join(e.new_text for e in edits).split("\n")
        note = f"The file cannot be read here or changed since the scan; the new text for lines {span}:"
        return [note, "", *code_fence([_line(x) for x in new[:MAX_BLOCK_LINES]], "")]
    first, old_lines, new_lines = touched
    old, new = [x.rstrip("\r") for x in old_lines], [x.rstrip("\r") for x in new_lines]
    head = 0  # lines the edits touch but leave as they were: context, not removed and added
    while head < min(len(old), len(new)) - 1 and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    body = [f"@@ -{first},{len(old)} +{first},{len(new)} @@"]
    body += [" " + _line(x) for x in old[:head]]
    body += ["-" + _line(x) for x in old[head : len(old) - tail]]
    body += ["+" + _line(x) for x in new[head : len(new) - tail]]
    body += [" " + _line(x) for x in old[len(old) - tail :]]
    if len(body) > MAX_BLOCK_LINES + 1:
        body = [*body[: MAX_BLOCK_LINES + 1], " …"]
    return code_fence(body, "diff")


def _entry(f: Finding, also: list[Finding]) -> list[str]:
    assert f.fix is not None
    safety = SAFE if f.fix.safe else UNSAFE
    where = escape.markdown_code(f"{f.file}:{f.line}")
    same = "".join(
        f"; also resolves **{o.rule_id}** {escape.markdown_code(o.resource)}" for o in also[:MAX_ALSO]
    )
    if len(also) > MAX_ALSO:
        same += f" and {len(also) - MAX_ALSO} more"
    out = [
        f"- **{f.rule_id}** {escape.markdown_code(f.resource)} ({where}): "
        f"{escape.markdown(f.fix.description)} ({safety}){same}",
        "",
    ]
    files = list(dict.fromkeys(e.file for e in f.fix.edits))
    for file in files:
        if len(files) > 1 or file != f.file:
            out += [f"  {escape.markdown_code(file)}", ""]
        out += ["  " + row if row else "" for row in _block(file, [e for e in f.fix.edits if e.file == file])]
        out.append("")
    return out


def section(findings: list[Finding]) -> list[str]:
    """A folded "Suggested fixes" section for the fixable findings; [] when there are none."""
    groups: dict[tuple[TextEdit, ...], list[Finding]] = {}
    for f in findings:
        if f.fix is not None and f.fix.edits:  # one edit that resolves several findings: shown once
            groups.setdefault(tuple(f.fix.edits), []).append(f)
    fixable = list(groups.values())
    if not fixable:
        return []
    out = ["", f"<details><summary>Suggested fixes ({len(fixable)})</summary>", ""]
    for first, *also in fixable[:MAX_FIXES]:
        out += _entry(first, also)
    if len(fixable) > MAX_FIXES:
        out += [f"…and {len(fixable) - MAX_FIXES} more; the JSON and SARIF reports hold them all.", ""]
    out.append("</details>")
    return out
