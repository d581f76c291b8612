"""``terraform show -json`` plan documents: fully resolved values, into the same IR as HCL.

Resources come from ``planned_values`` (root and child modules). Values listed in the
matching ``resource_changes[].change.after_unknown`` are unknown. ``configuration``
expressions give the references between resources (an ASG's launch template, an access
point's file system). :func:`finalize` points plan records at the resource's line in the
.tf file when the scan also holds the configuration, and drops the duplicate; it also drops
the Terraform copy of a manifest read with ``file()`` when the scan loaded that file itself.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import fields, replace
from typing import Any

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders import DocContext
from finlint.loaders.common.yamlload import LineDict, LineList, YamlLoadError, load_all, pin_lines

FORMAT = "terraform-plan"
_EMBEDDED = ("kubectl_manifest", "kubernetes_manifest", "aws_sfn_state_machine")
_INDEX = re.compile(r'\[(?:\d+|"[^"]*")\]')
_TRAILING_INDEX = re.compile(r"\[\d+\]$")


def claims(doc: Any) -> bool:
    return (
        isinstance(doc, dict)
        and "format_version" in doc
        and ("planned_values" in doc or "resource_changes" in doc)
    )


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    from finlint.loaders.terraform import mapping as m  # here: claims() runs on every document

    result = ir.LoadResult()
    unknowns = {
        rc.get("address"): (rc.get("change") or {}).get("after_unknown")
        for rc in doc.get("resource_changes") or []
        if isinstance(rc, dict)
    }
    refs = _config_refs(doc.get("configuration"))
    items: list[m.Item] = []
    root = (doc.get("planned_values") or {}).get("root_module") or {}
    for res in _resources(root):
        address = str(res.get("address", ""))
        rtype = str(res.get("type", ""))
        if res.get("mode", "managed") != "managed":
            continue
        values = res.get("values")
        if not isinstance(values, dict):
            values = LineDict()
        values = _shift(_mark_unknown(values, unknowns.get(address)), ctx.line_offset)
        line = ctx.line(getattr(res, "line", 1) or 1)
        end = ctx.line(getattr(res, "end_line", 0) or 0) if getattr(res, "end_line", 0) else line
        loc = ir.Location(ctx.file, line, max(line, end))
        values.line, values.end_line = line, loc.end_line
        if rtype in _EMBEDDED:
            result.extend(_embedded(rtype, address, values, loc, ctx))
            continue
        if rtype not in m.MAPPED_TYPES:
            continue
        base = _INDEX.sub("", address)
        items.append(
            m.Item(rtype, address, values, loc, FORMAT, 1, refs=refs.get(base, {}), extra={"from_plan": True})
        )
    if not items and not result.records and "planned_values" not in doc:
        result.notices.append(
            ir.Notice(ctx.file, 1, "plan has no planned_values (a destroy plan?); nothing read")
        )
    result.records.extend(m.map_items(items))
    return result


def _resources(module: Any) -> list[Any]:
    if not isinstance(module, dict):
        return []
    out = [r for r in module.get("resources") or [] if isinstance(r, dict)]
    for child in module.get("child_modules") or []:
        out.extend(_resources(child))
    return out


def _mark_unknown(values: Any, unknown: Any) -> Any:
    """Apply ``after_unknown``: ``true`` marks a value (present or omitted) as unknown."""
    if unknown is True:
        return Unknown("known after apply")
    if isinstance(values, dict) and isinstance(unknown, dict):
        for key, flag in unknown.items():
            if flag is True or key in values:
                values[key] = _mark_unknown(values.get(key), flag)
                if isinstance(values, LineDict) and key not in (getattr(values, "key_lines", None) or {}):
                    values.key_lines = {**(getattr(values, "key_lines", None) or {}), key: values.line}
    elif isinstance(values, list) and isinstance(unknown, list):
        for i, flag in enumerate(unknown[: len(values)]):
            values[i] = _mark_unknown(values[i], flag)
    return values


def _shift(value: Any, offset: int) -> Any:
    if not offset:
        return value
    if isinstance(value, LineDict):
        value.line += offset
        value.end_line += offset
        value.key_lines = {k: v + offset for k, v in (getattr(value, "key_lines", None) or {}).items()}
        for v in value.values():
            _shift(v, offset)
    elif isinstance(value, LineList):
        value.line += offset
        value.end_line += offset
        value.item_lines = [v + offset for v in (getattr(value, "item_lines", None) or [])]
        for v in value:
            _shift(v, offset)
    return value


def _config_refs(config: Any) -> dict[str, dict[str, str]]:
    """``configuration`` section: resource address -> {argument path: referenced resource address}."""
    out: dict[str, dict[str, str]] = {}

    def walk_module(module: Any, prefix: str) -> None:
        if not isinstance(module, dict):
            return
        for res in module.get("resources") or []:
            if isinstance(res, dict) and res.get("address"):
                refs: dict[str, str] = {}
                _expr_refs(res.get("expressions"), "", prefix, refs)
                out[prefix + str(res["address"])] = refs
        for name, call in (module.get("module_calls") or {}).items():
            if isinstance(call, dict):
                walk_module(call.get("module"), f"{prefix}module.{name}.")

    if isinstance(config, dict):
        walk_module(config.get("root_module"), "")
    return out


def _expr_refs(expr: Any, path: str, prefix: str, refs: dict[str, str]) -> None:
    if isinstance(expr, list):
        for block in expr[:1]:
            _expr_refs(block, path, prefix, refs)
        return
    if not isinstance(expr, dict):
        return
    if "references" in expr and isinstance(expr["references"], list):
        for ref in expr["references"]:
            parts = str(ref).split(".")
            if (
                len(parts) >= 2
                and "_" in parts[0]
                and parts[0] not in ("var", "local", "module", "data", "each")
            ):
                refs[path.rstrip(".")] = prefix + _INDEX.sub("", f"{parts[0]}.{parts[1]}")
                break
        return
    for key, value in expr.items():
        _expr_refs(value, f"{path}{key}.", prefix, refs)


def _embedded(rtype: str, address: str, values: Any, loc: ir.Location, ctx: DocContext) -> ir.LoadResult:
    from finlint.loaders.terraform import mapping as m

    result = ir.LoadResult()
    key = {"kubectl_manifest": "yaml_body", "kubernetes_manifest": "manifest"}.get(rtype, "definition")
    value, line = m.get(values, key)
    line = line or loc.line
    sub = DocContext(file=ctx.file, lines=ctx.lines, address_prefix=f"{address}/", options=ctx.options)
    docs: list[Any]
    if isinstance(value, str):
        try:
            docs = load_all(value, is_json=value.lstrip().startswith("{"))
        except YamlLoadError as exc:
            result.errors.append(ir.LoadError(ctx.file, line, f"{address}: {key}: {exc.message}"))
            return result
        docs = [pin_lines(d, line) for d in docs]
    elif isinstance(value, dict):
        docs = [value]
    else:
        return result
    if rtype == "aws_sfn_state_machine":
        from finlint.loaders import sagemaker_api

        if docs and isinstance(docs[0], dict):
            for job in sagemaker_api.training_jobs_from_asl(docs[0], sub, f"{address}/", line):
                result.records.append(_tag(job, address))
        return result
    from finlint.loaders import kubernetes

    loaded = kubernetes.load_documents(docs, sub)
    result.records.extend(_tag(r, address) for r in loaded.records)
    result.errors.extend(loaded.errors)
    result.notices.extend(loaded.notices)
    return result


def _tag(record: ir.Record, address: str) -> ir.Record:
    extra = dict(record.extra)
    extra.setdefault("tf_address", address)
    extra["from_plan"] = True
    return record.with_changes(extra=extra)


def finalize(records: list[ir.Record]) -> list[ir.Record]:
    """Join plan records with the configuration's records of the same resource, then drop
    Terraform copies of manifests that the scan also loaded from their own file."""
    return _drop_file_copies(_join_plan(records))


def _join_plan(records: list[ir.Record]) -> list[ir.Record]:
    """Same address: keep the plan's values (fully resolved) at the .tf lines. A plan instance
    of a counted resource (``x[0]``) whose configuration record is in the scan: keep the
    configuration record (it carries the count). Embedded objects: keep the configuration's
    (its lines are inside the heredoc).

    One scan may hold several configurations that use the same address (two roots, each with
    ``aws_sagemaker_training_job.pretrain``): a plan joins the configuration record of its own
    directory (or of the one directory above it), never one of another root.
    """
    config: dict[str, list[ir.Record]] = {}
    for r in records:
        if "tf_address" in r.extra and not r.extra.get("from_plan"):
            config.setdefault(r.address, []).append(r)
    if not config:
        return records
    out: list[ir.Record] = []
    replaced: set[int] = set()
    for r in records:
        if not r.extra.get("from_plan"):
            continue
        twin = _twin(r, config.get(r.address, []))
        if twin is not None and "/" not in r.address:
            lines = {k: twin.attr_lines.get(k, twin.location.line) for k in r.attr_lines}
            extra = dict(r.extra)
            extra["plan_location"] = str(r.location)
            changes: dict[str, Any] = {"location": twin.location, "attr_lines": lines, "extra": extra}
            if isinstance(r, ir.Volume) and isinstance(twin, ir.Volume) and r.mounts:
                changes["mounts"] = _mounts_at(r.mounts, twin)
            out.append(r.with_changes(**changes))
            replaced.add(id(twin))
        elif twin is not None or _twin(r, config.get(_TRAILING_INDEX.sub("", r.address), [])) is not None:
            continue  # the configuration record stands for it
        else:
            out.append(r)
    for r in records:
        if r.extra.get("from_plan"):
            continue
        if id(r) in replaced:
            continue
        out.append(r)
    return out


def _twin(plan_record: ir.Record, candidates: list[ir.Record]) -> ir.Record | None:
    """The configuration record a plan record stands for: same address, in the plan file's
    directory (or, for a plan written to a sub-folder such as ``plans/``, its parent); else the
    scan's only configuration record of that address."""
    if not candidates:
        return None
    plan_dir = posixpath.dirname(_norm(plan_record.location.file))
    for directory in (plan_dir, posixpath.dirname(plan_dir)):
        for c in candidates:
            if posixpath.dirname(_norm(c.location.file)) == directory:
                return c
    return candidates[0] if len(candidates) == 1 else None


