"""finlint next to checkov and cfn-lint on the same files: one command, three figures.

    python bench/compare.py                  # installs checkov + cfn-lint into their own venv first
    python bench/compare.py --no-compare     # finlint and the bare interpreter only
    python bench/compare.py --files 10000 --repeat 5

Rows: a one-file scan (the pre-commit case), the repository's fixture corpus (real-world
shaped CloudFormation, Kubernetes, Terraform, SageMaker requests, SDK code; ~80 files), and a
generated mixed tree of ``--files`` files. Columns: wall-clock median of ``--repeat`` cold
processes and the largest max RSS. ``python -c pass`` is the floor every Python tool pays.

checkov and cfn-lint are installed by this script into their own virtualenv
(``--tools-venv``, default ``~/.cache/finlint-bench/tools``), never into the project's
environment or dependencies. cfn-lint only reads CloudFormation, so it gets the
CloudFormation templates of each case (the count is shown). Figures, not a test: timings on a
shared machine vary; compare columns of one run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_scan import generate  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
ONE_FILE = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"
CORPUS_SUFFIXES = (".yaml", ".yml", ".json", ".tf", ".tfvars", ".py", ".ipynb", ".template")


def run_once(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and max RSS (MB) of one cold process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if hasattr(os, "wait4"):
        _, _, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0
        rss = usage.ru_maxrss / 1024  # KiB on Linux
    else:  # pragma: no cover - Windows
        proc.wait()
        rss = float("nan")
    return time.perf_counter() - start, rss


def measure(cmd: list[str] | None, cwd: Path, repeat: int) -> str:
    if cmd is None:
        return "-"
    runs = [run_once(cmd, cwd) for _ in range(repeat)]
    wall = statistics.median(r[0] for r in runs)
    rss = max(r[1] for r in runs)
    return f"{wall:7.2f} s {rss:5.0f} MB"


def tools_venv(path: Path) -> Path:
    """A virtualenv with checkov and cfn-lint (created once, reused)."""
    bin_dir = path / ("Scripts" if sys.platform == "win32" else "bin")
    if not (bin_dir / "checkov").exists() or not (bin_dir / "cfn-lint").exists():
        print(f"installing checkov and cfn-lint into {path} (once) ...", file=sys.stderr)
        venv.EnvBuilder(with_pip=True, clear=True).create(path)
        subprocess.run(
            [str(bin_dir / "python"), "-m", "pip", "install", "-q", "checkov", "cfn-lint"], check=True
        )
    return bin_dir


def is_cfn(path: Path) -> bool:
    if path.suffix not in (".yaml", ".yml", ".json", ".template"):
        return False
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:20000]
    except OSError:
        return False
    return "AWSTemplateFormatVersion" in head or "AWS::" in head


def corpus(dest: Path) -> Path:
    for path in sorted((REPO / "fixtures").rglob("*")):
        if path.is_file() and path.suffix in CORPUS_SUFFIXES:
            target = dest / path.relative_to(REPO / "fixtures")
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return dest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000, help="files in the generated mixed tree")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-compare", action="store_true", help="skip checkov and cfn-lint")
    parser.add_argument("--tools-venv", type=Path, default=Path.home() / ".cache" / "finlint-bench" / "tools")
    args = parser.parse_args()
    finlint = shutil.which("finlint")
    base = [finlint] if finlint else [sys.executable, "-c", "from finlint.cli import main; main()"]
    tools = None if args.no_compare else tools_venv(args.tools_venv)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        one = root / "one"
        one.mkdir()
        shutil.copy2(ONE_FILE, one / ONE_FILE.name)
        fixtures = corpus(root / "corpus")
        tree = root / "tree"
        tree.mkdir()
        generate(tree, max(1, args.files // 4))  # four files per unit: CFN, NodePool, request, unrelated .py
        cases = [("one file", one), ("fixture corpus", fixtures), ("generated tree", tree)]
        header = f"{'case':<34} {'python -c pass':>18} {'finlint':>18} {'checkov':>18} {'cfn-lint':>24}"
        print(header)
        print("-" * len(header))
        for label, directory in cases:
            files = [p for p in directory.rglob("*") if p.is_file()]
            cfn = [str(p) for p in files if is_cfn(p)]
            repeat = 1 if len(files) > 1000 else args.repeat
            floor = measure([sys.executable, "-c", "pass"], directory, repeat)
            ours = measure(
                [*base, "scan", ".", "--exit-zero", "--quiet", "--format", "json"], directory, repeat
            )
            checkov = cfn_lint = None
            if tools is not None:
                checkov = [str(tools / "checkov"), "-d", ".", "--quiet", "--compact", "-o", "json"]
                checkov += ["--skip-download", "--framework", "cloudformation,terraform,kubernetes"]
                cfn_lint = [str(tools / "cfn-lint"), *cfn] if cfn else None
            theirs = measure(checkov, directory, repeat)
            lint = measure(cfn_lint, directory, repeat)
            name = f"{label} ({len(files):,} files)"
            print(f"{name:<34} {floor:>18} {ours:>18} {theirs:>18} {lint:>17} ({len(cfn):,})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
