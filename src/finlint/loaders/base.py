"""What every loader shares: the context a document is read in, and the loader contracts.

A loader is a module that satisfies one of three Protocols, by the unit it reads:

* :class:`DocumentLoader`: one parsed YAML/JSON document at a time (CloudFormation,
  Kubernetes, SageMaker API specs, Terraform plans). ``claims(doc)`` is a cheap check on the
  parsed document; the first registered loader that claims it loads it.
* :class:`FileLoader`: one file's text (SageMaker SDK code and notebooks).
* :class:`DirectoryLoader`: one directory as a whole (a Terraform configuration).

Every loader also has ``finalize(records)``, a pass over the whole scan's records after
loading (identity when it has nothing to do), so the scan never probes for optional hooks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol

from finlint.ir import LoadResult, Record


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
    #: the file on disk, for the files beside it a document's values come from (a ``.env``);
    #: None for embedded documents
    path: Path | None = None

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


class DocumentLoader(Protocol):
    FORMAT: str

    def claims(self, doc: Any) -> bool: ...

    def load(self, doc: Any, ctx: DocContext) -> LoadResult: ...

    def finalize(self, records: list[Record]) -> list[Record]: ...


class FileLoader(Protocol):
    FORMAT: str

    def load_file(self, path: Path, display: str, text: str, options: dict[str, Any]) -> LoadResult: ...

    def finalize(self, records: list[Record]) -> list[Record]: ...


class DirectoryLoader(Protocol):
    FORMAT: str

    def module_directories(self, dirs: Iterable[Path]) -> set[Path]: ...

    def load_directory(
        self,
        directory: Path,
        files: list[Path],
        display: Callable[[Path], str],
        options: dict[str, Any],
    ) -> LoadResult: ...

    def finalize(self, records: list[Record]) -> list[Record]: ...


class IndependentDirectoryLoader(DirectoryLoader, Protocol):
    """A directory loader whose units load alone (:attr:`LoaderSpec.independent_units`): under
    ``--jobs`` a worker loads every unit and says which local modules it calls, and
    ``modules_called`` of those calls is what ``module_directories`` says of the directories."""

    def module_calls(self, directory: Path) -> set[Path]: ...

    def modules_called(self, calls: Mapping[Path, set[Path]]) -> set[Path]: ...


def no_finalize(records: list[Record]) -> list[Record]:
    """The ``finalize`` of a loader with no whole-scan pass."""
    return records
