"""Benchmark the Terraform loader: the fixtures, and a generated 200-file configuration.

Run: python bench/bench_terraform.py [--files 200] [--repeat 3]
Prints wall times (median of --repeat runs); the parse cache is cleared before each run.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RESOURCE = """
variable "type_{i}" {{
  type    = string
  default = "{itype}"
}}

locals {{
  name_{i} = "team-{i}-${{var.env}}"
}}

resource "aws_eks_node_group" "pool_{i}" {{
  cluster_name    = "c"
  node_group_name = local.name_{i}
  instance_types  = [var.type_{i}]
  capacity_type   = {i} % 2 == 0 ? "ON_DEMAND" : "SPOT"
  scaling_config {{
    min_size     = {i} % 3
    desired_size = {i} % 3
    max_size     = 4
  }}
  labels = {{ for k, v in {{ team = "t{i}", gpu = "true" }} : k => upper(v) }}
}}

resource "aws_sagemaker_training_job" "job_{i}" {{
  training_job_name = "${{local.name_{i}}}-train"
  role_arn          = "arn:aws:iam::111122223333:role/sm"
  resource_config {{
    instance_type  = "ml.g5.12xlarge"
    instance_count = 2
  }}
  stopping_condition {{
    max_runtime_in_seconds = 3600 * {i}
  }}
  tags = merge({{ Team = "t{i}" }}, {{ Cost = "ml" }})
}}
"""


def generate(directory: Path, files: int) -> None:
    (directory / "main.tf").write_text('variable "env" {\n  default = "dev"\n}\n')
    for i in range(1, files):
        itype = "p5.48xlarge" if i % 10 == 0 else "g5.12xlarge"
        (directory / f"team_{i:03d}.tf").write_text(RESOURCE.format(i=i, itype=itype))


def time_load(directory: Path, repeat: int) -> tuple[float, int, int]:
    from finlint.loaders.terraform import hcl as terraform_hcl
    from finlint.loaders.terraform import loader as terraform

    times = []
    records = lines = 0
    files = sorted(directory.glob("*.tf"))
    lines = sum(len(f.read_text().splitlines()) for f in files)
    for _ in range(repeat):
        terraform_hcl.clear_cache()
        start = time.perf_counter()
        result = terraform.load_directory(directory, files, str, {})
        times.append(time.perf_counter() - start)
        records = len(result.records)
    return statistics.median(times), records, lines


def time_cli(path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "finlint.cli", "scan", str(path), "--format", "json"],
            capture_output=True,
            check=False,
        )
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    fixtures = ROOT / "fixtures" / "terraform"
    print(f"finlint scan fixtures/terraform (cold process): {time_cli(fixtures, args.repeat):.3f} s")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        generate(directory, args.files)
        seconds, records, lines = time_load(directory, args.repeat)
        print(
            f"load_directory, generated configuration: {args.files} files, {lines} lines, "
            f"{records} records: {seconds:.3f} s ({seconds / args.files * 1000:.1f} ms/file)"
        )
        print(f"finlint scan of it (cold process): {time_cli(directory, args.repeat):.3f} s")


if __name__ == "__main__":
    main()
