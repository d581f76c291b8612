"""``finlint fix``: what the command does (the click declaration is in ``commands.py``).

As ruff: safe fixes by default, ``--unsafe-fixes`` adds the others, ``--diff`` prints a unified
diff and writes nothing (exit 1 when it would change a file). A file is written only if it
resolves inside a scan path, atomically, never through a symlink.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from finlint.cli.runner import EXIT_FINDINGS, EXIT_OK, cost_guard, cost_settings, prepare
from finlint.escape import clean


def run(
    *,
    paths: tuple[Path, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    policy_dir: tuple[Path, ...],
    exclude: tuple[str, ...],
    usage_file: Path | None,
    config_file: Path | None,
    unsafe_fixes: bool,
    diff: bool,
    exit_non_zero_on_fix: bool,
) -> int:
    """The exit code: 1 with ``--diff`` when a fix would apply, or with ``--exit-non-zero-on-fix``
    when one was applied (the pre-commit hook); else 0."""
    from finlint.fixes import plan, reader_for
    from finlint.post.atomic import write_file
    from finlint.scan import lint

    run_ = prepare(
        paths, select, ignore, policy_dir, exclude, config_file, "low", None,
        cost_settings(usage_file, None, None), {}, (None, None, True, 1),
    )  # fmt: skip
    options = run_.options
    options.display_root = Path.cwd()
    result: Any = cost_guard(lambda: lint(options, run_.policies))
    fixes = plan(result.findings, reader_for(options), options, unsafe_fixes, run_.policies)
    applied = sum(ff.resolved for ff in fixes.files)
    terminal = sys.stdout.isatty()
    for ff in fixes.files:
        if diff:  # raw for `git apply`; on a terminal each line made inert (repository text)
            text = ff.diff()
            click.echo("".join(clean(t) + "\n" for t in text.splitlines()) if terminal else text, nl=False)
        else:
            write_file((Path.cwd() / ff.file).resolve(), ff.after)
    for finding, why in fixes.rejected:
        click.echo(
            clean(f"finlint: {finding.file}:{finding.line}: {finding.rule_id} fix not offered: {why}"),
            err=True,
        )
    verb = "Would fix" if diff else "Fixed"
    tail = (
        f" ({fixes.skipped_unsafe} more with --unsafe-fixes)"
        if fixes.skipped_unsafe and not unsafe_fixes
        else ""
    )
    click.echo(f"{verb} {applied} finding(s) in {len(fixes.files)} file(s){tail}.", err=True)
    if fixes.files and (diff or exit_non_zero_on_fix):
        return EXIT_FINDINGS
    return EXIT_OK
