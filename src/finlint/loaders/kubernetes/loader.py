"""Kubernetes manifests -> IR: Karpenter pools, storage objects, workloads' mounts, SageMaker CRs, eksctl.

The loader's entry: :func:`claims`, :func:`load` (one parsed document at a time; the caller
splits multi-document files; lines are absolute, shifted by ``ctx.line_offset`` for documents
embedded in Terraform), :func:`load_documents` and :func:`finalize`, and the dispatch of each
object by API group and kind to the module that reads it:

* ``kubernetes_karpenter``: Karpenter ``NodePool`` / ``Provisioner`` -> :class:`ComputePool`,
  ``EC2NodeClass`` reservations (applied by :func:`finalize`);
* ``kubernetes_storage``: ``StorageClass`` / ``PersistentVolume`` / ``PersistentVolumeClaim``
  -> :class:`Volume`;
* ``kubernetes_workloads``: anything with pod specs -> ``Volume(volume_kind="workload")`` with
  its mounts, and the claims it creates;
* ``kubernetes_sagemaker``: SageMaker ``TrainingJob`` / ``HyperParameterTuningJob`` CRs ->
  :class:`TrainingJob`;
* ``kubernetes_training_operators`` (Kubeflow Training Operator and Trainer, HyperPod, Volcano,
  GPU ``batch/v1`` Jobs, JobSet) and ``kubernetes_ray`` (KubeRay): :class:`TrainingJob` (Ray
  clusters' accelerated groups: :class:`ComputePool`) besides their mounts; ``kubernetes_pods``
  reads what a pod template says about its capacity;
* ``kubernetes_eksctl``: eksctl ``ClusterConfig`` node groups -> :class:`ComputePool`;
* ``kubernetes_trainer``: Kubeflow Trainer v2 ``TrainJob`` and the ``TrainingRuntime`` /
  ``ClusterTrainingRuntime`` it names (resolved by :func:`finalize`);
* ``kubernetes_cronjob``: ``batch/v1`` ``CronJob`` GPU jobs and their schedule.

What every kind shares (identity, lines, suppressions, template placeholders as
:class:`Unknown`) is in ``kubernetes_object``.
"""

from __future__ import annotations

from typing import Any, Callable

from finlint import ir
from finlint.ir import Record
from finlint.loaders import DocContext
from finlint.loaders.common.yamlload import LineDict, pin_lines
from finlint.loaders.kubernetes import karpenter, trainer
from finlint.loaders.kubernetes.cronjob import load_cron_job
from finlint.loaders.kubernetes.eksctl import EKSCTL_DEFAULT_NODE_COUNT, load_eksctl
from finlint.loaders.kubernetes.karpenter import (
    ALL_CAPACITY_TYPES,
    CAPACITY_TYPE_KEY,
    NODE_CLASS_FACTS,
    load_karpenter_pool,
    load_node_class,
)
from finlint.loaders.kubernetes.object import FORMAT, SUPPRESSION_ANNOTATION, Doc, ShapeError
from finlint.loaders.kubernetes.ray import load_ray_cluster, load_ray_job
from finlint.loaders.kubernetes.sagemaker import SAGEMAKER_DEFAULT_MAX_RUNTIME_S, load_sagemaker_job
from finlint.loaders.kubernetes.storage import (
    EFS_DRIVER,
    FILE_SYSTEM_DRIVERS,
    NON_EFS_DRIVERS,
    load_claim,
    load_config_map,
    load_persistent_volume,
    load_storage_class,
)
from finlint.loaders.kubernetes.trainer import RUNTIME_KINDS, load_train_job, load_training_runtime
from finlint.loaders.kubernetes.training_operators import (
    KUBEFLOW_KINDS,
    load_batch_job,
    load_hyperpod_job,
    load_jobset,
    load_kubeflow_job,
    load_volcano_job,
)
from finlint.loaders.kubernetes.workloads import load_workload

__all__ = [
    "ALL_CAPACITY_TYPES",
    "CAPACITY_TYPE_KEY",
    "EFS_DRIVER",
    "EKSCTL_DEFAULT_NODE_COUNT",
    "FILE_SYSTEM_DRIVERS",
    "FORMAT",
    "NODE_CLASS_FACTS",
    "NON_EFS_DRIVERS",
    "SAGEMAKER_DEFAULT_MAX_RUNTIME_S",
    "SUPPRESSION_ANNOTATION",
    "claims",
    "finalize",
    "load",
    "load_documents",
]

_Handler = Callable[[Doc], "list[Record]"]

