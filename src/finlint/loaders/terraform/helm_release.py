"""Terraform ``helm_release`` with a local chart: the chart rendered with the values Terraform gives.

``values = [file(...), templatefile(...), yamlencode({...})]`` and ``set {}`` blocks (or the
provider-3 ``set = [{name, value}]`` list) are evaluated with the configuration's variables and
locals, then the chart is rendered offline like any chart (:mod:`finlint.loaders.helm`); the
records point at the chart's template lines and their address names the release. A remote chart
(``repository`` + chart name) and a local path with no ``Chart.yaml`` are notices.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from finlint import ir
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.eval import Evaluator, demote
from finlint.loaders.terraform.files import Decl

if TYPE_CHECKING:
    from finlint.loaders.terraform.modules import Module


def helm_release(module: Module, decl: Decl, ev: Evaluator, address: str) -> None:
    body = decl.block.body
    shown = decl.file.display
    chart_attr = body.attrs.get("chart")
    if chart_attr is None:
        return
    chart = ev.value(chart_attr.expr)
    repository = ev.value(body.attrs["repository"].expr) if "repository" in body.attrs else None
    if not isinstance(chart, str):
        module.run.notice(shown, chart_attr.line, f"{address}: chart is not static; not rendered")
        return
    if repository is not None or chart.startswith(("oci://", "https://", "http://")):
        where = f" from {repository}" if isinstance(repository, str) else ""
        module.run.notice(
            shown,
            chart_attr.line,
            f"{address}: remote chart {chart}{where} is not downloaded; its templates are not checked",
        )
        return
    directory, refused = _chart_dir(module, chart)
    if refused is not None:
        module.run.notice(
            shown,
            chart_attr.line,
            f"{address}: local chart {chart!r} resolves outside the scanned tree; refused, not rendered",
        )
        return
    if directory is None:
        module.run.notice(
            shown,
            chart_attr.line,
            f"{address}: local chart {chart} is not in the scan (no Chart.yaml there); not rendered",
        )
        return
    overrides, problem = _values(body, ev)
    if problem is not None:
        module.run.notice(shown, problem[0], f"{address}: {problem[1]}; the chart is not rendered")
        return
    name = ev.value(body.attrs["name"].expr) if "name" in body.attrs else None
    release = name if isinstance(name, str) else decl.block.labels[-1]
    line = body.attrs["name"].line if "name" in body.attrs else decl.block.line
    from finlint.loaders.helm import chart as helm_chart

    loaded = helm_chart.render_release(
        directory, release, overrides, module.run.display, module.run.options, f"{address}/", (shown, line)
    )
    module.run.result.errors.extend(loaded.errors)
    module.run.result.notices.extend(loaded.notices)
    for record in loaded.records:
        extra = dict(record.extra)
        extra.setdefault("tf_address", address)
        module.run.embedded.append(record.with_changes(extra=extra))


def _chart_dir(module: Module, chart: str) -> tuple[Path | None, Path | None]:
    """(the chart folder, None); (None, a candidate) when every candidate resolves outside the
    scan roots (a path outside them is never even probed); (None, None) when none has a Chart.yaml."""
    from finlint.loaders.helm.chart import roots_of

    roots = roots_of(module.run.root, module.run.options)
    outside: list[Path] = []
    bases = (Path("."), module.run.root, Path(str(module.path("module"))))
    for base in bases:
        p = Path(chart) if Path(chart).is_absolute() else base / chart
        if not roots.contains(p):
            outside.append(p)
            continue
        try:
            if (p / "Chart.yaml").is_file():
                return p, None
        except OSError:
            continue
    return None, (outside[0] if len(outside) == len(bases) else None)


def _values(body: h.Body, ev: Evaluator) -> tuple[dict[str, Any], tuple[int, str] | None]:
    """The release's overrides: each ``values`` document merged in order, then every ``set``."""
    from finlint.loaders.helm.values import merge, set_path

    out: dict[str, Any] = {}
    attr = body.attrs.get("values")
    if attr is not None:
        items = attr.expr.items if isinstance(attr.expr, h.TupleExpr) else None
        documents = [_document(item, ev) for item in items] if items is not None else [ev.value(attr.expr)]
        if items is None and isinstance(documents[0], list):
            documents = documents[0]
        for doc in documents:
            if isinstance(doc, str):
                try:
                    doc = yaml.safe_load(doc)
                except yaml.YAMLError as exc:
                    return out, (attr.line, f"a values document is not YAML ({exc.__class__.__name__})")
            if doc is None:
                continue
            if not isinstance(doc, dict):
                return out, (attr.line, "a values document is not known statically")
            out = merge(out, doc)
    sets: list[tuple[Any, Any, int]] = []
    for kind in ("set", "set_sensitive"):
        for block in body.blocks_of(kind):
            n, v = block.body.attrs.get("name"), block.body.attrs.get("value")
            typed = block.body.attrs.get("type")
            if n is not None and v is not None:
                value = ev.value(v.expr)
                as_string = typed is not None and ev.value(typed.expr) == "string"
                sets.append((ev.value(n.expr), value if as_string else _typed(value), block.line))
        listed = body.attrs.get(kind)
        if listed is not None:
            value = ev.value(listed.expr)
            for entry in value if isinstance(value, list) else ():
                if isinstance(entry, dict):
                    raw = entry.get("value")
                    sets.append(
                        (
                            entry.get("name"),
                            raw if entry.get("type") == "string" else _typed(raw),
                            listed.line,
                        )
                    )
    for name, value, line in sets:
        if not isinstance(name, str) or isinstance(value, ir.Unknown):
            return out, (line, f"set {name!r} is not known statically")
        set_path(out, name, value)
    return out, None


def _document(item: h.Expr, ev: Evaluator) -> Any:
    """One ``values`` entry: ``yamlencode({...})`` is the object itself; others evaluate to text."""
    if isinstance(item, h.Call) and item.name == "yamlencode" and len(item.args) == 1:
        return demote(ev.value(item.args[0]))
    return demote(ev.value(item))


def _typed(value: Any) -> Any:
    """A ``set`` value as ``helm --set`` reads it: numbers, booleans and null are typed."""
    if not isinstance(value, str):
        return value
    if value in ("true", "false"):
        return value == "true"
    if value == "null":
        return None
    try:
        return int(value)
    except ValueError:
        return value
