"""Side records of Kubernetes workloads (frozen, hashable: records stay picklable for ``--jobs``):
what a container is told about checkpoints, what the linking pass still has to expand, and
where its pods may run (``PodPlacement``, and the ``Requirement``s pools and affinities share). They
are part of the IR: import them from :mod:`finlint.ir`, which re-exports them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CheckpointPath:
    """A path a container is told to checkpoint to (``--checkpoint-dir=/state/ckpt``,
    ``CHECKPOINT_DIR``): the storage rules check whether it lies under an EFS mount."""

    path: str
    line: int | None
    source: str  # how it was found, with any expansion chain (``env CKPT=$(ROOT)/x -> /efs/x``)


@dataclass(frozen=True)
class PendingEnv:
    """A container text still holding variables once its own ``env`` is expanded (an env value,
    a ``command``/``args`` word): ``linking.env`` expands it with the ``envFrom`` ConfigMaps."""

    text: str  # expanded as far as the container's own env goes
    raw: str  # as written
    label: str  # ``env NAME``, ``command`` or ``args``
    line: int | None


@dataclass(frozen=True)
class EnvFrom:
    """One container's ``envFrom`` ConfigMaps and what they may expand (Kubernetes loader ->
    ``linking.env``)."""

    config_maps: tuple[str, ...]
    line: int
    env: tuple[str, ...] = ()  # names the container's own ``env`` defines (they win)
    pending: tuple[PendingEnv, ...] = ()
    #: keys of ``config_maps`` the container runs as scripts (a ConfigMap volume's file named in
    #: its ``command``/``args``): their ``export CKPT_DIR=/x`` lines and checkpoint flags, not env
    scripts: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunsScript:
    """A Python script a container runs, the line, the ``--options`` the command gives it
    (Kubernetes loader -> ``linking.entrypoints``: the script's argparse checkpoint defaults)."""

    script: str
    line: int
    given: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScriptArg:
    """A script's ``add_argument("--checkpoint-dir", default="/efs/ckpt")``: options, default, line."""

    options: tuple[str, ...]
    default: str
    line: int


@dataclass(frozen=True)
class Requirement:
    """A Karpenter / node-affinity style requirement: key, operator and values."""

    key: str
    operator: str  # In | NotIn | Exists | DoesNotExist | Gt | Lt | Gte | Lte
    values: tuple[str, ...] = ()
    line: int | None = None


@dataclass(frozen=True)
class PodPlacement:
    """Where a Kubernetes workload's accelerated pods may run (``loaders.kubernetes.pods``)."""

    selector: tuple[tuple[str, str], ...] = ()
    affinity: tuple[tuple[Requirement, ...], ...] = ()
    tolerations: tuple[tuple[str, str, str, str], ...] = ()
    accelerators: int | None = None
    accelerator_kind: str | None = None
    devices: int | None = None
    line: int | None = None
    unresolved: str | None = None
