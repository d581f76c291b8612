"""The ``.env`` file beside a manifest: the values envsubst fills its ``${VAR}`` placeholders with.

``set -a; . ./.env; envsubst < job.yaml | kubectl apply -f -`` is how many training repositories
deploy: the manifest in the repository says ``--checkpoint-dir=${CKPT_DIR}`` and only the ``.env``
next to it says ``CKPT_DIR=/efs/ckpt``. The file is read, never sourced: ``KEY=value`` lines
(``export`` and quotes allowed); anything that needs a shell (``$(cmd)``, a value naming another
variable) is left out. Only a regular file in the manifest's own folder, inside the scan roots
(symlinks resolved), is read, with the same bounded read as every scanned file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from finlint.confine import Roots
from finlint.loaders.common.discovery import read_text

NAME = ".env"
MAX_BYTES = 64 * 1024
_LINE = re.compile(
    r"^\s*(?:export\s+)?([A-Za-z_]\w*)\s*=\s*(?:\"([^\"$`\\]*)\"|'([^']*)'|([^\s'\"$`#]*))\s*(?:#.*)?$"
)
#: envsubst's forms (``${VAR}``, ``$VAR``); Kubernetes' own ``$(VAR)`` is not one of them
_ENVSUBST = re.compile(r"\$\{([A-Za-z_]\w*)\}|\$([A-Za-z_]\w*)")

_cache: dict[tuple[str, int, int], dict[str, str]] = {}


def parse(text: str) -> dict[str, str]:
    """``KEY=value`` lines of a ``.env`` file (later lines win, as when sourced)."""
    out: dict[str, str] = {}
    for line in text.splitlines()[:5000]:
        match = _LINE.match(line)
        if match is not None:
            out[match.group(1)] = next((g for g in match.groups()[1:] if g is not None), "")
    return out


def beside(manifest: Path | None, options: dict[str, Any]) -> dict[str, str]:
    """The values of the ``.env`` in ``manifest``'s folder, or {} (none, unreadable, outside the roots)."""
    if manifest is None:
        return {}
    env = manifest.parent / NAME
    roots = options.get("roots")
    roots = roots if isinstance(roots, Roots) else Roots.of([manifest.parent])
    try:
        if not env.is_file() or not roots.contains(env):
            return {}
        stat = env.stat()
    except OSError:
        return {}
    key = (str(env.resolve()), stat.st_mtime_ns, stat.st_size)
    if key not in _cache:
        text = read_text(env, str(env), MAX_BYTES)
        _cache[key] = parse(text) if isinstance(text, str) else {}
    return _cache[key]


def placeholders(text: str) -> list[str]:
    """The variable names of ``text``'s envsubst placeholders."""
    return [m.group(1) or m.group(2) for m in _ENVSUBST.finditer(text)] if "$" in text else []


def envsubst(text: str, env: dict[str, str]) -> str:
    """``text`` with the ``${VAR}``/``$VAR`` placeholders ``env`` defines filled (one pass, as
    envsubst does; the others left as written)."""
    if "$" not in text or not env:
        return text
    return _ENVSUBST.sub(lambda m: env.get(m.group(1) or m.group(2), m.group(0)), text)
