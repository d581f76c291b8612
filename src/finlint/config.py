"""Project configuration: ``.finlint.yaml`` or ``[tool.finlint]`` in ``pyproject.toml``.

Found by walking up from the first scanned path to the repository root (the first directory
holding ``.git``), as ruff and yamllint do; ``--config FILE`` skips the search. Every key and
value is checked, against the loaded policies where it names a rule or a param: a typo is a
:class:`ConfigError` naming the file and line (the CLI exits 2), never silently ignored.
Relative paths in the file are relative to the file's directory, not to the CWD.
"""

from __future__ import annotations

import math
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from finlint import selector
from finlint.confine import Roots
from finlint.engine import EngineConfig, Policy
from finlint.errors import LocatedError
from finlint.finding import SEVERITIES
from finlint.untrusted import Unreadable, read_text, regex_problem

YAML_NAMES = (".finlint.yaml", ".finlint.yml")
PYPROJECT = "pyproject.toml"
RULE_KEYS = {"severity", "enabled", "params"}
REGION_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")
MAX_CONFIG_BYTES = 4 * 1024 * 1024  # a pyproject.toml or .finlint.yaml is a few KiB


class ConfigError(LocatedError):
    """A configuration file that is not valid: ``file:line: message``."""


@dataclass
class Config:
    """The settings of one config file, validated, with paths made absolute."""

    path: Path | None = None
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # rule id or slug -> severity
    params: dict[str, dict[str, Any]] = field(default_factory=dict)  # rule id or slug -> params
    disabled: tuple[str, ...] = ()  # rules with ``enabled: false``
    fail_on: str | None = None
    max_monthly_usd: float | None = None
    region: str | None = None
    usage_file: Path | None = None
    pricing_file: Path | None = None
    policy_dirs: tuple[Path, ...] = ()
    baseline: Path | None = None
    max_file_mb: float | None = None  # discovery.Limits.max_file_bytes, in MiB
    max_yaml_nodes: int | None = None  # discovery.Limits.max_yaml_nodes
    include_tests: bool = False  # check training launches in test code too (issue 12)
    #: ``helm: {renderer: ..., charts: [{path, values, set, release}]}`` with paths made absolute
    helm_charts: tuple[dict[str, Any], ...] = ()
    helm_renderer: str | None = None
    _lines: Callable[[tuple[Any, ...]], int] = field(default=lambda _path: 1, repr=False)
    #: where the paths a repository's config names may lead (None: the user's own config, given
    #: with --config, may name any file)
    _roots: Roots | None = field(default=None, repr=False)

    def error(self, path: tuple[Any, ...], message: str) -> ConfigError:
        return ConfigError(_show(self.path), self._lines(path), message)

    def check_rules(self, policies: list[Policy]) -> None:
        """Every rule reference and param must exist: unknown ones are errors, with their line."""
        for key in ("select", "ignore"):
            for index, text in enumerate(getattr(self, key)):
                try:
                    selector.check([text], policies)
                except selector.SelectorError as exc:
                    raise self.error((key, index), f"{key}: {exc}") from exc
        by_key: dict[str, Policy] = {}
        for rule in {*self.severity, *self.params, *self.disabled}:
            found = selector.rule_for(rule, policies)
            if found is None:
                hint = selector.suggestions(rule, policies)
                also = f"; did you mean {' or '.join(repr(h) for h in hint)}?" if hint else ""
                raise self.error(("rules", rule), f"rules: unknown rule {rule!r}{also} (see `finlint rules`)")
            by_key[rule] = next(p for p in policies if p.id == found.id)
        for rule, values in self.params.items():
            policy = by_key[rule]
            for name, value in values.items():
                if name not in policy.params:
                    options = ", ".join(sorted(policy.params)) or "none"
                    raise self.error(
                        ("rules", rule, "params", name),
                        f"rules.{rule}.params: {policy.id} has no param {name!r} (params: {options})",
                    )
                problem = _type_problem(policy.params[name], value)
                if problem is None and name in policy.regex_params:
                    problem = regex_problem(value)
                if problem:
                    raise self.error(
                        ("rules", rule, "params", name), f"rules.{rule}.params.{name}: {problem}"
                    )

    def engine(self, select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> EngineConfig:
        """Merge with the CLI: ``--select`` replaces the file's select, ``--ignore`` adds to it."""
        return EngineConfig(
            select=select or self.select,
            ignore=(*self.ignore, *self.disabled, *ignore),
            params={k: dict(v) for k, v in self.params.items()},
            severity=dict(self.severity),
        )


def _show(path: Path | None) -> str:
    if path is None:
        return "<config>"
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel.replace(os.sep, "/")


def _type_problem(default: Any, value: Any) -> str | None:
    """Params keep the type of their default (numbers are interchangeable)."""
    if default is None:
        return None
    if isinstance(default, bool) or isinstance(value, bool):
        return None if isinstance(value, bool) and isinstance(default, bool) else f"expected {_kind(default)}"
    if isinstance(default, (int, float)):
        return None if isinstance(value, (int, float)) else f"expected a number, got {value!r}"
    if isinstance(default, list):
        return None if isinstance(value, list) else f"expected a list, got {value!r}"
    if isinstance(default, str):
        return None if isinstance(value, str) else f"expected a string, got {value!r}"
    return None


def _kind(value: Any) -> str:
    return {bool: "true or false", list: "a list", str: "a string"}.get(type(value), "a number")


# --- finding the file ------------------------------------------------------------------------


def find_config(start: Path) -> Path | None:
    """The nearest ``.finlint.yaml``/``.yml`` or ``pyproject.toml`` with ``[tool.finlint]``.

    Walks up from ``start`` (a file's directory) and stops at the repository root, so a stray
    file above the project never applies. In one directory the YAML file wins (ruff: its own
    file wins over pyproject.toml).
    """
    here = start.resolve()
    if not here.is_dir():
        here = here.parent
    for directory in (here, *here.parents):
        for name in YAML_NAMES:
            if (directory / name).is_file():
                return directory / name
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _has_finlint_table(pyproject):
            return pyproject
        if (directory / ".git").exists():
            return None
    return None


def _has_finlint_table(path: Path) -> bool:
    try:
        text = read_text(path, MAX_CONFIG_BYTES)
    except Unreadable:
        return False
    # [ \t], not \s: \s crosses lines, and ^\s* was quadratic on a pyproject.toml of blank lines
    return re.search(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*finlint[ \t]*[\].]", text, re.M) is not None


# --- reading it ------------------------------------------------------------------------------


def load_config(path: Path, given: bool = False) -> Config:
    """Read and validate ``path`` (YAML, or a pyproject.toml's ``[tool.finlint]``).

    A config found in the scanned tree is the repository's (untrusted): every path it names
    must resolve inside its repository (:mod:`finlint.confine`). One ``given`` on the command
    line is the user's own and may name any file."""
    show = _show(path)
    try:  # never blocks (a FIFO), never reads without bound: docs/security.md
        text = read_text(path, MAX_CONFIG_BYTES)
    except Unreadable as exc:
        raise ConfigError(show, 1, f"cannot read config file: {exc}") from exc
    if path.name == PYPROJECT or path.suffix == ".toml":
        data, lines = _read_toml(text, show, table=path.name == PYPROJECT)
    else:
        data, lines = _read_yaml(text, show)
    config = Config(path=path.resolve(), _lines=lines)
    config._roots = None if given else Roots.of([path.resolve().parent])
    _apply(config, data, path.resolve().parent)
    return config


def _read_yaml(text: str, show: str) -> tuple[dict[str, Any], Callable[[tuple[Any, ...]], int]]:
    from finlint.loaders.common.yamlload import YamlLoadError, load_all

    try:
        docs = load_all(text)
    except YamlLoadError as exc:
        raise ConfigError(show, exc.line, exc.message) from exc
    if not docs or docs[0] is None:
        return {}, lambda _path: 1
    if len(docs) != 1 or not isinstance(docs[0], dict):
        raise ConfigError(show, getattr(docs[0], "line", 1) or 1, "the config file must hold one mapping")
    root = docs[0]

    def lines(path: tuple[Any, ...]) -> int:
        node: Any = root
        line = 1
        for key in path:
            found = (isinstance(node, dict) and key in node) or (
                isinstance(node, list) and isinstance(key, int) and key < len(node)
            )
            if found:
                line = node.line_of(key) if hasattr(node, "line_of") else line
                node = node[key]
            else:
                break
        return line

    return dict(root), lines


def _read_toml(text: str, show: str, table: bool) -> tuple[dict[str, Any], Callable[[tuple[Any, ...]], int]]:
    if sys.version_info >= (3, 11):  # imported here: most runs read no TOML (~15 ms saved)
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"line (\d+)", str(exc))
        line = (
            int(match.group(1))
            if match
            else max(len(text.splitlines()), 1)
            if "end of document" in str(exc)
            else 1
        )
        raise ConfigError(show, line, f"invalid TOML: {exc}") from exc
    prefix: tuple[str, ...] = ("tool", "finlint") if table else ()
    for key in prefix:
        data = data.get(key, {})
    if not isinstance(data, dict):
        raise ConfigError(show, 1, "[tool.finlint] must be a table")
    source = text.splitlines()
    return data, lambda path: _toml_line(
        source, prefix, tuple(str(p) for p in path if not isinstance(p, int))
    )


