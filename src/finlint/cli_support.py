"""What the commands share: option groups, the run a scan prepares (config merged with flags, flags
win), cost settings and guards, progress. Kept apart so ``cli.py`` reads as the list of commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable, TypeVar

import click

from finlint import selector
from finlint.engine import Policy, PolicyError
from finlint.finding import SEVERITIES

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
F = TypeVar("F", bound=Callable[..., Any])


split_selectors = selector.split


def parse_vars(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        if "=" not in item:
            raise click.BadParameter(f"expected NAME=VALUE, got {item!r}", param_hint="--var")
        key, value = item.split("=", 1)
        out[key.strip()] = value
    return out


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


def limits_for(config: Any, max_file_mb: float | None, max_yaml_nodes: int | None) -> Any:
    from finlint.discovery import MIB, Limits

    mb = max_file_mb if max_file_mb is not None else config.max_file_mb
    nodes = max_yaml_nodes if max_yaml_nodes is not None else config.max_yaml_nodes
    default = Limits()
    return Limits(
        max_file_bytes=int(mb * MIB) if mb is not None else default.max_file_bytes,
        max_yaml_nodes=nodes if nodes is not None else default.max_yaml_nodes,
    )


def check_writable(paths: list[Path | None]) -> None:
    """Fail before scanning (exit 2) when a report or baseline file cannot be written."""
    for path in paths:
        if path is None:
            continue
        try:
            if path.is_dir():
                raise IsADirectoryError(21, "Is a directory")
            path.parent.mkdir(parents=True, exist_ok=True)
            existed = path.exists()
            with path.open("a", encoding="utf-8"):
                pass
            if not existed:  # only a probe: the report is written after the scan
                path.unlink()
        except OSError as exc:
            click.echo(f"finlint: error: cannot write {path}: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_USAGE)


def emit_reports(result: Any, context: Any, targets: list[tuple[str, Path | None]]) -> None:
    from finlint.outputs import emit

    try:
        emit(result, context, targets)
    except click.FileError as exc:
        click.echo(f"finlint: error: {exc.format_message()}", err=True)
        sys.exit(EXIT_USAGE)


def load_policies_or_exit(policy_dirs: tuple[Path, ...]) -> list[Policy]:
    try:
        from finlint.policy_cache import load_policies_cached

        return load_policies_cached(policy_dirs)
    except PolicyError as exc:
        click.echo(f"finlint: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)


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


def cost_settings(usage_file: Path | None, region: str | None, pricing: Path | None) -> Any:
    from finlint.cost import CostSettings

    return CostSettings(region=region, pricing_file=pricing, usage_file=usage_file)


def cost_guard(fn: Any) -> Any:
    """Run ``fn``; a bad usage or pricing file is a usage error (exit 2)."""
    from finlint.cost import PricingError, UsageFileError

    try:
        return fn()
    except (UsageFileError, PricingError) as exc:
        click.echo(f"finlint: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)


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


class Run:
    """A scan's settings after merging the config file with the CLI (CLI flags win)."""

    def __init__(
        self, options: Any, policies: list[Policy], config: Any, fail_on: str, max_usd: float | None
    ):
        self.options, self.policies, self.config = options, policies, config
        self.fail_on, self.max_monthly_usd = fail_on, max_usd


def prepare(
    paths: tuple[Path, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    policy_dir: tuple[Path, ...],
    exclude: tuple[str, ...],
    config_file: Path | None,
    fail_on: str,
    max_monthly_usd: float | None,
    cost_settings: Any,
    loader_options: dict[str, Any],
    io: tuple[float | None, int | None, bool, int | None] = (None, None, False, None),
    skip_files: list[Path] | None = None,
) -> Run:
    from click.core import ParameterSource

    from finlint.config import Config, ConfigError, find_config, load_config
    from finlint.scan import ScanOptions

    scan_paths = list(paths) or [Path(".")]
    try:
        found = config_file or find_config(scan_paths[0])
        config = load_config(found) if found is not None else Config()
        policies = load_policies_or_exit((*policy_dir, *config.policy_dirs))
        config.check_rules(policies)
    except ConfigError as exc:
        click.echo(f"finlint: error: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    try:
        selector.check(split_selectors(select) + split_selectors(ignore), policies)
    except selector.SelectorError as exc:
        raise click.BadParameter(str(exc), param_hint="--select/--ignore") from exc
    ctx = click.get_current_context()
    if ctx.get_parameter_source("fail_on") is ParameterSource.DEFAULT and config.fail_on:
        fail_on = config.fail_on
    if cost_settings is not None:
        for attr, value in (
            ("region", config.region),
            ("usage_file", config.usage_file),
            ("pricing_file", config.pricing_file),
        ):
            if getattr(cost_settings, attr, None) is None and value is not None:
                setattr(cost_settings, attr, value)
    helm_options(loader_options, config)
    options = ScanOptions(
        paths=scan_paths,
        engine=config.engine(split_selectors(select), split_selectors(ignore)),
        policy_dirs=[*policy_dir, *config.policy_dirs],
        exclude=[*config.exclude, *exclude],
        loader_options=loader_options,
        cost_settings=cost_settings,
        limits=limits_for(config, io[0], io[1]),
        skip_files=list(skip_files or []),
        progress=None if io[2] else progress_printer(),
        jobs=jobs_for(io[3]),
        config_file=found,
    )
    if config.include_tests:
        loader_options["include_tests"] = True
    max_usd = max_monthly_usd if max_monthly_usd is not None else config.max_monthly_usd
    return Run(options, policies, config, fail_on, max_usd)


def jobs_for(jobs: int | None) -> int:
    from finlint.parallel import default_jobs

    return jobs if jobs is not None else default_jobs()


def progress_printer() -> Any:
    from finlint.progress import Progress

    progress = Progress()
    return progress if progress.enabled else None


def with_progress(options: Any, fn: Any) -> Any:
    """Run ``fn`` and erase the progress line afterwards (also on errors)."""
    try:
        return fn()
    finally:
        close = getattr(options.progress, "close", None)
        if close is not None:
            close()


def helm_options(loader_options: dict[str, Any], config: Any) -> None:
    """The configured Helm charts and renderer; every values file they read is not linted alone."""
    loader_options.setdefault("helm_charts", list(config.helm_charts))
    if config.helm_renderer:
        loader_options.setdefault("helm_renderer", config.helm_renderer)
    consumed = [*(loader_options.get("helm_values") or ())]
    consumed += [v for chart in config.helm_charts for v in chart["values"]]
    loader_options["consumed_files"] = [*loader_options.get("consumed_files", ()), *consumed]
