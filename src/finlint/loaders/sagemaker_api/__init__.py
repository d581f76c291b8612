"""SageMaker API specs: CreateTrainingJob requests, Step Functions ASL, pipeline definitions and
HyperPod clusters, as a DocumentLoader. Other loaders reuse its readers for embedded specs
(ASL inside CloudFormation or Terraform, boto3 requests in SDK code)."""

from finlint.loaders.sagemaker_api.asl import training_jobs_from_asl
from finlint.loaders.sagemaker_api.loader import claims, finalize, load
from finlint.loaders.sagemaker_api.reader import FORMAT
from finlint.loaders.sagemaker_api.request import training_job_from_request

__all__ = ["FORMAT", "claims", "finalize", "load", "training_job_from_request", "training_jobs_from_asl"]
