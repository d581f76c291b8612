"""Anything with pod specs (Pod, Job, Deployment, PyTorchJob, RayJob, JobSet, ...) -> its mounts.

A workload becomes ``Volume(volume_kind="workload")`` with one :class:`Mount` per container
volume mount, plus the paths its containers are told to checkpoint to. ``Mount.is_efs`` is set
when the pod volume shows it (inline EFS/FSx CSI, an ``nfs`` server that is an EFS DNS name,
emptyDir/hostPath/...); claims are left to the linking pass. The claims a workload creates
(StatefulSet ``volumeClaimTemplates``, generic ephemeral volumes) become PVC records of their own.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any, Iterator, NamedTuple

from finlint.ir import CheckpointPath, EnvFrom, Maybe, Mount, PendingEnv, Record, RunsScript, Volume
from finlint.loaders.common import dotenv
from finlint.loaders.common.dotenv import envsubst
from finlint.loaders.common.shellwords import CHECKPOINT_WORD, VAR, checkpoint_flag_paths, expand
from finlint.loaders.common.yamlload import LineDict
from finlint.loaders.kubernetes.object import (
    FORMAT,
    Doc,
    Node,
    child,
    items,
    mapping,
    placeholder,
    templated,
    text,
)
from finlint.loaders.kubernetes.storage import FILE_SYSTEM_DRIVERS, claim_volume, efs_id_from_dns, is_efs


def _pod_specs(node: Any, path: str, depth: int = 0) -> Iterator[tuple[str, Node]]:
    """Every pod spec (a mapping with a ``containers`` list) under ``node``, with its path.

    Generic on purpose: Kubeflow replica specs, RayCluster groups, JobSet replicated jobs and
    CRDs not listed anywhere all nest ``template.spec`` differently.
    """
    if depth > 12:
        return
    if isinstance(node, dict):
        if isinstance(node.get("containers"), list):
            yield path, node
            return
        for key, value in node.items():
            if isinstance(value, (dict, list)) and key not in ("metadata", "status"):
                yield from _pod_specs(value, f"{path}.{key}", depth + 1)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _pod_specs(value, f"{path}[{index}]", depth + 1)


def _claim_templates(node: Any, depth: int = 0) -> Iterator[Node]:
    """StatefulSet ``volumeClaimTemplates`` items (wherever a CRD nests a StatefulSet-like spec)."""
    if depth > 12 or not isinstance(node, dict):
        return
    for key, value in node.items():
        if key == "volumeClaimTemplates" and isinstance(value, list):
            yield from (item for item in value if isinstance(item, dict))
        elif isinstance(value, dict) and key not in ("metadata", "status"):
            yield from _claim_templates(value, depth + 1)


#: Pod volume sources that are never EFS.
_LOCAL_SOURCES = (
    "emptyDir",
    "hostPath",
    "configMap",
    "secret",
    "downwardAPI",
    "projected",
    "awsElasticBlockStore",
)


class _VolumeRef(NamedTuple):
    claim_name: Maybe[str] = None
    file_system_ref: Maybe[str] = None
    is_efs: Maybe[bool] = None


def _volume_ref(volume: Any) -> _VolumeRef:
    """What a pod volume points at: a claim (linked later), or storage that is visibly EFS or not."""
    if not isinstance(volume, dict):
        return _VolumeRef()
    claim = mapping(volume, "persistentVolumeClaim")
    if claim is not None:
        return _VolumeRef(text(claim.get("claimName"), "persistentVolumeClaim.claimName"))
    if "ephemeral" in volume:  # a generic ephemeral volume: the PVC emitted by _template_claims
        return _VolumeRef(text(volume.get("name"), "volume name"))
    csi = mapping(volume, "csi")
    if csi is not None:
        driver = text(csi.get("driver"), "csi.driver")
        handle: Any = csi.get("volumeHandle") or child(mapping(csi, "volumeAttributes"), "fileSystemId")
        fs_ref = text(handle, "csi.volumeHandle") if driver in FILE_SYSTEM_DRIVERS else None
        if isinstance(fs_ref, str):
            fs_ref = fs_ref.partition(":")[0]
        return _VolumeRef(None, fs_ref, is_efs(driver))
    nfs = mapping(volume, "nfs")
    if nfs is not None:
        server = nfs.get("server")
        if templated(server):
            unknown = placeholder("nfs.server", server)
            return _VolumeRef(None, unknown, unknown)
        efs_id = efs_id_from_dns(server)
        return _VolumeRef(None, efs_id, True if efs_id else None)
    if any(key in volume for key in _LOCAL_SOURCES):
        return _VolumeRef(is_efs=False)
    return _VolumeRef()


def env_from(d: Doc, container: Node) -> EnvFrom | None:
    """A container's ``envFrom`` ConfigMaps and the checkpoint-ish texts still holding variables
    after its own ``env`` is expanded: the linking pass expands them with the ConfigMaps' data
    (``env`` entries win over ``envFrom``, as in Kubernetes)."""
    names: list[str] = []
    line = 0
    for _index, entry, entry_line in items(container, "envFrom"):
        ref = mapping(entry, "configMapRef") if isinstance(entry, dict) else None
        name = child(ref, "name") if ref is not None else None
        if isinstance(name, str) and not templated(name):
            names.append(name)
            line = line or d.line(entry_line)
    if not names:
        return None
    env = env_values(container)
    pending: list[PendingEnv] = []
    for _index, entry, _line in items(container, "env"):
        name, value = child(entry, "name"), child(entry, "value")
        if isinstance(name, str) and CHECKPOINT_WORD.search(name) and isinstance(value, str):
            expanded = env.get(name, value)
            if "$" in expanded:
                pending.append(PendingEnv(expanded, value, f"env {name}", d.line_at(entry, "value")))
    for key in ("command", "args"):
        for _i, item, item_line in items(container, key):
            if isinstance(item, str) and "$" in expand(item, env):
                pending.append(PendingEnv(expand(item, env), item, key, d.line(item_line)))
    return EnvFrom(tuple(names), line, tuple(sorted(env)), tuple(pending))


def script_refs(d: Doc, container: Node, volumes: dict[Any, Any]) -> list[EnvFrom]:
    """Scripts a container runs from a ConfigMap volume (``command: [bash, /scripts/run.sh]``
    with ``/scripts`` a ``configMap`` volume): the linking pass reads their checkpoint paths."""
    mounted: list[tuple[str, str, dict[str, str]]] = []  # (mount path, ConfigMap, path -> key)
    for _m, mount, _line in items(container, "volumeMounts"):
        volume = volumes.get(mount.get("name")) if isinstance(mount, dict) else None
        source = volume.get("configMap") if isinstance(volume, dict) else None
        where = mount.get("mountPath") if isinstance(mount, dict) else None
        name = source.get("name") if isinstance(source, dict) else None
        if isinstance(source, dict) and isinstance(name, str) and isinstance(where, str):
            if templated(name + where):
                continue
            keys = {
                str(i.get("path")): str(i.get("key"))
                for i in source.get("items") or ()
                if isinstance(i, dict) and isinstance(i.get("path"), str)
            }
            mounted.append((where.rstrip("/") + "/", name, keys))
    out: list[EnvFrom] = []
    for key in ("command", "args"):
        for _i, item, item_line in items(container, key):
            for word in item.split() if isinstance(item, str) and mounted else ():
                for prefix, name, keys in mounted:
                    rest = word.strip("'\";").removeprefix(prefix)
                    if rest != word.strip("'\";") and rest and "/" not in rest.strip("/"):
                        script = keys.get(rest, rest if not keys else "")
                        if script:
                            out.append(EnvFrom((name,), d.line(item_line), scripts=(script,)))
    return out


def _checkpoint_paths(d: Doc, container: Node) -> list[CheckpointPath]:
    """Paths a container is told to checkpoint to (env ``*CHECKPOINT*``/``*CKPT*``, ``--ckpt-dir``),
    with ``$(VAR)``, ``${VAR}`` and ``$VAR`` expanded from the container's own ``env`` first;
    ``source`` then shows the chain (``env CKPT_DIR=$HOME/ckpt -> /efs/home/x/ckpt``)."""
    found: list[CheckpointPath] = []
    filled = _dotenv(d, container)  # envsubst runs first, on the manifest's text
    env = env_values(container, filled)
    for _index, entry, _line in items(container, "env"):
        name, value = child(entry, "name"), child(entry, "value")
        if not (isinstance(name, str) and CHECKPOINT_WORD.search(name) and isinstance(value, str)):
            continue
        path = env.get(name, value)  # expanded with the entries defined before it only
        if path.startswith("/"):  # the value line: the line a person edits
            source = f"env {name}" if path == value else f"env {name}={value} -> {path}"
            found.append(
                CheckpointPath(path, d.line_at(entry, "value"), source + _from_dotenv(value, filled))
            )
    for key in ("command", "args"):
        raw = [
            (envsubst(item, filled), line, item)
            for _i, item, line in items(container, key)
            if isinstance(item, str)
        ]
        words = [(expand(item, env), line) for item, line, _original in raw]
        for position, (word, line) in enumerate(words):
            original = raw[position][2]
            for flag_path in checkpoint_flag_paths(word):
                source = _via(key, original, word) + _from_dotenv(original, filled)
                found.append(CheckpointPath(flag_path, d.line(line), source))
            for var in VAR.finditer(raw[position][0]):  # --output_dir=$(CKPT_ROOT)/run1
                name = next(g for g in var.groups() if g)
                if CHECKPOINT_WORD.search(name) and name in env:
                    token = _token_with(raw[position][0], var.start())
                    path = expand(token, env).split("=", 1)[-1]
                    if path.startswith("/") and not any(f.path == path for f in found):
                        found.append(CheckpointPath(path, d.line(line), _via(key, token, path)))
            nxt = words[position + 1] if position + 1 < len(words) else None
            if (
                nxt is not None
                and re.fullmatch(r"--?[\w.-]*(?:checkpoint|ckpt)[\w.-]*", word, re.IGNORECASE)
                and nxt[0].startswith("/")
            ):
                found.append(
                    CheckpointPath(nxt[0], d.line(nxt[1]), key + _from_dotenv(raw[position + 1][2], filled))
                )
    return found


def _scripts_run(d: Doc, container: Node) -> list[RunsScript]:
    """The ``.py`` script a container's command runs (``python train.py``, ``torchrun ...
    train.py``, ``bash -c "python /app/train.py --lr 1e-4"``) and the ``--options`` it passes."""
    words: list[tuple[str, int]] = []
    for key in ("command", "args"):
        for _i, item, line in items(container, key):
            if isinstance(item, str):
                words += [(w.strip("'\";&|"), line) for w in item.split()[:200]]
    out: list[RunsScript] = []
    for index, (word, line) in enumerate(words):
        if word.endswith(".py") and not word.startswith("-") and "$" not in word:
            rest = [w for w, _l in words[index + 1 :]]
            end = next((i for i, w in enumerate(rest) if w.endswith(".py")), len(rest))
            given = tuple(dict.fromkeys(w.split("=", 1)[0] for w in rest[:end] if w.startswith("-")))
            out.append(RunsScript(word, d.line(line), given))
    return out


def _dotenv(d: Doc, container: Node) -> dict[str, str]:
    """The ``.env`` beside the manifest (:mod:`finlint.loaders.common.dotenv`), read only when
    the container's env, command or args hold a ``$`` placeholder."""
    words = [child(e, "value") for _i, e, _l in items(container, "env")]
    words += [item for key in ("command", "args") for _i, item, _l in items(container, key)]
    if not any(isinstance(w, str) and "$" in w for w in words):
        return {}
    return dotenv.beside(d.ctx.path, d.ctx.options)


