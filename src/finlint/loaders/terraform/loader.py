"""Terraform HCL: a directory is one configuration, loaded as Terraform sees it.

Variables are bound from defaults, ``terraform.tfvars`` / ``*.auto.tfvars`` (and their
``.json`` forms), ``--var-file`` and ``--var``; ``local.*``, references to literal
arguments of other resources, ``count`` / ``for_each`` and local modules are resolved by
:mod:`terraform_eval`. Remote modules are never fetched: the copies listed in
``.terraform/modules/modules.json`` are used when present, the EKS module's node-group maps
are read from the caller's inputs, anything else is skipped with one notice. Records come
from :mod:`terraform_map`, shared with the plan loader.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders.base import DocContext, no_finalize
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform import mapping as m
from finlint.loaders.terraform.eval import EvalError, Evaluator, to_string
from finlint.yamlload import LineDict, LineList, YamlLoadError, load_all, pin_lines

FORMAT = "terraform"
finalize = no_finalize  # no whole-scan pass
MAX_MODULE_DEPTH = 12
MAX_INSTANCES = 256  # for_each keys expanded one by one; beyond that: one record, multiplied
_META_ARGS = {"count", "for_each", "provider", "depends_on", "lifecycle", "provisioner", "connection"}
_MODULE_META = {"source", "version", "count", "for_each", "providers", "depends_on"}
_EKS_SOURCE = re.compile(
    r"^(?:registry\.terraform\.io/)?terraform-aws-modules/eks/aws"
    r"(?://modules/(eks-managed-node-group|self-managed-node-group))?$"
)
_NOT_RESOURCE_ROOTS = {"var", "local", "data", "module", "each", "count", "path", "terraform", "self"}
UNKNOWN_TEXT = "${unknown}"


@dataclass
class _File:
    path: Path
    display: str
    text: str
    body: h.Body

    @property
    def lines(self) -> list[str]:
        return self.text.splitlines()


@dataclass
class _Decl:
    block: h.Block
    file: _File


@dataclass
class _Run:
    """State of one load_directory call."""

    root: Path
    display: Callable[[Path], str]
    options: dict[str, Any]
    result: ir.LoadResult = field(default_factory=ir.LoadResult)
    items: list[m.Item] = field(default_factory=list)
    embedded: list[ir.Record] = field(default_factory=list)
    modules_json: dict[str, Path] | None = None
    notified: set[str] = field(default_factory=set)

    def notice(self, file: str, line: int, message: str) -> None:
        if message not in self.notified:
            self.notified.add(message)
            self.result.notices.append(ir.Notice(file, line, message))


# --- entry points --------------------------------------------------------------------------------


def load_directory(
    directory: Path, files: list[Path], display: Callable[[Path], str], options: dict[str, Any] | None = None
) -> ir.LoadResult:
    """All resources of the configuration in ``directory`` (``files`` are its .tf files)."""
    run = _Run(directory, display, dict(options or {}))
    parsed = _parse_files(run, sorted(files))
    tfvars = _root_tfvars(run, directory)
    try:
        module = _Module(run, directory, parsed, "", None, tfvars, 0, ())
        module.load()
        run.result.records.extend(m.map_items(run.items))
    except RecursionError:
        run.result.errors.append(
            ir.LoadError(display(directory), 1, "configuration is nested too deeply to load")
        )
    run.result.records.extend(run.embedded)
    return run.result


def module_directories(dirs: Iterable[Path]) -> set[Path]:
    """Directories that another of ``dirs`` calls as a local module (not to be loaded standalone)."""
    candidates = {d.resolve(): d for d in dirs}
    called: set[Path] = set()
    for d in candidates.values():
        for tf in sorted(d.glob("*.tf")):
            try:
                body = h.parse_text(tf.read_text("utf-8"))
            except (h.HclError, OSError, UnicodeDecodeError):
                continue
            for block in body.blocks_of("module"):
                source = block.body.attrs.get("source")
                if source is None or not isinstance(source.expr, h.Template):
                    continue
                text = "".join(p for p in source.expr.parts if isinstance(p, str))
                if text.startswith(("./", "../")):
                    target = (d / text).resolve()
                    if target in candidates and target != d.resolve():
                        called.add(candidates[target])
    return called


# --- files -----------------------------------------------------------------------------------------


def _read(run: _Run, path: Path) -> str | None:
    shown = run.display(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        run.result.errors.append(ir.LoadError(shown, 1, f"cannot read file: {exc.strerror or exc}"))
        return None
    if len(raw) > h.MAX_FILE_BYTES:
        run.result.errors.append(ir.LoadError(shown, 1, "file is larger than 4 MiB; not parsed"))
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        run.result.errors.append(ir.LoadError(shown, 1, "not UTF-8 text (a binary file?)"))
        return None


def _parse_files(run: _Run, files: list[Path]) -> list[_File]:
    out: list[_File] = []
    for path in files:
        text = _read(run, path)
        if text is None:
            continue
        shown = run.display(path)
        try:
            body = h.parse_text(text)
        except h.HclError as exc:
            run.result.errors.append(ir.LoadError(shown, exc.line, exc.message))
            continue
        for name, line in _duplicates(body):
            run.result.notices.append(
                ir.Notice(
                    shown, line, f"argument {name!r} is defined twice in one block; the last one is used"
                )
            )
        out.append(_File(path, shown, text, body))
    return out


def _duplicates(body: h.Body) -> list[tuple[str, int]]:
    out = list(body.duplicates)
    for block in body.blocks:
        out.extend(_duplicates(block.body))
    return out


def _root_tfvars(run: _Run, directory: Path) -> dict[str, Any]:
    """Variable values in Terraform's precedence: tfvars, auto.tfvars, --var-file, --var."""
    paths: list[Path] = []
    for name in ("terraform.tfvars", "terraform.tfvars.json"):
        if (directory / name).is_file():
            paths.append(directory / name)
    paths += sorted(p for p in directory.glob("*.auto.tfvars") if p.is_file())
    paths += sorted(p for p in directory.glob("*.auto.tfvars.json") if p.is_file())
    paths += [Path(p) for p in run.options.get("tf_var_files") or []]
    values: dict[str, Any] = {}
    for path in paths:
        values.update(_tfvars_file(run, path))
    for key, raw in (run.options.get("tf_vars") or {}).items():
        values[key] = _cli_var(str(raw))
    return values


