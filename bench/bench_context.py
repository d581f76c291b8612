"""Changed-file scan cost of the repository context (issue 17): a one-file run in a generated
2,000-file git repository, with context (cold and warm sniff cache) against ``--no-context``.
Three changed files: a StorageClass, a job (both YAML), and a Python module (its importers are
looked up in the import index, which sniffs every Python file of the repository once).

Prints figures; it is not a test (timed tests are flaky on shared CI machines).

    python bench/bench_context.py                 # 2,000 files, 5 runs each
    python bench/bench_context.py --files 4000 --repeat 7

Target: with context, within 2x of the same one-file run without it. Process times are noisy on a
shared machine: compare the minimums, and the in-process ``lint()`` times for the context's own
cost.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

STORAGE_CLASS = """apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: class-{i}
provisioner: {provisioner}
"""
CLAIM = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: claim-{i}
  namespace: ml
spec:
  accessModes: [ReadWriteMany]
  storageClassName: class-{c}
  resources:
    requests:
      storage: 100Gi
"""
JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: job-{i}
  namespace: ml
spec:
  template:
    spec:
      containers:
        - name: trainer
          image: trainer:1
          args: ["--checkpoint-dir=/state/ckpt"]
          volumeMounts:
            - {{name: state, mountPath: /state}}
      volumes:
        - name: state
          persistentVolumeClaim: {{claimName: claim-{c}}}
"""
NODEPOOL = """apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool-{i}
spec:
  template:
    spec:
      requirements:
        - {{key: karpenter.k8s.aws/instance-family, operator: In, values: ["g5"]}}
  limits:
    cpu: "1000"
"""
CFN = """AWSTemplateFormatVersion: "2010-09-09"
Resources:
  Bucket{i}:
    Type: AWS::S3::Bucket
"""
TF = """resource "aws_s3_bucket" "b{i}" {{
  bucket = "bucket-{i}"
}}
"""
PY = "import os\n\n\ndef handler(event):\n    return {'ok': os.getpid(), 'n': %d}\n"
README = "# service {i}\n"


def generate(root: Path, total: int) -> tuple[Path, Path, Path]:
    """``total`` files in 8 kinds across nested folders; returns (a StorageClass, a job, a module)."""
    kinds = 8
    per = total // kinds
    for i in range(per):
        folder = root / f"team-{i % 20}" / f"svc-{i % 7}"
        (folder / "k8s").mkdir(parents=True, exist_ok=True)
        (folder / "tf").mkdir(parents=True, exist_ok=True)
        provisioner = "efs.csi.aws.com" if i % 50 == 0 else "ebs.csi.aws.com"
        (folder / "k8s" / f"class-{i}.yaml").write_text(STORAGE_CLASS.format(i=i, provisioner=provisioner))
        (folder / "k8s" / f"claim-{i}.yaml").write_text(CLAIM.format(i=i, c=i))
        (folder / "k8s" / f"job-{i}.yaml").write_text(JOB.format(i=i, c=i))
        (folder / "k8s" / f"pool-{i}.yaml").write_text(NODEPOOL.format(i=i))
        (folder / f"stack-{i}.yaml").write_text(CFN.format(i=i))
        (folder / "tf" / f"b{i}.tf").write_text(TF.format(i=i))
        (folder / f"app_{i}.py").write_text(PY % i)
        (folder / f"README-{i}.md").write_text(README.format(i=i))
    return (
        root / "team-0" / "svc-0" / "k8s" / "class-0.yaml",
        root / "team-0" / "svc-0" / "k8s" / "job-0.yaml",
        root / "team-0" / "svc-0" / "app_0.py",
    )


def timed(cmd: list[str], cwd: Path, env: dict[str, str], repeat: int, before: object = None) -> list[float]:
    runs = []
    for _ in range(repeat):
        if callable(before):
            before()
        start = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, check=False)
        runs.append(time.perf_counter() - start)
    return runs


def _in_process(repo: Path, rel: str, repeat: int, env: dict[str, str]) -> dict[str, float]:
    """``lint()`` alone (policies loaded once, warm cache): the context's own cost, without the
    interpreter start that dominates a process and the noise of a shared machine."""
    code = f"""
import json, time
from pathlib import Path
from finlint.rules import load_policies
from finlint.scan import ScanOptions, lint
policies = load_policies()
out = {{}}
for label, context in (("no_context", False), ("context", True)):
    runs = []
    for _ in range({repeat} + 1):
        start = time.perf_counter()
        lint(ScanOptions(paths=[Path({rel!r})], context=context), policies)
        runs.append(time.perf_counter() - start)
    out[label] = round(min(runs[1:]), 4)
print(json.dumps(out))
"""
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=repo, env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    finlint = [sys.executable, "-m", "finlint.cli"]
    work = Path(tempfile.mkdtemp(prefix="finlint-bench-context-"))
    cache = work / "cache"
    repo = work / "repo"
    repo.mkdir()
    try:
        storage_class, job, module = generate(repo, args.files)
        subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
        count = sum(1 for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
        env = {**os.environ, "FINLINT_CACHE_DIR": str(cache)}
        report: dict[str, object] = {"files_in_repository": count, "repeat": args.repeat}

        def cold() -> None:
            shutil.rmtree(cache, ignore_errors=True)

        changed = (("storage_class_changed", storage_class), ("job_changed", job), ("module_changed", module))
        for label, target in changed:
            rel = str(target.relative_to(repo))
            base = timed([*finlint, "scan", rel, "--no-context", "--exit-zero"], repo, env, args.repeat)
            cold_runs = timed([*finlint, "scan", rel, "--exit-zero"], repo, env, args.repeat, cold)
            warm = timed([*finlint, "scan", rel, "--exit-zero"], repo, env, args.repeat)
            out = subprocess.run(
                [*finlint, "scan", rel, "--format", "json", "--exit-zero"],
                cwd=repo,
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            summary = json.loads(out.stdout)["summary"]
            med = statistics.median
            in_process = _in_process(repo, rel, args.repeat, env)
            report[label] = {
                "process_median_s": {
                    "no_context": round(med(base), 3),
                    "context_cold_cache": round(med(cold_runs), 3),
                    "context_warm_cache": round(med(warm), 3),
                },
                "process_min_s": {
                    "no_context": round(min(base), 3),
                    "context_cold_cache": round(min(cold_runs), 3),
                    "context_warm_cache": round(min(warm), 3),
                },
                "ratio_min_cold": round(min(cold_runs) / min(base), 2),
                "ratio_min_warm": round(min(warm) / min(base), 2),
                "in_process_min_s": in_process,
                "context_files": summary["context_files"],
                "findings": summary["findings"],
            }
        print(json.dumps(report, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
