"""One module instance: its declarations, bound variables, child modules and resources."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from finlint import ir
from finlint.confine import OutsideRoot
from finlint.ir import Unknown
from finlint.loaders.common.discovery import read_bytes
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform import mapping as m
from finlint.loaders.terraform import registry_modules, types
from finlint.loaders.terraform.embedded import EMBEDDED
from finlint.loaders.terraform.eval import EvalError, Evaluator
from finlint.loaders.terraform.files import (
    FORMAT,
    MAX_INSTANCES,
    MAX_MODULE_DEPTH,
    MODULE_META,
    TF_SUFFIXES,
    Decl,
    Run,
    TfFile,
    parse_files,
)
from finlint.loaders.terraform.functions import to_string
from finlint.loaders.terraform.tfvars import ConstScope
from finlint.loaders.terraform.values import body_refs, body_values


def _not_nullable(decl: Decl) -> bool:
    attr = decl.block.body.attrs.get("nullable")
    return attr is not None and isinstance(attr.expr, h.Lit) and attr.expr.value is False


# --- one module instance -----------------------------------------------------------------------


class Module:
    """A module instance: its declarations, bound variables, and the :class:`Scope` for evaluation."""

    def __init__(
        self,
        run: Run,
        directory: Path,
        files: list[TfFile],
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
        self.variables: dict[str, Decl] = {}
        self.locals: dict[str, tuple[h.Attribute, TfFile]] = {}
        self.resources: dict[tuple[str, str], Decl] = {}
        self.module_calls: list[Decl] = []
        self._var_cache: dict[str, Any] = {}
        self._local_cache: dict[str, Any] = {}
        self._computing: set[str] = set()
        for f in files:
            for block in f.body.blocks:
                if block.type == "variable" and block.labels:
                    self.variables[block.labels[0]] = Decl(block, f)
                elif block.type == "locals":
                    for name, attr in block.body.attrs.items():
                        self.locals[name] = (attr, f)
                elif block.type == "resource" and len(block.labels) == 2:
                    self.resources[(block.labels[0], block.labels[1])] = Decl(block, f)
                elif block.type == "module" and block.labels:
                    self.module_calls.append(Decl(block, f))

    # -- Scope --------------------------------------------------------------------------------

    def variable(self, name: str) -> Any:
        if name not in self._var_cache:
            self._var_cache[name] = self._variable(name)
        return self._var_cache[name]

    def _variable(self, name: str) -> Any:
        decl = self.variables.get(name)
        if self.inputs is not None and name in self.inputs:
            value = self.inputs[name]
            if value is None and decl is not None and _not_nullable(decl):
                value = self._default(name, decl)  # null for a non-nullable variable: its default
            return self._conform(decl, value)
        if self.inputs is None and name in self.tfvars:
            return self._conform(decl, self._typed(name, self.tfvars[name]))
        if decl is None:
            return Unknown(f"var.{name} is not declared")
        return self._conform(decl, self._default(name, decl))

    @staticmethod
    def _default(name: str, decl: Decl) -> Any:
        default = decl.block.body.attrs.get("default")
        if default is None:
            return Unknown(f"var.{name} has no default and no value in tfvars or --var")
        return Evaluator(ConstScope()).value(default.expr)

    @staticmethod
    def _conform(decl: Decl | None, value: Any) -> Any:
        """Optional object attributes the value leaves out get their defaults (``types``)."""
        type_attr = decl.block.body.attrs.get("type") if decl is not None else None
        return value if type_attr is None else types.conform(type_attr.expr, value)

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
        """``path.*`` as Terraform gives it: relative to the root module (its working
        directory), so ``file("${path.module}/x")`` opens what Terraform would open."""
        if which == "module":
            try:
                return Path(os.path.relpath(self.directory, self.run.root)).as_posix()
            except ValueError:  # another drive on Windows
                return str(self.directory)
        if which == "root":
            return "."
        if which == "cwd":
            return "."
        return Unknown(f"path.{which}")

    def _named_file(self, path: str) -> Path:
        """The file ``file(path)`` names: a relative path is relative to the root module (the
        directory ``terraform`` runs in), never to finlint's own working directory."""
        p = Path(path)
        return p if p.is_absolute() else self.run.root / p

    def file_path(self, path: str) -> Path | None:
        """The file ``file(path)`` reads; None when it is missing or lies outside the roots."""
        p = self._named_file(path)
        if not self.run.roots.contains(p):
            return None
        try:
            return p if p.is_file() else None
        except (OSError, ValueError):
            return None

    def notice(self, file: str, line: int, message: str) -> None:
        self.run.notice(file or self.run.shown(self.directory), line, message)

    def read_file(self, path: str, file: str | None = None, line: int = 1) -> str | None:
        """The text ``file(path)`` reads, or None; a path that resolves (symlinks too) outside
        the scan's roots is never opened: one notice names it (docs/security.md)."""
        p = self._named_file(path)
        if not self.run.confined(p, file if file is not None else self.run.shown(self.directory), line):
            return None
        try:
            if not p.is_file():
                return None
        except (OSError, ValueError):
            return None
        raw = read_bytes(p, h.MAX_FILE_BYTES)  # regular files only, bounded
        if isinstance(raw, str):
            return None
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def evaluator(self, file: TfFile, **names: Any) -> Evaluator:
        return Evaluator(self, names, file=file.display)

    # -- loading ------------------------------------------------------------------------------

    def load(self) -> None:
        for (rtype, rname), decl in self.resources.items():
            if rtype in m.MAPPED_TYPES or rtype in EMBEDDED:
                self._resource(rtype, rname, decl)
        for call in self.module_calls:
            self._module_call(call)

    def _instances(self, decl: Decl) -> list[tuple[str, dict[str, Any], Any]]:
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

    def _resource(self, rtype: str, rname: str, decl: Decl) -> None:
        base = f"{self.prefix}{rtype}.{rname}"
        for suffix, names, multiplier in self._instances(decl):
            ev = self.evaluator(decl.file, **names)
            address = base + suffix
            if rtype in EMBEDDED:
                EMBEDDED[rtype](self, decl, ev, address)
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

    def _module_call(self, call: Decl) -> None:
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
            modelled = registry_modules.lookup(source)
            if modelled is not None:  # read from the caller's inputs (registry_modules.py)
                modelled.load(self, call, ev, prefix, multiplier)
                continue
            directory = self._module_dir(name, source, shown, call.block.line)
            if directory is None:
                continue
            if directory.resolve() in self.stack or self.depth >= MAX_MODULE_DEPTH:
                self.run.notice(
                    shown, call.block.line, f"module {name!r}: module nesting too deep or cyclic; skipped"
                )
                continue
            inputs = {k: ev.value(a.expr) for k, a in body.attrs.items() if k not in MODULE_META}
            files = parse_files(self.run, sorted(f for s in TF_SUFFIXES for f in directory.glob(f"*{s}")))
            child = Module(self.run, directory, files, prefix, inputs, {}, self.depth + 1, self.stack)
            child.load()

    def _module_dir(self, name: str, source: str, shown: str, line: int) -> Path | None:
        if source.startswith(("./", "../")):
            directory = self.directory / source
            if not self.run.roots.contains(directory):
                where = OutsideRoot(self.run.shown(directory))
                self.run.notice(shown, line, f"module {name!r}: {where}; skipped")
                return None
            if directory.is_dir():
                return directory
            self.run.notice(shown, line, f"module {name!r}: local source {source!r} not found; skipped")
            return None
        key = ".".join(re.findall(r"module\.([^.\[]+)", self.prefix) + [name])
        found = downloaded_modules(self.run).get(key)
        if isinstance(found, OutsideRoot):
            self.run.notice(
                shown, line, f"module {name!r}: .terraform/modules/modules.json: {found}; skipped"
            )
            return None
        if found is not None and found.is_dir():
            return found
        self.run.notice(
            shown,
            line,
            f"module {name!r}: remote source {source!r} is not downloaded "
            "(run `terraform init` to scan it); skipped",
        )
        return None


def downloaded_modules(run: Run) -> dict[str, Path | OutsideRoot]:
    """``.terraform/modules/modules.json`` (written by ``terraform init``): module key -> local
    copy. The file is the repository's (it may be committed): a ``Dir`` that is absolute or
    resolves outside the roots is not a copy to read (an :class:`OutsideRoot` for that key)."""
    if run.modules_json is None:
        run.modules_json = {}
        path = run.root / ".terraform" / "modules" / "modules.json"
        data: Any = {}
        if path.is_file() and run.confined(path):
            raw = read_bytes(path, h.MAX_FILE_BYTES)
            try:
                data = json.loads(raw) if isinstance(raw, bytes) else {}
            except (ValueError, RecursionError):
                data = {}
        for entry in data.get("Modules", []) if isinstance(data, dict) else []:
            if isinstance(entry, dict) and entry.get("Key") and entry.get("Dir"):
                raw_dir = str(entry["Dir"])
                directory = run.root / raw_dir
                if Path(raw_dir).is_absolute() or not run.roots.contains(directory):
                    run.modules_json[str(entry["Key"])] = OutsideRoot(raw_dir)
                else:
                    run.modules_json[str(entry["Key"])] = directory
    return run.modules_json
