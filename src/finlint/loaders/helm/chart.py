"""One Helm chart (a directory with ``Chart.yaml``) -> records, with lines on the template files.

The chart is rendered offline (:mod:`.render`) with its values and the ones the configuration
or ``--helm-values`` adds; each rendered document goes through the document loaders (the
Kubernetes loader, as any manifest) after its lines are moved onto the template that produced
it (:mod:`.lines`). A value read from a values file points at the line that set it
(``extra["value_sources"]``), and every record's address names the release and template. Without
a renderer the templates are read by the tolerant reader instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from finlint import loaders, templating
from finlint.ir import LoadError, LoadResult, Notice, Record
from finlint.loaders.base import DocContext
from finlint.loaders.helm import lines as line_map
from finlint.loaders.helm import render as renderers
from finlint.loaders.helm.values import Values, ValuesSource, merge, read_values
from finlint.yamlload import LineDict, LineList, YamlLoadError, load_all

FORMAT = "helm"
DEFAULT_RELEASE = "release-name"  # what `helm template` calls a release it is given no name for
#: Template files Helm renders into manifests (NOTES.txt and `_helpers.tpl` partials are not).
TEMPLATE_FILES = (".yaml", ".yml", ".json")
_RUN_KEY = "helm_announced"  # set in the run's shared state once the renderer notice is given


@dataclass
class ChartSettings:
    """How one chart is rendered: extra values files, ``--set``-style overrides, release name."""

    values: list[Path] = field(default_factory=list)
    set: dict[str, Any] = field(default_factory=dict)
    release: str = DEFAULT_RELEASE


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
            found = ChartSettings(
                [Path(p) for p in entry.get("values") or ()],
                dict(entry.get("set") or {}),
                str(entry.get("release") or DEFAULT_RELEASE),
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
    meta = _chart_metadata(chart_file, shown_chart, result)
    if meta is None:
        return result
    _remote_dependencies(directory, meta, shown_chart, result)
    renderer = renderers.choose(options.get("helm_renderer"))
    settings = settings_for(directory, options)
    values = _values(directory, settings, display, result)
    if values is None:
        return result
    result.extend(
        _render(directory, renderer, settings, values, display, options, f"helm:{settings.release}/")
    )
    return result


def render_release(
    directory: Path,
    release: str,
    overrides: dict[str, Any],
    display: Callable[[Path], str],
    options: dict[str, Any],
    prefix: str,
) -> LoadResult:
    """A chart rendered with values given by another tool (a Terraform ``helm_release``)."""
    result = LoadResult()
    renderer = renderers.choose(options.get("helm_renderer"))
    values = _values(directory, ChartSettings(release=release), display, result)
    if values is None:
        return result
    values.overrides = merge(values.overrides, overrides)
    result.extend(
        _render(directory, renderer, ChartSettings(release=release), values, display, options, prefix)
    )
    return result


def _render(
    directory: Path,
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
        files = sorted(p for p in directory.glob("**/*") if p.is_file())
        result.extend(_tolerant(directory, files, display, options))
    else:
        rendered = renderers.render(renderer, directory, settings.release, values.overrides, settings.values)
        if rendered.failure is not None:
            shown_chart = display(directory / "Chart.yaml")
            result.notices.append(_failure_notice(directory, rendered.failure, display, shown_chart))
            return result
        for source, text in sorted(rendered.manifests.items()):
            name = Path(source).name
            if not name.endswith(TEMPLATE_FILES) or name.startswith("_"):  # NOTES.txt, partials
                continue
            result.extend(
                load_rendered(directory, source, text, display, options, values, f"{prefix}{source}/")
            )
    chart = str(directory.resolve())
    result.records = [r.with_changes(extra={**r.extra, "helm_chart": chart}) for r in result.records]
    return result


def finalize(records: list[Record]) -> list[Record]:
    """A chart that a Terraform ``helm_release`` renders is checked with the release's values:
    its standalone render (the chart's own defaults) is dropped."""
    released = {
        r.extra.get("helm_chart") for r in records if "tf_address" in r.extra and "helm_chart" in r.extra
    }
    if not released:
        return records
    return [r for r in records if "tf_address" in r.extra or r.extra.get("helm_chart") not in released]


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
    directory: Path, settings: ChartSettings, display: Callable[[Path], str], result: LoadResult
) -> Values | None:
    out = Values()
    defaults = directory / "values.yaml"
    if defaults.is_file():
        data, _ = read_values(defaults, display(defaults))
        if data is not None:  # a broken values.yaml is Helm's to report when rendering
            out.sources.append(ValuesSource(display(defaults), data))
    for path in settings.values:
        shown = display(path)
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
) -> LoadResult:
    """One template's rendered text -> records on the template's own lines."""
    result = LoadResult()
    if not text.strip():
        return result
    template_path = directory / _relative(source)
    shown = display(template_path)
    try:
        template = template_path.read_text(encoding="utf-8-sig")
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
    it: ``extra["value_sources"]`` (``engine.origins``) points a finding there and names the
    template; ``attr_lines`` keep the template lines."""
    by_number = {t.number: t for t in aligned.values()}
    sources: dict[str, dict[str, Any]] = {}
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
            sources[attr] = {"file": origin[0], "line": origin[1], "what": what}
    if not sources:
        return record
    return record.with_changes(extra={**record.extra, "value_sources": sources})


def _tolerant(
    directory: Path, files: list[Path], display: Callable[[Path], str], options: dict[str, Any]
) -> LoadResult:
    """No renderer: every template file through the tolerant reader, on its own lines."""
    result = LoadResult()
    for path in files:
        parts = path.relative_to(directory).parts
        if "templates" not in parts or path.name.startswith("_") or not path.name.endswith(TEMPLATE_FILES):
            continue
        shown = display(path)
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