_HANDLERS: dict[tuple[str, str], _Handler] = {
    ("karpenter.sh", "NodePool"): load_karpenter_pool,
    ("karpenter.sh", "Provisioner"): load_karpenter_pool,
    ("karpenter.k8s.aws", "EC2NodeClass"): load_node_class,
    ("storage.k8s.io", "StorageClass"): load_storage_class,
    ("", "PersistentVolume"): load_persistent_volume,
    ("", "PersistentVolumeClaim"): load_claim,
    ("", "ConfigMap"): load_config_map,
    ("eksctl.io", "ClusterConfig"): load_eksctl,
    **{("kubeflow.org", kind): load_kubeflow_job for kind in KUBEFLOW_KINDS},
    ("batch", "Job"): load_batch_job,
    ("batch", "CronJob"): load_cron_job,
    ("batch.volcano.sh", "Job"): load_volcano_job,
    ("jobset.x-k8s.io", "JobSet"): load_jobset,
    ("trainer.kubeflow.org", "TrainJob"): load_train_job,
    **{("trainer.kubeflow.org", kind): load_training_runtime for kind in RUNTIME_KINDS},
    ("ray.io", "RayJob"): load_ray_job,
    ("ray.io", "RayCluster"): load_ray_cluster,
    ("ray.io", "RayService"): load_ray_cluster,
}
_SAGEMAKER_GROUPS = ("sagemaker.services.k8s.aws", "sagemaker.aws.amazon.com")
_SAGEMAKER_KINDS = ("trainingjob", "hyperparametertuningjob")
#: Kinds that never hold pod specs: not worth a walk.
_NOT_WORKLOADS = frozenset(
    {"ConfigMap", "Secret", "Service", "Namespace", "ServiceAccount", "CustomResourceDefinition"}
)


def _handler(d: Doc) -> _Handler | None:
    handler = _HANDLERS.get((d.group, d.kind))
    if handler is not None:
        return handler
    if d.group in _SAGEMAKER_GROUPS and d.kind.lower() in _SAGEMAKER_KINDS:
        return load_sagemaker_job
    if d.group == "sagemaker.amazonaws.com" and d.kind.lower() == "hyperpodpytorchjob":
        return load_hyperpod_job
    if d.kind in _NOT_WORKLOADS or d.group.endswith("rbac.authorization.k8s.io"):
        return None
    return load_workload


def finalize(records: list[Record]) -> list[Record]:
    """After every file is loaded: Karpenter pools on reservation-selecting node classes, and each
    Trainer ``TrainJob`` against the runtime it names (``kubernetes_trainer``)."""
    return trainer.finalize(karpenter.finalize(records))


def claims(doc: Any) -> bool:
    """A Kubernetes object: a mapping with string ``apiVersion`` and ``kind``."""
    return (
        isinstance(doc, dict) and isinstance(doc.get("apiVersion"), str) and isinstance(doc.get("kind"), str)
    )


def load(doc: Any, ctx: DocContext) -> ir.LoadResult:
    """One Kubernetes object (or a ``kind: List`` of them) -> records, or a FIN000 error."""
    result = ir.LoadResult()
    if not claims(doc):
        return result
    if doc["kind"] == "List" and isinstance(doc.get("items"), list):
        for item in doc["items"]:
            result.extend(load(item, ctx))
        return result
    try:
        if not isinstance(doc, LineDict):  # plain dicts (e.g. from HCL): every value on line 1 + offset
            doc = pin_lines(doc, 1)
        d = Doc(doc, ctx)
        handler = _handler(d)
        if handler is not None:
            result.records.extend(handler(d))
    except ShapeError as exc:
        result.errors.append(ir.LoadError(ctx.file, ctx.line(exc.line), str(exc)))
    except (TypeError, ValueError, AttributeError, KeyError, IndexError, RecursionError) as exc:
        line = ctx.line(int(getattr(doc, "line", 1) or 1))
        result.errors.append(ir.LoadError(ctx.file, line, f"cannot interpret {doc.get('kind')}: {exc!r}"))
    return result


def load_documents(docs: list[Any], ctx: DocContext) -> ir.LoadResult:
    """Several parsed documents (a Terraform heredoc, a ``kubernetes_manifest`` list)."""
    result = ir.LoadResult()
    for index, doc in enumerate(docs):
        sub = DocContext(
            file=ctx.file,
            lines=ctx.lines,
            doc_index=ctx.doc_index + index,
            line_offset=ctx.line_offset,
            address_prefix=ctx.address_prefix,
            options=ctx.options,
        )
        if claims(doc):
            result.extend(load(doc, sub))
    return result
