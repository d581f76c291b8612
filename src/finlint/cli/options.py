"""The option groups the commands share (click declarations). What a command does with the parsed
options is in :mod:`finlint.cli.runner`, which is click-free. Kept apart so ``cli.py`` reads as the
list of commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from finlint.finding import SEVERITIES

F = TypeVar("F", bound=Callable[..., Any])


class Budget(click.ParamType[float]):
    """--max-monthly-usd: a finite, non-negative number of dollars (nan and negatives are usage errors)."""

    name = "usd"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        from finlint.budget import parse_budget

        try:
            return parse_budget(value)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def input_options(fn: Any) -> Any:
    """--var/--var-file (Terraform), --helm-values, the file limits, --jobs and --quiet: for `scan`,
    `cost` and `diff` alike."""
    fn = click.option(
        "--helm-values",
        multiple=True,
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Values file to render every Helm chart in the scan with (repeatable, as helm -f).",
    )(fn)
    fn = click.option(
        "--jobs",
        "-j",
        type=click.IntRange(min=1),
        help="Parse files in N processes (default: the CPUs; trees under 200 files stay serial). "
        "The output is identical to --jobs 1.",
    )(fn)
    fn = click.option(
        "--quiet", "-q", is_flag=True, help="No progress on stderr (shown only on a terminal)."
    )(fn)
    fn = click.option(
        "--max-yaml-nodes",
        type=click.IntRange(min=1),
        help="Refuse YAML/JSON files with more nodes, or alias expansion, than N (default 250,000).",
    )(fn)
    fn = click.option(
        "--max-file-mb",
        type=click.FloatRange(min=0, min_open=True, max=1e6),
        help="Refuse files larger than N MiB (default 20).",
    )(fn)
    fn = click.option("--var", "tf_vars", multiple=True, help="Terraform variable NAME=VALUE (repeatable).")(
        fn
    )
    return click.option(
        "--var-file",
        multiple=True,
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Terraform variables file (repeatable).",
    )(fn)


def cost_options(fn: F) -> F:
    """--usage-file, --region, --pricing: shared by `scan` and `cost`."""
    fn = click.option(
        "--pricing",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Overlay your own prices (same format as the embedded snapshot).",
    )(fn)
    fn = click.option("--region", help="AWS region for prices (default: usage file, else us-east-1).")(fn)
    return click.option(
        "--usage-file",
        type=click.Path(path_type=Path, dir_okay=False),
        help="Usage assumptions (default: ./finlint-usage.yml when present).",
    )(fn)


def output_options(fn: F) -> F:
    """--format / --output, repeatable in pairs: `--format sarif --output f.sarif --format github`."""
    from finlint.reporters import REPORTERS

    fn = click.option(
        "--output",
        "-o",
        "outputs",
        multiple=True,
        type=click.Path(path_type=Path, dir_okay=False),
        help="Write the report of the --format before it to FILE (repeatable).",
    )(fn)
    return click.option(
        "--format",
        "formats",
        multiple=True,
        type=click.Choice(list(REPORTERS)),
        help="Output format (default: text; repeatable, each with its own --output).",
    )(fn)


def fail_on_option(what: str) -> Callable[[F], F]:
    """--fail-on, shared by `scan` and `diff` (which counts only new findings)."""
    return click.option(
        "--fail-on",
        type=click.Choice(SEVERITIES),
        default="low",
        show_default=True,
        help=f"Exit 1 when {what} is at or above this severity.",
    )


def selection_options(fn: F) -> F:
    """--select / --ignore / --policy-dir / --exclude: which rules run over which files."""
    fn = click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")(fn)
    fn = click.option(
        "--policy-dir",
        multiple=True,
        type=click.Path(path_type=Path, file_okay=False),
        help="Extra directory of policies in the same YAML format.",
    )(fn)
    fn = click.option(
        "--ignore", multiple=True, help="Skip these rules (ids, slugs or id prefixes; comma-separated)."
    )(fn)
    return click.option(
        "--select", multiple=True, help="Only these rules (ids, slugs or id prefixes; comma-separated)."
    )(fn)


def config_option(fn: Any) -> Any:
    return click.option(
        "--config",
        "config_file",
        type=click.Path(path_type=Path, dir_okay=False, exists=True),
        help="Config file (default: the nearest .finlint.yaml or pyproject.toml [tool.finlint]).",
    )(fn)


def context_option(fn: Any) -> Any:
    return click.option(
        "--no-context",
        is_flag=True,
        help="Given files: read only them, not the repository files they link to.",
    )(fn)


def color_option(fn: Any) -> Any:
    """--color/--no-color on every command that prints: unset, NO_COLOR and FORCE_COLOR decide
    (:func:`finlint.cli.runner.use_color`)."""
    return click.option(
        "--color/--no-color",
        default=None,
        help="Colour the text output (default: on a terminal, unless NO_COLOR is set; "
        "FORCE_COLOR forces it).",
    )(fn)


def verbose_option(fn: Any) -> Any:
    return click.option(
        "--verbose",
        "-v",
        is_flag=True,
        help="Text: each cost's full basis (the arithmetic), not its one-phrase summary.",
    )(fn)
