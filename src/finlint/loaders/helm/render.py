"""Rendering a chart offline: a ``helm`` binary, else the ``finlint[helm]`` extra, else nothing.

* ``binary``: ``helm template --namespace=default --values=/abs/f ... --values=- -- RELEASE
  /abs/chart`` (the overrides on stdin) with a time limit. ``helm template`` is client-only: no
  cluster is contacted (no ``--validate``), and no repository either (no ``--dependency-update``).
  No repository text is ever a flag: the release name must be a valid Helm name
  (:func:`valid_release`), every path is absolute, and the positional arguments follow ``--``.
* ``sdk``: ``helm-python-sdk`` (Apache-2.0), Helm's own Go SDK in a bundled shared library:
  ``Chart.load(dir).render(values, name=...)``; ``lookup`` returns nothing, nothing is fetched.
  It runs in a child process (:mod:`.render_child`) with a memory limit and a timeout.
* ``tolerant``: no renderer; the chart's templates are read by :mod:`finlint.loaders.common.templating`.

Template output is never written to disk; a failure is a :class:`RenderFailure` carrying
Helm's message (one escaped line, at most :data:`MAX_MESSAGE` characters) and, when Helm names
it, the template file and line.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from finlint.escape import clean

RENDERERS = ("auto", "binary", "sdk", "tolerant")
BINARY_TIMEOUT_S = 60
SDK_TIMEOUT_S = 20  # wall clock for one chart in the helm-python-sdk child (render_child)
MAX_MESSAGE = 260  # characters of a failure message ("chart not rendered: " makes it <= 300)
#: Helm's own rule for a release name (pkg/chartutil ValidateReleaseName): DNS-1123 labels
#: (lowercase letters, digits and '-', starting and ending with a letter or digit), at most 53.
_RELEASE = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
MAX_RELEASE = 53
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

    def __post_init__(self) -> None:
        self.message = one_line(self.message)


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    """``text`` as one printable line (control characters escaped) of at most ``limit`` characters."""
    flat = clean(" ".join(str(text).split()))
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def valid_release(name: object) -> bool:
    """Whether ``name`` is a release name Helm accepts (and so can never be read as a flag)."""
    return isinstance(name, str) and len(name) <= MAX_RELEASE and _RELEASE.fullmatch(name) is not None


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
    """Render ``chart`` (a private copy, see :mod:`.chartcopy`) as ``release``."""
    if not valid_release(release):  # chart.release_name() refuses these before; never a flag
        return Rendered(renderer, failure=RenderFailure(f"invalid release name {release!r}"))
    if renderer == "binary":
        return _render_binary(chart, release, overrides, files)
    return _render_sdk(chart, release, overrides)


def _child_env() -> dict[str, str]:
    """The child's environment: ours without Kubernetes settings, with this finlint first on the path."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    package_root = str(Path(__file__).resolve().parents[3])  # the folder holding `finlint/`
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    return env


def _child_argv() -> list[str]:
    # -P (3.11+): the working directory is not put on sys.path; the child's cwd is an empty
    # private folder anyway, so nothing from the scanned tree can be imported
    safe_path = ["-P"] if sys.version_info >= (3, 11) else []
    return [sys.executable, *safe_path, "-m", "finlint.loaders.helm.render_child"]


def _render_sdk(chart: Path, release: str, overrides: dict[str, Any]) -> Rendered:
    from finlint.loaders.helm import render_child

    request = {
        "chart": str(chart.absolute()),
        "release": release,
        "namespace": "default",
        "values": overrides,
    }
    with tempfile.TemporaryDirectory(prefix="finlint-helm-cwd-") as cwd:
        try:
            proc = subprocess.run(
                _child_argv(),
                input=json.dumps(request),
                capture_output=True,
                text=True,
                errors="replace",
                timeout=SDK_TIMEOUT_S,
                env=_child_env(),
                cwd=cwd,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return Rendered(
                "sdk",
                failure=RenderFailure(
                    f"the Helm renderer took longer than {SDK_TIMEOUT_S} s and was stopped "
                    "(a template that loops or includes itself?)"
                ),
            )
        except OSError as exc:
            return Rendered("sdk", failure=RenderFailure(f"cannot start the Helm renderer: {exc}"))
    try:
        answer = json.loads(proc.stdout) if proc.stdout.strip() else None
    except ValueError:
        answer = None
    if isinstance(answer, dict) and isinstance(answer.get("manifests"), dict):
        return Rendered("sdk", {str(k): str(v) for k, v in answer["manifests"].items()})
    if isinstance(answer, dict) and isinstance(answer.get("failure"), str):
        return Rendered("sdk", failure=failure_from(answer["failure"]))
    return Rendered("sdk", failure=RenderFailure(_child_death(proc, render_child.MEMORY_LIMIT)))


def _child_death(proc: subprocess.CompletedProcess[str], memory: int) -> str:
    """Why the render child ended without an answer, in one line (Go's stack dump dropped)."""
    err = proc.stderr or ""
    if "goroutine stack exceeds" in err or "stack overflow" in err:
        return "the Helm renderer ran out of stack (a template that includes itself?) and was stopped"
    if "out of memory" in err or "cannot allocate memory" in err or "MemoryError" in err:
        return f"the Helm renderer ran out of memory (limit {memory >> 20} MiB) and was stopped"
    if proc.returncode is not None and proc.returncode < 0:
        return f"the Helm renderer was killed by signal {-proc.returncode} (CPU or memory limit?)"
    first = next((line.strip() for line in err.splitlines() if line.strip()), "")
    return f"the Helm renderer failed (exit status {proc.returncode})" + (f": {first}" if first else "")


def binary_argv(helm: str, chart: Path, release: str, files: list[Path], stdin_values: bool) -> list[str]:
    """``helm template``'s arguments: flags in ``--flag=value`` form with absolute paths, then
    ``--`` and the positional release and chart (so neither can be read as a flag)."""
    cmd = [helm, "template", "--namespace=default"]
    cmd += [f"--values={Path(f).absolute()}" for f in files]
    if stdin_values:
        cmd.append("--values=-")
    return [*cmd, "--", release, str(chart.absolute())]


def _render_binary(chart: Path, release: str, overrides: dict[str, Any], files: list[Path]) -> Rendered:
    helm = shutil.which("helm")
    if helm is None:
        return Rendered("binary", failure=RenderFailure("helm is not on PATH"))
    cmd = binary_argv(helm, chart, release, files, bool(overrides))
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")}
    try:
        proc = subprocess.run(
            cmd,
            input=json.dumps(overrides) if overrides else None,
            capture_output=True,
            text=True,
            errors="replace",
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
