"""AWS Batch job definitions, read the same way from CloudFormation (PascalCase, through its
``Obj`` reader), Terraform (snake_case blocks, ``container_properties`` as a JSON string) and the
``RegisterJobDefinition`` request (camelCase): a GPU job definition is a training workload whose
runtime limit is ``timeout.attemptDurationSeconds`` (AWS Batch has no default: none is no limit).

:class:`Plain` reads a parsed value (a ``LineDict`` from YAML/JSON, Terraform values) with keys
matched without case or underscores, and a JSON string (``jsonencode(...)``, a heredoc) parsed and
pinned to the line of its attribute. :func:`read_job_definition` takes any reader with
``get``/``obj``/``objs`` (``Plain`` or CloudFormation's ``Obj``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Protocol

from finlint.ir import Mount, Unknown, plain_unknown
from finlint.loaders.common import coerce
from finlint.loaders.common.shellwords import checkpoint_flag_paths
from finlint.loaders.common.yamlload import pin_lines

#: a JSON string longer than this is not parsed (a job definition is a few KB)
MAX_JSON_CHARS = 1_000_000
LAUNCHER = "aws-batch"
NO_LIMIT = (
    "AWS Batch sets no default timeout: without timeout.attemptDurationSeconds "
    "an attempt runs until it ends or is terminated"
)


class Reader(Protocol):
    def get(self, key: str, kind: type = str) -> tuple[Any, int | None]: ...

    def obj(self, key: str) -> Reader | None: ...

    def objs(self, key: str) -> tuple[Any, int | None]: ...

    def str_list(self, key: str) -> tuple[Any, int | None]: ...


def _norm(key: Any) -> str:
    return str(key).replace("_", "").replace("-", "").lower()


_CONVERT = {int: coerce.to_int, str: coerce.to_str, bool: coerce.to_bool, float: coerce.to_float}


@dataclass
class Plain:
    """A mapping read with lines; keys match without case and underscores (``NumNodes``,
    ``numNodes``, ``num_nodes``); a Terraform block (a list of one mapping) reads as the mapping."""

    node: Any
    line: int
    path: str = ""

    def find(self, key: str) -> tuple[Any, int | None]:
        node = self.node
        if isinstance(node, Unknown):
            return plain_unknown(node), self.line
        if not isinstance(node, dict):
            return None, None
        want = _norm(key)
        for k, v in node.items():
            if _norm(k) == want:
                lines = getattr(node, "key_lines", None) or {}
                return v, int(lines.get(k, self.line))
        return None, None

    def get(self, key: str, kind: type = str) -> tuple[Any, int | None]:
        value, line = self.find(key)
        if value is None or line is None:
            return None, None
        if isinstance(value, (dict, list)):
            return Unknown(f"{self.path}{key} is not a single value"), line
        return _CONVERT[kind](value, f"{self.path}{key}"), line

    def obj(self, key: str) -> Plain | None:
        value, line = self.find(key)
        if value is None or line is None or (isinstance(value, list) and not value):
            return None  # absent, or an empty Terraform block list (a plan's "timeout": [])
        return Plain(_mapping(value, line, f"{self.path}{key}"), line, f"{self.path}{key}.")

    def _list(self, key: str) -> tuple[Any, int | None]:
        """The list at ``key`` (a JSON string decoded), else None (absent) or an Unknown."""
        value, line = self.find(key)
        if value is None or line is None:
            return None, None
        value = _decoded(value, line)
        if isinstance(value, Unknown):
            return plain_unknown(value), line
        if not isinstance(value, list):
            return Unknown(f"{self.path}{key} is not a list"), line
        return value, line

    def objs(self, key: str) -> tuple[Any, int | None]:
        value, line = self._list(key)
        if not isinstance(value, list) or line is None:
            return value, line
        lines = getattr(value, "item_lines", None) or []
        return [
            Plain(
                _mapping(item, lines[i] if i < len(lines) else line, key),
                lines[i] if i < len(lines) else line,
            )
            for i, item in enumerate(value)
        ], line

    def str_list(self, key: str) -> tuple[Any, int | None]:
        """A list of strings as a tuple (a non-string item is Unknown), or an Unknown."""
        value, line = self._list(key)
        if not isinstance(value, list):
            return value, line
        return tuple(
            v if isinstance(v, str) else Unknown(f"{self.path}{key} item is not a string") for v in value
        ), line


def _decoded(value: Any, line: int) -> Any:
    """A JSON string (``jsonencode(...)`` after evaluation, a heredoc) as its value, pinned to ``line``."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "[") and len(value) <= MAX_JSON_CHARS:
        try:
            return pin_lines(json.loads(value), line)
        except (ValueError, RecursionError):
            return Unknown("not valid JSON")
    return value


def _mapping(value: Any, line: int, path: str) -> Any:
    value = _decoded(value, line)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict):
        return value[0]  # a Terraform block
    if isinstance(value, (dict, Unknown)):
        return plain_unknown(value)
    return Unknown(f"{path} is not a mapping")


