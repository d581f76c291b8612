"""What the commands do once their arguments are parsed: merge the config with the flags (flags
win), guard the cost settings, run the scan, write the reports, choose the exit code.

Kept apart from the click command definitions (:mod:`finlint.cli`) so the commands read as
their options and this module as what they do. A mistake on the command line found here
raises :class:`finlint.errors.UsageError`, which the click shell prints as its own usage errors;
every other error prints ``finlint: error: ...`` and exits 2.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, NoReturn

from finlint import selector
from finlint.engine import Policy, PolicyError
from finlint.errors import ReportWriteError, UsageError

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT
#: reports that carry ``Finding.fix`` (the reviewer's suggested edits): `scan` offers fixes for them
FIX_FORMATS = frozenset({"json", "sarif", "markdown", "github", "gitlab", "auto"})

split_selectors = selector.split


def fail(message: str) -> NoReturn:
    """``finlint: error: MESSAGE`` on stderr, exit 2."""
    print(f"finlint: error: {message}", file=sys.stderr, flush=True)
    sys.exit(EXIT_USAGE)


def parse_vars(values: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in values:
        if "=" not in item:
            raise UsageError(f"expected NAME=VALUE, got {item!r}", param_hint="--var")
        key, value = item.split("=", 1)
        out[key.strip()] = value
    return out


def input_options(
    var_file: tuple[Path, ...], tf_vars: tuple[str, ...], helm_values: tuple[Path, ...], resolve: bool = False
) -> dict[str, Any]:
    """The loaders' share of the input options (``--var-file``, ``--var``, ``--helm-values``);
    ``resolve``: absolute paths, for ``diff``, which reads the same files for both trees."""

    def fix(paths: tuple[Path, ...]) -> list[Path]:
        return [p.resolve() for p in paths] if resolve else list(paths)

    return {"tf_var_files": fix(var_file), "tf_vars": parse_vars(tf_vars), "helm_values": fix(helm_values)}


def limits_for(config: Any, max_file_mb: float | None, max_yaml_nodes: int | None) -> Any:
    from finlint.loaders.common.discovery import MIB, Limits

    mb = max_file_mb if max_file_mb is not None else config.max_file_mb
    nodes = max_yaml_nodes if max_yaml_nodes is not None else config.max_yaml_nodes
    default = Limits()
    return Limits(
        max_file_bytes=int(mb * MIB) if mb is not None else default.max_file_bytes,
        max_yaml_nodes=nodes if nodes is not None else default.max_yaml_nodes,
    )


def check_writable(paths: list[Path | None], inputs: tuple[Path, ...] = ()) -> None:
    """Fail before scanning (exit 2) when a report or baseline file cannot be written: a
    folder, a symlink (never written through), an unwritable folder, or one of the scan's
    input files (writing it would destroy it and drop its findings)."""
    from finlint.cli.outputs import is_input

    for path in paths:
        if path is None:
            continue
        if is_input(path, inputs):
            fail(f"refusing to write {path}: it is one of the files being scanned")
        try:
            if path.is_symlink():
                fail(f"refusing to write {path}: it is a symbolic link")
            if path.is_dir():
                raise IsADirectoryError(21, "Is a directory")
            path.parent.mkdir(parents=True, exist_ok=True)
            if not os.access(path.parent, os.W_OK | os.X_OK):  # the report is renamed into it
                raise PermissionError(13, "Permission denied")
            if path.exists() and not os.access(path, os.W_OK):
                raise PermissionError(13, "Permission denied")
        except OSError as exc:
            fail(f"cannot write {path}: {exc.strerror or exc}")


def emit_reports(result: Any, context: Any, targets: list[tuple[str, Path | None]]) -> None:
    from finlint.cli.outputs import emit

    try:
        emit(result, context, targets)
    except ReportWriteError as exc:
        fail(str(exc))


def load_policies_or_exit(policy_dirs: tuple[Path, ...]) -> list[Policy]:
    try:
        from finlint.rules import load_policies

        return load_policies(list(policy_dirs))
    except PolicyError as exc:
        fail(str(exc))


def cost_settings(usage_file: Path | None, region: str | None, pricing: Path | None) -> Any:
    from finlint.cost import CostSettings

    return CostSettings(region=region, pricing_file=pricing, usage_file=usage_file)


def cost_guard(fn: Any) -> Any:
    """Run ``fn``; a bad usage or pricing file is a usage error (exit 2)."""
    from finlint.cost import PricingError, UsageFileError

    try:
        return fn()
    except (UsageFileError, PricingError) as exc:
        fail(str(exc))


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
    fail_on: str | None,
    max_monthly_usd: float | None,
    cost_settings: Any,
    loader_options: dict[str, Any],
    io: tuple[float | None, int | None, bool, int | None] = (None, None, False, None),
    skip_files: list[Path] | None = None,
) -> Run:
    """``fail_on`` None: not given on the command line (the config's, else ``low``)."""
    from finlint.config import ConfigError
    from finlint.scan import ScanOptions

    scan_paths = list(paths) or [Path(".")]
    found, config = find_and_load_config(scan_paths, config_file)
    try:
        policies = load_policies_or_exit((*policy_dir, *config.policy_dirs))
        config.check_rules(policies)
    except ConfigError as exc:
        fail(str(exc))
    try:
        selector.check(split_selectors(select) + split_selectors(ignore), policies)
    except selector.SelectorError as exc:
        raise UsageError(str(exc), param_hint="--select/--ignore") from exc
    if fail_on is None:
        fail_on = config.fail_on or "low"
    config_cost_settings(cost_settings, config)
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


def config_cost_settings(cost_settings: Any, config: Any) -> None:
    """The config's region, usage and pricing files where the command line gave none (``scan``
    and ``cost`` alike, so both price in the same region with the same assumptions)."""
    if cost_settings is None:
        return
    for attr, value in (
        ("region", config.region),
        ("usage_file", config.usage_file),
        ("pricing_file", config.pricing_file),
    ):
        if getattr(cost_settings, attr, None) is None and value is not None:
            setattr(cost_settings, attr, value)


def find_and_load_config(paths: list[Path], config_file: Path | None = None) -> tuple[Path | None, Any]:
    """The config in force for ``paths`` (``--config``, else the nearest ``.finlint.yaml``)."""
    from finlint.config import Config, ConfigError, find_config, load_config

    try:
        found = config_file or find_config(paths[0])
        return found, load_config(found, given=config_file is not None) if found is not None else Config()
    except ConfigError as exc:
        fail(str(exc))


def jobs_for(jobs: int | None) -> int:
    from finlint.parallel import default_jobs

    return jobs if jobs is not None else default_jobs()


def progress_printer() -> Any:
    from finlint.cli.progress import Progress

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


def use_color(flag: bool | None, targets: list[tuple[str, Path | None]]) -> bool:
    """Colour on stdout: ``--color``/``--no-color`` decide; else a non-empty ``NO_COLOR`` turns it
    off (no-color.org), a ``FORCE_COLOR`` other than empty or ``0`` turns it on (a CI log that
    renders ANSI), and otherwise a terminal gets it. Report files never have colour."""
    if flag is not None:
        return flag
    if not any(path is None for _, path in targets):
        return False
    if os.environ.get("NO_COLOR"):
        return False
    force = os.environ.get("FORCE_COLOR")
    if force is not None and force not in ("", "0"):
        return True
    return sys.stdout.isatty()


def scan(
    *,
    paths: tuple[Path, ...],
    formats: tuple[str, ...],
    outputs: tuple[Path, ...],
    fail_on: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    policy_dir: tuple[Path, ...],
    exclude: tuple[str, ...],
    var_file: tuple[Path, ...],
    tf_vars: tuple[str, ...],
    max_file_mb: float | None,
    max_yaml_nodes: int | None,
    quiet: bool,
    jobs: int | None,
    helm_values: tuple[Path, ...],
    exit_zero: bool,
    color: bool | None,
    verbose: bool,
    include_tests: bool,
    show_undetermined: bool,
    usage_file: Path | None,
    region: str | None,
    pricing: Path | None,
    max_monthly_usd: float | None,
    config_file: Path | None,
    baseline: Path | None,
    write_baseline: Path | None,
    no_context: bool,
    raw_args: list[str] | None,
) -> int:
    """``finlint scan``: the exit code. ``fail_on`` None: not given (the config's, else low);
    ``raw_args`` pair each ``--output`` with its ``--format`` (:func:`finlint.cli.outputs.plan`)."""
    from finlint.cli.outputs import plan
    from finlint.reporters import ReportContext
    from finlint.scan import lint

    targets = plan(formats, outputs, raw_args)
    check_writable([path for _, path in targets] + [write_baseline], paths)
    run = prepare(
        paths,
        select,
        ignore,
        policy_dir,
        exclude,
        config_file,
        fail_on,
        max_monthly_usd,
        cost_settings(usage_file, region, pricing),
        {**input_options(var_file, tf_vars, helm_values), "include_tests": include_tests},
        (max_file_mb, max_yaml_nodes, quiet, jobs),
        [path for _, path in targets if path is not None] + [p for p in (baseline, write_baseline) if p],
    )
    run.options.context = not no_context
    result = cost_guard(lambda: with_progress(run.options, lambda: lint(run.options, run.policies)))
    if any(fmt in FIX_FORMATS for fmt, _ in targets):
        from finlint.fixes import offer_fixes

        offer_fixes(result.findings, run.options, run.policies)
    comparison = None
    known = baseline or (run.config.baseline if write_baseline is None else None)
    if write_baseline is not None or known is not None:
        from finlint.post import baseline as baselines  # only with a baseline
    if write_baseline is not None:
        try:
            count = baselines.write(write_baseline, result.findings)
        except ReportWriteError as exc:
            fail(str(exc))
        print(f"finlint: wrote {count} finding(s) to baseline {write_baseline}", file=sys.stderr, flush=True)
    elif known is not None:
        try:
            comparison = baselines.compare(result.findings, baselines.load(known), f"baseline {known}")
        except baselines.BaselineError as exc:
            fail(str(exc))
    context = ReportContext(
        fail_on=run.fail_on,
        color=use_color(color, targets),
        verbose=verbose,
        max_monthly_usd=run.max_monthly_usd,
        engine=run.options.engine,
        show_undetermined=show_undetermined,
        comparison=comparison,
        cost_settings=run.options.cost_settings,
    )
    from finlint.scan import few_full_collections

    with few_full_collections():  # the reports are built from the scan's long-lived objects
        emit_reports(result, context, targets)
    code = EXIT_OK if write_baseline is not None else result.exit_code(run.fail_on, run.max_monthly_usd)
    return EXIT_OK if exit_zero else code


def diff(
    *,
    base_ref: str,
    paths: tuple[Path, ...],
    formats: tuple[str, ...],
    outputs: tuple[Path, ...],
    fail_on: str | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    policy_dir: tuple[Path, ...],
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
    max_monthly_usd: float | None,
    config_file: Path | None,
    exit_zero: bool,
    color: bool | None,
    verbose: bool,
    no_context: bool,
    raw_args: list[str] | None,
    fetch: bool = False,
    fetch_depth: int = 1,
) -> int:
    """``finlint diff``: the exit code (only new findings count). ``fail_on`` and ``raw_args``
    as for :func:`scan`; ``fetch``: fetch a missing BASE_REF from origin first."""
    from finlint import diff as diffs
    from finlint.cli.outputs import plan
    from finlint.reporters import ReportContext
    from finlint.scan import lint

    targets = plan(formats, outputs, raw_args)
    check_writable([path for _, path in targets], paths or (Path("."),))  # never over a scanned file
    absolute = [p.resolve() if p is not None else None for p in (usage_file, pricing)]  # same in both trees
    run = prepare(
        paths,
        select,
        ignore,
        tuple(d.resolve() for d in policy_dir),
        exclude,
        config_file,
        fail_on,
        max_monthly_usd,
        cost_settings(absolute[0], region, absolute[1]),
        input_options(var_file, tf_vars, helm_values, resolve=True),
        (max_file_mb, max_yaml_nodes, quiet, jobs),
        [path.resolve() for _, path in targets if path is not None],
    )
    run.options.context = not no_context
    try:
        result, comparison = cost_guard(
            lambda: with_progress(
                run.options,
                lambda: diffs.run(
                    base_ref, run.options, lambda o: lint(o, run.policies), fetch_depth if fetch else None
                ),
            )
        )
    except diffs.DiffError as exc:
        fail(str(exc))
    context = ReportContext(
        fail_on=run.fail_on,
        color=use_color(color, targets),
        verbose=verbose,
        max_monthly_usd=run.max_monthly_usd,
        engine=run.options.engine,
        comparison=comparison,
        cost_settings=run.options.cost_settings,
    )
    emit_reports(result, context, targets)
    code = result.exit_code(run.fail_on, run.max_monthly_usd)
    return EXIT_OK if exit_zero else code
