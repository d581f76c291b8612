"""Several reports from one scan: ``--format sarif --output f.sarif --format github``.

CI wants annotations on stdout, SARIF for code scanning and Markdown for a PR comment from
one parse of the tree. Click collects repeated options per name and loses their interleaving,
so the commands keep the raw arguments (``cli.PairedCommand``) and :func:`plan` pairs each
``--output`` with the ``--format`` written right before it, or else with the next ``--format``.
Formats left without a file go to stdout; at most one may.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from finlint.errors import UsageError
from finlint.finding import Finding
from finlint.post.atomic import write_file
from finlint.reporters import ReportContext, get_reporter
from finlint.reporters.paths import GITHUB, RepoPaths

if TYPE_CHECKING:
    from finlint.result import ScanResult

DEFAULT_FORMAT = "text"
_FORMAT_FLAGS = ("--format",)
_OUTPUT_FLAGS = ("--output", "-o")


def _sequence(args: list[str]) -> list[str]:
    """The order of format ("F") and output ("O") options on the command line."""
    seq: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == "--":
            break
        if arg in _FORMAT_FLAGS or arg in _OUTPUT_FLAGS:
            seq.append("F" if arg in _FORMAT_FLAGS else "O")
            skip = True
        elif arg.startswith("--format="):
            seq.append("F")
        elif arg.startswith("--output=") or (arg.startswith("-o") and not arg.startswith("--")):
            seq.append("O")
    return seq


def plan(
    formats: tuple[str, ...], outputs: tuple[Path, ...], raw_args: list[str] | None
) -> list[tuple[str, Path | None]]:
    """``[(format, file or None for stdout)]``; raises :class:`finlint.errors.UsageError` when ambiguous."""
    if not formats and not outputs:
        return [(DEFAULT_FORMAT, None)]
    seq = _sequence(raw_args) if raw_args is not None else []
    if seq.count("F") != len(formats) or seq.count("O") != len(outputs):
        seq = [k for pair in zip(["F"] * len(formats), ["O"] * len(outputs), strict=False) for k in pair]
        seq += ["F"] * (len(formats) - len(outputs)) + ["O"] * (len(outputs) - len(formats))
    pending: list[str] = []  # formats without a file so far
    waiting: list[Path] = []  # files waiting for the next format
    pairs: list[tuple[str, Path | None]] = []
    fmt_iter, out_iter = iter(formats), iter(outputs)
    previous = ""
    for kind in seq:
        if kind == "F":
            fmt = next(fmt_iter)
            if waiting:
                pairs.append((fmt, waiting.pop(0)))
                kind = "paired"
            else:
                pending.append(fmt)
        else:
            out = next(out_iter)
            if previous == "F":  # --format X --output F
                pairs.append((pending.pop(), out))
                kind = "paired"
            else:  # --output F --format X
                waiting.append(out)
        previous = kind
    while waiting and pending:  # leftovers: pair in order
        pairs.append((pending.pop(0), waiting.pop(0)))
    pairs += [(DEFAULT_FORMAT, out) for out in waiting]
    if len(pending) > 1:
        raise UsageError(
            f"formats {', '.join(pending)} would all write to stdout: give each but one an --output FILE"
        )
    pairs += [(fmt, None) for fmt in pending]
    files = [str(p) for _, p in pairs if p is not None]
    if len(files) != len(set(files)):
        raise UsageError("the same --output file is given twice")
    return pairs


def repository_paths(result: ScanResult, context: ReportContext) -> tuple[ScanResult, ReportContext]:
    """The result with every file named relative to ``GITHUB_WORKSPACE`` (else the git root), as
    the annotations name them: the job summary of a step with ``working-directory:`` must not
    name ``main.tf`` where the annotation says ``infra/main.tf``."""
    paths = RepoPaths.for_ci(GITHUB)
    moved: dict[int, Finding] = {}

    def again(findings: list[Finding]) -> list[Finding]:
        out = []
        for f in findings:
            if id(f) not in moved:
                moved[id(f)] = replace(f, file=paths(f.file))
            out.append(moved[id(f)])
        return out

    comp = context.comparison
    if comp is not None:
        comp = replace(
            comp,
            new=again(comp.new),
            unchanged=again(comp.unchanged),
            fixed=[replace(e, file=paths(e.file)) for e in comp.fixed],
        )
    return replace(result, findings=again(result.findings)), replace(context, comparison=comp)


def write_step_summary(result: ScanResult, context: ReportContext) -> None:
    """On GitHub Actions, the Markdown report goes to the job summary (a courtesy: never fails)."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    result, context = repository_paths(result, replace(context, color=False))
    try:
        with open(path, "a", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(get_reporter("markdown").render(result, context) + "\n")
    except OSError:
        pass  # annotations are the report


def emit(result: ScanResult, context: ReportContext, targets: list[tuple[str, Path | None]]) -> None:
    """Render each report once and write it to its file or to stdout (the only stage that writes)."""
    if any(fmt == "github" for fmt, _ in targets):
        write_step_summary(result, context)
    for fmt, path in targets:
        if path is None:
            write_stdout(get_reporter(fmt).render(result, context))
            continue
        report = get_reporter(fmt).render(result, replace(context, color=False))
        write_file(path, report)


#: what a scan parses and a report or baseline never is (both are JSON or other suffixes)
_INPUT_SUFFIXES = (
    ".yaml",
    ".yml",
    ".tf",
    ".tfvars",
    ".py",
    ".ipynb",
    ".template",
    ".tpl",
    ".tmpl",
    ".j2",
    ".yaml-template",
    ".yml-template",
)


def is_input(path: Path, roots: tuple[Path, ...]) -> bool:
    """Whether ``path`` is one of the scan's inputs: a file named on the command line, or an
    existing file of a kind finlint parses under a scanned folder."""
    try:
        target = os.path.realpath(path)
        for root in roots:
            real_root = os.path.realpath(root)
            if target == real_root:
                return True
            inside = target.startswith(real_root.rstrip(os.sep) + os.sep) and os.path.isdir(real_root)
            if inside and path.name.lower().endswith(_INPUT_SUFFIXES) and os.path.isfile(target):
                return True
    except (OSError, ValueError):
        return False
    return False


def write_stdout(text: str) -> None:
    """A report to stdout, as written: colour codes only appear when the run asked for colour
    (a terminal, or ``--color`` into a pager); a stdout that cannot encode it gets UTF-8."""
    try:
        sys.stdout.write(text)
    except UnicodeEncodeError:
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "replace"))
    sys.stdout.flush()