def _dotenv_inputs(d: Doc, paths: list[CheckpointPath]) -> tuple[str, ...]:
    """The ``.env`` among the files the workload's values came from (``Record.inputs``), when
    a checkpoint path was filled from it."""
    if not any(f"({dotenv.NAME}: " in p.source for p in paths):
        return ()
    return (posixpath.join(posixpath.dirname(d.ctx.file), dotenv.NAME),)


def _from_dotenv(raw: str, filled: dict[str, str]) -> str:
    """`` (.env: CKPT_DIR=/efs/ckpt)`` when envsubst with the ``.env`` changed ``raw``."""
    names = [n for n in dict.fromkeys(dotenv.placeholders(raw)) if n in filled]
    return f" ({dotenv.NAME}: {', '.join(f'{n}={filled[n][:80]}' for n in names)})" if names else ""


#: ``$(VAR)`` (Kubernetes), ``${VAR}`` and ``$VAR`` (shell) references to environment variables.


def env_values(container: Node, filled: dict[str, str] | None = None) -> dict[str, str]:
    """The container's literal ``env`` values, each expanded with the ones defined before it
    (Kubernetes expands ``$(VAR)`` only from earlier entries), after envsubst with ``filled``
    (the ``.env`` beside the manifest)."""
    out: dict[str, str] = {}
    for _index, entry, _line in items(container, "env"):
        name, value = child(entry, "name"), child(entry, "value")
        if isinstance(name, str) and isinstance(value, (str, int, float)) and not isinstance(value, bool):
            out[name] = expand(envsubst(str(value), filled or {}), out)
    return out


