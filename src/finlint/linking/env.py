"""``envFrom`` ConfigMaps: checkpoint paths that reach a container through a ConfigMap.

A container that says ``--save-dir=$(CKPT_ROOT)/run1`` (or has a ``CHECKPOINT_DIR`` key) with
``envFrom: [{configMapRef: {name: train-env}}]`` checkpoints where the ConfigMap says. The
Kubernetes loader records what is still unexpanded (``extra["env_from"]``); this pass expands
it with the nearest ConfigMap of that name (same namespace first, then the closest file) and
adds the paths to ``extra["checkpoint_paths"]`` with the chain in their ``source``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from finlint.ir import ConfigMap, Record, Volume
from finlint.loaders.kubernetes.workloads import _CHECKPOINT_WORD, _VAR, checkpoint_flag_paths, expand


def _closeness(a: str, b: str) -> int:
    shared = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        shared += 1
    return shared


def _nearest(maps: list[ConfigMap], namespace: Any, near: str) -> ConfigMap | None:
    if not maps:
        return None
    return max(maps, key=lambda m: (m.namespace == namespace, _closeness(m.location.file, near)))


def _paths(entry: dict[str, Any], env: dict[str, str], origin: str) -> list[dict[str, Any]]:
    """Checkpoint paths in one container once ``env`` (ConfigMap data) is known."""
    found: list[dict[str, Any]] = []
    for key, value in env.items():  # a key injected as is: CHECKPOINT_DIR=/efs/ckpt
        if key not in entry.get("env", ()) and _CHECKPOINT_WORD.search(key) and value.startswith("/"):
            found.append({"path": value, "line": entry["line"], "source": f"envFrom {origin}: {key}={value}"})
    for item in entry.get("pending", ()):
        text = expand(str(item["text"]), env)
        if "$" in text and text == item["text"]:
            continue
        chain = f"{item['label']} {str(item['raw']).strip()[:80]} -> {text.strip()[:80]} (envFrom {origin})"
        if str(item["label"]).startswith("env "):
            if text.startswith("/"):
                found.append({"path": text, "line": item["line"], "source": chain})
            continue
        paths = checkpoint_flag_paths(text)
        for var in _VAR.finditer(str(item["raw"])):  # --output_dir=$(CKPT_ROOT)/run1
            name = next(g for g in var.groups() if g)
            if _CHECKPOINT_WORD.search(name) and name in env:
                token = text.split("=", 1)[-1].strip("'\";")
                if token.startswith("/"):
                    paths.append(token)
        for path in dict.fromkeys(paths):
            found.append({"path": path, "line": item["line"], "source": chain})
    return found


def link_env_from(records: list[Record]) -> list[Record]:
    maps: dict[str, list[ConfigMap]] = {}
    for r in records:
        if isinstance(r, ConfigMap) and isinstance(r.name, str):
            maps.setdefault(r.name, []).append(r)
    if not maps:
        return records
    out: list[Record] = []
    for r in records:
        if not isinstance(r, Volume) or not r.extra.get("env_from"):
            out.append(r)
            continue
        entries = r.extra["env_from"]
        added: list[dict[str, Any]] = []
        via: list[str] = []
        for entry in entries:
            env: dict[str, str] = {}
            origins: list[str] = []
            for name in entry.get("config_maps", ()):
                found = _nearest(maps.get(name, []), r.namespace, r.location.file)
                if found is not None:
                    env.update(found.data)
                    origins.append(f"ConfigMap {name} ({found.location.file}:{found.location.line})")
                    via.append(found.location.file)
            if env:
                added += _paths(entry, env, ", ".join(origins))
        if not added:
            out.append(r)
            continue
        extra = dict(r.extra)
        extra["checkpoint_paths"] = [*extra.get("checkpoint_paths", ()), *added]
        out.append(replace(r, extra=extra, via=tuple(dict.fromkeys((*r.via, *via)))))
    return out
