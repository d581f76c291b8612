"""Values that come from outside the launch call: config files next to the code, sibling modules.

Real launchers read ``yaml.safe_load(open("config.yaml"))`` or ``from config import
INSTANCE_TYPE``. This module reads such files *statically* (YAML/JSON/TOML are parsed as data,
a sibling ``.py`` module is walked by the same interpreter, never imported or executed) and
returns interpreter values whose scalars remember where they came from
(:func:`origin_of`), so a finding can say "instance_type from config.yaml:12" and point there.

Limits (why a value stays Unknown): a path that is not a literal, ``__file__``-relative or an
argparse default; a file outside the script's directory and its three parents (never above
the repository root, the folder with ``.git``, nor the filesystem root); a file larger
than 1 MiB; a parse error; a module not found next to the script; an import cycle.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finlint.ir import Unknown
from finlint.loaders.common.yamlload import LineDict, LineList, YamlLoadError, load_all
from finlint.loaders.sagemaker_sdk.values import DictVal


def _tomllib() -> Any:
    """Python 3.11+'s tomllib; on 3.10 a TOML config stays unknown, with that reason."""
    try:
        return importlib.import_module("tomllib")
    except ImportError:  # pragma: no cover - exercised on Python 3.10 only
        return None


MAX_CONFIG_BYTES = 1 << 20
MAX_PARENT_LEVELS = 3  # a config or module may sit up to three directories above the script
MAX_IMPORT_DEPTH = 4
CONFIG_SUFFIXES = {".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml"}
#: Top-level packages that are never looked up in the scanned tree.
EXTERNAL_ROOTS = frozenset(
    {"sagemaker", "boto3", "botocore", "argparse", "os", "sys", "json", "yaml", "omegaconf",
     "tomllib", "toml", "pathlib", "typing", "dataclasses", "stepfunctions", "datetime", "time"}
)  # fmt: skip


# --- scalars that remember their origin ---------------------------------------------------------


class OriginStr(str):
    origin: tuple[str, int]


class OriginInt(int):
    origin: tuple[str, int]


class OriginFloat(float):
    origin: tuple[str, int]


class OriginBool(int):
    """A config ``true``/``false`` (``bool`` cannot be subclassed): an int 1/0 that shows and
    converts as the bool; the loader turns it back into a ``bool`` for the IR."""

    origin: tuple[str, int]
    is_bool = True

    def __repr__(self) -> str:
        return repr(bool(self))

    __str__ = __repr__


def with_origin(value: Any, file: str, line: int) -> Any:
    """``value`` tagged with ``(file, line)``; None cannot carry a tag."""
    cls: type[Any] | None = None
    if isinstance(value, bool):
        cls = OriginBool
    elif isinstance(value, str):
        cls = OriginStr
    elif isinstance(value, int) and not isinstance(value, bool):
        cls = OriginInt
    elif isinstance(value, float):
        cls = OriginFloat
    if cls is None:
        return value
    tagged = cls(value)
    tagged.origin = (file, line)
    return tagged


def origin_of(value: Any) -> tuple[str, int] | None:
    found = getattr(value, "origin", None)
    return found if isinstance(found, tuple) else None


# --- paths and files ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PathVal:
    """A filesystem path known statically (from ``__file__`` or a literal)."""

    path: str  # absolute, normalised


@dataclass(eq=False)
class FileVal:
    """An opened file (``open(path)``, ``f.read()``): what a loader function may parse."""

    path: str


@dataclass(eq=False)
class ModuleVal:
    """A sibling module of the scanned tree, walked statically: its module-level names."""

    name: str
    vars: dict[str, Any]


