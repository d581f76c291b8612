"""Kubernetes manifests: a DocumentLoader, one module per kind family.

``loader`` dispatches a document by kind; ``object`` is the line-aware document model;
``karpenter`` (NodePool, Provisioner, EC2NodeClass), ``storage`` (StorageClass, PV, PVC),
``workloads`` (pod specs and their mounts), ``sagemaker`` (TrainingJob CRs), ``eksctl``.
"""

from finlint.loaders.kubernetes.loader import FORMAT, claims, finalize, load, load_documents

__all__ = ["FORMAT", "claims", "finalize", "load", "load_documents"]