# linear: no lazy group next to \s* (``[a`` or ``a`` followed by spaces was quadratic); the
# parts are stripped by _dotted
_HEADER = re.compile(r"^\[\[?([^\]]+)\]\]?\s*(#.*)?$")
_KEY = re.compile(r"""^("[^"]*"\s*|'[^']*'\s*|[A-Za-z0-9_.\- \t]+)=""")


def _dotted(key: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in re.findall(r"""("[^"]*"|'[^']*'|[^.]+)""", key))


def _toml_line(lines: list[str], prefix: tuple[str, ...], path: tuple[str, ...]) -> int:
    """tomllib keeps no positions: find the line that defines ``prefix + path`` (or its nearest parent)."""
    want = (*prefix, *path)
    table: tuple[str, ...] | None = () if not prefix else None
    best, best_depth = 1, -1
    for number, raw in enumerate(lines, 1):
        text = raw.strip()
        header = _HEADER.match(text)
        if header:
            table = _dotted(header.group(1).strip())
            depth = _common(table, want)
            if depth == len(table) and depth > best_depth:
                best, best_depth = number, depth
            continue
        key = _KEY.match(text) if table is not None else None
        if key is None or table is None:
            continue
        full = (*table, *_dotted(key.group(1).strip()))
        depth = _common(full, want)
        if depth == len(full) and depth > best_depth:
            best, best_depth = number, depth
            rest = want[depth:]
            if all(re.search(rf"(^|[\s{{,.\"']){re.escape(r)}\s*=", text) for r in rest):
                best_depth = len(want)
    return best


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


