"""FIN303 karpenter-sagemaker-instance-type: A SageMaker ml.* instance type in a Karpenter
requirement or EKS node group.

The policy is ``policies/FIN303-karpenter-sagemaker-instance-type.yaml``; this module holds its
facts and its price."""

from __future__ import annotations

from typing import Any

from finlint.domain import catalog
from finlint.domain.karpenter import KARPENTER
from finlint.engine.facts import Evidence
from finlint.ir import ComputePool, Record
from finlint.rules.base import Rule

_TYPE_KEYS = (
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "karpenter.k8s.aws/instance-family",
    "karpenter.k8s.aws/instance-type",
)


_EC2_POOLS = ("eks-nodegroup", "eksctl-nodegroup", "autoscaling-group", "launch-template", "ec2-instance")


def sagemaker_type_in_pool(record: Record) -> Any:
    """Evidence that an EC2/Karpenter pool names SageMaker ``ml.*`` instance types (never matches)."""
    if not isinstance(record, ComputePool):
        return None
    if record.pool_kind in KARPENTER:
        if record.hyperpod_node_class:
            return None  # HyperPod nodes carry ml.* instance-type labels: the names match there
        for req in record.requirements:
            if req.key not in _TYPE_KEYS or req.operator not in ("In", "NotIn"):
                continue
            bad = [v for v in req.values if v.startswith("ml.")]
            if bad:
                fixed = ", ".join(catalog.ec2_twin(v) for v in bad)
                return Evidence(
                    f"requirement {req.key} {req.operator} lists SageMaker type(s) {', '.join(bad)}, "
                    f"which match no EC2 instance (the EC2 name is {fixed})",
                    req.line or record.line_of("requirements") or record.location.line,
                )
        return None
    if record.pool_kind not in _EC2_POOLS:
        return None  # HyperPod instance groups use ml.* names legitimately
    types = record.instance_types
    if not isinstance(types, tuple):
        return None
    bad = [t for t in types if isinstance(t, str) and t.startswith("ml.")]
    if not bad:
        return None
    return Evidence(
        f"instance types list SageMaker type(s) {', '.join(bad)}, which are not EC2 instance types "
        f"(the EC2 name is {', '.join(catalog.ec2_twin(t) for t in bad)})",
        record.line_of("instance_types") or record.location.line,
    )


RULE = Rule("FIN303", facts=(sagemaker_type_in_pool,), cost_model=None, price=None)
