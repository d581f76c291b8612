"""Benchmark the Terraform loader: the fixtures, a generated 200-file configuration, and a
generated Terraform-heavy tree of many configurations.

Run: python bench/bench_terraform.py [--files 200] [--repeat 3]
     python bench/bench_terraform.py --tree-dirs 150 --tree-files 10 [--keep /tmp/tftree] [--module-heavy]
Prints wall times (median of --repeat runs); the parse cache is cleared before each run.

The tree (``--tree-dirs`` configurations of ``--tree-files`` files; every fifth one calls a
shared local module, ``modules/pool``; with ``--module-heavy`` every one does and every file
names the module's output) is scanned in-process once to count how often each .tf
file is parsed (python-hcl2's parse, the cost that matters: it must be once per file, also past
1,024 files), then as cold processes with ``--jobs 1`` and ``--jobs 2`` (alternating; the
speed-up of the medians). ``--keep DIR`` leaves the tree there, e.g. for ``bench/phases.py``.
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


MODULE_CALL = """
module "pool_{i}" {{
  source        = "../modules/pool"
  instance_type = "g5.12xlarge"
}}
"""
POOL_MODULE = """
variable "instance_type" {
  type = string
}

resource "aws_eks_node_group" "shared" {
  cluster_name    = "c"
  node_group_name = "shared"
  instance_types  = [var.instance_type]
  scaling_config {
    min_size     = 0
    desired_size = 0
    max_size     = 8
  }
}
"""


MODULE_REF = """
locals {{
  pool_name_{i} = module.pool_{d}.name
}}
"""


def generate_tree(root: Path, dirs: int, files: int, module_heavy: bool = False) -> int:
    """``dirs`` configurations of ``files`` files each, plus the shared module; the .tf count.
    ``module_heavy``: every configuration calls the module and every file names its output
    (``module.pool_N.name``), as the configurations of a live-infrastructure repository do."""
    (root / "modules" / "pool").mkdir(parents=True)
    (root / "modules" / "pool" / "main.tf").write_text(POOL_MODULE)
    for d in range(dirs):
        directory = root / f"stack_{d:04d}"
        directory.mkdir()
        (directory / "main.tf").write_text('variable "env" {\n  default = "dev"\n}\n')
        for j in range(1, files):  # distinct texts: the parse cache is by content
            i = d * files + j
            itype = "p5.48xlarge" if i % 10 == 0 else "g5.12xlarge"
            ref = MODULE_REF.format(i=i, d=d) if module_heavy else ""
            (directory / f"team_{j:03d}.tf").write_text(RESOURCE.format(i=i, itype=itype) + ref)
        if d % 5 == 0 or module_heavy:
            (directory / "pool.tf").write_text(MODULE_CALL.format(i=d))
    return sum(1 for _ in root.glob("**/*.tf"))


def count_parses(root: Path) -> tuple[int, int]:
    """(python-hcl2 parses, distinct .tf files parsed) of one in-process scan of ``root``."""
    from finlint.loaders.terraform import hcl as terraform_hcl
    from finlint.options import ScanOptions
    from finlint.scan import lint

    terraform_hcl.clear_cache()
    texts: list[str] = []
    original = terraform_hcl._parse_uncached

    def counting(text: str) -> terraform_hcl.Body:
        texts.append(text)
        return original(text)

    terraform_hcl._parse_uncached = counting  # type: ignore[assignment]  # a bench probe
    try:
        lint(ScanOptions(paths=[root]))
    finally:
        terraform_hcl._parse_uncached = original  # type: ignore[assignment]
    return len(texts), len(set(texts))


def time_jobs(root: Path, repeat: int) -> dict[int, float]:
    runs: dict[int, list[float]] = {1: [], 2: []}
    for _ in range(repeat):
        for jobs in runs:  # alternate, so a noisy neighbour hits both alike
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "finlint.cli", "scan", str(root), "--format", "json"]
                + ["--exit-zero", "--jobs", str(jobs)],
                capture_output=True,
                check=True,
            )
            runs[jobs].append(time.perf_counter() - start)
    return {jobs: statistics.median(times) for jobs, times in runs.items()}


def tree_case(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        tf_files = generate_tree(root, args.tree_dirs, args.tree_files, args.module_heavy)
        parses, distinct = count_parses(root)
        print(
            f"tree{' (module-heavy)' if args.module_heavy else ''}: {args.tree_dirs} configurations, "
            f"{tf_files} .tf files: {parses} parses of "
            f"{distinct} distinct texts in one scan ({parses / max(1, distinct):.2f} per text)"
        )
        medians = time_jobs(root, args.repeat)
        print(
            f"finlint scan of the tree (cold process, median of {args.repeat}): --jobs 1 {medians[1]:.3f} s, "
            f"--jobs 2 {medians[2]:.3f} s: {medians[1] / medians[2]:.2f}x"
        )


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
    parser.add_argument("--tree-dirs", type=int, default=0, help="the tree case: configurations")
    parser.add_argument("--tree-files", type=int, default=10, help="the tree case: files per configuration")
    parser.add_argument("--keep", help="the tree case: write the tree here and leave it")
    parser.add_argument(
        "--module-heavy", action="store_true", help="the tree case: every configuration calls the module"
    )
    args = parser.parse_args()
    if args.tree_dirs:
        tree_case(args)
        return
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
