"""One Helm chart (a directory with ``Chart.yaml``) -> records, with lines on the template files.

The chart is rendered offline (:mod:`.render`) with its values and the ones the configuration
or ``--helm-values`` adds; each rendered document goes through the document loaders (the
Kubernetes loader, as any manifest) after its lines are moved onto the template that produced
it (:mod:`.lines`). A value read from a values file points at the line that set it
(``Record.value_sources``), and every record's address names the release and template. Without
a renderer the templates are read by the tolerant reader instead.

The chart is untrusted (docs/security.md, docs/limits.md#helm): it is read and rendered only
from a private copy (:mod:`.chartcopy`) that refuses symlinks out of the scan roots, a values
file the configuration names must lie inside the roots, and a release name that Helm would not
accept is refused with a notice and replaced by :data:`DEFAULT_RELEASE`.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from finlint import loaders
from finlint.confine import Roots
from finlint.ir import LoadError, LoadResult, Notice, Record, ValueSource
from finlint.loaders.base import DocContext
from finlint.loaders.common import templating
from finlint.loaders.common.yamlload import LineDict, LineList, YamlLoadError, load_all
from finlint.loaders.helm import chartcopy
from finlint.loaders.helm import lines as line_map
from finlint.loaders.helm import render as renderers
from finlint.loaders.helm.values import Values, ValuesSource, merge, read_values

FORMAT = "helm"
DEFAULT_RELEASE = "release-name"  # what `helm template` calls a release it is given no name for
#: Template files Helm renders into manifests (NOTES.txt and `_helpers.tpl` partials are not).
TEMPLATE_FILES = (".yaml", ".yml", ".json")
_RUN_KEY = "helm_announced"  # set in the run's shared state once the renderer notice is given
#: ``extra`` keys this package writes and its :func:`finalize` reads: the chart a record was
#: rendered from, and that it was rendered for another tool's release (a Terraform helm_release)
CHART = "helm_chart"
RELEASED = "helm_release"


@dataclass
class ChartSettings:
    """How one chart is rendered: extra values files, ``--set``-style overrides, release name."""

    values: list[Path] = field(default_factory=list)
    set: dict[str, Any] = field(default_factory=dict)
    release: str = DEFAULT_RELEASE
    #: values files the repository's configuration names (confined to the roots); the others
    #: come from ``--helm-values`` on the command line, which is the user's
    repository_values: list[Path] = field(default_factory=list)


def release_name(name: Any, where: tuple[str, int], result: LoadResult) -> str:
    """``name`` when Helm accepts it as a release name, else a notice at ``where`` and
    :data:`DEFAULT_RELEASE` (so no repository text ever reaches ``helm`` as a flag)."""
    if renderers.valid_release(name):
        return str(name)
    shown = renderers.one_line(repr(name), 80)
    result.notices.append(
        Notice(
            where[0],
            where[1],
            f"release name {shown} refused: Helm release names are lowercase letters, digits, '-' "
            f"and '.', start and end with a letter or digit, at most {renderers.MAX_RELEASE} "
            f"characters; rendered as {DEFAULT_RELEASE!r}",
        )
    )
    return DEFAULT_RELEASE


def module_directories(dirs: Any) -> set[Path]:
    """A chart inside another chart of the scan (a vendored subchart) renders with its parent."""
    chosen = {Path(d).absolute() for d in dirs}
    return {Path(d) for d in dirs if any(p in chosen for p in Path(d).absolute().parents)}


def settings_for(chart: Path, options: dict[str, Any]) -> ChartSettings:
    """The configured settings of ``chart`` (``helm.charts`` in .finlint.yaml) plus ``--helm-values``."""
    found = ChartSettings()
    here = chart.resolve()
    for entry in options.get("helm_charts") or ():
        if Path(entry.get("path", "")).resolve() == here:
            named = [Path(p) for p in entry.get("values") or ()]
            found = ChartSettings(
                list(named), dict(entry.get("set") or {}), str(entry.get("release") or DEFAULT_RELEASE), named
            )
    found.values += [Path(p) for p in options.get("helm_values") or ()]
    return found


def load_directory(
    directory: Path, files: list[Path], display: Callable[[Path], str], options: dict[str, Any]
) -> LoadResult:
    """One chart of the scan, rendered with its values and the configured ones."""
    result = LoadResult()
    chart_file = directory / "Chart.yaml"
    shown_chart = display(chart_file)
    settings = settings_for(directory, options)
    settings.release = release_name(settings.release, (shown_chart, 1), result)
    copy = _private_copy(directory, options, display, (shown_chart, 1), result)
    if copy is None:
        return result
    try:
        meta = _chart_metadata(copy / "Chart.yaml", shown_chart, result)
        if meta is None:
            return result
        _remote_dependencies(copy, meta, shown_chart, result)
        renderer = renderers.choose(options.get("helm_renderer"))
        values = _values(directory, copy, settings, display, options, result)
        if values is None:
            return result
        result.extend(
            _render(
                directory, copy, renderer, settings, values, display, options, f"helm:{settings.release}/"
            )
        )
    finally:
        shutil.rmtree(copy.parent, ignore_errors=True)
    return result


def render_release(
    directory: Path,
    release: str,
    overrides: dict[str, Any],
    display: Callable[[Path], str],
    options: dict[str, Any],
    prefix: str,
    where: tuple[str, int] | None = None,
) -> LoadResult:
    """A chart rendered with values given by another tool (a Terraform ``helm_release``);
    ``where``: the file and line that named the release (for a notice)."""
    result = LoadResult()
    where = where or (display(directory / "Chart.yaml"), 1)
    settings = ChartSettings(release=release_name(release, where, result))
    copy = _private_copy(directory, options, display, where, result)
    if copy is None:
        return result
    try:
        renderer = renderers.choose(options.get("helm_renderer"))
        values = _values(directory, copy, settings, display, options, result)
        if values is None:
            return result
        values.overrides = merge(values.overrides, overrides)
        rendered = _render(directory, copy, renderer, settings, values, display, options, prefix)
        # this package's own mark (finalize reads it), not the caller's keys
        rendered.records = [r.with_changes(extra={**r.extra, RELEASED: True}) for r in rendered.records]
        result.extend(rendered)
    finally:
        shutil.rmtree(copy.parent, ignore_errors=True)
    return result


def roots_of(directory: Path, options: dict[str, Any]) -> Roots:
    """The scan's roots (``options["roots"]``), or the chart's own folder in a direct call."""
    roots = options.get("roots")
    return roots if isinstance(roots, Roots) else Roots.of([directory])


def _private_copy(
    directory: Path,
    options: dict[str, Any],
    display: Callable[[Path], str],
    where: tuple[str, int],
    result: LoadResult,
) -> Path | None:
    """The chart copied into a new private folder (:mod:`.chartcopy`), or None and a notice."""
    folder = chartcopy.private_folder()
    try:
        return chartcopy.copy_chart(directory, roots_of(directory, options), folder)
    except chartcopy.ChartRefused as refused:
        shutil.rmtree(folder, ignore_errors=True)
        shown = renderers.one_line(display(Path(refused.path)), 160)
        result.notices.append(
            Notice(where[0], where[1], f"chart not rendered: refused {shown}: {refused.why}")
        )
        return None
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise


def _render(
    directory: Path,
    copy: Path,
    renderer: str,
    settings: ChartSettings,
    values: Values,
    display: Callable[[Path], str],
    options: dict[str, Any],
    prefix: str,
) -> LoadResult:
    result = LoadResult()
    run = options.get("run")
    run = run if isinstance(run, dict) else options
    if not run.get(_RUN_KEY):  # once per run: which renderer, and how to get a better one
        run[_RUN_KEY] = True
        result.notices.append(Notice(display(directory / "Chart.yaml"), 1, renderers.describe(renderer)))
    if renderer == "tolerant":
        files = sorted(p for p in copy.glob("**/*") if p.is_file())
        result.extend(_tolerant(directory, copy, files, display, options))
    else:
        rendered = renderers.render(renderer, copy, settings.release, values.overrides, settings.values)
        if rendered.failure is not None:
            shown_chart = display(directory / "Chart.yaml")
            # Helm may name the private copy: show the chart's own folder instead
            rendered.failure.message = rendered.failure.message.replace(str(copy), display(directory))
            result.notices.append(_failure_notice(directory, rendered.failure, display, shown_chart))
            return result
        for source, text in sorted(rendered.manifests.items()):
            name = Path(source).name
            if not name.endswith(TEMPLATE_FILES) or name.startswith("_"):  # NOTES.txt, partials
                continue
            result.extend(
                load_rendered(
                    directory, source, text, display, options, values, f"{prefix}{source}/", read_from=copy
                )
            )
    chart = str(directory.resolve())
    result.records = [r.with_changes(extra={**r.extra, CHART: chart}) for r in result.records]
    return result


def finalize(records: list[Record]) -> list[Record]:
    """A chart that a Terraform ``helm_release`` renders is checked with the release's values:
    its standalone render (the chart's own defaults) is dropped."""
    released = {r.extra.get(CHART) for r in records if r.extra.get(RELEASED) and CHART in r.extra}
    if not released:
        return records
    return [r for r in records if r.extra.get(RELEASED) or r.extra.get(CHART) not in released]


def _chart_metadata(chart_file: Path, shown: str, result: LoadResult) -> LineDict | None:
    try:
        docs = load_all(chart_file.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError) as exc:
        result.errors.append(LoadError(shown, 1, f"cannot read Chart.yaml: {exc}"))
        return None
    except YamlLoadError as exc:
        result.errors.append(LoadError(shown, exc.line, f"Chart.yaml: {exc.message}"))
        return None
    meta = docs[0] if docs else None
    if not isinstance(meta, LineDict):
        result.errors.append(LoadError(shown, 1, "Chart.yaml is not a mapping"))
        return None
    return meta


def _remote_dependencies(directory: Path, meta: LineDict, shown: str, result: LoadResult) -> None:
    """Dependencies not vendored under ``charts/`` are not fetched: a notice names each one."""
    deps = meta.get("dependencies")
    if not isinstance(deps, list):
        return
    for index, dep in enumerate(deps):
        if not isinstance(dep, dict) or not isinstance(dep.get("name"), str):
            continue
        name = dep["name"]
        vendored = (directory / "charts" / name / "Chart.yaml").is_file() or any(
            (directory / "charts").glob(f"{name}-*.tgz")
        )
        if vendored:
            continue
        where = dep.get("repository") or "no repository"
        line = deps.line_of(index) if isinstance(deps, LineList) else meta.line
        result.notices.append(
            Notice(
                shown,
                line,
                f"chart dependency {name} ({where}) is not vendored under charts/: not downloaded, "
                "its templates are not checked (run `helm dependency build` to vendor it)",
            )
        )


def _values(
    directory: Path,
    copy: Path,
    settings: ChartSettings,
    display: Callable[[Path], str],
    options: dict[str, Any],
    result: LoadResult,
) -> Values | None:
    out = Values()
    defaults = copy / "values.yaml"
    if defaults.is_file():
        shown_defaults = display(directory / "values.yaml")
        data, _ = read_values(defaults, shown_defaults)
        if data is not None:  # a broken values.yaml is Helm's to report when rendering
            out.sources.append(ValuesSource(shown_defaults, data))
    roots = roots_of(directory, options)
    for path in settings.values:
        shown = display(path)
        if path in settings.repository_values and not roots.contains(path):
            shown = renderers.one_line(shown, 160)
            result.notices.append(
                Notice(
                    display(directory / "Chart.yaml"),
                    1,
                    f"chart not rendered: refused values file {shown}: it resolves outside the scanned tree",
                )
            )
            return None
        data, problem = read_values(path, shown)
        if data is None:
            result.notices.append(
                Notice(display(directory / "Chart.yaml"), 1, f"chart not rendered: {problem}")
            )
            return None
        out.sources.append(ValuesSource(shown, data))
        out.overrides = merge(out.overrides, data)
    if settings.set:
        from finlint.loaders.helm.values import set_path

        extra: dict[str, Any] = {}
        for key, value in settings.set.items():
            set_path(extra, str(key), value)
        out.overrides = merge(out.overrides, extra)
    return out


def _failure_notice(
    directory: Path, failure: renderers.RenderFailure, display: Callable[[Path], str], shown_chart: str
) -> Notice:
    if failure.source is not None:
        parts = Path(failure.source).parts
        path = directory / "charts" / parts[0] / _relative(failure.source)  # a subchart's template
        if not path.is_file():
            path = directory / _relative(failure.source)
        if path.is_file():
            return Notice(display(path), failure.line or 1, f"chart not rendered: {failure.message}")
    return Notice(shown_chart, 1, f"chart not rendered: {failure.message}")


def _relative(source: str) -> Path:
    """``chart/templates/x.yaml`` (as Helm names a template) -> ``templates/x.yaml``."""
    return Path(*Path(source).parts[1:]) if len(Path(source).parts) > 1 else Path(source)


def load_rendered(
    directory: Path,
    source: str,
    text: str,
    display: Callable[[Path], str],
    options: dict[str, Any],
    values: Values,
    prefix: str,
    read_from: Path | None = None,
) -> LoadResult:
    """One template's rendered text -> records on the template's own lines (the template is
    read from ``read_from``, the chart's private copy, when given)."""
    result = LoadResult()
    if not text.strip():
        return result
    template_path = directory / _relative(source)
    shown = display(template_path)
    try:
        template = ((read_from or directory) / _relative(source)).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):  # a template inside a vendored .tgz: no lines to map to
        template = ""
    analysed = line_map.analyse(template) if template else []
    aligned = line_map.align(analysed, text)
    numbers = _dense({k: v.number for k, v in aligned.items()}, text.count("\n") + 2)
    try:
        docs = load_all(text)
    except YamlLoadError as exc:
        line = numbers[exc.line] if 0 < exc.line < len(numbers) else 1
        result.errors.append(LoadError(shown, line, f"rendered output is not valid YAML: {exc.message}"))
        return result
    template_lines = template.splitlines()
    for index, doc in enumerate(docs):
        module = loaders.document_loader_for(doc)
        if module is None:
            continue
        _move_lines(doc, numbers)
        ctx = DocContext(
            file=shown, lines=template_lines, doc_index=index, address_prefix=prefix, options=options
        )
        loaded = module.load(doc, ctx)
        loaded.records = [_values_origin(r, aligned, values, shown) for r in loaded.records]
        result.extend(loaded)
    return result


