"""Values a chart is rendered with: its ``values.yaml``, extra values files, ``--set`` overrides.

Each source keeps its lines, so a rendered value that came from a values file can point at the
line that set it (the last source that sets a path wins, as in Helm).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finlint.loaders.common.yamlload import LineDict, YamlLoadError, load_all


@dataclass
class ValuesSource:
    """One values document: where it is shown from and its parsed content (with lines)."""

    display: str
    data: dict[str, Any]


@dataclass
class Values:
    """Every values source in the order Helm applies them (chart defaults first)."""

    sources: list[ValuesSource] = field(default_factory=list)
    overrides: dict[str, Any] = field(default_factory=dict)  # what is passed over the defaults

    def origin(self, path: tuple[str, ...]) -> tuple[str, int] | None:
        """(file, line) of the source that sets ``path`` last; None when none sets it."""
        for source in reversed(self.sources):
            node: Any = source.data
            line: int | None = None
            for key in path:
                if not isinstance(node, dict) or key not in node:
                    node = None
                    break
                line = node.line_of(key) if isinstance(node, LineDict) else None
                node = node[key]
            if node is not None and line is not None:
                return source.display, line
        return None


def read_values(path: Path, display: str) -> tuple[dict[str, Any] | None, str | None]:
    """A values file's mapping (with lines), or why it cannot be used."""
    from finlint.loaders.common.discovery import DEFAULT_MAX_FILE_BYTES
    from finlint.untrusted import Unreadable, read_text

    try:
        text = read_text(path, DEFAULT_MAX_FILE_BYTES)  # non-blocking, regular files only, bounded
    except Unreadable as exc:
        return None, f"cannot read values file {display}: {exc}"
    try:
        docs = load_all(text)
    except YamlLoadError as exc:
        return None, f"values file {display} line {exc.line}: {exc.message}"
    data = docs[0] if docs else {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        return None, f"values file {display} is not a mapping"
    return data, None


def merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Helm's coalescing of user values: mappings merge key by key, anything else replaces."""
    out = {k: _plain(v) for k, v in base.items()}
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = _plain(value)
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def set_path(target: dict[str, Any], dotted: str, value: Any) -> None:
    """``a.b.c=value`` as ``--set`` reads it (dots nest; ``\\.`` is a literal dot)."""
    parts = [p.replace("\0", ".") for p in dotted.replace("\\.", "\0").split(".")]
    node = target
    for key in parts[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            child = {}
            node[key] = child
        node = child
    node[parts[-1]] = value