@dataclass(eq=False)
class Sources:
    """Where the script lives and what was already read (one per analysed file)."""

    script: Path
    display: str
    modules: dict[str, ModuleVal | None] = field(default_factory=dict)
    importing: tuple[str, ...] = ()
    files_read: dict[str, Any] = field(default_factory=dict)
    inputs: set[str] = field(default_factory=set)  # display paths of the files values came from
    _base: str | None = None

    @property
    def script_dir(self) -> str:
        return posixpath.normpath(self.script.resolve().parent.as_posix())

    def allowed(self, path: str) -> bool:
        """Inside the script's folder or up to three above it, never above the repository
        root (the folder holding ``.git``) nor at the filesystem root."""
        return path == self.base or path.startswith(self.base.rstrip("/") + "/")

    @property
    def base(self) -> str:
        if self._base is None:
            base = self.script_dir
            for _ in range(MAX_PARENT_LEVELS):
                parent = posixpath.dirname(base)
                if os.path.exists(posixpath.join(base, ".git")) or parent in ("/", "", base):
                    break
                base = parent
            self._base = base
        return self._base

    def shown(self, path: str) -> str:
        """``path`` as the findings show it: relative to the script's display path."""
        rel = os.path.relpath(path, self.script_dir)
        return posixpath.normpath(posixpath.join(posixpath.dirname(self.display), rel))

    def resolve(self, value: Any) -> str | Unknown:
        """An absolute path for ``open(value)``: a PathVal, or a string relative to the script."""
        if isinstance(value, PathVal):
            return value.path
        if isinstance(value, FileVal):
            return value.path
        if isinstance(value, str):
            if posixpath.isabs(value):
                return posixpath.normpath(value)
            return posixpath.normpath(posixpath.join(self.script_dir, value))
        reason = value.reason if isinstance(value, Unknown) else "the path is not known statically"
        return Unknown(f"config file path: {reason}")

    # -- config files ----------------------------------------------------------------------------
    def load_config(self, value: Any, kind: str | None = None) -> Any:
        """The parsed contents of a config file as interpreter values, or Unknown with why."""
        path = self.resolve(value)
        if isinstance(path, Unknown):
            return path
        shown = self.shown(path)
        if not self.allowed(path):
            return Unknown(f"config file {shown} is outside the scanned code")
        if os.path.isfile(path):
            self.inputs.add(shown)
        if path in self.files_read:
            return self.files_read[path]
        out = self._read_config(path, shown, kind)
        self.files_read[path] = out
        return out

    def _read_config(self, path: str, shown: str, kind: str | None) -> Any:
        kind = kind or CONFIG_SUFFIXES.get(posixpath.splitext(path)[1].lower(), "yaml")
        try:
            if os.path.getsize(path) > MAX_CONFIG_BYTES:
                return Unknown(f"config file {shown} is larger than 1 MiB; not read")
            raw = Path(path).read_bytes()
            text = raw.decode("utf-8-sig")
        except FileNotFoundError:
            return Unknown(f"config file {shown} is not in the scanned tree")
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # ValueError: a NUL in the path
            return Unknown(f"config file {shown} cannot be read ({exc.__class__.__name__})")
        try:
            if kind == "toml":
                _toml = _tomllib()  # imported here: most scans read no TOML config
                if _toml is None:
                    return Unknown(f"config file {shown} is TOML; reading it needs Python 3.11")
                return to_value(_toml.loads(text), shown, 1)
            docs = load_all(text, is_json=kind == "json")
        except (YamlLoadError, json.JSONDecodeError, ValueError) as exc:  # TOMLDecodeError is one
            return Unknown(f"config file {shown} does not parse: {exc}")
        if not docs:
            return Unknown(f"config file {shown} is empty")
        return to_value(docs[0], shown, 1)

    # -- sibling modules -------------------------------------------------------------------------
    def find_module(self, dotted: str, level: int) -> Path | None:
        parts = [p for p in dotted.split(".") if p]
        if not parts or (level == 0 and parts[0] in EXTERNAL_ROOTS):
            return None
        bases: list[Path] = []
        here = self.script.resolve().parent
        if level:
            for _ in range(level - 1):
                here = here.parent
            bases = [here]
        else:
            bases = [here, *list(here.parents)[:MAX_PARENT_LEVELS]]
        for base in bases:
            target = base.joinpath(*parts)
            for candidate in (target.with_suffix(".py"), target / "__init__.py"):
                if candidate.is_file() and self.allowed(posixpath.normpath(candidate.as_posix())):
                    return candidate
        return None


def to_value(data: Any, file: str, line: int) -> Any:
    """Parsed config data -> interpreter values (dicts become DictVal, scalars are tagged)."""
    if isinstance(data, dict):
        # Entry lines are 0: they are lines of the config file, not of the script; a call that
        # spreads the dict (``**cfg``) takes the ``**`` argument's line instead.
        out = DictVal()
        for key, value in data.items():
            at = data.line_of(key) if isinstance(data, LineDict) else line
            if value is None:
                entry: Any = Unknown(f"'{key}' is empty in {file}:{at} (a value filled in before running)")
            else:
                entry = to_value(value, file, at)
            out.entries[key] = (entry, 0)
        return out
    if isinstance(data, list):
        return tuple(
            to_value(v, file, data.line_of(i) if isinstance(data, LineList) else line)
            for i, v in enumerate(data)
        )
    return with_origin(data, file, line)


def module_source(path: Path) -> ast.Module | None:
    try:
        raw = path.read_bytes()
        if len(raw) > MAX_CONFIG_BYTES:
            return None
        return ast.parse(raw.decode("utf-8-sig"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None


# --- command-line defaults ----------------------------------------------------------------------


class ArgDefault(str):
    """An argparse default string: the run may pass another value (``choices`` lists them)."""

    dest: str
    choices: tuple[str, ...]


def arg_default(value: str, dest: str, choices: Any) -> ArgDefault:
    out = ArgDefault(value)
    out.dest = dest
    out.choices = tuple(c for c in choices if isinstance(c, str)) if isinstance(choices, tuple) else ()
    return out
