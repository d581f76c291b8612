"""One scan: discover files, load them into the IR, link, run the policies, price the findings.

This is the Python API (``finlint.scan.lint``); the CLI is a thin shell over it. Data flows
one way: files -> loaders -> IR -> linking -> engine -> cost -> (reporters, in the CLI).
"""

from __future__ import annotations

import dataclasses
import gc
import json
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from finlint import loaders, parallel
from finlint.confine import OutsideRoot, Roots
from finlint.discovery import Limits, claimed_by_content, read_text
from finlint.discovery import discover as _discover
from finlint.discovery import display_path as display_path
from finlint.discovery import excluded as _excluded
from finlint.engine import EngineConfig, Policy, Undetermined, load_policies
from finlint.finding import Finding
from finlint.ir import LoadError, LoadResult, Notice, Record
from finlint.linking import link
from finlint.loaders import DirectoryLoader, DocContext, FileLoader, LoaderSpec
from finlint.result import ScanResult

if TYPE_CHECKING:
    from finlint import context
    from finlint.cost.common import CostSettings

SUPPORTED_SUFFIXES = loaders.all_suffixes()
TEMPLATE_MARKERS = ("{{", "{%")


@dataclass
class ScanOptions:
    """What to scan and how: the one input of :func:`lint`."""

    paths: list[Path] = field(default_factory=lambda: [Path(".")])
    engine: EngineConfig = field(default_factory=EngineConfig)
    policy_dirs: list[Path] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    loader_options: dict[str, Any] = field(default_factory=dict)  # tf_var_files, tf_vars, ...
    cost_settings: CostSettings | None = None  # region, usage file, pricing overlay
    #: paths in findings are relative to this directory (None: the current directory)
    display_root: Path | None = None
    limits: Limits = field(default_factory=Limits)  # file size and YAML node caps
    skip_files: list[Path] = field(default_factory=list)  # the scan's own report/baseline files
    progress: Callable[..., None] | None = None  # progress(phase, done, total), e.g. finlint.cli.progress
    jobs: int = 1  # parse files in this many processes (finlint.parallel); output is identical
    #: given files keep their repository's context (finlint.context); the CLI turns it on
    context: bool = False
    config_file: Path | None = None  # the config in force (its folder is a fallback context root)
    #: what a repository-named path may resolve into (finlint.confine); None: derived from paths
    roots: Roots | None = None


def discover(
    paths: list[Path],
    exclude: list[str],
    errors: list[LoadError],
    notices: list[Notice] | None = None,
    skip_files: list[Path] | None = None,
    display_root: Path | None = None,
    roots: Roots | None = None,
) -> Iterator[Path]:
    """Supported files under ``paths`` (see :func:`finlint.discovery.discover`)."""
    return _discover(
        paths, exclude, errors, SUPPORTED_SUFFIXES, notices, skip_files or (), display_root, roots
    )


def _looks_templated(text: str, error_line: int) -> bool:
    """Helm/Jinja markers anywhere, or a `${...}` (templatefile, envsubst) where parsing broke.

    `${...}` alone is common in valid YAML (CloudFormation `!Sub`), so it only explains a
    failure on the lines around the error.
    """
    if any(marker in text for marker in TEMPLATE_MARKERS) or "%{" in text:
        return True
    lines = text.splitlines()
    nearby = lines[max(0, error_line - 2) : error_line + 1]
    return any("${" in line for line in nearby)


