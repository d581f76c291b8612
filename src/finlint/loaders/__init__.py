"""Loaders: files -> IR records. One module per input format; formats are detected from content.

Contract for a *document* loader (CloudFormation, Kubernetes, SageMaker API specs, plan JSON):
a module-level ``FORMAT: str``, ``claims(doc) -> bool`` (cheap, on the parsed document) and
``load(doc, ctx: DocContext) -> LoadResult``. A structured file (YAML/JSON) is parsed once by
:mod:`finlint.yamlload` and each document goes to the first loader in ``DOCUMENT_LOADERS`` that
claims it; documents nobody claims (CI workflows, Helm values...) are ignored.

Terraform loads a *directory* (``load_directory``), the SageMaker SDK loader a Python file or
notebook (``load_file``). Modules are imported only when a file needs them, so a scan of YAML
never pays for python-hcl2.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

#: Document loaders, tried in order (most specific first). Module names under finlint.loaders.
DOCUMENT_LOADERS = ("terraform_plan", "cloudformation", "sagemaker_api", "kubernetes")

STRUCTURED_SUFFIXES = (".yaml", ".yml", ".json", ".template")
TERRAFORM_SUFFIXES = (".tf", ".tfvars")
PYTHON_SUFFIXES = (".py", ".ipynb")


@dataclass
class DocContext:
    """What a document loader knows about where a document came from.

    ``file`` is the display path (relative to the CWD, '/' separators). ``line_offset`` is
    added to every line when the document is embedded in another file (a Terraform
    ``kubectl_manifest`` heredoc), so findings point into the outer file. ``lines`` is the
    file's text split into lines (for comment-based suppressions), ``doc_index`` the
    position of the document in a multi-document file.
    """

    file: str
    lines: list[str] = field(default_factory=list)
    doc_index: int = 0
    line_offset: int = 0
    address_prefix: str = ""  # e.g. "kubectl_manifest.nodepool/" for embedded objects
    options: dict[str, Any] = field(default_factory=dict)

    def line(self, n: int) -> int:
        return n + self.line_offset


class FieldCollector:
    """IR field values and the source lines they came from (``attr_lines``), gathered while reading."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.lines: dict[str, int] = {}

    def put(self, name: str, value: Any, line: int | None) -> None:
        if line is None:
            return
        self.values[name] = value
        self.lines[name] = line


_cache: dict[str, ModuleType] = {}


def get_loader(name: str) -> ModuleType:
    """Import ``finlint.loaders.<name>`` on first use."""
    module = _cache.get(name)
    if module is None:
        module = importlib.import_module(f"finlint.loaders.{name}")
        _cache[name] = module
    return module


def document_loader_for(doc: Any) -> ModuleType | None:
    if not isinstance(doc, dict):
        return None
    for name in DOCUMENT_LOADERS:
        try:
            module = get_loader(name)
        except ModuleNotFoundError:
            continue  # a format not built yet
        if module.claims(doc):
            return module
    return None
