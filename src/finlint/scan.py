"""One scan: discover files, load them into the IR, link, run the policies, price the findings.

This is the Python API (``finlint.scan.lint``); the CLI is a thin shell over it. It is the
pipeline only: discover -> load (``loaders.dispatch``) -> link -> check -> suppress -> price.
"""

from __future__ import annotations

import dataclasses
import gc
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

from finlint import loaders, parallel
from finlint.confine import Roots
from finlint.engine import EngineConfig, Policy, Undetermined
from finlint.finding import Finding
from finlint.ir import LoadError, LoadResult, Notice, Record
from finlint.linking import link
from finlint.loaders import LoaderSpec, dispatch
from finlint.loaders.common.discovery import discover as _discover
from finlint.loaders.common.discovery import display_path as display_path
from finlint.loaders.common.discovery import excluded as _excluded
from finlint.loaders.dispatch import load_file as load_file
from finlint.loaders.dispatch import load_structured as load_structured
from finlint.options import ScanOptions as ScanOptions
from finlint.result import ScanResult
from finlint.rules import load_policies

if TYPE_CHECKING:
    from finlint import context

SUPPORTED_SUFFIXES = loaders.all_suffixes()


def discover(
    paths: list[Path],
    exclude: list[str],
    errors: list[LoadError],
    notices: list[Notice] | None = None,
    skip_files: list[Path] | None = None,
    display_root: Path | None = None,
    roots: Roots | None = None,
) -> Iterator[Path]:
    """Supported files under ``paths`` (see :func:`finlint.loaders.common.discovery.discover`)."""
    return _discover(
        paths,
        exclude,
        errors,
        SUPPORTED_SUFFIXES,
        notices,
        skip_files or (),
        display_root,
        roots,
        sniff=loaders.sniff_extensionless,
    )


def load_paths(
    options: ScanOptions, plan: context.ContextPlan | None = None
) -> tuple[LoadResult, int, dict[str, list[str]]]:
    """Every discovered file through the loader registry: documents, files, then directories.

    With a context ``plan``, its paths are loaded too; ``plan.given`` and ``plan.read`` record
    which files were given and which were read as context (not counted in the file count).
    """
    result = LoadResult()
    texts: dict[str, list[str]] = {}
    directories: dict[LoaderSpec, dict[Path, None]] = {}
    given_dirs: set[Path] = set()
    count = 0
    show = partial(display_path, root=options.display_root)
    progress = options.progress or (lambda *_: None)
    progress("finding files")
    found: list[Path] = []
    files: list[Path] = []
    trees: dict[Path, tuple[LoaderSpec, Path] | None] = {}
    consumed = dispatch.consumed_files(options.loader_options)
    # "run": state the loaders of this one scan share (a notice given once per run);
    # "roots": where a path the repository names may lead (finlint.confine)
    roots = options.roots or Roots.of([*options.paths, *([plan.root] if plan is not None else [])])
    options = dataclasses.replace(
        options, roots=roots, loader_options={**options.loader_options, "run": {}, "roots": roots}
    )

    def route(paths: Iterable[Path], given: bool) -> Iterator[Path]:
        """The per-file loaders' files of ``paths``; the others go to their directory's unit."""
        nonlocal count
        for path in paths:
            found.append(path)
            tree = loaders.tree_unit(path, trees)
            if tree is not None:  # a file of a Helm chart: the chart is the unit
                directories.setdefault(tree[0], {})[tree[1]] = None
                continue
            if consumed and path.absolute() in consumed:  # a values file passed to a renderer
                continue
            directory_spec = loaders.spec_for_file(path.name, "directory")
            if directory_spec is not None:
                # A directory loader's unit is the directory: a changed main.tf or tfvars file
                # (pre-commit passes just those) means its whole configuration.
                directories.setdefault(directory_spec, {})[path.parent] = None
                if given:
                    given_dirs.add(path.parent)
                continue
            files.append(path)
            if given:
                count += 1
            elif plan is not None:
                plan.read.add(show(path))
            yield path

    def to_load() -> Iterator[Path]:
        """Discovery as it goes (a parallel scan's workers start on the first files meanwhile)."""
        yield from route(
            discover(
                options.paths,
                options.exclude,
                result.errors,
                result.notices,
                options.skip_files,
                options.display_root,
            ),
            given=True,
        )
        if plan is not None:
            plan.given.update(show(p) for p in found)
            context_errors: list[LoadError] = []  # a vanished context path is not the user's problem
            context_paths = discover(  # found by the context search: each must stay in the roots
                plan.paths,
                options.exclude,
                context_errors,
                None,
                options.skip_files,
                options.display_root,
                roots,
            )
            yield from route((p for p in context_paths if show(p) not in plan.given), given=False)

    for done, (display, lines, loaded) in enumerate(parallel.load_files(to_load(), options)):
        progress("parsing", done, len(files))
        if lines is not None:
            texts[display] = lines
        result.extend(loaded)
    if directories:
        progress("parsing directories", len(found), len(found))
    for spec, dirs in directories.items():
        before = set(texts)
        notices, units, read = dispatch.directory_units(spec, list(dirs), options, texts)
        result.extend(notices)
        for loaded in parallel.load_units(spec, units, options):
            result.extend(loaded)
        if plan is None:
            count += read
            continue
        plan.add_units(spec.format, list(dirs), show)
        given_texts = {show(f) for d in given_dirs for f in d.iterdir() if f.is_file()}
        context_read = (set(texts) - before) - given_texts
        plan.read.update(context_read)
        count += read - len(context_read)
    return result, count, texts