def _token_with(text: str, position: int) -> str:
    """The whitespace-separated word of ``text`` holding ``position``, unquoted."""
    start = text.rfind(" ", 0, position) + 1
    end = text.find(" ", position)
    return text[start : end if end >= 0 else len(text)].strip("'\";")


def _via(key: str, raw: str, expanded: str) -> str:
    return key if raw == expanded else f"{key} {raw.strip()[:80]} -> {expanded.strip()[:80]}"


_RESUME_FLAG = re.compile(r"--?(?:resume|auto[_-]?resume|load[_-]?checkpoint)\b[\w.-]*", re.IGNORECASE)


def checkpoint_evidence(d: Doc) -> str | None:
    """What shows the object's containers save or resume checkpoints: the first checkpoint path
    (env, flags) or a resume flag in ``command``/``args``; None when nothing does."""
    if d.spec is None:
        return None
    for _path, pod in _pod_specs(d.spec, "spec"):
        for _index, container, _line in items(pod, "containers"):
            found = container_checkpoints(d, container) if isinstance(container, dict) else None
            if found is not None:
                return found
    return None


def container_checkpoints(d: Doc, container: Node) -> str | None:
    """One container's first checkpoint path (env, flags) or resume flag, said with its line."""
    for entry in _checkpoint_paths(d, container):
        return f"checkpoint path {entry.path} ({entry.source}, line {entry.line})"
    for key in ("command", "args"):
        for _i, item, line in items(container, key):
            match = _RESUME_FLAG.search(item) if isinstance(item, str) else None
            if match:
                return f"{key} {match.group(0)} (line {d.line(line)})"
    return None


