"""SageMaker Python SDK code and notebooks, read with ``ast`` and never executed: a FileLoader.

``loader`` reads a file or notebook; ``interp`` is a small abstract interpreter over the AST;
``launch`` gives SDK calls (estimators, ModelTrainer, @remote, tuners) their meaning;
``values`` is the value model (partial strings, dicts, Unknown).
"""

from finlint.loaders.sagemaker_sdk.loader import FORMAT, finalize, load_file, mentions_sagemaker

__all__ = ["FORMAT", "finalize", "load_file", "mentions_sagemaker"]