class _ConstScope:
    """tfvars files allow no references: everything but literals is unknown."""

    def variable(self, name: str) -> Any:
        return Unknown("tfvars cannot refer to variables")

    def local(self, name: str) -> Any:
        return Unknown("tfvars cannot refer to locals")

    def resource_attr(self, rtype: str, name: str, attr: str) -> Any:
        return Unknown("tfvars cannot refer to resources")

    def path(self, which: str) -> Any:
        return Unknown("path in tfvars")

    def read_file(self, path: str) -> str | None:
        return None


def _tfvars_file(run: _Run, path: Path) -> dict[str, Any]:
    text = _read(run, path)
    if text is None:
        return {}
    shown = run.display(path)
    if path.name.endswith(".json"):
        try:
            docs = load_all(text, is_json=True)
        except YamlLoadError as exc:
            run.result.errors.append(ir.LoadError(shown, exc.line, exc.message))
            return {}
        return dict(docs[0]) if docs and isinstance(docs[0], dict) else {}
    try:
        body = h.parse_text(text)
    except h.HclError as exc:
        run.result.errors.append(ir.LoadError(shown, exc.line, exc.message))
        return {}
    ev = Evaluator(_ConstScope())
    return {name: ev.value(attr.expr) for name, attr in body.attrs.items()}


def _cli_var(raw: str) -> Any:
    """``--var k=v``: an HCL literal when it parses as a number/bool/list/map, else the string."""
    text = raw.strip()
    if text[:1] in "[{" or text in ("true", "false", "null") or re.fullmatch(r"-?\d+(\.\d+)?", text):
        expr = h.parse_expression(text, 1)
        if not isinstance(expr, h.Opaque):
            return Evaluator(_ConstScope()).value(expr)
    return raw