def _mounts_at(mounts: tuple[ir.Mount, ...], twin: ir.Volume) -> tuple[ir.Mount, ...]:
    """A plan workload's mounts at the lines of the configuration's same mounts."""
    lines = {(m.volume, m.mount_path): m.line for m in twin.mounts if isinstance(m.mount_path, str)}
    return tuple(
        replace(
            m,
            line=lines.get((m.volume, m.mount_path) if isinstance(m.mount_path, str) else ("", ""))
            or twin.location.line,
        )
        for m in mounts
    )


def _unknowns(record: ir.Record) -> int:
    count = sum(isinstance(getattr(record, f.name), Unknown) for f in fields(record))
    for mount in getattr(record, "mounts", ()):
        count += sum(isinstance(getattr(mount, f.name), Unknown) for f in fields(mount))
    for req in getattr(record, "requirements", ()):  # a placeholder in a zone requirement
        count += sum("${" in v or "{{" in v for v in req.values)
    return count


def _drop_file_copies(records: list[ir.Record]) -> list[ir.Record]:
    """A manifest read by ``file()`` / ``templatefile()`` (``extra["tf_source_file"]``) whose
    file the scan also loaded on its own gives the same object twice. Keep the standalone
    record (its lines are the manifest's own), unless the Terraform copy knows more: a
    template whose variables Terraform fills leaves placeholders (unknowns) in the file.
    """
    copies = [r for r in records if isinstance(r.extra.get("tf_source_file"), str)]
    if not copies:
        return records
    standalone = {
        (_norm(r.location.file), r.address): r
        for r in records
        if r.source_format == "kubernetes" and "tf_address" not in r.extra
    }
    dropped: set[int] = set()
    for r in copies:
        prefix = f"{r.extra.get('tf_address')}/"
        if not r.address.startswith(prefix):
            continue
        twin = standalone.get((_norm(str(r.extra["tf_source_file"])), r.address[len(prefix) :]))
        if twin is None or id(twin) in dropped:
            continue
        dropped.add(id(twin) if _unknowns(r) < _unknowns(twin) else id(r))
    # A template whose name is a placeholder (``name: ${name}``) has no twin by address; the
    # copy Terraform rendered with its variables stands for it.
    sources = {_norm(str(r.extra["tf_source_file"])) for r in copies}
    for key, r in standalone.items():
        if key[0] in sources and getattr(r.name, "template", None) is not None:
            dropped.add(id(r))
    return [r for r in records if id(r) not in dropped]


def _norm(path: str) -> str:
    return posixpath.normpath(path.replace("\\", "/"))
