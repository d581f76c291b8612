"""Loading one input: a file through its loader (YAML/JSON parsed once and routed by content,
templates through the tolerant reader), a directory unit through its directory loader, and
every loader's whole-scan ``finalize`` pass. A loader bug costs one file (FIN000), never the scan.
"""

from __future__ import annotations

import json
import re
import sys
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from finlint import loaders
from finlint.confine import OutsideRoot
from finlint.ir import LoadError, LoadResult, Notice, Record
from finlint.loaders import DirectoryLoader, DocContext, FileLoader, LoaderSpec
from finlint.loaders.common.discovery import claimed_by_content, display_path, excluded, read_text

if TYPE_CHECKING:
    from finlint.options import ScanOptions

TEMPLATE_MARKERS = ("{{", "{%")


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
        from finlint.loaders.common.yamlload import json_error

        message, line = json_error(exc)
        result.errors.append(LoadError(display, line, message))
        return False
    except RecursionError:
        result.errors.append(LoadError(display, 1, "document is nested too deeply to load"))
        return False
    return loaders.document_loader_for(data) is not None


def load_structured(path: Path, display: str, text: str, options: dict[str, Any]) -> LoadResult:
    """Parse a YAML/JSON file once and route each document to the loader that claims it."""
    from finlint.loaders.common.yamlload import YamlLoadError, load_all

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
    claimed = False
    for index, doc in enumerate(docs):
        module = loaders.document_loader_for(doc)
        if module is None:
            continue
        claimed = True
        ctx = DocContext(file=display, lines=lines, doc_index=index, options=options, path=path)
        try:
            result.extend(module.load(doc, ctx))
        except RecursionError:
            result.errors.append(LoadError(display, getattr(doc, "line", 1), "document is nested too deeply"))
    if not claimed:
        orphan = orphan_values_notice(path, display, text)
        if orphan is not None:
            result.notices.append(orphan)
    return result


#: A Helm values file no chart in the scan is rendered with (a chart's example values, the
#: values of a chart kept elsewhere): never silently skipped.
ORPHAN_VALUES = (
    "undetermined: {chart} is not in the scan: this Helm values file's accelerator and instance "
    "settings (line {line}) are not checked (what they configure is in the chart's templates); "
    "scan it with its chart and --helm-values to check it"
)
_VALUES_NAME = re.compile(r"(^|[._-])values([._-][^/]*)?\.ya?ml$", re.I)
_ACCELERATOR_WORDS = re.compile(
    r"nvidia\.com/gpu|aws\.amazon\.com/neuron|instance[-_]?type|karpenter|activeDeadlineSeconds", re.I
)
#: helm options whose value is the next word (``-f values.yaml``), never the chart
_HELM_VALUE_OPTIONS = frozenset(
    ("-f", "--values", "--set", "--set-string", "--set-file", "--set-json", "-n", "--namespace", "--version")
)
_HELM_COMMANDS = frozenset(("install", "upgrade", "template"))


def _chart_named(comment: str) -> str | None:
    """The chart a ``# helm install train oci://.../training -f values-p5.yaml`` comment names
    (a repository chart ``repo/chart``, a path or an ``oci://``/``https://`` reference)."""
    words = comment.lstrip("# \t").split()[:40]
    for i, word in enumerate(words[:-1]):
        if word == "helm" and words[i + 1] in _HELM_COMMANDS:
            skip = False
            for arg in words[i + 2 :]:
                if skip:
                    skip = False
                elif arg.startswith("-"):
                    skip = arg in _HELM_VALUE_OPTIONS
                elif "/" in arg:
                    return arg[:120]
            return None
    return None


def orphan_values_notice(path: Path, display: str, text: str) -> Notice | None:
    """A ``values*.yaml`` / ``*-values.yaml`` no loader claimed that sets accelerators or
    instance types (a chart in the scan reads its own values files: they never get here): a
    notice at the first such setting, naming the chart when a ``helm install`` comment does."""
    if _VALUES_NAME.search(path.name) is None:
        return None
    hit = _ACCELERATOR_WORDS.search(text)
    if hit is None:
        return None
    line = text.count("\n", 0, hit.start()) + 1
    chart = "the chart these values are for (not named in the file)"
    for comment in text.splitlines()[:200]:
        named = _chart_named(comment) if comment.lstrip().startswith("#") and "helm" in comment else None
        if named is not None:
            chart = f"chart {named}"
            break
    return Notice(display, line, ORPHAN_VALUES.format(chart=chart, line=line))