# --- one module instance -----------------------------------------------------------------------


class _Module:
    """A module instance: its declarations, bound variables, and the :class:`Scope` for evaluation."""

    def __init__(
        self,
        run: _Run,
        directory: Path,
        files: list[_File],
        prefix: str,
        inputs: dict[str, Any] | None,
        tfvars: dict[str, Any],
        depth: int,
        stack: tuple[Path, ...],
    ) -> None:
        self.run = run
        self.directory = directory
        self.files = files
        self.prefix = prefix
        self.inputs = inputs
        self.tfvars = tfvars
        self.depth = depth
        self.stack = stack + (directory.resolve(),)
        self.variables: dict[str, _Decl] = {}
        self.locals: dict[str, tuple[h.Attribute, _File]] = {}
        self.resources: dict[tuple[str, str], _Decl] = {}
        self.module_calls: list[_Decl] = []
        self._var_cache: dict[str, Any] = {}
        self._local_cache: dict[str, Any] = {}
        self._computing: set[str] = set()
        for f in files:
            for block in f.body.blocks:
                if block.type == "variable" and block.labels:
                    self.variables[block.labels[0]] = _Decl(block, f)
                elif block.type == "locals":
                    for name, attr in block.body.attrs.items():
                        self.locals[name] = (attr, f)
                elif block.type == "resource" and len(block.labels) == 2:
                    self.resources[(block.labels[0], block.labels[1])] = _Decl(block, f)
                elif block.type == "module" and block.labels:
                    self.module_calls.append(_Decl(block, f))

    # -- Scope --------------------------------------------------------------------------------

    def variable(self, name: str) -> Any:
        if name not in self._var_cache:
            self._var_cache[name] = self._variable(name)
        return self._var_cache[name]

    def _variable(self, name: str) -> Any:
        if self.inputs is not None and name in self.inputs:
            return self.inputs[name]
        if self.inputs is None and name in self.tfvars:
            return self._typed(name, self.tfvars[name])
        decl = self.variables.get(name)
        if decl is None:
            return Unknown(f"var.{name} is not declared")
        default = decl.block.body.attrs.get("default")
        if default is None:
            return Unknown(f"var.{name} has no default and no value in tfvars or --var")
        return Evaluator(_ConstScope()).value(default.expr)

    def _typed(self, name: str, value: Any) -> Any:
        """A ``--var`` string given for a number/bool variable converts as Terraform converts it."""
        decl = self.variables.get(name)
        if decl is None or not isinstance(value, str):
            return value
        type_attr = decl.block.body.attrs.get("type")
        type_name = type_attr.expr.name if type_attr and isinstance(type_attr.expr, h.Name) else ""
        if type_name == "number":
            try:
                return int(value) if re.fullmatch(r"-?\d+", value) else float(value)
            except ValueError:
                return Unknown(f"var.{name} is not a number")
        if type_name == "bool" and value in ("true", "false"):
            return value == "true"
        return value

    def local(self, name: str) -> Any:
        if name in self._local_cache:
            return self._local_cache[name]
        found = self.locals.get(name)
        if found is None:
            raise EvalError(f"local.{name} is not declared")
        if name in self._computing:
            return Unknown(f"local.{name} refers to itself")
        self._computing.add(name)
        try:
            value = self.evaluator(found[1]).value(found[0].expr)
        finally:
            self._computing.discard(name)
        self._local_cache[name] = value
        return value

    def resource_attr(self, rtype: str, name: str, attr: str) -> Any:
        decl = self.resources.get((rtype, name))
        if decl is None:
            return Unknown(f"{rtype}.{name} is not in this configuration")
        body = decl.block.body
        if "count" in body.attrs or "for_each" in body.attrs:
            return Unknown(f"{rtype}.{name} has several instances")
        target = body.attrs.get(attr)
        blocks = [b for b in body.blocks if b.type == attr] if target is None else []
        if target is None and not blocks:
            return Unknown(f"{rtype}.{name}.{attr} is known only after apply")
        key = f"\x00{rtype}.{name}.{attr}"
        if key in self._computing:
            return Unknown("reference cycle")
        self._computing.add(key)
        try:
            ev = self.evaluator(decl.file)
            if target is not None:
                return ev.value(target.expr)
            # a nested block (``kubernetes_persistent_volume_claim_v1.x.metadata[0].name``)
            return [body_values(b.body, ev, decl.file.display) for b in blocks]
        finally:
            self._computing.discard(key)

    def path(self, which: str) -> Any:
        if which == "module":
            return str(self.directory)
        if which == "root":
            return str(self.run.root)
        if which == "cwd":
            return "."
        return Unknown(f"path.{which}")

    def file_path(self, path: str) -> Path | None:
        """The file ``file(path)`` reads: relative to the CWD, else to the root module."""
        p = Path(path)
        if not p.is_absolute() and not p.exists():
            p = self.run.root / p
        try:
            return p if p.is_file() else None
        except OSError:
            return None

    def read_file(self, path: str) -> str | None:
        p = self.file_path(path)
        try:
            if p is not None and p.stat().st_size <= h.MAX_FILE_BYTES:
                return p.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return None

    def evaluator(self, file: _File, **names: Any) -> Evaluator:
        ev = Evaluator(self, names)
        ev.file = file.display  # type: ignore[attr-defined]
        return ev

    # -- loading ------------------------------------------------------------------------------

    def load(self) -> None:
        for (rtype, rname), decl in self.resources.items():
            if rtype in m.MAPPED_TYPES or rtype in _EMBEDDED:
                self._resource(rtype, rname, decl)
        for call in self.module_calls:
            self._module_call(call)

    def _instances(self, decl: _Decl) -> list[tuple[str, dict[str, Any], Any]]:
        """``(address suffix, names, multiplier)`` per instance Terraform would create."""
        body = decl.block.body
        ev = self.evaluator(decl.file)
        if "for_each" in body.attrs:
            coll = ev.value(body.attrs["for_each"].expr)
            if isinstance(coll, Unknown):
                return [
                    ("", {"each": Unknown(f"for_each: {coll.reason}")}, Unknown(f"for_each: {coll.reason}"))
                ]
            if isinstance(coll, dict):
                pairs = [(k, coll[k]) for k in sorted(coll)]
            elif isinstance(coll, list):
                pairs = [(to_string(v), v) for v in coll if isinstance(v, (str, int, float))]
            else:
                return [("", {"each": Unknown("for_each")}, Unknown("for_each is not a map or set"))]
            if len(pairs) > MAX_INSTANCES:
                return [("", {"each": Unknown("many instances")}, len(pairs))]
            return [(f'["{k}"]', {"each": {"key": k, "value": v}}, 1) for k, v in pairs]
        if "count" in body.attrs:
            count = ev.value(body.attrs["count"].expr)
            if isinstance(count, Unknown):
                return [("", {"count": {"index": Unknown("count.index")}}, Unknown(f"count: {count.reason}"))]
            if isinstance(count, bool) or not isinstance(count, (int, float)):
                return [("", {"count": {"index": Unknown("count.index")}}, Unknown("count is not a number"))]
            n = int(count)
            if n <= 0:
                return []
            index: Any = 0 if n == 1 else Unknown("count.index of several instances")
            return [("", {"count": {"index": index}}, n)]
        return [("", {}, 1)]

    def _resource(self, rtype: str, rname: str, decl: _Decl) -> None:
        base = f"{self.prefix}{rtype}.{rname}"
        for suffix, names, multiplier in self._instances(decl):
            ev = self.evaluator(decl.file, **names)
            address = base + suffix
            if rtype in _EMBEDDED:
                _EMBEDDED[rtype](self, decl, ev, address)
                continue
            values = body_values(decl.block.body, ev, decl.file.display)
            values.line, values.end_line = decl.block.line, decl.block.end_line
            self.run.items.append(
                m.Item(
                    rtype,
                    address,
                    values,
                    ir.Location(decl.file.display, decl.block.line, decl.block.end_line),
                    FORMAT,
                    multiplier,
                    refs=body_refs(decl.block.body, self.prefix),
                    extra={"tf_module_prefix": self.prefix} if self.prefix else {},
                )
            )

    # -- modules ------------------------------------------------------------------------------

    def _module_call(self, call: _Decl) -> None:
        name = call.block.labels[0]
        body = call.block.body
        shown = call.file.display
        src_attr = body.attrs.get("source")
        source = self.evaluator(call.file).value(src_attr.expr) if src_attr else None
        if not isinstance(source, str):
            self.run.notice(
                shown, call.block.line, f"module {name!r}: source is not a literal string; skipped"
            )
            return
        for suffix, names, multiplier in self._instances(call):
            ev = self.evaluator(call.file, **names)
            prefix = f"{self.prefix}module.{name}{suffix}."
            eks = _EKS_SOURCE.match(source)
            if eks:
                _eks_module(self, call, ev, prefix, eks.group(1), multiplier)
                continue
            directory = self._module_dir(name, source, shown, call.block.line)
            if directory is None:
                continue
            if directory.resolve() in self.stack or self.depth >= MAX_MODULE_DEPTH:
                self.run.notice(
                    shown, call.block.line, f"module {name!r}: module nesting too deep or cyclic; skipped"
                )
                continue
            inputs = {k: ev.value(a.expr) for k, a in body.attrs.items() if k not in _MODULE_META}
            files = _parse_files(self.run, sorted(directory.glob("*.tf")))
            child = _Module(self.run, directory, files, prefix, inputs, {}, self.depth + 1, self.stack)
            child.load()

    def _module_dir(self, name: str, source: str, shown: str, line: int) -> Path | None:
        if source.startswith(("./", "../")):
            directory = self.directory / source
            if directory.is_dir():
                return directory
            self.run.notice(shown, line, f"module {name!r}: local source {source!r} not found; skipped")
            return None
        key = ".".join(re.findall(r"module\.([^.\[]+)", self.prefix) + [name])
        found = _modules_json(self.run).get(key)
        if found is not None and found.is_dir():
            return found
        self.run.notice(
            shown,
            line,
            f"module {name!r}: remote source {source!r} is not downloaded "
            "(run `terraform init` to scan it); skipped",
        )
        return None


