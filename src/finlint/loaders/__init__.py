"""Loaders: files -> IR records. One package per input format; the format is found from content.

``REGISTRY`` is the one list of input formats: the scan iterates it, and the suffixes the scan
reads, the suppression comment styles, the pre-commit ``files:`` pattern and the filenames of
the policy examples all derive from it (``tests/loaders/test_loader_registry.py`` checks they agree).
A loader module is imported on first use (a YAML-only scan never imports python-hcl2), and an
import that fails is a broken installation: :class:`LoaderUnavailable`, never a silent skip.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from finlint.loaders.base import (
    DirectoryLoader,
    DocContext,
    DocumentLoader,
    FieldCollector,
    FileLoader,
    IndependentDirectoryLoader,
    no_finalize,
)

__all__ = [
    "REGISTRY",
    "DocContext",
    "DirectoryLoader",
    "DocumentLoader",
    "FieldCollector",
    "FileLoader",
    "IndependentDirectoryLoader",
    "LoaderSpec",
    "LoaderUnavailable",
    "document_loader_for",
    "no_finalize",
]

Unit = Literal["document", "file", "directory"]
#: `.tpl`, `.tmpl`, `.j2`, `.yaml-template`: templates, read when their content is a manifest
#: (`finlint.loaders.common.templating`).
STRUCTURED_SUFFIXES = (
    ".yaml",
    ".yml",
    ".json",
    ".template",
    ".tpl",
    ".tmpl",
    ".j2",
    ".yaml-template",
    ".yml-template",
)
#: Suffixes whose files cannot hold a comment (JSON; notebooks are JSON too).
NO_COMMENT_SUFFIXES = (".json", ".ipynb")


class LoaderUnavailable(RuntimeError):
    """A built-in loader cannot be imported: the installation is broken (exit 2, never 0 findings)."""


@dataclass(frozen=True)
class LoaderSpec:
    """One input format: where its loader lives, what it reads, how its files comment."""

    format: str
    module: str  # dotted path of the module implementing the Protocol of ``unit``
    unit: Unit
    suffixes: tuple[str, ...]  # files it reads (document loaders share the structured suffixes)
    comments: tuple[str, ...]  # line-comment markers suppressions may use
    #: example format name (as written in a policy's examples) -> default file name for it
    example_files: dict[str, str] = field(default_factory=dict)
    #: a directory loader is handed the files of these suffixes (default: ``suffixes``); the
    #: others (``.tfvars``) only mark the directory as changed and are read by the loader itself
    unit_files: tuple[str, ...] = ()
    #: a directory holding one of these files is a unit that owns its whole tree (a Helm chart:
    #: ``Chart.yaml``); files under it are the unit's, never loaded on their own
    marker_files: tuple[str, ...] = ()
    #: a directory loader whose units load alone (no state shared across a run, no threads):
    #: ``--jobs`` may load them in worker processes (Terraform; not Helm, whose renderer starts
    #: threads and whose notices are once per run); its module implements
    #: ``IndependentDirectoryLoader`` (``module_calls``, ``modules_called``)
    independent_units: bool = False
    #: a file loader that also reads files with no extension whose first :data:`SNIFF_BYTES`
    #: its module's ``sniff(head)`` accepts (a Slurm script named ``train``, issue 27)
    extensionless: bool = False

    def __hash__(self) -> int:
        return hash((self.format, self.module))

    def load(self) -> ModuleType:
        """The loader module, imported on first use; a failing import raises LoaderUnavailable."""
        module = _cache.get(self.module)
        if module is None:
            try:
                module = importlib.import_module(self.module)
            except ImportError as exc:
                raise LoaderUnavailable(
                    f"the {self.format} loader ({self.module}) cannot be imported: {exc}; "
                    "reinstall finlint (pip install --force-reinstall finlint)"
                ) from exc
            _cache[self.module] = module
        return module


#: Document loaders first, most specific first: a document goes to the first that claims it.
REGISTRY: tuple[LoaderSpec, ...] = (
    LoaderSpec(
        "terraform-plan",
        "finlint.loaders.terraform.plan",
        "document",
        STRUCTURED_SUFFIXES,
        ("#",),
        {"terraform-plan": "plan.json"},
    ),
    LoaderSpec(
        "cloudformation",
        "finlint.loaders.cloudformation",
        "document",
        STRUCTURED_SUFFIXES,
        ("#",),
        {"cloudformation": "template.yaml"},
    ),
    LoaderSpec(
        "sagemaker-api",
        "finlint.loaders.sagemaker_api",
        "document",
        STRUCTURED_SUFFIXES,
        ("#",),
        {
            "sagemaker-api": "request.json",
            "step-functions": "machine.asl.json",
            "sagemaker-pipeline": "pipeline.json",
        },
    ),
    LoaderSpec(
        "aws-batch-api",
        "finlint.loaders.batch_api",
        "document",
        STRUCTURED_SUFFIXES,
        ("#",),
        {"aws-batch-api": "job-definition.json"},
    ),
    LoaderSpec(
        "parallelcluster",
        "finlint.loaders.parallelcluster",
        "document",
        STRUCTURED_SUFFIXES,
        ("#",),
        {"parallelcluster": "cluster-config.yaml"},
    ),
    LoaderSpec(
        "kubernetes",
        "finlint.loaders.kubernetes",
        "document",
        STRUCTURED_SUFFIXES,
        ("#",),
        {"kubernetes": "manifest.yaml"},
    ),
    LoaderSpec(
        "helm",
        "finlint.loaders.helm",
        "directory",
        (),
        ("#",),
        unit_files=STRUCTURED_SUFFIXES,
        marker_files=("Chart.yaml",),
    ),
    LoaderSpec(
        "terraform",
        "finlint.loaders.terraform.loader",
        "directory",
        (".tf", ".tf.json", ".tfvars", ".tfvars.json"),
        ("#", "//", "/*"),
        {"terraform": "main.tf"},
        unit_files=(".tf", ".tf.json"),
        independent_units=True,
    ),
    LoaderSpec(
        "sagemaker-python",
        "finlint.loaders.sagemaker_sdk",
        "file",
        (".py", ".ipynb"),
        ("#",),
        {"sagemaker-python": "train.py", "notebook": "train.ipynb"},
    ),
    LoaderSpec(
        "slurm",
        "finlint.loaders.slurm",
        "file",
        (".sbatch", ".slurm", ".sh", ".bash", ".job", ".batch", ".submit", "slurm.conf"),
        ("#",),
        {"slurm": "train.sbatch"},
        extensionless=True,
    ),
)

_cache: dict[str, ModuleType] = {}


def specs(unit: Unit | Literal["tree"]) -> tuple[LoaderSpec, ...]:
    """The registry's specs of one unit ("tree": those with marker files), built once per
    registry: discovery asks for every file of a tree."""
    cached = _BY_UNIT.get(unit)
    if cached is None or cached[0] is not REGISTRY:
        chosen = tuple(s for s in REGISTRY if (s.marker_files if unit == "tree" else s.unit == unit))
        cached = _BY_UNIT[unit] = (REGISTRY, chosen)
    return cached[1]


_BY_UNIT: dict[str, tuple[tuple[LoaderSpec, ...], tuple[LoaderSpec, ...]]] = {}


def all_suffixes() -> tuple[str, ...]:
    """Every file suffix some loader reads, in registry order."""
    return tuple(dict.fromkeys(x for s in REGISTRY for x in s.suffixes))


def spec_for_file(name: str, unit: Unit) -> LoaderSpec | None:
    return next((s for s in specs(unit) if s.suffixes and name.endswith(s.suffixes)), None)


#: how much of a file with no extension is read to decide whether a loader reads it
SNIFF_BYTES = 4096


def has_no_extension(name: str) -> bool:
    """``train``, ``run_job``: no dot at all (``.bashrc``, ``x.txt`` have one)."""
    return "." not in name


def sniffed_spec(head: str) -> LoaderSpec | None:
    """The file loader reading a file with no extension whose first :data:`SNIFF_BYTES` are
    ``head`` (its module's ``sniff`` accepts it), or None. Only such loaders are imported."""
    for spec in specs("file"):
        if spec.extensionless and spec.load().sniff(head[:SNIFF_BYTES]):
            return spec
    return None


def sniff_extensionless(path: Path) -> bool:
    """Whether discovery keeps a file with no extension: a cheap read of its first
    :data:`SNIFF_BYTES` (non-blocking, regular files only) that a loader's ``sniff`` accepts;
    the size cap applies when the file is read."""
    if not has_no_extension(path.name) or not any(s.extensionless for s in specs("file")):
        return False
    from finlint.untrusted import read_head

    head = read_head(path, SNIFF_BYTES)
    if not head or b"\x00" in head:
        return False
    return sniffed_spec(head.decode("utf-8", "replace")) is not None


def tree_unit(
    path: Path, cache: dict[Path, tuple[LoaderSpec, Path] | None]
) -> tuple[LoaderSpec, Path] | None:
    """The loader and directory of the outermost unit whose tree holds ``path`` (a file inside a
    Helm chart belongs to the chart; a vendored subchart to its parent), or None.

    The walk stops at a repository root (a directory holding ``.git``). ``cache`` is per scan.
    """
    if path.parent in cache:  # the folder as given: most files share it, absolute() is not free
        return cache[path.parent]
    found: tuple[LoaderSpec, Path] | None = None
    trees = specs("tree")
    if not trees:
        return None
    directory = path.parent.absolute()
    walked: list[Path] = []
    while True:
        if directory in cache:
            hit = cache[directory]
            found = hit if hit is not None else found
            break
        walked.append(directory)
        for spec in trees:
            if any((directory / name).is_file() for name in spec.marker_files):
                found = (spec, directory)
        if (directory / ".git").exists() or directory.parent == directory:
            break
        directory = directory.parent
    for d in walked:
        cache.setdefault(d, None)
    if found is not None:
        for d in walked:
            if d == found[1] or found[1] in d.parents:
                cache[d] = found
    cache[path.parent] = found
    return found


#: Every suppression comment contains this (``# finlint: ignore[...]``): a file without it has
#: none, so its lines need not be kept (or sent back from a ``--jobs`` worker).
SUPPRESSION_MARKER = "finlint:"


def comment_suffixes() -> tuple[str, ...]:
    """Files an in-source suppression comment can be written in."""
    return tuple(x for x in all_suffixes() if x not in NO_COMMENT_SUFFIXES)


def comment_markers() -> tuple[str, ...]:
    return tuple(dict.fromkeys(m for s in REGISTRY for m in s.comments))


def example_files() -> dict[str, str]:
    """Every example format a policy may use -> the file name its example is written to."""
    out: dict[str, str] = {}
    for spec in REGISTRY:
        out.update(spec.example_files)
    return out


def document_loader_for(doc: Any) -> DocumentLoader | None:
    """The first document loader that claims ``doc`` (a parsed YAML/JSON document)."""
    if not isinstance(doc, dict):
        return None
    for spec in specs("document"):
        module: DocumentLoader = spec.load()
        if module.claims(doc):
            return module
    return None
