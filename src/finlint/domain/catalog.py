"""Instance catalog: specs and Karpenter well-known labels for accelerated and common CPU types.

Data lives in ``data/instances.json`` (sources named in its ``_meta``; figures from Karpenter's
generated instance-type page and the EC2 API model). SageMaker ``ml.*`` types map to their
EC2 twin, so one catalog serves every launcher.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable

from finlint.ir import Alternatives, Unknown, is_unknown, map_options


@dataclass(frozen=True)
class InstanceSpec:
    """One instance type's specification, as Karpenter labels it (vCPU, memory, accelerators)."""

    name: str
    family: str
    category: str
    generation: int
    size: str
    vcpu: int
    memory_mib: int
    gpu_count: int = 0
    gpu_name: str | None = None
    gpu_manufacturer: str | None = None
    gpu_memory_mib: int | None = None  # per GPU
    accelerator_count: int = 0  # Neuron devices (Trainium / Inferentia)
    accelerator_name: str | None = None
    accelerator_memory_mib: int | None = None

    @property
    def accelerators(self) -> int:
        """GPUs or Neuron devices: what 'GPU-hours' counts."""
        return self.gpu_count or self.accelerator_count

    def label(self, key: str) -> Any:
        """The value of a Karpenter well-known label (``karpenter.k8s.aws/instance-*``)."""
        table = _LABELS.get(self.name)
        if table is None:
            table = _LABELS[self.name] = _labels(self)
        return table.get(key.rsplit("/", 1)[-1])


_LABELS: dict[str, dict[str, Any]] = {}


def _labels(spec: InstanceSpec) -> dict[str, Any]:
    """The well-known label values of a type, built once (rules ask for them per requirement)."""
    return {
        "instance-type": spec.name,
        "instance-category": spec.category,
        "instance-family": spec.family,
        "instance-generation": spec.generation,
        "instance-size": spec.size,
        "instance-cpu": spec.vcpu,
        "instance-memory": spec.memory_mib,
        "instance-gpu-count": spec.gpu_count,
        "instance-gpu-name": spec.gpu_name,
        "instance-gpu-manufacturer": spec.gpu_manufacturer,
        "instance-gpu-memory": spec.gpu_memory_mib,
        "instance-accelerator-count": spec.accelerator_count,
        "instance-accelerator-name": spec.accelerator_name,
    }


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    path = Path(__file__).with_name("data") / "instances.json"
    if path.is_file():  # an installed package or a checkout: no importlib.resources (~8 ms of imports)
        data: dict[str, Any] = json.loads(path.read_text("utf-8"))
        return data
    from importlib import resources  # pragma: no cover - a zipped install

    loaded: dict[str, Any] = json.loads(
        resources.files("finlint.data").joinpath("instances.json").read_text("utf-8")
    )
    return loaded


@lru_cache(maxsize=1)
def _specs() -> dict[str, InstanceSpec]:
    out: dict[str, InstanceSpec] = {}
    for name, row in _data()["instances"].items():
        fields = {k: v for k, v in row.items() if k in InstanceSpec.__dataclass_fields__}
        out[name] = InstanceSpec(name=name, **fields)
    return out


def ec2_twin(instance_type: str) -> str:
    """``ml.p5.48xlarge`` -> ``p5.48xlarge``; EC2 names pass through."""
    aliases: dict[str, str] = _data().get("sagemaker_aliases", {})
    if instance_type in aliases:
        return aliases[instance_type]
    return instance_type[3:] if instance_type.startswith("ml.") else instance_type


def lookup(instance_type: str) -> InstanceSpec | None:
    """The spec for an EC2 or SageMaker instance type, or None when not in the catalog."""
    return _specs().get(ec2_twin(instance_type))


def family_of(instance_type: str) -> str:
    """The family of any well-formed type name, even one missing from the catalog."""
    return ec2_twin(instance_type).split(".", 1)[0]


def all_instances() -> Iterable[InstanceSpec]:
    return _specs().values()


def source() -> str:
    meta = _data().get("_meta", {})
    return str(meta.get("source", ""))


def accelerated_families() -> list[str]:
    """Every catalog family with GPUs or Neuron devices (NVIDIA, Trainium, Inferentia)."""
    return list(_accelerated_families())


@lru_cache(maxsize=1)
def _accelerated_families() -> tuple[str, ...]:
    return tuple(sorted({s.family for s in all_instances() if s.accelerators or s.gpu_name}))


def gpu_of_instance(instance_type: Any) -> Any:
    """True for a type with NVIDIA GPUs, False for one without, Unknown when not in the catalog
    (alternatives option by option)."""
    if isinstance(instance_type, Alternatives):
        return map_options(instance_type, gpu_of_instance)
    if instance_type is None or is_unknown(instance_type):
        return instance_type
    spec = lookup(str(instance_type))
    if spec is not None:
        return spec.gpu_count > 0
    family = family_of(str(instance_type))
    if family[:1] in ("p", "g"):  # the accelerated families: a type missing from the catalog
        return Unknown(f"{instance_type} is not in the instance catalog")
    return False  # c, m, r, t, trn, inf...: no NVIDIA GPU
