"""Helm charts -> IR: a directory with ``Chart.yaml`` is one unit, rendered offline.

:mod:`.render` picks the renderer (a ``helm`` binary, the ``finlint[helm]`` extra, or the
tolerant reader of :mod:`finlint.loaders.common.templating`), :mod:`.chart` loads the rendered documents
through the document loaders, :mod:`.lines` maps rendered lines back to template lines and
:mod:`.values` keeps the values files' lines.
"""

from __future__ import annotations

from finlint.loaders.helm.chart import FORMAT, finalize, load_directory, module_directories

__all__ = ["FORMAT", "finalize", "load_directory", "module_directories"]
