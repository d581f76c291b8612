"""Cold start of a one-file scan (the pre-commit case) next to the bare interpreter start.

    python bench/bench_cold_start.py                 # 40 rounds
    python bench/bench_cold_start.py --repeat 80 --callgrind
    python bench/bench_cold_start.py --all-formats   # + a Kubernetes, an SDK and a Terraform file

Rows: ``python -c pass``; ``finlint scan FILE`` (a CloudFormation template) through the console
script (with ``--all-formats``, also a Kubernetes manifest, a SageMaker SDK script and a one-file
Terraform configuration: targets 150 ms median, 200 ms for Terraform); and the same scan
with the user cache off (``FINLINT_CACHE_DIR=off``; only changed-file context uses it, so the
two should match). Each round runs every command once, alternating, so a noisy neighbour hits
them alike; the table gives the minimum
and median wall time and CPU time (user + system) per command and the ratio to ``python -c
pass``. ``--callgrind`` adds instruction counts from ``valgrind --tool=callgrind`` (the same
count on every run, whatever else the machine does), where valgrind is installed.

finlint's modules are byte-compiled first, as ``pip install`` does (this machine may set
PYTHONDONTWRITEBYTECODE, and then an edited module would be compiled on every run). One run
warms the page cache before measuring. Figures, not a test.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ONE_FILE = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"
#: --all-formats: one file of each other format (name shown -> fixture)
OTHER_FILES = {
    "  kubernetes": REPO / "fixtures" / "kubernetes" / "bad" / "job-nfs-efs-checkpoints.yaml",
    "  sagemaker sdk": REPO / "fixtures" / "sagemaker-sdk" / "estimator_spot_no_checkpoint.py",
    "  terraform": REPO / "fixtures" / "terraform" / "gpu_platform" / "training.tf",
}


def once(cmd: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def instructions(cmd: list[str], cwd: Path, env: dict[str, str]) -> int | None:
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None
    proc = subprocess.run(
        [valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    match = re.search(r"Collected : (\d+)", proc.stderr)
    return int(match.group(1)) if match else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--callgrind", action="store_true", help="also count instructions (valgrind)")
    parser.add_argument("--all-formats", action="store_true", help="also one file of each other format")
    args = parser.parse_args()
    import finlint

    compileall.compile_dir(str(Path(finlint.__file__).parent), quiet=1)
    finlint_script = shutil.which("finlint") or ""
    scan = ["scan", ONE_FILE.name, "--format", "json", "--exit-zero"]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "repo"  # the scanned folder; the cache lives beside it, not in it
        root.mkdir()
        shutil.copy2(ONE_FILE, root / ONE_FILE.name)
        others = OTHER_FILES if args.all_formats else {}
        for name, path in others.items():  # each alone in its folder (Terraform: a configuration)
            (root / name.strip()).mkdir()
            shutil.copy2(path, root / name.strip() / path.name)
        env = {**os.environ, "FINLINT_CACHE_DIR": str(Path(tmp) / "cache")}
        off = {**env, "FINLINT_CACHE_DIR": "off"}
        cmds = {
            "python -c pass": ([sys.executable, "-c", "pass"], env),
            "finlint scan FILE": ([finlint_script, *scan] if finlint_script else [], env),
            "  cache off": ([finlint_script, *scan] if finlint_script else [], off),
        }
        for name, path in others.items():
            one = [finlint_script, "scan", f"{name.strip()}/{path.name}", "--format", "json", "--exit-zero"]
            cmds[name] = (one if finlint_script else [], env)
        cmds = {name: value for name, value in cmds.items() if value[0]}
        for cmd, cmd_env in cmds.values():
            once(cmd, root, cmd_env)  # warm the caches and the page cache
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in cmds}
        for _ in range(args.repeat):
            for name, (cmd, cmd_env) in cmds.items():
                runs[name].append(once(cmd, root, cmd_env))
        base_wall = statistics.median(w for w, _ in runs["python -c pass"])
        base_cpu = statistics.median(c for _, c in runs["python -c pass"])
        print(f"{'command':<22}{'wall min':>10}{'median':>9}{'cpu min':>10}{'median':>9}   x interpreter")
        for name, values in runs.items():
            walls, cpus = [w for w, _ in values], [c for _, c in values]
            ratio = statistics.median(walls) / base_wall
            cpu_ratio = statistics.median(cpus) / base_cpu
            print(
                f"{name:<22}{1e3 * min(walls):8.1f}ms{1e3 * statistics.median(walls):7.1f}ms"
                f"{1e3 * min(cpus):8.1f}ms{1e3 * statistics.median(cpus):7.1f}ms"
                f"   {ratio:.2f}x wall, {cpu_ratio:.2f}x cpu"
            )
        if args.callgrind:
            counts = {name: instructions(cmd, root, cmd_env) for name, (cmd, cmd_env) in cmds.items()}
            base = counts.get("python -c pass")
            for name, count in counts.items():
                if count is None or base is None:
                    print(f"{name:<22}  callgrind: valgrind not available")
                    continue
                print(f"{name:<22}  {count / 1e6:8.1f} M instructions   {count / base:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