def _modules_json(run: _Run) -> dict[str, Path]:
    """``.terraform/modules/modules.json`` (written by ``terraform init``): module key -> local copy."""
    if run.modules_json is None:
        run.modules_json = {}
        path = run.root / ".terraform" / "modules" / "modules.json"
        try:
            data = json.loads(path.read_text("utf-8")) if path.is_file() else {}
        except (OSError, ValueError):
            data = {}
        for entry in data.get("Modules", []) if isinstance(data, dict) else []:
            if isinstance(entry, dict) and entry.get("Key") and entry.get("Dir"):
                run.modules_json[str(entry["Key"])] = run.root / str(entry["Dir"])
    return run.modules_json


# --- resource bodies -----------------------------------------------------------------------------


def body_values(body: h.Body, ev: Evaluator, src: str) -> LineDict:
    """A block body as plan-JSON-shaped values: arguments, and nested blocks as lists of dicts."""
    out = LineDict()
    out.key_lines = {}
    out.src = src  # type: ignore[attr-defined]
    for name, attr in body.attrs.items():
        if name in _META_ARGS:
            continue
        out[name] = ev.value(attr.expr)
        out.key_lines[name] = attr.line
    for block in body.blocks:
        if block.type in _META_ARGS:
            continue
        if block.type == "dynamic" and block.labels:
            _dynamic(out, block, ev, src)
            continue
        child = body_values(block.body, ev, src)
        child.line, child.end_line = block.line, block.end_line
        _append_block(out, block.type, child, block.line)
    return out