def _json_template(text: str, display: str, result: LoadResult) -> str | None:
    """A .json file that is not JSON because it is a template (``"Count": {{ n }}``, a
    pipeline definition rendered by a deploy script): its placeholders quoted when that makes
    it JSON, else a "skipped template" notice instead of FIN000. None: nothing to read."""
    if not result.errors or not any(marker in text for marker in TEMPLATE_MARKERS):
        return None
    from finlint.loaders.common import templating

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
    from finlint.loaders.common import templating

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


def load_file(path: Path, options: ScanOptions) -> tuple[str, list[str] | None, LoadResult]:
    """One file through its loader: its display path, its lines (None when unreadable) and
    what it loaded. Runs in a worker process under ``--jobs``."""
    display = display_path(path, options.display_root)
    text = read_text(path, display, options.limits.max_file_bytes)
    if isinstance(text, LoadError):
        return display, None, LoadResult(errors=[text])
    file_spec = loaders.spec_for_file(path.name, "file")
    if file_spec is None and loaders.has_no_extension(path.name):
        file_spec = loaders.sniffed_spec(text)  # a Slurm script named ``train``
    if file_spec is not None:
        module: FileLoader = file_spec.load()
        loader = partial(module.load_file, path, display, text, options.loader_options)
    else:
        loader_options = {**options.loader_options, "max_yaml_nodes": options.limits.max_yaml_nodes}
        loader = partial(load_structured, path, display, text, loader_options)
    lines = text.splitlines() if loaders.SUPPRESSION_MARKER in text else []  # only comments need them
    return display, lines, _safe(loader, display)


def directory_units(
    spec: LoaderSpec, dirs: list[Path], options: ScanOptions, texts: dict[str, list[str]]
) -> tuple[LoadResult, list[tuple[Path, list[Path]]], int]:
    """The units of ``dirs`` (each directory with its files; :func:`finlint.parallel.load_units`
    leaves out a directory that is a module of another: it is loaded through its caller), the
    notices on refused files, and how many files they hold. ``texts`` gets the lines of each
    file that mentions ``finlint:`` (suppression comments; the others: no lines)."""
    result = LoadResult()
    count = 0
    show = partial(display_path, root=options.display_root)
    units: list[tuple[Path, list[Path]]] = []
    for directory in sorted(dirs):
        pattern = "**/*" if spec.marker_files else "*"  # a tree unit owns its subdirectories
        files = sorted(
            f
            for suffix in spec.unit_files or spec.suffixes
            for f in directory.glob(f"{pattern}{suffix}")
            if f.is_file() and not excluded(f, options.exclude, options.display_root)
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
            if isinstance(text, str):  # only comments need the lines, as in load_file
                texts[show(f)] = text.splitlines() if loaders.SUPPRESSION_MARKER in text else []
        units.append((directory, files))
    return result, units, count


def load_unit(spec: LoaderSpec, directory: Path, files: list[Path], options: ScanOptions) -> LoadResult:
    """One directory unit through its loader. Runs in a worker process under ``--jobs`` when the
    format's units are independent (:attr:`LoaderSpec.independent_units`)."""
    module: DirectoryLoader = spec.load()
    show = partial(display_path, root=options.display_root)
    loader = partial(module.load_directory, directory, files, show, options.loader_options)
    return _safe(loader, show(directory))


def consumed_files(options: dict[str, Any]) -> set[Path]:
    """Files a loader reads as input to another (Helm values files): never loaded on their own."""
    paths = options.get("consumed_files") or ()
    return {Path(p).absolute() for p in paths}


def finalize(records: list[Record]) -> list[Record]:
    """Every loader's whole-scan pass (plan -> config lines, NodePool -> EC2NodeClass), in order.

    A loader no file needed was never imported and made no records, so its pass is skipped:
    importing it just to finish nothing would put every loader on a one-file run's path."""
    for spec in loaders.REGISTRY:
        if spec.module not in sys.modules:
            continue
        records = list(spec.load().finalize(records))
    return records
