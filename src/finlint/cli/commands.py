"""The command line: a thin shell over :func:`finlint.scan.lint` and the reporters.

Exit codes (ruff, sqlfluff): 0 no finding at or above ``--fail-on``; 1 such findings (or the
cost budget exceeded); 2 usage, configuration or policy error, or a crash; 130 interrupted.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from finlint import __version__, selector
from finlint.cli import runner
from finlint.cli.options import (
    Budget,
    color_option,
    config_option,
    context_option,
    cost_options,
    fail_on_option,
    input_options,
    output_options,
    selection_options,
    verbose_option,
)
from finlint.cli.runner import (
    EXIT_FINDINGS,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USAGE,
    cost_guard,
    cost_settings,
    jobs_for,
    limits_for,
    load_policies_or_exit,
    progress_printer,
    with_progress,
)
from finlint.cli.suggest import suggest_cmd
from finlint.errors import UsageError
from finlint.escape import clean as escape_line
from finlint.ruledocs import rule_text, rules_page

__all__ = ["EXIT_FINDINGS", "EXIT_OK", "EXIT_USAGE", "main"]


class _Main(click.Group):
    """Exit codes CI can trust: findings 1, a usage or input error 2, a broken installation (a
    loader that cannot be imported) 2, a crash 2 with one line (the traceback only with
    ``FINLINT_DEBUG=1``), Ctrl-C 130 (128 + SIGINT, as a shell reports it)."""

    def invoke(self, ctx: click.Context) -> Any:
        from finlint.loaders import LoaderUnavailable

        try:
            return super().invoke(ctx)
        except LoaderUnavailable as exc:
            click.echo(f"finlint: error: {exc}", err=True)
            sys.exit(EXIT_USAGE)
        except KeyboardInterrupt:
            click.echo("\nAborted!", err=True)
            sys.exit(EXIT_INTERRUPTED)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:
            raise  # click ends a run whose reader left (`finlint scan | head`) quietly
        except Exception as exc:  # noqa: BLE001 - a crash is exit 2 with one line, never exit 1
            if os.environ.get("FINLINT_DEBUG"):
                import traceback

                traceback.print_exc()
            click.echo(
                f"finlint: internal error: {type(exc).__name__}: {escape_line(str(exc))[:300]} "
                "(a bug: please report it with FINLINT_DEBUG=1 output)",
                err=True,
            )
            sys.exit(EXIT_USAGE)


class PairedCommand(click.Command):
    """A command that keeps its raw arguments, for the ``--format``/``--output`` pairing
    (:func:`finlint.cli.outputs.plan`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["finlint.raw_args"] = list(args)
        return super().parse_args(ctx, args)


@contextmanager
def _usage_errors() -> Iterator[None]:
    """The runner's usage errors as click's own (inside the callback, so click adds the usage line)."""
    try:
        yield
    except UsageError as exc:
        if exc.param_hint:
            raise click.BadParameter(exc.message, param_hint=exc.param_hint) from exc
        raise click.UsageError(exc.message) from exc


def _raw_args() -> list[str] | None:
    meta: dict[str, Any] = click.get_current_context().meta
    return meta.get("finlint.raw_args")


def _fail_on_given() -> bool:
    """Whether --fail-on was given (else the config's value applies, then the default)."""
    return click.get_current_context().get_parameter_source("fail_on") is not ParameterSource.DEFAULT


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="finlint")
def main() -> None:
    """finlint: a FinOps linter for AI-training infrastructure on AWS."""


@main.command(cls=PairedCommand)
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
@output_options
@fail_on_option("a finding")
@selection_options
@input_options
@click.option("--exit-zero", is_flag=True, help="Always exit 0 on findings (for rollout).")
@color_option
@verbose_option
@click.option(
    "--include-tests",
    is_flag=True,
    help="Also check training launches in test code (test_*.py, *_test.py, test functions and classes).",
)
@click.option(
    "--show-undetermined",
    is_flag=True,
    help="Also list the checks a rule could not decide because a value is not known statically, and why.",
)
@cost_options
@click.option(
    "--max-monthly-usd", type=Budget(), help="Exit 1 when the active findings' total exceeds N/month."
)
@config_option
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Known findings (from --write-baseline): reported as baseline, never fail the run.",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write every current finding to FILE as the baseline, and exit 0.",
)
@context_option
def scan(**params: Any) -> None:
    """Scan PATHS (default: .) for costly AI-training configuration.

    Given files (as pre-commit passes them), finlint also reads the files of the same repository
    they link to (claims, storage classes, the Terraform configuration, the chart, the launcher)
    and reports the findings the given files are part of.
    """
    if not _fail_on_given():
        params["fail_on"] = None  # the config's, else the default
    with _usage_errors():
        code = runner.scan(**params, raw_args=_raw_args())
    sys.exit(code)