def _append_block(out: LineDict, name: str, child: Any, line: int) -> None:
    existing = out.get(name)
    if isinstance(existing, Unknown):
        return
    if not isinstance(existing, LineList):
        existing = LineList()
        existing.line = existing.end_line = line
        existing.item_lines = []
        out[name] = existing
        out.key_lines[name] = line
    existing.append(child)
    existing.item_lines.append(line)


def _dynamic(out: LineDict, block: h.Block, ev: Evaluator, src: str) -> None:
    name = block.labels[0]
    for_each = block.body.attrs.get("for_each")
    content = next((b for b in block.body.blocks if b.type == "content"), None)
    if for_each is None or content is None:
        return
    coll = ev.value(for_each.expr)
    iterator = block.body.attrs.get("iterator")
    it_name = iterator.expr.name if iterator and isinstance(iterator.expr, h.Name) else name
    if isinstance(coll, Unknown):
        out[name] = Unknown(f"dynamic {name}: for_each {coll.reason}")
        out.key_lines[name] = block.line
        return
    pairs = [(k, coll[k]) for k in sorted(coll)] if isinstance(coll, dict) else list(enumerate(coll or []))
    for k, v in pairs:
        child = body_values(content.body, ev.child(**{it_name: {"key": k, "value": v}}), src)
        child.line, child.end_line = block.line, block.end_line
        _append_block(out, name, child, block.line)


