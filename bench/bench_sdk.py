"""SageMaker SDK loader benchmark: the cost of Python files in a monorepo scan.

Prints figures; it is not a test (timed tests are flaky on shared CI machines).

    python bench/bench_sdk.py                      # 5,000 unrelated files, 200 launchers
    python bench/bench_sdk.py --unrelated 20000 --launchers 1000 --repeat 5

Measures, in-process and best of --repeat runs: (1) N unrelated .py files (about 120 lines
each, no SageMaker mention) read from disk and handed to ``load_file`` — they must be
skipped by the substring test; (2) the same files with an ``import boto3`` that does not
mention SageMaker; (3) M SageMaker launch scripts parsed and interpreted; (4) one large
notebook (200 code cells).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "src"))

from finlint.loaders.sagemaker_sdk.loader import load_file  # noqa: E402

UNRELATED = '''"""Feature pipeline module {i}."""

import json
import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class Row{i}:
    user_id: int
    score: float
    label: str = "none"

'''
UNRELATED_BODY = '''
def transform_{i}_{j}(rows: list, threshold: float = 0.{j}) -> list:
    """Filter and normalise rows (block {j})."""
    out = []
    for row in rows:
        if row.score > threshold:
            out.append({{"id": row.user_id, "score": round(row.score * 100, 2), "label": row.label}})
    log.debug("kept %d of %d", len(out), len(rows))
    return json.loads(json.dumps(out))
'''

LAUNCHER = """import argparse
import sagemaker
from sagemaker.pytorch import PyTorch
from sagemaker.tuner import HyperparameterTuner

HOURS = 3600

def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--instance-type", default="ml.g5.12xlarge")
    parser.add_argument("--max-run", type=int, default=12 * HOURS)
    return parser.parse_args()

def main():
    args = parse_args()
    kwargs = dict(entry_point="train_{i}.py", role="arn:aws:iam::1:role/r", instance_type=args.instance_type)
    kwargs["max_run"] = args.max_run
    est = PyTorch(instance_count=2, use_spot_instances=True, max_wait=24 * HOURS, **kwargs)
    tuner = HyperparameterTuner(est, "loss", {{}}, max_jobs=10)
    tuner.fit("s3://bucket/data")

if __name__ == "__main__":
    main()
"""


def write_tree(root: Path, unrelated: int, launchers: int) -> None:
    for i in range(unrelated):
        body = UNRELATED.format(i=i) + "".join(UNRELATED_BODY.format(i=i, j=j) for j in range(10))
        target = root / "unrelated" / f"pkg{i % 50}" / f"mod_{i}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(body)
        boto = root / "boto" / f"pkg{i % 50}" / f"mod_{i}.py"
        boto.parent.mkdir(parents=True, exist_ok=True)
        boto.write_text("import boto3\ns3 = boto3.client('s3')\n" + body)
    for i in range(launchers):
        target = root / "launchers" / f"launch_{i}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(LAUNCHER.format(i=i))
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [], "source": LAUNCHER.format(i=i).splitlines(True)}
        for i in range(200)
    ]
    (root / "big.ipynb").write_text(json.dumps({"cells": cells, "nbformat": 4, "metadata": {}}, indent=1))


def timed(paths: list[Path], repeat: int) -> tuple[float, int]:
    best = float("inf")
    records = 0
    for _ in range(repeat):
        start = time.perf_counter()
        records = 0
        for path in paths:
            text = path.read_text(encoding="utf-8")
            records += len(load_file(path, path.name, text, {}).records)
        best = min(best, time.perf_counter() - start)
    return best, records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--unrelated", type=int, default=5000)
    parser.add_argument("--launchers", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        write_tree(root, opts.unrelated, opts.launchers)
        groups = [
            ("unrelated .py (skipped by the text check)", sorted((root / "unrelated").rglob("*.py"))),
            ("unrelated .py with boto3 (skipped)", sorted((root / "boto").rglob("*.py"))),
            ("SageMaker launchers (parsed + interpreted)", sorted((root / "launchers").glob("*.py"))),
            ("notebook with 200 code cells", [root / "big.ipynb"]),
        ]
        size = sum(p.stat().st_size for _, paths in groups for p in paths)
        print(f"python {sys.version.split()[0]}; {size / 1e6:.1f} MB generated; best of {opts.repeat}")
        for label, paths in groups:
            seconds, records = timed(paths, opts.repeat)
            per = seconds / len(paths) * 1e6
            print(
                f"  {label:45s} {len(paths):6d} files  {seconds * 1000:8.1f} ms"
                f"  {per:8.1f} us/file  {records} records"
            )


if __name__ == "__main__":
    main()
