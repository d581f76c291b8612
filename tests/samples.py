"""Sample inputs several test modules share (reporters, config): one place to keep them realistic."""

from __future__ import annotations

from typing import Any

P5_NOTEBOOK = """\
AWSTemplateFormatVersion: "2010-09-09"
Resources:
  ResearchNotebook:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.p5.48xlarge
      RoleArn: arn:aws:iam::111122223333:role/SageMakerNotebookRole
"""

#: Appended to P5_NOTEBOOK: the same notebook again, suppressed in source with a reason.
SUPPRESSED_P5_NOTEBOOK = """\
  # finlint: ignore[FIN301] reserved for the quarterly pre-training run
  ReservedNotebook:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: ml.p5.48xlarge
      RoleArn: arn:aws:iam::111122223333:role/SageMakerNotebookRole
"""


def training_request(
    name: str = "demo-classifier", instance_type: str = "ml.g5.2xlarge", **extra: Any
) -> dict[str, Any]:
    """A CreateTrainingJob request without StoppingCondition (FIN101) unless ``extra`` adds one."""
    return {
        "TrainingJobName": name,
        "AlgorithmSpecification": {
            "TrainingImage": "123.dkr.ecr.us-east-1.amazonaws.com/t:1",
            "TrainingInputMode": "File",
        },
        "RoleArn": "arn:aws:iam::111122223333:role/SageMakerRole",
        "OutputDataConfig": {"S3OutputPath": "s3://bucket/out"},
        "ResourceConfig": {"InstanceType": instance_type, "InstanceCount": 1, "VolumeSizeInGB": 50},
        **extra,
    }


#: A Karpenter NodePool admitting only p5.48xlarge, with a `${zone}` for templatefile() tests.
P5_NODEPOOL_YAML = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: h100
spec:
  template:
    spec:
      requirements:
        - key: node.kubernetes.io/instance-type
          operator: In
          values: ["p5.48xlarge"]
        - key: topology.kubernetes.io/zone
          operator: In
          values: ["${zone}"]
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
"""
