"""AWS Batch API requests (``RegisterJobDefinition``, ``CreateComputeEnvironment``; the JSON of
``aws batch ... --cli-input-json`` and boto3 kwargs written as JSON/YAML): a DocumentLoader."""

from finlint.loaders.batch_api.loader import FORMAT, claims, finalize, load

__all__ = ["FORMAT", "claims", "finalize", "load"]