@contextmanager
def few_full_collections() -> Iterator[None]:
    """A scan builds objects that live to its end (every record, error, line and finding): a
    full collection walks all of them, again each time they have grown by a quarter (on the
    10,000-file tree, two such passes took 0.06-0.09 s). Young collections, which reclaim the
    parsers' short-lived cycles, go on as usual; full ones wait until the scan is done (the
    CLI's reports too: they are built from those objects)."""
    thresholds = gc.get_threshold()
    gc.set_threshold(thresholds[0], thresholds[1], max(thresholds[2], 1000))
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)


def parse_error_findings(
    errors: list[LoadError], policies: list[Policy], config: EngineConfig
) -> list[Finding]:
    policy = next((p for p in policies if p.id == "FIN000"), None)
    if policy is None or not config.enabled(policy):
        return []
    return [
        Finding(
            rule_id=policy.id,
            rule=policy.name,
            severity=config.severity_for(policy),
            file=e.file,
            line=e.line,
            end_line=e.line,
            resource=e.file,
            message=e.message,
        )
        for e in errors
    ]


def lint(options: ScanOptions, policies: list[Policy] | None = None) -> ScanResult:
    with few_full_collections():
        return _lint(options, policies)


def _lint(options: ScanOptions, policies: list[Policy] | None) -> ScanResult:
    if policies is None:
        policies = load_policies(options.policy_dirs)
    plan = _context_plan(options)
    loaded, count, texts = load_paths(options, plan)
    if loaded.notices:  # imported here: the SDK loader is not needed by a scan without notices
        from finlint.loaders.sagemaker_sdk.loader import summarize_test_notices

        loaded.notices = summarize_test_notices(loaded.notices)  # one line for the launches in tests
    # one module called from several configurations says the same thing once per caller
    loaded.notices = list({(n.file, n.line, n.message): n for n in loaded.notices}.values())
    if options.progress is not None:
        options.progress("checking rules")
    records = link(dispatch.finalize(loaded.records))
    undetermined: list[Undetermined] = []
    findings = parallel.run_policies(policies, records, options.engine, undetermined, options.jobs)
    findings.extend(parse_error_findings(loaded.errors, policies, options.engine))
    findings = _apply_suppressions(findings, records, texts, policies, options)
    if plan is not None:  # report only what the given files are part of
        plan.finish(partial(display_path, root=options.display_root))
        findings = [f for f in findings if plan.part_of_change(f)]
        undetermined = [u for u in undetermined if u.file in plan.given]
        loaded.errors = [e for e in loaded.errors if plan.concerns(e.file)]
        loaded.notices = [n for n in loaded.notices if plan.concerns(n.file)]
        loaded.notices += [Notice(display_path(plan.root, options.display_root), 1, n) for n in plan.notes]
    loaded.notices.extend(_price(findings, records, options))
    findings.sort(key=lambda f: f.sort_key())
    result = ScanResult(findings, loaded.errors, loaded.notices, count, records, policies, undetermined)
    result.context_files = len(plan.read) if plan is not None else 0
    return result


def _context_plan(options: ScanOptions) -> context.ContextPlan | None:
    """The repository context of the given files (None: no files given, or context is off)."""
    if not options.context:
        return None
    files = [p for p in options.paths if p.is_file()]
    if not files:
        return None
    from finlint import context  # only for given files: a directory scan does not import it

    excluded = partial(_excluded, patterns=options.exclude, root=options.display_root)
    return context.plan(files, excluded if options.exclude else None, options.config_file)


def _apply_suppressions(
    findings: list[Finding],
    records: list[Record],
    texts: dict[str, list[str]],
    policies: list[Policy],
    options: ScanOptions,
) -> list[Finding]:
    if not any(texts.values()) and not any(r.suppressions for r in records):
        return findings  # no file mentions "finlint:" and no resource carries an ignore: nothing to do
    from finlint.post import suppressions

    return suppressions.apply(findings, records, texts, policies, options.engine)


def _price(findings: list[Finding], records: list[Record], options: ScanOptions) -> list[Notice]:
    from finlint import cost, rules

    return cost.price_findings(findings, records, options.cost_settings, rules.registry().cost_models)