def ref_address(expr: h.Expr, prefix: str) -> str | None:
    """The managed resource an expression points at (``aws_x.y.id`` -> ``aws_x.y``), syntactically."""
    if isinstance(expr, h.Template) and len(expr.parts) == 1 and not isinstance(expr.parts[0], str):
        expr = expr.parts[0]
    steps: list[str] = []
    node = expr
    while isinstance(node, (h.GetAttr, h.Index)):
        if isinstance(node, h.GetAttr):
            steps.append(node.name)
        node = node.obj
    if not isinstance(node, h.Name) or node.name in _NOT_RESOURCE_ROOTS or "_" not in node.name or not steps:
        return None
    steps.reverse()
    return f"{prefix}{node.name}.{steps[0]}"


def body_refs(body: h.Body, prefix: str, path: str = "") -> dict[str, str]:
    refs: dict[str, str] = {}
    for name, attr in body.attrs.items():
        target = ref_address(attr.expr, prefix)
        if target:
            refs[path + name] = target
    for block in body.blocks:
        for key, target in body_refs(block.body, prefix, f"{path}{block.type}.").items():
            refs.setdefault(key, target)
    return refs


# --- embedded documents: Kubernetes manifests and Step Functions definitions ---------------------


def render(template: h.Template, ev: Evaluator) -> tuple[str, int]:
    """Template text with known interpolations filled in and unknown ones as ``${unknown}``.

    Downstream loaders treat ``${...}`` as a template placeholder (unknown). Outside a quoted
    string the placeholder is quoted, so JSON stays JSON.
    """
    out: list[str] = []
    unknown = 0
    for part in template.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        value = ev.value(part)
        text: str | None = None
        if not isinstance(value, Unknown):
            try:
                text = to_string(value)
            except EvalError:
                text = None
        if text is None:
            unknown += 1
            current = "".join(out).rsplit("\n", 1)[-1]
            in_string = (current.count('"') - current.count('\\"')) % 2 == 1
            text = UNKNOWN_TEXT if in_string else f'"{UNKNOWN_TEXT}"'
        out.append(text)
    return "".join(out), unknown


def _with_lines(value: Any, line: int) -> Any:
    """Give computed dicts/lists (merge(), for) the line of the argument they came from."""
    if isinstance(value, dict):
        out = value if isinstance(value, LineDict) else LineDict(value)
        if not isinstance(value, LineDict):
            out.line = out.end_line = line
            out.key_lines = dict.fromkeys(out, line)
        for k in list(out):
            out[k] = _with_lines(out[k], getattr(out, "key_lines", {}).get(k, line))
        return out
    if isinstance(value, list):
        items = value if isinstance(value, LineList) else LineList(value)
        if not isinstance(value, LineList):
            items.line = items.end_line = line
            items.item_lines = [line] * len(items)
        for i, v in enumerate(items):
            items[i] = _with_lines(v, items.item_lines[i] if i < len(items.item_lines) else line)
        return items
    return value


