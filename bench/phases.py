"""Where a scan's wall time goes, per phase, for ``--jobs 1`` and ``--jobs N``.

    python bench/phases.py /tmp/jtree                  # --jobs 1 and --jobs 2, 5 runs each
    python bench/phases.py /tmp/jtree --jobs 1 4 --repeat 3

Each run is a fresh process (``finlint scan TREE --exit-zero --quiet --format json -o FILE``)
whose phases are timed by wrapping the functions that do them: discovery, the per-file loaders
(``parallel.load_files``), the rest of ``load_paths`` (routing files, directory loaders), the
rules (``parallel.run_policies``), pricing and the reporters. Medians per phase; figures, not a
test (a shared machine is noisy: compare columns of one run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator

PHASES = ("import", "discover", "load_files", "load_paths rest", "rules", "price", "report", "total")


def _child(tree: str, jobs: int, out: str) -> None:
    start = time.perf_counter()
    times: dict[str, float] = defaultdict(float)
    from finlint import cli, parallel, scan
    from finlint.reporters import json_report

    times["import"] = time.perf_counter() - start

    def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                times[name] += time.perf_counter() - t

        return wrapper

    def timed_iter(name: str, fn: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        def wrapper(*args: Any, **kwargs: Any) -> Iterator[Any]:
            iterator = fn(*args, **kwargs)
            while True:
                t = time.perf_counter()
                try:
                    item = next(iterator)
                except StopIteration:
                    times[name] += time.perf_counter() - t
                    return
                times[name] += time.perf_counter() - t
                yield item

        return wrapper

    scan.discover = timed_iter("discover", scan.discover)  # type: ignore[assignment]
    parallel.load_files = timed_iter("load_files", parallel.load_files)  # type: ignore[assignment]
    scan.load_paths = timed("load_paths", scan.load_paths)  # type: ignore[assignment]
    parallel.run_policies = timed("rules", parallel.run_policies)  # type: ignore[assignment]
    scan._price = timed("price", scan._price)  # type: ignore[attr-defined]
    json_report.render = timed("report", json_report.render)  # type: ignore[assignment]
    args = ["scan", tree, "--exit-zero", "--quiet", "--format", "json", "-o", out, "--jobs", str(jobs)]
    try:
        cli.main(args, standalone_mode=False)
    finally:
        times["total"] = time.perf_counter() - start
        # load_files drives discovery (the workers start while it runs): its own share without it
        times["load_paths rest"] = times.pop("load_paths", 0.0) - times["load_files"]
        times["load_files"] -= times["discover"]
        print(json.dumps(times))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--ceiling",
        action="store_true",
        help="also time N CPU-bound processes each round (N: the largest --jobs)",
    )
    parser.add_argument("--child", nargs=3, metavar=("TREE", "JOBS", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    if not args.tree:
        parser.error("the tree to scan is required")
    runs: dict[int, list[dict[str, float]]] = {jobs: [] for jobs in args.jobs}
    one: list[float] = []
    many: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        for _ in range(args.repeat):
            for jobs in args.jobs:  # alternate, so a noisy neighbour hits every column alike
                cmd = [sys.executable, __file__, "--child", str(Path(args.tree)), str(jobs), out]
                done = subprocess.run(cmd, check=True, capture_output=True, text=True)
                runs[jobs].append(json.loads(done.stdout.strip().splitlines()[-1]))
            if args.ceiling:
                one.append(_burn(1))
                many.append(_burn(max(args.jobs)))
    print(f"{'phase (median/best)':<20}" + "".join(f"{'--jobs ' + str(j):>16}" for j in args.jobs))
    for phase in PHASES:
        cells = [
            f"{statistics.median(r.get(phase, 0.0) for r in runs[j]):.3f}/{min(r.get(phase, 0.0) for r in runs[j]):.3f}"
            for j in args.jobs
        ]
        print(f"{phase:<20}" + "".join(f"{c:>16}" for c in cells))
    best = {j: min(r["total"] for r in runs[j]) for j in args.jobs}
    first = args.jobs[0]
    for j in args.jobs[1:]:
        median = statistics.median(r["total"] for r in runs[first]) / statistics.median(
            r["total"] for r in runs[j]
        )
        print(
            f"--jobs {first} / --jobs {j}: {median:.2f}x (medians), {best[first] / best[j]:.2f}x (best runs)"
        )
    if args.ceiling:
        n = max(args.jobs)
        ratio = n * statistics.median(one) / statistics.median(many)
        print(
            f"{n} independent CPU-bound processes: {ratio:.2f}x (medians), "
            f"{n * min(one) / min(many):.2f}x (best)"
        )
    return 0


BURN = "x = 0\nfor i in range(3_000_000):\n    x += i * i % 7\n"


def _burn(n: int) -> float:
    start = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(n)]
    for proc in procs:
        proc.wait()
    return time.perf_counter() - start


if __name__ == "__main__":
    sys.exit(main())