@dataclass
class JobDefinition:
    """What finlint reads from a job definition."""

    gpus: Any = None  # GPUs per container/node: None when no GPU is requested
    gpu_line: int | None = None
    nodes: Any = None  # multi-node parallel: NumNodes
    instance_type: Any = None  # multi-node: a node range's InstanceType
    timeout: Any = None
    lines: dict[str, int] = field(default_factory=dict)
    #: the container's EFS volumes at their mount points (``efsVolumeConfiguration``)
    mounts: tuple[Mount, ...] = ()
    #: the first literal absolute checkpoint path of the command or environment, and its line
    checkpoint: tuple[str, int] | None = None


def _gpu_of(requirements: Any) -> tuple[Any, int | None]:
    if not isinstance(requirements, list):
        return None, None
    for item in requirements:
        kind, _ = item.get("Type")
        if isinstance(kind, str) and kind.upper() == "GPU":
            value, line = item.get("Value", int)
            return (value if value is not None else Unknown("GPU requirement without a value")), line
    return None, None


def _container_gpus(container: Reader | None) -> tuple[Any, int | None]:
    if container is None:
        return None, None
    return _gpu_of(container.objs("ResourceRequirements")[0])


#: a container environment variable that names a checkpoint directory (``CHECKPOINT_DIR``)
_CHECKPOINT_ENV = ("CHECKPOINT", "CKPT")
_CKPT = re.compile(r"(?i)checkpoint|ckpt")


def _efs_mounts(container: Reader | None) -> tuple[Mount, ...]:
    """``volumes[].efsVolumeConfiguration`` mounted by ``mountPoints[]``: EFS at the container path."""
    if container is None:
        return ()
    volumes, _ = container.objs("Volumes")
    efs: dict[str, tuple[Any, int | None]] = {}
    for volume in volumes if isinstance(volumes, list) else []:
        config = volume.obj("EfsVolumeConfiguration")
        name, line = volume.get("Name")
        if config is not None and isinstance(name, str):
            fs_id, fs_line = config.get("FileSystemId")
            efs[name] = (plain_unknown(fs_id), fs_line or line)
    points, _ = container.objs("MountPoints")
    out: list[Mount] = []
    for point in points if isinstance(points, list) else []:
        source, _ = point.get("SourceVolume")
        path, path_line = point.get("ContainerPath")
        if isinstance(source, str) and source in efs:
            fs_id, fs_line = efs[source]
            mount_path = plain_unknown(path)
            out.append(
                Mount(
                    volume=source,
                    mount_path=mount_path.rstrip("/") or "/" if isinstance(mount_path, str) else mount_path,
                    file_system_ref=fs_id,
                    line=path_line or fs_line,
                    is_efs=True,
                )
            )
    return tuple(out)