def _doc_text(module: _Module, attr: h.Attribute, ev: Evaluator) -> tuple[str, int, bool] | None:
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
    text = ev.scope.read_file(path)
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


def _source_file(module: _Module, expr: h.Expr, ev: Evaluator) -> str | None:
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
        normal = Path(os.path.normpath(found))
        try:
            return module.run.display(normal)
        except ValueError:  # a display function that only knows the scanned tree
            return normal.as_posix()
    for arg in expr.args:
        hit = _source_file(module, arg, ev)
        if hit is not None:
            return hit
    return None


def _load_docs(
    module: _Module, found: tuple[str, int, bool], shown: str, line: int, what: str
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


def _kubectl_manifest(module: _Module, decl: _Decl, ev: Evaluator, address: str) -> None:
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


def _kubernetes_manifest(module: _Module, decl: _Decl, ev: Evaluator, address: str) -> None:
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
    value = ev.value(expr)
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
    _k8s(module, [_with_lines(value, attr.line)], ctx, shown, attr.line, source)


def _k8s(
    module: _Module, docs: list[Any], ctx: DocContext, shown: str, line: int, source: str | None = None
) -> None:
    try:
        from finlint.loaders import kubernetes
    except ImportError:  # pragma: no cover - shipped together
        module.run.notice(shown, line, "Kubernetes loader unavailable; embedded manifests skipped")
        return
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


def _sfn_state_machine(module: _Module, decl: _Decl, ev: Evaluator, address: str) -> None:
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
        asl = _with_lines(ev.value(expr.args[0]), attr.line)
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
    module: _Module, expr: h.Call, ev: Evaluator, ctx: DocContext, line: int, address: str
) -> tuple[Any, DocContext]:
    path = ev.value(expr.args[0])
    variables = ev.value(expr.args[1])
    if not isinstance(path, str):
        return None, ctx
    text = module.read_file(path)
    if text is None:
        return None, ctx
    parts, directive = h.split_template(text, 1)
    if directive:
        return None, ctx
    names = dict(variables) if isinstance(variables, dict) else {}
    sub = Evaluator(module, {k: v for k, v in names.items()})
    # template variables are bare names; anything else in the template is unknown
    rendered, _ = render(h.Template(tuple(parts), 1), sub)
    p = Path(path) if Path(path).exists() else module.run.root / path
    try:
        docs = load_all(rendered, is_json=rendered.lstrip().startswith("{"))
    except YamlLoadError as exc:
        module.run.result.errors.append(
            ir.LoadError(module.run.display(p), exc.line, f"{address}: {exc.message}")
        )
        return None, ctx
    ctx = DocContext(
        file=module.run.display(p),
        lines=rendered.splitlines(),
        address_prefix=f"{address}/",
        options=module.run.options,
    )
    return (docs[0] if docs else None), ctx


_EMBEDDED: dict[str, Callable[[_Module, _Decl, Evaluator, str], None]] = {
    "kubectl_manifest": _kubectl_manifest,
    "kubernetes_manifest": _kubernetes_manifest,
    "aws_sfn_state_machine": _sfn_state_machine,
}


# --- terraform-aws-modules/eks/aws -----------------------------------------------------------------


