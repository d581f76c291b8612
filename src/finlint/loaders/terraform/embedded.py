"""Documents embedded in Terraform: kubectl/kubernetes manifests and Step Functions definitions,
read by the Kubernetes and SageMaker API loaders with lines mapped back into the .tf file."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from finlint import ir
from finlint.loaders.base import DocContext
from finlint.loaders.common.yamlload import YamlLoadError, load_all, pin_lines
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.eval import Evaluator, demote
from finlint.loaders.terraform.files import Decl
from finlint.loaders.terraform.values import render, with_lines

if TYPE_CHECKING:
    from finlint.loaders.terraform.modules import Module


def _doc_text(module: Module, attr: h.Attribute, ev: Evaluator) -> tuple[str, int, bool] | None:
    """Text of a manifest argument, the line offset of its first line, and whether its lines must
    be pinned to the argument's line.

    A heredoc or quoted string in this file keeps its own lines. Text from elsewhere (``file()``,
    ``templatefile()``, a local) has lines that are not this file's: every record from it points
    at the argument instead.
    """
    expr = attr.expr
    if isinstance(expr, h.Template) and not expr.directive:
        text, _ = render(expr, ev)
        offset = (expr.body_line - 1) if expr.heredoc else (attr.line - 1)
        return text, offset, False
    if isinstance(expr, h.Call) and expr.name == "templatefile":
        rendered = _templatefile_text(expr, ev)
        if rendered is not None:
            return rendered, 0, True
    value = ev.value(expr)
    if isinstance(value, str):
        return value, 0, True
    return None


def _templatefile_text(expr: h.Call, ev: Evaluator) -> str | None:
    """``templatefile(path, vars)`` rendered with unknown variables as ``${unknown}``.

    Terraform would fail on an unknown variable; here a variable whose value is not known
    statically (a resource id, a module output) must not hide the rest of the manifest.
    """
    if len(expr.args) != 2:
        return None
    path, variables = ev.value(expr.args[0]), ev.value(expr.args[1])
    if not isinstance(path, str) or not isinstance(variables, dict):
        return None
    text = ev.scope.read_file(path, ev.file, expr.line)
    if text is None:
        return None
    try:
        parts, directive = h.split_template(text, 1)
    except h.HclError:
        return None
    if directive:
        return None
    rendered, _ = render(h.Template(tuple(parts), 1), Evaluator(ev.scope, dict(variables), ev.depth + 1))
    return rendered


def _source_file(module: Module, expr: h.Expr, ev: Evaluator) -> str | None:
    """Display path of the file a manifest argument reads with ``file()`` / ``templatefile()``,
    also through wrappers (``yamldecode(file(...))``, ``trimspace(file(...))``); None otherwise.

    Recorded as ``extra["tf_source_file"]`` so that :func:`terraform_plan.finalize` can drop this
    copy when the scan also loaded that file on its own.
    """
    if isinstance(expr, h.Template) and len(expr.parts) == 1 and not isinstance(expr.parts[0], str):
        return _source_file(module, expr.parts[0], ev)
    if not isinstance(expr, h.Call):
        return None
    if expr.name.split("::")[-1] in ("file", "templatefile"):
        path = ev.value(expr.args[0]) if expr.args else None
        found = module.file_path(path) if isinstance(path, str) else None
        if found is None:
            return None
        return module.run.shown(found)
    for arg in expr.args:
        hit = _source_file(module, arg, ev)
        if hit is not None:
            return hit
    return None


def _load_docs(
    module: Module, found: tuple[str, int, bool], shown: str, line: int, what: str
) -> list[Any] | None:
    """Parse an embedded manifest; a YAML error is FIN000 at its line (or the argument's)."""
    text, offset, pinned = found
    try:
        docs = load_all(text)
    except YamlLoadError as exc:
        where = line if pinned else exc.line + offset
        detail = f" (line {exc.line} of the rendered text)" if pinned else ""
        module.run.result.errors.append(ir.LoadError(shown, where, f"{what}: {exc.message}{detail}"))
        return None
    if pinned:
        docs = [pin_lines(doc, line) for doc in docs]
    return docs


def _kubectl_manifest(module: Module, decl: Decl, ev: Evaluator, address: str) -> None:
    attr = decl.block.body.attrs.get("yaml_body")
    shown = decl.file.display
    if attr is None:
        return
    found = _doc_text(module, attr, ev)
    if found is None:
        module.run.notice(
            shown, attr.line, f"{address}: yaml_body is not static (file/templatefile); not read here"
        )
        return
    docs = _load_docs(module, found, shown, attr.line, f"{address}: yaml_body")
    if docs is None:
        return
    ctx = DocContext(
        file=shown,
        lines=decl.file.lines,
        line_offset=0 if found[2] else found[1],
        address_prefix=f"{address}/",
        options=module.run.options,
    )
    source = _source_file(module, attr.expr, ev) if found[2] else None
    _k8s(module, docs, ctx, shown, attr.line, source)


def _kubernetes_manifest(module: Module, decl: Decl, ev: Evaluator, address: str) -> None:
    attr = decl.block.body.attrs.get("manifest")
    shown = decl.file.display
    if attr is None:
        return
    expr = attr.expr
    if isinstance(expr, h.Call) and expr.name == "yamldecode" and len(expr.args) == 1:
        found = _doc_text(module, h.Attribute("manifest", expr.args[0], attr.line, attr.end_line), ev)
        if found is None:
            module.run.notice(shown, attr.line, f"{address}: manifest is not static; not read")
            return
        docs = _load_docs(module, found, shown, attr.line, address)
        if docs is None:
            return
        ctx = DocContext(
            file=shown,
            lines=decl.file.lines,
            line_offset=0 if found[2] else found[1],
            address_prefix=f"{address}/",
            options=module.run.options,
        )
        source = _source_file(module, expr, ev) if found[2] else None
        _k8s(module, docs[:1], ctx, shown, attr.line, source)
        return
    value = demote(ev.value(expr))  # the Kubernetes loader is not written for alternatives
    if not isinstance(value, dict):
        module.run.notice(shown, attr.line, f"{address}: manifest is not static; not read")
        return
    source = None
    if isinstance(expr, h.Call):  # jsondecode(file(...)) and the like: lines of another file
        value = pin_lines(value, attr.line)
        source = _source_file(module, expr, ev)
    ctx = DocContext(
        file=shown, lines=decl.file.lines, address_prefix=f"{address}/", options=module.run.options
    )
    _k8s(module, [with_lines(value, attr.line)], ctx, shown, attr.line, source)


def _k8s(
    module: Module, docs: list[Any], ctx: DocContext, shown: str, line: int, source: str | None = None
) -> None:
    from finlint.loaders import kubernetes

    result = kubernetes.load_documents(docs, ctx)
    module.run.embedded.extend(_tag(r, ctx.address_prefix, source) for r in result.records)
    module.run.result.errors.extend(result.errors)
    module.run.result.notices.extend(result.notices)


def _tag(record: ir.Record, prefix: str, source: str | None = None) -> ir.Record:
    extra = dict(record.extra)
    extra.setdefault("tf_address", prefix.rstrip("/"))
    if source is not None:
        extra["tf_source_file"] = source
    return record.with_changes(extra=extra)


def _sfn_state_machine(module: Module, decl: Decl, ev: Evaluator, address: str) -> None:
    attr = decl.block.body.attrs.get("definition")
    shown = decl.file.display
    if attr is None:
        return
    expr = attr.expr
    asl: Any = None
    ctx = DocContext(
        file=shown, lines=decl.file.lines, address_prefix=f"{address}/", options=module.run.options
    )
    if isinstance(expr, h.Call) and expr.name == "jsonencode" and len(expr.args) == 1:
        asl = with_lines(demote(ev.value(expr.args[0])), attr.line)
    elif isinstance(expr, h.Call) and expr.name == "templatefile" and len(expr.args) == 2:
        asl, ctx = _asl_from_templatefile(module, expr, ev, ctx, attr.line, address)
    else:
        found = _doc_text(module, attr, ev)
        if found is not None:
            text, offset, pinned = found
            try:
                docs = load_all(text, is_json=text.lstrip().startswith("{"))
            except YamlLoadError as exc:
                where = attr.line if pinned else exc.line + offset
                module.run.result.errors.append(
                    ir.LoadError(shown, where, f"{address}: definition: {exc.message}")
                )
                return
            asl = docs[0] if docs else None
            if pinned:
                asl = pin_lines(asl, attr.line)
            else:
                ctx.line_offset = offset
    if not isinstance(asl, dict):
        module.run.notice(shown, attr.line, f"{address}: definition is not static; its tasks are not read")
        return
    from finlint.loaders import sagemaker_api

    jobs = sagemaker_api.training_jobs_from_asl(asl, ctx, f"{address}/", attr.line)
    module.run.embedded.extend(_tag(j, f"{address}/") for j in jobs)


def _asl_from_templatefile(
    module: Module, expr: h.Call, ev: Evaluator, ctx: DocContext, line: int, address: str
) -> tuple[Any, DocContext]:
    path = ev.value(expr.args[0])
    variables = ev.value(expr.args[1])
    if not isinstance(path, str):
        return None, ctx
    text = module.read_file(path, ev.file, expr.line)
    p = module.file_path(path)
    if text is None or p is None:
        return None, ctx
    parts, directive = h.split_template(text, 1)
    if directive:
        return None, ctx
    names = dict(variables) if isinstance(variables, dict) else {}
    sub = Evaluator(module, {k: v for k, v in names.items()})
    # template variables are bare names; anything else in the template is unknown
    rendered, _ = render(h.Template(tuple(parts), 1), sub)
    try:
        docs = load_all(rendered, is_json=rendered.lstrip().startswith("{"))
    except YamlLoadError as exc:
        module.run.result.errors.append(
            ir.LoadError(module.run.shown(p), exc.line, f"{address}: {exc.message}")
        )
        return None, ctx
    ctx = DocContext(
        file=module.run.shown(p),
        lines=rendered.splitlines(),
        address_prefix=f"{address}/",
        options=module.run.options,
    )
    return (docs[0] if docs else None), ctx


def _helm_release(module: Module, decl: Decl, ev: Evaluator, address: str) -> None:
    from finlint.loaders.terraform.helm_release import helm_release

    helm_release(module, decl, ev, address)


EMBEDDED: dict[str, Callable[[Module, Decl, Evaluator, str], None]] = {
    "helm_release": _helm_release,
    "kubectl_manifest": _kubectl_manifest,
    "kubernetes_manifest": _kubernetes_manifest,
    "aws_sfn_state_machine": _sfn_state_machine,
}