def load_workload(d: Doc) -> list[Record]:
    if d.spec is None:
        return []
    mounts: list[Mount] = []
    checkpoint_paths: list[CheckpointPath] = []
    claim_templates = list(_claim_templates(d.spec))
    template_names = {
        t["metadata"].get("name") for t in claim_templates if isinstance(t.get("metadata"), dict)
    }
    pod_paths: list[str] = []
    env_from_entries: list[EnvFrom] = []
    runs_scripts: list[RunsScript] = []
    for path, pod in _pod_specs(d.spec, "spec"):
        pod_paths.append(path)
        volumes = {v.get("name"): v for _i, v, _l in items(pod, "volumes") if isinstance(v, dict)}
        for container_key in ("initContainers", "containers"):
            for _index, container, _line in items(pod, container_key):
                if not isinstance(container, dict):
                    continue
                checkpoint_paths += _checkpoint_paths(d, container)
                runs_scripts += _scripts_run(d, container)
                from_maps = env_from(d, container)
                if from_maps is not None:
                    env_from_entries.append(from_maps)
                env_from_entries += script_refs(d, container, volumes)
                for _m, mount, line in items(container, "volumeMounts"):
                    if not isinstance(mount, dict) or not isinstance(mount.get("name"), str):
                        continue
                    name = mount["name"]
                    ref = _volume_ref(volumes.get(name))
                    if name not in volumes and name in template_names:
                        ref = _VolumeRef(name)  # StatefulSet volumeClaimTemplates: a claim per replica
                    mounts.append(
                        Mount(
                            volume=name,
                            mount_path=text(mount.get("mountPath"), "mountPath"),
                            claim_name=ref.claim_name,
                            file_system_ref=ref.file_system_ref,
                            line=d.line(line),
                            is_efs=ref.is_efs,
                        )
                    )
    records: list[Record] = []
    if mounts:
        extra: dict[str, Any] = {"kind": d.kind, "api_version": d.api_version, "pod_specs": pod_paths}
        lines = {"mounts": min(m.line for m in mounts if m.line is not None)}
        records.append(
            Volume(
                **d.common(lines=lines),
                extra=extra,
                volume_kind="workload",
                namespace=d.namespace,
                mounts=tuple(mounts),
                checkpoint_paths=tuple(checkpoint_paths),
                env_from=tuple(env_from_entries),
                inputs=_dotenv_inputs(d, checkpoint_paths),
                runs_scripts=tuple(runs_scripts),
            )
        )
    records += _template_claims(d, claim_templates)
    return records


def _template_claims(d: Doc, claim_templates: list[Node]) -> list[Record]:
    """PVCs a workload creates: StatefulSet volumeClaimTemplates and generic ephemeral volumes."""
    records: list[Record] = []
    owner = d.address()
    sources: list[tuple[Any, Node, Any]] = []
    for template in claim_templates:
        meta = mapping(template, "metadata") or LineDict()
        sources.append((meta.get("name"), template, meta))
    for _path, pod in _pod_specs(d.spec, "spec"):
        for _i, volume, _l in items(pod, "volumes"):
            ephemeral = mapping(mapping(volume, "ephemeral"), "volumeClaimTemplate")
            if ephemeral is not None:
                sources.append((volume.get("name"), ephemeral, volume))
    for name, template, name_node in sources:
        if not isinstance(name, str):
            continue
        lines = {"name": d.line_at(name_node, "name")}
        claim_meta = mapping(template, "metadata")
        records.append(
            claim_volume(
                d,
                mapping(template, "spec"),
                mapping(claim_meta, "annotations"),
                address=f"{owner}/claims/{name}",
                location=d.location(template),
                source_format=FORMAT,
                attr_lines=lines,
                suppressions=d.suppressions(),
                name=name,
                extra={"owner": owner},
            )
        )
    return records
