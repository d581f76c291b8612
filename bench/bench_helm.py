"""Helm chart scan time: a cold `finlint scan` of one chart with each renderer available.

Prints figures; it is not a test (timed tests are flaky on shared CI machines).

    python bench/bench_helm.py              # 5 runs each
    python bench/bench_helm.py --repeat 10

Measures the wall time of a whole process (interpreter start, imports, loading the Go shared
library of helm-python-sdk, rendering, line mapping, rules, pricing) for `finlint scan` of the
fixture charts: with the `finlint[helm]` extra (renderer `sdk`), and with the tolerant reader
(renderer `tolerant`, nothing installed). A `helm` binary is measured when one is on PATH.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHARTS = ("fixtures/helm/gpu-pool", "fixtures/helm/efs-training")


def run(chart: str, renderer: str, repeat: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / ".finlint.yaml"
        config.write_text(f"helm:\n  renderer: {renderer}\n")
        cmd = [sys.executable, "-m", "finlint.cli", "scan", chart, "--config", str(config), "--exit-zero"]
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            subprocess.run(cmd, cwd=REPO, capture_output=True, check=True)
            times.append(time.perf_counter() - start)
    return times


def in_process(chart: str, renderer: str, repeat: int) -> tuple[float, float]:
    """(first lint() in this process, median of the next ones): the renderer's own cost."""
    from finlint.scan import ScanOptions, lint

    def once() -> float:
        start = time.perf_counter()
        lint(ScanOptions(paths=[REPO / chart], loader_options={"helm_renderer": renderer}))
        return time.perf_counter() - start

    first = once()
    return first, statistics.median(once() for _ in range(repeat))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    from finlint.loaders.helm.render import sdk_available

    renderers = ["tolerant"]
    if sdk_available():
        renderers.insert(0, "sdk")
    else:
        print("helm-python-sdk not installed (pip install 'finlint[helm]'): sdk not measured")
    if shutil.which("helm"):
        renderers.insert(0, "binary")
    baseline = run("fixtures/templated", "tolerant", args.repeat)
    print(f"{'scan of':36} {'renderer':9} {'median s':>9} {'min s':>7}")
    print(
        f"{'fixtures/templated (no chart)':36} {'-':9} {statistics.median(baseline):9.3f} {min(baseline):7.3f}"
    )
    for chart in CHARTS:
        for renderer in renderers:
            times = run(chart, renderer, args.repeat)
            print(f"{chart:36} {renderer:9} {statistics.median(times):9.3f} {min(times):7.3f}")
    print("\nin one process (imports done): first lint() / median of the next")
    for renderer in renderers:
        first, warm = in_process(CHARTS[1], renderer, args.repeat)
        print(f"{CHARTS[1]:36} {renderer:9} {first:9.3f} {warm:7.3f}")


if __name__ == "__main__":
    main()
