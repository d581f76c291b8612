"""finlint next to checkov and cfn-lint on the same files: one command, the speed figures.

    python bench/compare.py                  # installs checkov + cfn-lint into their own venv first
    python bench/compare.py --no-compare     # finlint, the floors and --jobs only
    python bench/compare.py --files 10000 --repeat 5

Rows: a one-file scan (the pre-commit case), the repository's fixture corpus (real-world
shaped CloudFormation, Kubernetes, Terraform, SageMaker requests, SDK code; ~80 files), and a
generated mixed tree of ``--files`` files. Columns: wall-clock median of ``--repeat`` cold
processes (commands alternate, so a noisy neighbour hits them alike) and the largest max RSS.

Two floors put finlint's figures in proportion:

- ``python -c pass``: the interpreter start every Python tool pays;
- ``parse floor``: a Python process that only reads the case's YAML/JSON files and composes
  them with PyYAML's C loader (the parser finlint uses, with line marks): what any line-aware
  YAML linter in Python pays before it checks anything.

``--jobs``: the generated tree with ``--jobs 1`` and ``--jobs N`` (N = the CPUs), and the same
ratio for N independent CPU-bound Python processes (the machine's own ceiling: on a VM whose
vCPUs share cores it is well under N).

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


def measure(cmds: dict[str, list[str] | None], cwd: Path, repeat: int) -> dict[str, str]:
    """Median wall time and largest RSS per command; the commands alternate within each round."""
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name, cmd in cmds.items() if cmd}
    for _ in range(repeat):
        for name in runs:
            cmd = cmds[name]
            assert cmd is not None
            runs[name].append(run_once(cmd, cwd))
    out = {name: "-" for name in cmds}
    for name, values in runs.items():
        wall = statistics.median(r[0] for r in values)
        rss = max(r[1] for r in values)
        out[name] = f"{wall:7.2f} s {rss:5.0f} MB"
    return out


def seconds(cell: str) -> float:
    return float(cell.split()[0])


PARSE_FLOOR = """
import sys, yaml
for name in sys.argv[1:]:
    with open(name, encoding="utf-8", errors="replace") as fh:
        try:
            list(yaml.compose_all(fh.read(), Loader=yaml.CSafeLoader))
        except yaml.YAMLError:
            pass
"""

BURN = "x = 0\nfor i in range(6_000_000):\n    x += i * i % 7\n"


def machine_ceiling(n: int, repeat: int) -> float:
    """How much faster n independent CPU-bound Python processes finish than n run one by one."""
    one, many = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", BURN], check=True)
        one.append(time.perf_counter() - start)
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(n)]
        for proc in procs:
            proc.wait()
        many.append(time.perf_counter() - start)
    return n * statistics.median(one) / statistics.median(many)


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
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-compare", action="store_true", help="skip checkov and cfn-lint")
    parser.add_argument("--tools-venv", type=Path, default=Path.home() / ".cache" / "finlint-bench" / "tools")
    args = parser.parse_args()
    import compileall

    import finlint as package  # byte-compiled as pip install does (PYTHONDONTWRITEBYTECODE may be set)

    compileall.compile_dir(str(Path(package.__file__).parent), quiet=1)
    finlint = shutil.which("finlint")
    base = [finlint] if finlint else [sys.executable, "-c", "from finlint.cli import main; main()"]
    tools = None if args.no_compare else tools_venv(args.tools_venv)
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1

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
        columns = ["python -c pass", "parse floor", "finlint", "checkov", "cfn-lint"]
        header = f"{'case':<30}" + "".join(f"{c:>18}" for c in columns)
        print(header)
        print("-" * len(header))
        scan = [*base, "scan", "--exit-zero", "--quiet", "--format", "json"]
        for label, directory in cases:
            files = sorted(p for p in directory.rglob("*") if p.is_file())
            cfn = [str(p) for p in files if is_cfn(p)]
            structured = [str(p) for p in files if p.suffix in (".yaml", ".yml", ".json", ".template")]
            repeat = max(1, args.repeat // 2) if len(files) > 1000 else args.repeat
            cmds: dict[str, list[str] | None] = {
                "python -c pass": [sys.executable, "-c", "pass"],
                "parse floor": [sys.executable, "-c", PARSE_FLOOR, *structured],
                # the one file is given by name, as pre-commit passes it (repository context on)
                "finlint": [*scan, ONE_FILE.name if label == "one file" else "."],
                "checkov": None,
                "cfn-lint": None,
            }
            if tools is not None:
                checkov = [str(tools / "checkov"), "-d", ".", "--quiet", "--compact", "-o", "json"]
                frameworks = "cloudformation,terraform,kubernetes"
                cmds["checkov"] = [*checkov, "--skip-download", "--framework", frameworks]
                cmds["cfn-lint"] = [str(tools / "cfn-lint"), *cfn] if cfn else None
            cells = measure(cmds, directory, repeat)
            name = f"{label} ({len(files):,})"
            print(f"{name:<30}" + "".join(f"{cells[c]:>18}" for c in columns), flush=True)
            if label == "one file":
                ratio = seconds(cells["finlint"]) / seconds(cells["python -c pass"])
                floor = seconds(cells["parse floor"]) / seconds(cells["python -c pass"])
                print(f"  one file: finlint {ratio:.1f}x the interpreter start, the parse floor {floor:.1f}x")
        jobs = measure(
            {"--jobs 1": [*scan, ".", "--jobs", "1"], f"--jobs {cpus}": [*scan, ".", "--jobs", str(cpus)]},
            tree,
            args.repeat,
        )
        speedup = seconds(jobs["--jobs 1"]) / seconds(jobs[f"--jobs {cpus}"])
        ceiling = machine_ceiling(cpus, args.repeat)
        print(
            f"generated tree: --jobs 1 {jobs['--jobs 1'].strip()}, --jobs {cpus} "
            f"{jobs[f'--jobs {cpus}'].strip()}: {speedup:.2f}x "
            f"({cpus} independent CPU-bound processes on this machine: {ceiling:.2f}x)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
