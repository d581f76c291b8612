"""``ScanOptions``: what one scan reads and how (a leaf module: the scan, the parallel
loader and the loaders' dispatch share it without importing each other)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from finlint.confine import Roots
from finlint.engine.run import EngineConfig
from finlint.loaders.common.discovery import Limits

if TYPE_CHECKING:
    from finlint.cost.common import CostSettings


@dataclass
class ScanOptions:
    """What to scan and how: the one input of :func:`lint`."""

    paths: list[Path] = field(default_factory=lambda: [Path(".")])
    engine: EngineConfig = field(default_factory=EngineConfig)
    policy_dirs: list[Path] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    loader_options: dict[str, Any] = field(default_factory=dict)  # tf_var_files, tf_vars, ...
    cost_settings: CostSettings | None = None  # region, usage file, pricing overlay
    #: paths in findings are relative to this directory (None: the current directory)
    display_root: Path | None = None
    limits: Limits = field(default_factory=Limits)  # file size and YAML node caps
    skip_files: list[Path] = field(default_factory=list)  # the scan's own report/baseline files
    progress: Callable[..., None] | None = None  # progress(phase, done, total), e.g. finlint.cli.progress
    jobs: int = 1  # parse files in this many processes (finlint.parallel); output is identical
    #: given files keep their repository's context (finlint.context); the CLI turns it on
    context: bool = False
    config_file: Path | None = None  # the config in force (its folder is a fallback context root)
    #: what a repository-named path may resolve into (finlint.confine); None: derived from paths
    roots: Roots | None = None