# --- validating it ---------------------------------------------------------------------------


def _strings(config: Config, key: str, value: Any) -> tuple[str, ...]:
    """A list of strings, or one comma-separated string (``select = "FIN1,FIN301"``)."""
    if isinstance(value, str):
        value = [v for v in value.split(",")]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise config.error((key,), f"{key}: expected a list of strings")
    return tuple(v.strip() for v in value if v.strip())


def _flag(config: Config, key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise config.error((key,), f"{key}: expected true or false")
    return value


def _path(config: Config, key: str, value: Any, base: Path) -> Path:
    if not isinstance(value, str) or not value.strip():
        raise config.error((key,), f"{key}: expected a file path")
    path = (base / value).resolve() if not Path(value).is_absolute() else Path(value)
    return _confined(config, (key,), key, value, path)


def _confined(config: Config, where: tuple[Any, ...], key: str, value: str, path: Path) -> Path:
    """``path``, or a config error when a repository's config names a file outside it."""
    if config._roots is not None and not config._roots.contains(path):
        raise config.error(
            where,
            f"{key}: {value!r} resolves outside the repository; a repository's config names only "
            "its own files (pass it on the command line instead)",
        )
    return path


def _apply(config: Config, data: dict[str, Any], base: Path) -> None:
    handlers: dict[str, Callable[[str, Any], None]] = {
        "select": lambda k, v: setattr(config, "select", _strings(config, k, v)),
        "ignore": lambda k, v: setattr(config, "ignore", _strings(config, k, v)),
        "exclude": lambda k, v: setattr(config, "exclude", _globs(base, _strings(config, k, v))),
        "fail_on": lambda k, v: setattr(config, "fail_on", _severity(config, (k,), k, v)),
        "max_monthly_usd": lambda k, v: setattr(config, "max_monthly_usd", _money(config, k, v)),
        "region": lambda k, v: setattr(config, "region", _region(config, k, v)),
        "usage_file": lambda k, v: setattr(config, "usage_file", _path(config, k, v, base)),
        "pricing_file": lambda k, v: setattr(config, "pricing_file", _path(config, k, v, base)),
        "baseline": lambda k, v: setattr(config, "baseline", _path(config, k, v, base)),
        "policy_dirs": lambda k, v: setattr(config, "policy_dirs", _policy_dirs(config, k, v, base)),
        "rules": lambda k, v: _rules(config, k, v),
        "max_file_mb": lambda k, v: setattr(config, "max_file_mb", _positive(config, k, v, float)),
        "max_yaml_nodes": lambda k, v: setattr(config, "max_yaml_nodes", int(_positive(config, k, v, int))),
        "include_tests": lambda k, v: setattr(config, "include_tests", _flag(config, k, v)),
        "helm": lambda k, v: _helm(config, k, v, base),
    }
    aliases = {"pricing": "pricing_file", "policy_dir": "policy_dirs"}
    for raw_key, value in data.items():
        key = str(raw_key).replace("-", "_")
        key = aliases.get(key, key)
        handler = handlers.get(key)
        if handler is None:
            known = ", ".join(sorted(k.replace("_", "-") for k in handlers))
            raise ConfigError(
                _show(config.path), config._lines((raw_key,)), f"unknown key {raw_key!r} (known: {known})"
            )
        handler(str(raw_key), value)  # errors name the key as written in the file


def _policy_dirs(config: Config, key: str, value: Any, base: Path) -> tuple[Path, ...]:
    """Existing directories; each is read flat and capped (:func:`finlint.engine.policy.policy_files`)."""
    out: list[Path] = []
    for index, text in enumerate(_strings(config, key, value)):
        directory = _confined(config, (key, index), key, text, (base / text).resolve())
        if not directory.is_dir():
            raise config.error((key, index), f"{key}: {text!r} is not a directory")
        out.append(directory)
    return tuple(out)


def _globs(base: Path, patterns: Iterable[str]) -> tuple[str, ...]:
    """Globs are relative to the config file: anchor path-like ones to its directory."""
    try:
        rel = os.path.relpath(base).replace(os.sep, "/")
    except ValueError:
        rel = "."
    out = []
    for p in patterns:
        if "/" in p.strip("/") and rel not in (".", "") and not p.startswith(("*", "/")):
            p = f"{rel}/{p}"
        out.append(p.rstrip("/"))
    return tuple(out)


def _severity(config: Config, path: tuple[Any, ...], key: str, value: Any) -> str:
    if value not in SEVERITIES:
        raise config.error(path, f"{key}: expected one of {', '.join(SEVERITIES)}, got {value!r}")
    return str(value)


def _money(config: Config, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise config.error((key,), f"{key}: expected a non-negative number of dollars, got {value!r}")
    return float(value)


def _positive(config: Config, key: str, value: Any, kind: type) -> float:
    ok = isinstance(value, int) if kind is int else isinstance(value, (int, float))
    if isinstance(value, bool) or not ok or not 0 < value < math.inf:
        raise config.error(
            (key,), f"{key}: expected a positive {'whole ' if kind is int else ''}number, got {value!r}"
        )
    return float(value)


def _region(config: Config, key: str, value: Any) -> str:
    if not isinstance(value, str) or not REGION_RE.match(value):
        raise config.error((key,), f"{key}: expected an AWS region such as us-east-1, got {value!r}")
    return value


def _rules(config: Config, key: str, value: Any) -> None:
    """``rules: {FIN301: {severity: medium, enabled: true, params: {min_gpu_hours: 500}}}``."""
    if not isinstance(value, dict):
        raise config.error((key,), "rules: expected a mapping of rule id or name to settings")
    disabled: list[str] = []
    for rule, settings in value.items():
        rule = str(rule)
        if not isinstance(settings, dict):
            raise config.error((key, rule), f"rules.{rule}: expected a mapping with {sorted(RULE_KEYS)}")
        unknown = set(settings) - RULE_KEYS
        if unknown:
            bad = sorted(unknown)[0]
            raise config.error(
                (key, rule, bad), f"rules.{rule}: unknown key {bad!r} (known: {', '.join(sorted(RULE_KEYS))})"
            )
        if "severity" in settings:
            config.severity[rule] = _severity(
                config, (key, rule, "severity"), f"rules.{rule}.severity", settings["severity"]
            )
        if "enabled" in settings:
            if not isinstance(settings["enabled"], bool):
                raise config.error((key, rule, "enabled"), f"rules.{rule}.enabled: expected true or false")
            if not settings["enabled"]:
                disabled.append(rule)
        if "params" in settings:
            if not isinstance(settings["params"], dict):
                raise config.error((key, rule, "params"), f"rules.{rule}.params: expected a mapping")
            config.params[rule] = {str(k): v for k, v in settings["params"].items()}
    config.disabled = tuple(disabled)


HELM_KEYS = {"renderer", "charts"}
HELM_CHART_KEYS = {"path", "values", "set", "release"}


def _helm(config: Config, key: str, value: Any, base: Path) -> None:
    """``helm: {renderer: auto|binary|sdk|tolerant, charts: [{path, values: [..], set: {..}, release}]}``."""
    from finlint.loaders.helm.render import RENDERERS

    if not isinstance(value, dict):
        raise config.error((key,), f"{key}: expected a mapping with `charts` and/or `renderer`")
    for sub in value:
        if sub not in HELM_KEYS:
            known = ", ".join(sorted(HELM_KEYS))
            raise config.error((key, sub), f"{key}: unknown key {sub!r} (known: {known})")
    renderer = value.get("renderer")
    if renderer is not None:
        if renderer not in RENDERERS:
            raise config.error((key, "renderer"), f"{key}.renderer: expected one of {', '.join(RENDERERS)}")
        config.helm_renderer = str(renderer)
    charts = value.get("charts", [])
    if not isinstance(charts, list):
        raise config.error((key, "charts"), f"{key}.charts: expected a list of charts")
    out: list[dict[str, Any]] = []
    for index, entry in enumerate(charts):
        where = (key, "charts", index)
        if not isinstance(entry, dict):
            raise config.error(where, f"{key}.charts[{index}]: expected a mapping with `path`")
        for sub in entry:
            if sub not in HELM_CHART_KEYS:
                known = ", ".join(sorted(HELM_CHART_KEYS))
                raise config.error(
                    (*where, sub), f"{key}.charts[{index}]: unknown key {sub!r} (known: {known})"
                )
        path = entry.get("path")
        if not isinstance(path, str) or not path.strip():
            raise config.error(where, f"{key}.charts[{index}].path: expected the chart's directory")
        chart = _confined(
            config, (*where, "path"), f"{key}.charts[{index}].path", path, (base / path).resolve()
        )
        if not (chart / "Chart.yaml").is_file():
            raise config.error((*where, "path"), f"{key}.charts[{index}].path: no Chart.yaml in {path}")
        values = entry.get("values", [])
        if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
            raise config.error((*where, "values"), f"{key}.charts[{index}].values: expected a list of files")
        files = [
            _confined(config, (*where, "values"), f"{key}.charts[{index}].values", v, (base / v).resolve())
            for v in values
        ]
        for v, f in zip(values, files, strict=True):
            if not f.is_file():
                raise config.error((*where, "values"), f"{key}.charts[{index}].values: no such file {v}")
        overrides = entry.get("set", {})
        if not isinstance(overrides, dict):
            raise config.error(
                (*where, "set"), f"{key}.charts[{index}].set: expected a mapping of KEY: value"
            )
        release = entry.get("release", "release-name")
        if not isinstance(release, str) or not release.strip():
            raise config.error((*where, "release"), f"{key}.charts[{index}].release: expected a name")
        out.append(
            {
                "path": str(chart),
                "values": [str(f) for f in files],
                "set": dict(overrides),
                "release": release,
            }
        )
    config.helm_charts = tuple(out)