@main.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
@selection_options
@click.option(
    "--usage-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Usage assumptions: expected_runtime_hours sets the value of unsafe runtime fixes.",
)
@config_option
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that change behaviour (a new limit).")
@click.option("--diff", is_flag=True, help="Print a unified diff of the fixes and change nothing.")
@click.option(
    "--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when a file was changed (the pre-commit hook)."
)
def fix_cmd(**params: Any) -> None:
    """Apply the rules' fixes to PATHS (default: .): safe ones, with --unsafe-fixes all.

    Every fix is re-linted before it is offered: the finding is gone and nothing new appears.
    """
    from finlint.cli import fix

    with _usage_errors():
        code = fix.run(**params)
    sys.exit(code)


@main.command("diff", cls=PairedCommand)
@click.argument("base_ref")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
@output_options
@fail_on_option("a new finding")
@selection_options
@input_options
@cost_options
@click.option("--max-monthly-usd", type=Budget(), help="Exit 1 when the new findings' total exceeds N/month.")
@config_option
@click.option("--exit-zero", is_flag=True, help="Always exit 0 on findings.")
@click.option(
    "--fetch",
    is_flag=True,
    help="When BASE_REF is not in the clone (a shallow CI checkout), fetch it from origin, then compare.",
)
@click.option(
    "--fetch-depth",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="The --depth of that fetch in a shallow clone.",
)
@color_option
@verbose_option
@context_option
def diff_cmd(**params: Any) -> None:
    """Findings PATHS (default: .) gain or lose against BASE_REF, and the monthly cost change.

    BASE_REF is checked out into a temporary git worktree; your checkout is not touched. Only
    new findings fail the run. Nothing is fetched unless --fetch is given.
    """
    if not _fail_on_given():
        params["fail_on"] = None  # the config's, else the default
    with _usage_errors():
        code = runner.diff(**params, raw_args=_raw_args())
    sys.exit(code)


@main.command()
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True
)
@click.option("--policy-dir", multiple=True, type=click.Path(path_type=Path, file_okay=False))
def rules(fmt: str, policy_dir: tuple[Path, ...]) -> None:
    """List every rule: code, name, severity and summary (markdown: the full docs page)."""
    policies = load_policies_or_exit(policy_dir)
    if fmt == "markdown":
        click.echo(rules_page(policies), nl=False)
        return
    if fmt == "json":
        data: list[dict[str, Any]] = [
            {
                "id": p.id,
                "name": p.name,
                "severity": p.severity,
                "severities": list(p.severities()),  # with severity_when: every level a case can set
                "summary": p.summary,
                "applies_to": list(p.applies_to),
            }
            for p in policies
        ]
        click.echo(json.dumps(data, indent=2))
        return
    width = max((len(p.name) for p in policies), default=10)
    for p in policies:
        click.echo(f"{p.id}  {p.name:<{width}}  {p.severity_label():<11}  {p.summary}")


@main.command()
@click.argument("rule_id")
@click.option("--policy-dir", multiple=True, type=click.Path(path_type=Path, file_okay=False))
def rule(rule_id: str, policy_dir: tuple[Path, ...]) -> None:
    """Print one rule's documentation (by code or name) with its examples."""
    policies = load_policies_or_exit(policy_dir)
    found = selector.rule_for(rule_id, policies)
    for policy in policies:
        if found is not None and policy.id == found.id:
            click.echo(rule_text(policy), nl=False)
            return
    hint = selector.suggestions(rule_id, policies)
    also = f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""
    click.echo(f"finlint: error: no such rule: {rule_id!r}{also} (see `finlint rules`)", err=True)
    sys.exit(EXIT_USAGE)


@main.command("cost")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, exists=True))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", show_default=True
)
@click.option(
    "--output", "-o", type=click.Path(path_type=Path, dir_okay=False), help="Write to FILE, not stdout."
)
@click.option("--exclude", multiple=True, help="Glob of paths to skip (repeatable).")
@input_options
@cost_options
@color_option
def cost_cmd(**params: Any) -> None:
    """Price the AI-training resources in PATHS (default: .): jobs, notebooks, pools, file systems.

    Files that cannot be read or parsed are listed after the table (JSON: ``errors``), as
    `scan` reports them; they are not priced.
    """
    with _usage_errors():
        _cost(**params)