def _checkpoint(container: Reader | None) -> tuple[str, int] | None:
    """The container's checkpoint directory: a ``--*checkpoint*``/``--*ckpt*`` flag of its
    ``command`` (``--checkpoint-dir /efs/ckpt``), else an environment variable named for
    checkpoints with an absolute path (``CKPT_DIR=/efs/ckpt``). Literal paths only."""
    if container is None:
        return None
    command, line = container.str_list("Command")
    if isinstance(command, tuple) and line is not None:
        words = " ".join(w for w in command if isinstance(w, str))
        found = checkpoint_flag_paths(words)
        if found:
            return found[0], line
    env, _ = container.objs("Environment")
    for item in env if isinstance(env, list) else []:
        name, _ = item.get("Name")
        value, value_line = item.get("Value")
        if (
            isinstance(name, str)
            and any(w in name.upper() for w in _CHECKPOINT_ENV)
            and isinstance(value, str)
            and value.startswith("/")
            and value_line is not None
        ):
            return value, value_line
    return None


def _storage(out: JobDefinition, container: Reader | None) -> None:
    """The first container that says where it checkpoints or mounts EFS fills ``out``."""
    if not out.mounts:
        out.mounts = _efs_mounts(container)
    if out.checkpoint is None:
        out.checkpoint = _checkpoint(container)


def read_job_definition(root: Reader) -> JobDefinition:
    out = JobDefinition()
    timeout = root.obj("Timeout")
    if timeout is not None:
        value, line = timeout.get("AttemptDurationSeconds", int)
        if line is not None:
            out.timeout, out.lines["max_runtime_s"] = value, line
    single = root.obj("ContainerProperties")
    gpus, line = _container_gpus(single)
    _storage(out, single)
    nodes = root.obj("NodeProperties")
    if nodes is not None:
        count, count_line = nodes.get("NumNodes", int)
        if count_line is not None:
            out.nodes, out.lines["instance_count"] = count, count_line
        ranges, _ = nodes.objs("NodeRangeProperties")
        for node_range in ranges if isinstance(ranges, list) else []:
            container = node_range.obj("Container")
            _storage(out, container)
            found, found_line = _container_gpus(container)
            if found is not None and gpus is None:
                gpus, line = found, found_line
            itype, itype_line = container.get("InstanceType") if container is not None else (None, None)
            if itype_line is not None and out.instance_type is None:
                out.instance_type, out.lines["instance_type"] = itype, itype_line
    if gpus is None:
        gpus, line = _eks_gpus(root.obj("EksProperties"))
    out.gpus, out.gpu_line = gpus, line
    return out


def _eks_gpus(eks: Reader | None) -> tuple[Any, int | None]:
    pod = eks.obj("PodProperties") if eks is not None else None
    containers, _ = pod.objs("Containers") if pod is not None else (None, None)
    for container in containers if isinstance(containers, list) else []:
        resources = container.obj("Resources")
        for part in ("Limits", "Requests"):
            block = resources.obj(part) if resources is not None else None
            if block is not None:
                value, line = block.get("nvidia.com/gpu", int)
                if line is not None:
                    return value, line
    return None, None


def job_fields(found: JobDefinition) -> dict[str, Any] | None:
    """TrainingJob fields of a GPU job definition, or None when it requests no GPU."""
    if found.gpus is None or found.gpus == 0:
        return None
    storage: dict[str, Any] = {}
    if found.mounts:
        storage["file_system_mounts"] = found.mounts
        named = [
            m.mount_path for m in found.mounts if isinstance(m.mount_path, str) and _CKPT.search(m.mount_path)
        ]
        if named:
            storage["checkpoint_in_sight"] = named[0]  # a volume mounted by a checkpoint name
    if found.checkpoint is not None:
        storage["checkpoint_local_path"] = found.checkpoint[0]
        storage["checkpoint_in_sight"] = found.checkpoint[0]
        found.lines["checkpoint_local_path"] = found.checkpoint[1]
    return {
        **storage,
        "launcher": LAUNCHER,
        "runtime_limit_field": "timeout.attemptDurationSeconds",
        "default_note": NO_LIMIT,
        "max_runtime_s": found.timeout,
        "instance_count": found.nodes,
        "instance_type": found.instance_type,
        "checkpoint_local_path_default": None,
    }


def job_extra(found: JobDefinition) -> dict[str, Any]:
    return {"gpus_per_node": found.gpus}