def _json_claimable(text: str, display: str, result: LoadResult) -> bool:
    """Check a .json file with the C parser first: a broken one is FIN000, and one no loader
    claims (package-lock.json, tsconfig.json) is never given to the slower line-aware loader."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        from finlint.yamlload import json_error

        message, line = json_error(exc)
        result.errors.append(LoadError(display, line, message))
        return False
    except RecursionError:
        result.errors.append(LoadError(display, 1, "document is nested too deeply to load"))
        return False
    return loaders.document_loader_for(data) is not None


def load_structured(path: Path, display: str, text: str, options: dict[str, Any]) -> LoadResult:
    """Parse a YAML/JSON file once and route each document to the loader that claims it."""
    from finlint.yamlload import YamlLoadError, load_all

    result = LoadResult()
    is_json = path.suffix == ".json"
    parsed = text
    if is_json and not _json_claimable(text, display, result):
        if not claimed_by_content(text):
            result.errors.clear()  # not infrastructure (tsconfig.json with comments, empty .json)
            return result
        quoted = _json_template(text, display, result)
        if quoted is None:
            return result
        parsed = quoted
    try:
        docs = load_all(parsed, is_json=is_json, max_nodes=options.get("max_yaml_nodes"))
    except YamlLoadError as exc:
        if not claimed_by_content(text):  # no loader would read it (mkdocs.yml with !!python/name:)
            if exc.limit:
                result.notices.append(Notice(display, exc.line, exc.message))
            return result
        if is_json or exc.limit:  # broken JSON, a file over a limit: never a template
            result.errors.append(LoadError(display, exc.line, exc.message))
            return result
        tolerant = _read_template(text, display, exc, result, options.get("max_yaml_nodes"))
        if tolerant is None:
            return result
        docs = tolerant
    lines = text.splitlines()
    for index, doc in enumerate(docs):
        module = loaders.document_loader_for(doc)
        if module is None:
            continue
        ctx = DocContext(file=display, lines=lines, doc_index=index, options=options)
        try:
            result.extend(module.load(doc, ctx))
        except RecursionError:
            result.errors.append(LoadError(display, getattr(doc, "line", 1), "document is nested too deeply"))
    return result


def _json_template(text: str, display: str, result: LoadResult) -> str | None:
    """A .json file that is not JSON because it is a template (``"Count": {{ n }}``, a
    pipeline definition rendered by a deploy script): its placeholders quoted when that makes
    it JSON, else a "skipped template" notice instead of FIN000. None: nothing to read."""
    if not result.errors or not any(marker in text for marker in TEMPLATE_MARKERS):
        return None
    from finlint import templating

    error = result.errors.pop()
    quoted = templating.quote_json_placeholders(text)
    if quoted is not None:
        if _json_claimable(quoted, display, result):
            return quoted
        if not result.errors:  # JSON once quoted, and no loader's input
            return None
    result.errors.clear()
    result.notices.append(Notice(display, error.line, templating.skipped_message(error.line, error.message)))
    return None


def _read_template(
    text: str, display: str, exc: Any, result: LoadResult, max_nodes: int | None
) -> list[Any] | None:
    """A file that is not YAML: through the tolerant reader when it is a template (a notice
    naming the defeating line when even that fails), FIN000 when it is just broken."""
    from finlint import templating

    is_template_file = templating.template_suffix(display)
    if not _looks_templated(text, exc.line):
        if not is_template_file:  # a .tpl that is not YAML at all (a script) is not our input
            result.errors.append(LoadError(display, exc.line, exc.message))
        return None
    docs, failure = templating.load_tolerant(text, max_nodes)
    if docs is not None:
        return docs
    line, reason = failure if failure is not None else (exc.line, "")
    if not is_template_file or _manifest_like(text):
        result.notices.append(Notice(display, line, templating.skipped_message(line, reason)))
    return None


def _manifest_like(text: str) -> bool:
    """A template file worth a notice: it says what it is (Kubernetes or CloudFormation)."""
    return any(key in text for key in ("apiVersion:", "AWSTemplateFormatVersion", "Resources:"))


def _safe(fn: Callable[[], LoadResult], display: str) -> LoadResult:
    """A loader bug must cost one file, not the scan: report it as FIN000 with the reason."""
    try:
        return fn()
    except loaders.LoaderUnavailable:
        raise  # an installation problem, not a bad file: exit 2 with the reason
    except RecursionError:
        return LoadResult(errors=[LoadError(display, 1, "file is nested too deeply to load")])
    except MemoryError:  # not "nested too deeply", and at this file's path
        return LoadResult(errors=[LoadError(display, 1, "out of memory while reading")])
    except Exception as exc:  # noqa: BLE001 - reported, never swallowed silently
        return LoadResult(
            errors=[LoadError(display, 1, f"internal error while loading: {type(exc).__name__}: {exc}")]
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
    consumed = _consumed_files(options.loader_options)
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
        loaded, read = _load_directories(spec, list(dirs), options, texts)
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


def load_file(path: Path, options: ScanOptions) -> tuple[str, list[str] | None, LoadResult]:
    """One file through its loader: its display path, its lines (None when unreadable) and
    what it loaded. Runs in a worker process under ``--jobs``."""
    display = display_path(path, options.display_root)
    text = read_text(path, display, options.limits.max_file_bytes)
    if isinstance(text, LoadError):
        return display, None, LoadResult(errors=[text])
    file_spec = loaders.spec_for_file(path.name, "file")
    if file_spec is not None:
        module: FileLoader = file_spec.load()
        loader = partial(module.load_file, path, display, text, options.loader_options)
    else:
        loader_options = {**options.loader_options, "max_yaml_nodes": options.limits.max_yaml_nodes}
        loader = partial(load_structured, path, display, text, loader_options)
    lines = text.splitlines() if loaders.SUPPRESSION_MARKER in text else []  # only comments need them
    return display, lines, _safe(loader, display)


def _load_directories(
    spec: LoaderSpec, dirs: list[Path], options: ScanOptions, texts: dict[str, list[str]]
) -> tuple[LoadResult, int]:
    """Load each directory once; directories that are modules of another are loaded through it."""
    result = LoadResult()
    module: DirectoryLoader = spec.load()
    skip = module.module_directories(dirs)
    count = 0
    show = partial(display_path, root=options.display_root)
    for directory in sorted(dirs):
        pattern = "**/*" if spec.marker_files else "*"  # a tree unit owns its subdirectories
        files = sorted(
            f
            for suffix in spec.unit_files or spec.suffixes
            for f in directory.glob(f"{pattern}{suffix}")
            if f.is_file() and not _excluded(f, options.exclude, options.display_root)
        )
        if options.roots is not None:  # a symlinked file of the unit leading out of the checkout
            # the unit's folder was found without following folder symlinks, so only a file
            # symlink can lead out: one lstat per file, no resolve of every path
            refused = {f for f in files if f.is_symlink() and not options.roots.contains(f)}
            result.notices.extend(Notice(show(f), 1, str(OutsideRoot(show(f)))) for f in sorted(refused))
            files = [f for f in files if f not in refused]
        count += len(files)
        for f in files:
            text = read_text(f, show(f), options.limits.max_file_bytes)
            if isinstance(text, str):
                texts[show(f)] = text.splitlines()
        if directory in skip:
            continue
        loader = partial(module.load_directory, directory, files, show, options.loader_options)
        result.extend(_safe(loader, show(directory)))
    return result, count


def _consumed_files(options: dict[str, Any]) -> set[Path]:
    """Files a loader reads as input to another (Helm values files): never loaded on their own."""
    paths = options.get("consumed_files") or ()
    return {Path(p).absolute() for p in paths}


def _finalize(records: list[Record]) -> list[Record]:
    """Every loader's whole-scan pass (plan -> config lines, NodePool -> EC2NodeClass), in order.

    A loader no file needed was never imported and made no records, so its pass is skipped:
    importing it just to finish nothing would put every loader on a one-file run's path."""
    for spec in loaders.REGISTRY:
        if spec.module not in sys.modules:
            continue
        records = list(spec.load().finalize(records))
    return records


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
    records = link(_finalize(loaded.records))
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
    from finlint import cost

    return cost.price_findings(findings, records, options.cost_settings)