def _cost(
    paths: tuple[Path, ...],
    fmt: str,
    output: Path | None,
    exclude: tuple[str, ...],
    var_file: tuple[Path, ...],
    tf_vars: tuple[str, ...],
    helm_values: tuple[Path, ...],
    max_file_mb: float | None,
    max_yaml_nodes: int | None,
    quiet: bool,
    jobs: int | None,
    usage_file: Path | None,
    region: str | None,
    pricing: Path | None,
    color: bool | None,
) -> None:
    """The body of ``cost``. ``color`` is accepted as on every command (scripts pass it
    uniformly); the cost table itself has no colour."""
    from finlint.cost.breakdown import build_breakdown, render_json, render_text
    from finlint.scan import ScanOptions, lint

    scan_paths = list(paths) or [Path(".")]
    found, config = runner.find_and_load_config(scan_paths)  # as `scan` reads it
    settings = cost_settings(usage_file, region, pricing)
    runner.config_cost_settings(settings, config)
    loader_options = runner.input_options(var_file, tf_vars, helm_values)
    runner.helm_options(loader_options, config)
    if config.include_tests:
        loader_options["include_tests"] = True
    options = ScanOptions(
        paths=scan_paths,
        exclude=[*config.exclude, *exclude],
        loader_options=loader_options,
        limits=limits_for(config, max_file_mb, max_yaml_nodes),
        config_file=found,
        progress=None if quiet else progress_printer(),
        jobs=jobs_for(jobs),
    )
    result = with_progress(options, lambda: lint(options, []))
    breakdown = cost_guard(lambda: build_breakdown(result.records, settings))
    if fmt == "html":
        from finlint.reporters.html_cost import render_breakdown

        report = render_breakdown(breakdown, settings)
    elif fmt == "json":
        data = json.loads(render_json(breakdown))
        data["errors"] = [{"file": e.file, "line": e.line, "message": e.message} for e in result.errors]
        data["notices"] = [{"file": n.file, "line": n.line, "message": n.message} for n in result.notices]
        report = json.dumps(data, indent=2) + "\n"
    else:
        report = render_text(breakdown)
        if result.errors:
            report += f"\n{len(result.errors)} file(s) could not be read or parsed; "
            report += "their resources are not priced:\n"
            report += "".join(f"{e.file}:{e.line}: {e.message}\n" for e in result.errors)
    if fmt == "html" and result.errors:
        for e in result.errors:  # the HTML page has no place for them: say so on stderr
            click.echo(f"finlint: {e.file}:{e.line}: could not be parsed: {e.message}", err=True)
    if output is None:
        click.echo(report, nl=False)
        return
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(report, encoding="utf-8")
    except OSError as exc:
        click.echo(f"finlint: error: cannot write {output}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_USAGE)


@main.group("pricing")
def pricing_group() -> None:
    """Manage your price overlay (the embedded snapshot never changes)."""


@pricing_group.command("update")
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    default="finlint-pricing.json",
    show_default=True,
    help="Overlay file to write or refresh; use it with --pricing.",
)
@click.option("--region", "regions", multiple=True, help="Regions to fetch (default: us-east-1, us-west-2).")
def pricing_update(output: Path, regions: tuple[str, ...]) -> None:
    """Fetch On-Demand prices from the AWS Price List Query API (needs boto3 and AWS credentials)."""
    from finlint.cost.pricing_update import update_overlay

    summary = cost_guard(lambda: update_overlay(output, list(regions) or ["us-east-1", "us-west-2"]))
    for region, info in summary["regions"].items():
        missing = ", ".join(info["no_on_demand_price"]) or "-"
        click.echo(f"{region}: {info['priced']} prices; no On-Demand price: {missing}")
    click.echo(f"wrote {output} (use it with --pricing {output})")


@main.group("export")
def export_group() -> None:
    """Export finlint's rules for other tools (the tool runs in its own environment)."""


@export_group.command("checkov")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.option("--policy-dir", multiple=True, type=click.Path(path_type=Path, file_okay=False))
@click.option("--markdown", is_flag=True, help="Print the coverage table as markdown (docs/checkov.md).")
def export_checkov(directory: Path, policy_dir: tuple[Path, ...], markdown: bool) -> None:
    """Write checkov YAML custom policies to DIRECTORY and print what each rule loses in checkov."""
    from finlint.export import checkov

    exports = checkov.export_rules(load_policies_or_exit(policy_dir))
    try:
        written, removed = checkov.write(exports, directory)
    except OSError as exc:
        click.echo(f"finlint: error: cannot write {directory}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_USAGE)
    click.echo((checkov.coverage_markdown if markdown else checkov.coverage_text)(exports), nl=False)
    for path in removed:
        click.echo(f"removed {path} (its rule is no longer exported)", err=True)
    click.echo(
        f"wrote {len(written)} checkov policies to {directory}; run: "
        f"checkov -d infra/ --external-checks-dir {directory} --skip-download",
        err=True,
    )


main.add_command(suggest_cmd)

if __name__ == "__main__":  # pragma: no cover
    main()