def _dense(mapping: dict[int, int], count: int) -> list[int]:
    """Rendered line -> template line for every line (unmapped lines take the previous one)."""
    out = [1] * (count + 1)
    last = 1
    for n in range(1, count + 1):
        last = mapping.get(n, last)
        out[n] = last
    return out


def _move_lines(node: Any, numbers: list[int]) -> None:
    def at(n: int) -> int:
        return numbers[n] if 0 < n < len(numbers) else n

    if isinstance(node, LineDict):
        node.line, node.end_line = at(node.line), at(node.end_line)
        node.key_lines = {k: at(v) for k, v in getattr(node, "key_lines", {}).items()}
        if node.end_line < node.line:
            node.end_line = node.line
        for value in node.values():
            _move_lines(value, numbers)
    elif isinstance(node, LineList):
        node.line, node.end_line = at(node.line), at(node.end_line)
        node.item_lines = [at(v) for v in getattr(node, "item_lines", [])]
        if node.end_line < node.line:
            node.end_line = node.line
        for value in node:
            _move_lines(value, numbers)


_ATTR_KEY = re.compile(r"^[\w.-]+\.([\w./-]+)$")


def _values_origin(
    record: Record, aligned: dict[int, line_map.TemplateLine], values: Values, template: str
) -> Record:
    """Fields whose template line reads one ``.Values`` path came from the values line that set
    it: ``Record.value_sources`` (``engine.origins``) points a finding there and names the
    template; ``attr_lines`` keep the template lines."""
    by_number = {t.number: t for t in aligned.values()}
    sources: list[ValueSource] = []
    for attr, line in record.attr_lines.items():
        template_line = by_number.get(line)
        if template_line is None or template_line.values_path is None:
            continue
        path = template_line.values_path
        origin = None
        match = _ATTR_KEY.match(attr)
        if match and template_line.producer:  # limits.cpu from `toYaml .Values.limits`
            origin = values.origin((*path, match.group(1)))
        origin = origin or values.origin(path)
        if origin is not None:
            what = f"Helm values (template {template}:{line})"
            sources.append(ValueSource(attr, origin[0], origin[1], what))
    if not sources:
        return record
    return record.with_changes(value_sources=tuple(sources))


def _tolerant(
    directory: Path, copy: Path, files: list[Path], display: Callable[[Path], str], options: dict[str, Any]
) -> LoadResult:
    """No renderer: every template file (of the private copy) through the tolerant reader, on
    its own lines."""
    result = LoadResult()
    for path in files:
        parts = path.relative_to(copy).parts
        if "templates" not in parts or path.name.startswith("_") or not path.name.endswith(TEMPLATE_FILES):
            continue
        shown = display(directory.joinpath(*parts))
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            result.errors.append(LoadError(shown, 1, f"cannot read template: {exc}"))
            continue
        try:
            docs: list[Any] | None = load_all(text)
            failure = None
        except YamlLoadError:
            docs, failure = templating.load_tolerant(text)
        if docs is None:
            line, reason = failure or (1, "")
            result.notices.append(Notice(shown, line, templating.skipped_message(line, reason)))
            continue
        lines = text.splitlines()
        for index, doc in enumerate(docs):
            module = loaders.document_loader_for(doc)
            if module is None:
                continue
            ctx = DocContext(file=shown, lines=lines, doc_index=index, options=options)
            result.extend(module.load(doc, ctx))
    return result
