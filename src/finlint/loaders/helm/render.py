"""Rendering a chart offline: a ``helm`` binary, else the ``finlint[helm]`` extra, else nothing.

* ``binary``: ``helm template RELEASE CHART -f ... -f -`` (the overrides on stdin) with a time
  limit. ``helm template`` is client-only: no cluster is contacted (no ``--validate``), and no
  repository either (no ``--dependency-update``).
* ``sdk``: ``helm-python-sdk`` (Apache-2.0), Helm's own Go SDK in a bundled shared library:
  ``Chart.load(dir).render(values, name=...)``; ``lookup`` returns nothing, nothing is fetched.
* ``tolerant``: no renderer; the chart's templates are read by :mod:`finlint.templating`.

Template output is never written to disk; a failure is a :class:`RenderFailure` carrying
Helm's message and, when Helm names it, the template file and line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

RENDERERS = ("auto", "binary", "sdk", "tolerant")
BINARY_TIMEOUT_S = 60
_WHERE = re.compile(
    r"\(([^()\s:]+):(\d+)(?::\d+)?\)|(?<![\w/.-])([\w.-]+/[\w./-]+\.(?:ya?ml|tpl|json|txt)):(\d+)"
)
_SOURCE = re.compile(r"^# Source: (\S.*?)\s*$", re.MULTILINE)
_DOC_SPLIT = re.compile(r"^---[ \t]*$", re.MULTILINE)


@dataclass
class RenderFailure:
    """Why a chart did not render, at the template and line the renderer named."""

    message: str
    source: str | None = None  # the template as Helm names it ("chart/templates/x.yaml")
    line: int | None = None


@dataclass
class Rendered:
    """A chart rendered by one renderer: each template's output, or the failure."""

    renderer: str
    manifests: dict[str, str] = field(default_factory=dict)  # template source -> rendered text
    failure: RenderFailure | None = None


def sdk_available() -> bool:
    return importlib.util.find_spec("helm_python") is not None


def choose(preference: str | None) -> str:
    """The renderer to use: the preference when given (and possible), else the best available."""
    pref = (preference or "auto").lower()
    if pref == "binary" and shutil.which("helm"):
        return "binary"
    if pref == "sdk" and sdk_available():
        return "sdk"
    if pref == "tolerant":
        return "tolerant"
    if shutil.which("helm"):
        return "binary"
    if sdk_available():
        return "sdk"
    return "tolerant"


def describe(renderer: str) -> str:
    """The once-per-run notice: which renderer, and how to get a better one."""
    if renderer == "binary":
        return f"Helm charts rendered with the helm binary ({shutil.which('helm')}, `helm template`, offline)"
    if renderer == "sdk":
        return (
            "Helm charts rendered with helm-python-sdk (the finlint[helm] extra, offline); "
            "a `helm` binary on PATH is preferred when present"
        )
    return (
        "Helm charts read by the tolerant template reader (no renderer installed): values from "
        "values.yaml are not applied, so placeholders are unknown; install `finlint[helm]` "
        "(pip install 'finlint[helm]') or put `helm` on PATH to render charts with their values"
    )


def failure_from(message: str) -> RenderFailure:
    """Helm's error message, with the template file:line it names (the innermost one)."""
    message = " ".join(message.split())
    found = _WHERE.findall(message)
    if not found:
        return RenderFailure(message)
    first = found[0]
    source, line = (first[0], first[1]) if first[0] else (first[2], first[3])
    return RenderFailure(message, source, int(line))


def render(
    renderer: str, chart: Path, release: str, overrides: dict[str, Any], files: list[Path]
) -> Rendered:
    if renderer == "binary":
        return _render_binary(chart, release, overrides, files)
    return _render_sdk(chart, release, overrides)


def _render_sdk(chart: Path, release: str, overrides: dict[str, Any]) -> Rendered:
    from helm_python import chart as helm_chart
    from helm_python.errors import HelmError

    try:
        loaded = helm_chart.Chart.load(str(chart))
        manifests = loaded.render(overrides or None, name=release, namespace="default")
    except HelmError as exc:
        return Rendered("sdk", failure=failure_from(str(getattr(exc, "detail", "") or exc)))
    except (OSError, ValueError) as exc:  # a broken library or JSON from it
        return Rendered("sdk", failure=RenderFailure(f"helm-python-sdk failed: {exc}"))
    return Rendered("sdk", {str(k): str(v) for k, v in manifests.items()})


def _render_binary(chart: Path, release: str, overrides: dict[str, Any], files: list[Path]) -> Rendered:
    helm = shutil.which("helm")
    if helm is None:
        return Rendered("binary", failure=RenderFailure("helm is not on PATH"))
    cmd = [helm, "template", release, str(chart), "--namespace", "default"]
    for f in files:
        cmd += ["--values", str(f)]
    if overrides:
        cmd += ["--values", "-"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    try:
        proc = subprocess.run(
            cmd,
            input=json.dumps(overrides) if overrides else None,
            capture_output=True,
            text=True,
            timeout=BINARY_TIMEOUT_S,
            env=env,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Rendered("binary", failure=RenderFailure(f"helm template failed: {exc}"))
    if proc.returncode != 0:
        text = proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}"
        return Rendered("binary", failure=failure_from(text.removeprefix("Error: ")))
    return Rendered("binary", split_sources(proc.stdout))


def split_sources(output: str) -> dict[str, str]:
    """``helm template`` output -> {template source: its documents}, by ``# Source:`` headers."""
    grouped: dict[str, list[str]] = {}
    for doc in _DOC_SPLIT.split(output):
        match = _SOURCE.search(doc)
        if match is None or not doc.strip():
            continue
        grouped.setdefault(match.group(1), []).append(doc.strip("\n"))
    return {source: "\n---\n".join(docs) + "\n" for source, docs in grouped.items()}
