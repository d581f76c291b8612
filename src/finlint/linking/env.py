"""``envFrom`` ConfigMaps: checkpoint paths that reach a container through a ConfigMap.

A container that says ``--save-dir=$(CKPT_ROOT)/run1`` (or has a ``CHECKPOINT_DIR`` key) with
``envFrom: [{configMapRef: {name: train-env}}]`` checkpoints where the ConfigMap says. The
Kubernetes loader records what is still unexpanded (``Volume.env_from``); this pass expands
it with the nearest ConfigMap of that name (same namespace first, then the closest file) and
adds the paths to ``Volume.checkpoint_paths`` with the chain in their ``source``.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from finlint.domain.places import closeness
from finlint.ir import CheckpointPath, ConfigMap, EnvFrom, Record, Volume
from finlint.loaders.common.shellwords import CHECKPOINT_WORD, VAR, checkpoint_flag_paths, expand


def _nearest(maps: list[ConfigMap], namespace: Any, near: str) -> ConfigMap | None:
    if not maps:
        return None
    return max(maps, key=lambda m: (m.namespace == namespace, closeness(m.location.file, near)))


def _paths(entry: EnvFrom, env: dict[str, str], origin: str) -> list[CheckpointPath]:
    """Checkpoint paths in one container once ``env`` (ConfigMap data) is known."""
    found: list[CheckpointPath] = []
    for key, value in env.items():  # a key injected as is: CHECKPOINT_DIR=/efs/ckpt
        if key not in entry.env and CHECKPOINT_WORD.search(key) and value.startswith("/"):
            found.append(CheckpointPath(value, entry.line, f"envFrom {origin}: {key}={value}"))
    for item in entry.pending:
        text = expand(item.text, env)
        if "$" in text and text == item.text:
            continue
        chain = f"{item.label} {item.raw.strip()[:80]} -> {text.strip()[:80]} (envFrom {origin})"
        if item.label.startswith("env "):
            if text.startswith("/"):
                found.append(CheckpointPath(text, item.line, chain))
            continue
        paths = checkpoint_flag_paths(text)
        for var in VAR.finditer(item.raw):  # --output_dir=$(CKPT_ROOT)/run1
            name = next(g for g in var.groups() if g)
            if CHECKPOINT_WORD.search(name) and name in env:
                token = text.split("=", 1)[-1].strip("'\";")
                if token.startswith("/"):
                    paths.append(token)
        for path in dict.fromkeys(paths):
            found.append(CheckpointPath(path, item.line, chain))
    return found


_ASSIGN = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(\S+)")


def _script_paths(entry: EnvFrom, data: dict[str, str], origin: str) -> list[CheckpointPath]:
    """Checkpoint paths a script the container runs sets: ``export CKPT_DIR=/efs/ckpt`` (a
    checkpoint-ish name), or a checkpoint flag in it once its own assignments are expanded."""
    found: list[CheckpointPath] = []
    for key in entry.scripts:
        where = f"script {key} ({origin})"
        assigned: dict[str, str] = {}
        for line in data.get(key, "").splitlines()[:2000]:
            m = _ASSIGN.match(line)
            if m is not None:
                name, value = m.group(1), expand(m.group(2).strip("'\""), assigned)
                assigned[name] = value
                if CHECKPOINT_WORD.search(name) and value.startswith("/"):
                    found.append(CheckpointPath(value, entry.line, f"{where}: {name}={value}"))
                continue
            for path in checkpoint_flag_paths(expand(line, assigned)):
                found.append(CheckpointPath(path, entry.line, f"{where}: {line.strip()[:80]}"))
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
        if not isinstance(r, Volume) or not r.env_from:
            out.append(r)
            continue
        added: list[CheckpointPath] = []
        via: list[str] = []
        for entry in r.env_from:
            env: dict[str, str] = {}
            origins: list[str] = []
            for name in entry.config_maps:
                found = _nearest(maps.get(name, []), r.namespace, r.location.file)
                if found is not None:
                    env.update(found.data)
                    origins.append(f"ConfigMap {name} ({found.location.file}:{found.location.line})")
                    via.append(found.location.file)
            if env and entry.scripts:
                added += _script_paths(entry, env, ", ".join(origins))
            elif env:
                added += _paths(entry, env, ", ".join(origins))
        if not added:
            out.append(r)
            continue
        paths = (*r.checkpoint_paths, *added)
        out.append(replace(r, checkpoint_paths=paths, via=tuple(dict.fromkeys((*r.via, *via)))))
    return out
