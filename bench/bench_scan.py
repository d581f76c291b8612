"""Scan-time benchmark: what finlint costs in a pre-commit hook and in CI.

Prints figures; it is not a test (timed tests are flaky on shared CI machines).

    python bench/bench_scan.py            # default sizes
    python bench/bench_scan.py --files 400 --repeat 5

Measures: cold process start (`finlint --version`), a cold `finlint scan` of the demo folder,
and a cold scan of a generated repository with N YAML/JSON files of each kind plus unrelated
Python files (the SDK loader must skip them after a cheap text check).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CFN = """AWSTemplateFormatVersion: "2010-09-09"
Parameters:
  NotebookType: {{Type: String, Default: ml.g5.xlarge}}
Resources:
  Notebook{i}:
    Type: AWS::SageMaker::NotebookInstance
    Properties:
      InstanceType: !Ref NotebookType
      RoleArn: !GetAtt Role.Arn
  Efs{i}:
    Type: AWS::EFS::FileSystem
    Properties:
      FileSystemTags: [{{Key: Name, Value: shared-home-{i}}}]
"""
NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool-{i}
spec:
  template:
    spec:
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: ["g5", "g6e"]
      nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
  limits:
    cpu: "1000"
"""
REQUEST = {
    "TrainingJobName": "job-{i}",
    "RoleArn": "arn:aws:iam::111122223333:role/R",
    "AlgorithmSpecification": {"TrainingImage": "img", "TrainingInputMode": "File"},
    "ResourceConfig": {"InstanceType": "ml.g5.2xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
    "StoppingCondition": {"MaxRuntimeInSeconds": 3600},
}
UNRELATED_PY = "import os\n\n\ndef handler(event):\n    return {'ok': os.getpid(), 'n': %d}\n"


def generate(root: Path, n: int) -> None:
    for i in range(n):
        (root / f"cfn-{i}.yaml").write_text(CFN.format(i=i))
        (root / f"nodepool-{i}.yaml").write_text(NODEPOOL.format(i=i))
        (root / f"job-{i}.json").write_text(json.dumps(REQUEST).replace("{i}", str(i)))
        (root / f"app_{i}.py").write_text(UNRELATED_PY % i)


def timed(cmd: list[str], repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=False)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs), min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=250, help="files of each kind in the generated repo")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    finlint = shutil.which("finlint") or f"{sys.executable} -m finlint.cli"
    base = finlint.split()
    rows = [("finlint --version (process start)", [*base, "--version"])]
    rows.append(
        ("finlint scan fixtures/demo", [*base, "scan", str(REPO / "fixtures" / "demo"), "--exit-zero"])
    )
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), args.files)
        total = args.files * 4
        rows.append(
            (
                f"finlint scan generated repo ({total} files)",
                [*base, "scan", tmp, "--exit-zero", "--format", "json"],
            )
        )
        print(f"{'case':<48} {'median':>9} {'min':>9}")
        for name, cmd in rows:
            median, best = timed(cmd, args.repeat)
            print(f"{name:<48} {median * 1000:8.0f}ms {best * 1000:8.0f}ms")


if __name__ == "__main__":
    main()
