"""The helm-python-sdk render, in a child process with a memory and CPU limit.

``python -m finlint.loaders.helm.render_child`` reads one JSON request on stdin
(``{"chart", "release", "namespace", "values"}``), lowers its own limits before it loads Helm's
Go library (address space :data:`MEMORY_LIMIT`, CPU :data:`CPU_LIMIT_S`, where the ``resource``
module exists), renders the chart and writes one JSON answer on stdout: ``{"manifests": {...}}``
or ``{"failure": "Helm's message"}``. A Go fatal error (out of memory, a template that includes
itself until the stack is exhausted) kills only this process; the parent
(:func:`finlint.loaders.helm.render._render_sdk`) also ends it after its wall-clock timeout and
turns whatever happened into one short notice.
"""

from __future__ import annotations

import json
import sys
from typing import Any

#: bytes of address space: Python and the Go runtime reserve ~1 GiB before rendering anything
#: (VmPeak of a trivial chart: 1.01 GB; a 1 GiB limit failed one render in thirty), 2 GiB for the render
MEMORY_LIMIT = 3 << 30
CPU_LIMIT_S = 30  # the parent's wall-clock timeout (20 s) normally ends it first
MAX_OUTPUT_BYTES = 64 << 20  # rendered manifests, as JSON


def limit() -> None:
    """Lower this process's address-space and CPU limits (never raise them)."""
    try:
        import resource
    except ImportError:  # Windows: no rlimits; the parent's timeout still applies
        return
    for which, value in ((resource.RLIMIT_AS, MEMORY_LIMIT), (resource.RLIMIT_CPU, CPU_LIMIT_S)):
        try:
            soft, hard = resource.getrlimit(which)
            new = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (new, hard))
        except (OSError, ValueError):
            continue


def render(request: dict[str, Any]) -> dict[str, Any]:
    from helm_python import chart as helm_chart
    from helm_python.errors import HelmError

    try:
        loaded = helm_chart.Chart.load(str(request["chart"]))
        manifests = loaded.render(
            request.get("values") or None, name=str(request["release"]), namespace=str(request["namespace"])
        )
    except HelmError as exc:
        return {"failure": str(getattr(exc, "detail", "") or exc)}
    except (OSError, ValueError) as exc:  # a broken library or JSON from it
        return {"failure": f"helm-python-sdk failed: {exc}"}
    return {"manifests": {str(k): str(v) for k, v in manifests.items()}}


def main() -> int:
    limit()
    try:
        request = json.loads(sys.stdin.read())
        answer = render(request)
    except MemoryError:
        answer = {"failure": "out of memory while rendering"}
    except (KeyError, TypeError, ValueError) as exc:
        answer = {"failure": f"bad render request: {exc}"}
    text = json.dumps(answer)
    if len(text) > MAX_OUTPUT_BYTES:
        text = json.dumps({"failure": f"rendered output larger than {MAX_OUTPUT_BYTES >> 20} MiB"})
    sys.stdout.write(text)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
