"""CloudFormation templates (YAML/JSON, short-form intrinsics): a DocumentLoader.

``loader`` reads a template; ``values`` is the value model (intrinsics, parameters, Unknown),
``resources`` the per-resource-type handlers, ``sfn`` Step Functions state machines.
"""

from finlint.loaders.cloudformation.loader import FORMAT, claims, finalize, load

__all__ = ["FORMAT", "claims", "finalize", "load"]
