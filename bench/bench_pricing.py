"""Pricing cost per file as a repository grows: it must stay flat (linear pricing).

    python bench/bench_pricing.py                          # 1,000 / 10,000 / 50,000 files
    python bench/bench_pricing.py --files 1000 5000 --repeat 5

For each size, a tree is generated (a quarter each: a Kubernetes file with an EFS StorageClass,
a checkpoint claim and a Job that mounts it (FIN401 on the claim and the workload); a
CloudFormation file with a checkpoint EFS file system and a notebook; a SageMaker API request;
a Karpenter NodePool), scanned once in-process (``--jobs`` workers, to build the records and
findings), and then only ``cost.price_findings`` is timed, ``--repeat`` times (median and best).
The column to read is microseconds per file: at 50,000 files it should be within 15 % of the
figure at 1,000. Figures, not a test (a shared machine is noisy: compare rows of one run).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import CFN, NODEPOOL, REQUEST  # noqa: E402

EFS_CHAIN = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: efs-sc-{i}
provisioner: efs.csi.aws.com
parameters:
  fileSystemId: fs-{i:017x}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: checkpoints-{i}
  namespace: training
spec:
  accessModes: [ReadWriteMany]
  storageClassName: efs-sc-{i}
  resources:
    requests:
      storage: 500Gi
---
apiVersion: batch/v1
kind: Job
metadata:
  name: finetune-{i}
  namespace: training
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: trainer
          image: trainer:1
          args: ["--checkpoint-dir", "/mnt/checkpoints"]
          volumeMounts:
            - name: shared
              mountPath: /mnt/checkpoints
      volumes:
        - name: shared
          persistentVolumeClaim:
            claimName: checkpoints-{i}
"""
CFN_EFS = (
    CFN.replace("shared-home-{i}", "checkpoints-{i}")
    + """  Ckpt{i}AccessPoint:
    Type: AWS::EFS::AccessPoint
    Properties:
      FileSystemId: !Ref Efs{i}
      RootDirectory: {{Path: /checkpoints}}
"""
)


def generate(root: Path, files: int) -> None:
    import json

    for i in range(files):
        sub = root / f"d{i // 1000}"
        sub.mkdir(exist_ok=True)
        kind = i % 4
        if kind == 0:
            (sub / f"train-{i}.yaml").write_text(EFS_CHAIN.format(i=i))
        elif kind == 1:
            (sub / f"cfn-{i}.yaml").write_text(CFN_EFS.format(i=i))
        elif kind == 2:
            (sub / f"job-{i}.json").write_text(json.dumps(REQUEST).replace("{i}", str(i)))
        else:
            (sub / f"nodepool-{i}.yaml").write_text(NODEPOOL.format(i=i))


def measure(files: int, repeat: int, jobs: int) -> tuple[int, int, float, float]:
    from finlint import cost
    from finlint.options import ScanOptions
    from finlint.scan import few_full_collections, lint

    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp), files)
        result = lint(ScanOptions(paths=[Path(tmp)], jobs=jobs))
    runs = []
    for _ in range(repeat):
        with few_full_collections():  # as in a scan: pricing runs inside lint()
            start = time.perf_counter()
            cost.price_findings(result.findings, result.records)
            runs.append(time.perf_counter() - start)
    priced = sum(1 for f in result.findings if f.cost_model)
    return len(result.records), priced, statistics.median(runs), min(runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, nargs="+", default=[1000, 10000, 50000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="workers for the scan")
    args = parser.parse_args()
    print(
        f"{'files':>8} {'records':>8} {'priced':>8} {'median s':>10} {'best s':>9} {'us/file (median)':>17}"
    )
    first = None
    for n in args.files:
        records, priced, median, best = measure(n, args.repeat, args.jobs)
        per_file = median / n * 1e6
        first = first or per_file
        print(
            f"{n:>8} {records:>8} {priced:>8} {median:>10.3f} {best:>9.3f} {per_file:>11.1f} "
            f"({per_file / first:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