def _eks_module(
    module: _Module, call: _Decl, ev: Evaluator, prefix: str, submodule: str | None, multiplier: Any
) -> None:
    """Node groups of the EKS module, read from the caller's inputs (no module code needed)."""
    body = call.block.body
    shown = call.file.display
    loc = ir.Location(shown, call.block.line, call.block.end_line)
    if submodule:  # //modules/eks-managed-node-group: the call itself is one node group
        group = body_values(body, ev, shown)
        group.line, group.end_line = call.block.line, call.block.end_line
        kind = "eks" if submodule.startswith("eks") else "self"
        resource = "aws_eks_node_group.this" if kind == "eks" else "aws_autoscaling_group.this"
        _eks_group(module, kind, prefix + resource, group, loc, multiplier)
        return
    for attr_name, kind in (("eks_managed_node_groups", "eks"), ("self_managed_node_groups", "self")):
        attr = body.attrs.get(attr_name)
        if attr is None:
            continue
        groups = ev.value(attr.expr)
        defaults_attr = body.attrs.get(f"{attr_name[:-1]}_defaults")
        defaults = ev.value(defaults_attr.expr) if defaults_attr else {}
        if isinstance(groups, Unknown) or not isinstance(groups, dict):
            module.run.notice(
                shown, attr.line, f"{prefix}{attr_name} is not static; its node groups are not read"
            )
            continue
        sub = "eks_managed_node_group" if kind == "eks" else "self_managed_node_group"
        resource = "aws_eks_node_group.this" if kind == "eks" else "aws_autoscaling_group.this"
        for key in sorted(groups):
            group = groups[key]
            if isinstance(defaults, dict) and isinstance(group, dict):
                merged = LineDict({**defaults, **group})
                merged.key_lines = {**getattr(defaults, "key_lines", {}), **getattr(group, "key_lines", {})}
                merged.line = getattr(group, "line", attr.line)
                merged.end_line = getattr(group, "end_line", attr.line)
                group = merged
            if not isinstance(group, dict):
                continue
            same_file = getattr(group, "line", 0) and _src(group) in (None, shown)
            gline = group.line if same_file else attr.line
            gend = getattr(group, "end_line", gline) if same_file else attr.end_line
            if not same_file:
                group = _with_lines(dict(group), attr.line)
            address = f'{prefix}module.{sub}["{key}"].{resource}'
            _eks_group(module, kind, address, group, ir.Location(shown, gline, max(gline, gend)), multiplier)


def _src(value: Any) -> str | None:
    return getattr(value, "src", None)


def _eks_group(
    module: _Module, kind: str, address: str, group: Any, loc: ir.Location, multiplier: Any
) -> None:
    values = LineDict(group)
    values.key_lines = dict(getattr(group, "key_lines", {}) or {})
    values.line, values.end_line = loc.line, loc.end_line
    if kind == "eks":
        # the module's names -> aws_eks_node_group's shape
        scaling = LineDict({k: group[k] for k in ("min_size", "max_size", "desired_size") if k in group})
        scaling.key_lines = {k: values.key_lines.get(k, loc.line) for k in scaling}
        values["scaling_config"] = LineList([scaling])
        values.key_lines["scaling_config"] = loc.line
        if "name" in group:
            values["node_group_name"] = group["name"]
        rtype = "aws_eks_node_group"
    else:
        values["desired_capacity"] = group.get("desired_size")
        values.key_lines["desired_capacity"] = values.key_lines.get("desired_size", loc.line)
        rtype = "aws_autoscaling_group"
        itype = group.get("instance_type")
        lt = LineDict({"instance_type": itype} if itype is not None else {})
        lt.key_lines = {"instance_type": values.key_lines.get("instance_type", loc.line)}
        for key in ("instance_market_options", "capacity_reservation_specification"):
            if key in group:
                lt[key] = _blockify(group[key])
                lt.key_lines[key] = values.key_lines.get(key, loc.line)
        lt.line, lt.end_line = loc.line, loc.end_line
        lt_address = address.replace("aws_autoscaling_group.this", "aws_launch_template.this")
        module.run.items.append(m.Item("aws_launch_template_internal", lt_address, lt, loc, FORMAT))
        item = m.Item(
            rtype, address, values, loc, FORMAT, multiplier, refs={"launch_template.id": lt_address}
        )
        module.run.items.append(item)
        return
    for key in ("instance_market_options", "capacity_reservation_specification"):
        if key in values:
            values[key] = _blockify(values[key])
    module.run.items.append(m.Item(rtype, address, values, loc, FORMAT, multiplier))


def _blockify(value: Any) -> Any:
    """Module inputs give nested objects where the resource has blocks (lists of objects)."""
    if isinstance(value, dict):
        out = LineList([LineDict({k: _blockify(v) for k, v in value.items()})])
        inner = out[0]
        inner.key_lines = dict(getattr(value, "key_lines", {}) or {})
        inner.line = getattr(value, "line", 0)
        return out
    return value
