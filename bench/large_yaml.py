"""Reproduce docs/limits.md: write a large alias-free YAML file and time `finlint scan` on it.

python bench/large_yaml.py 19.8            # a 19.8 MB kind: List of ConfigMaps
python bench/large_yaml.py 2 --max-yaml-nodes 300000
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BLOCK = """- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm-{i}
    namespace: default
    labels: {{app: web, tier: "t{t}"}}
  data:
    key1: "value number {i} with some text"
    key2: "another value {i}"
    config.json: '{{"a": {i}, "b": [1,2,3]}}'
"""


def write(path: Path, megabytes: float) -> int:
    parts = ["apiVersion: v1\nkind: List\nitems:\n"]
    size, i = 0, 0
    while size < megabytes * 1e6:
        block = BLOCK.format(i=i, t=i % 7)
        parts.append(block)
        size += len(block)
        i += 1
    path.write_text("".join(parts), encoding="utf-8")
    return i


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("megabytes", type=float)
    parser.add_argument("--max-yaml-nodes", type=int)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "list.yaml"
        items = write(path, args.megabytes)
        finlint = shutil.which("finlint") or "finlint"
        cmd = [finlint, "scan", str(path), "--quiet"]
        if args.max_yaml_nodes:
            cmd += ["--max-yaml-nodes", str(args.max_yaml_nodes)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        elapsed = time.perf_counter() - start
        print(
            f"{path.stat().st_size / 1e6:.1f} MB, {items:,} ConfigMaps: {elapsed:.2f} s, exit {proc.returncode}"
        )
        print(proc.stdout.strip().splitlines()[0] if proc.stdout.strip() else "(no output)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
