"""Differential field test of changed-file scans (a tool, not a test).

The promise of ``finlint scan FILE`` (context on, run from the repository root): every finding a
whole-repository scan reports in FILE, or whose chain runs through FILE, is reported, with the
same rule, file, line, resource, message and dollars; and nothing the whole scan does not
report. This script checks it on real trees:

1. scans the whole tree once (``finlint scan . --format json``), and once more in-process to
   learn each finding's chain: ``evidence["chain_files"]``, ``record.extra["inputs"]`` and the
   units (a Terraform directory and the local modules it calls; a chart) its file belongs to;
2. for every file that holds a finding or is in a finding's chain, plus ``--sample N`` other
   supported files (seeded), runs ``finlint scan FILE --format json`` from the root;
3. compares: ``missing`` (a whole-scan finding that concerns FILE and is absent or different),
   ``extra`` (a finding the whole scan does not have). A finding the whole scan has but whose
   chain does not name FILE is counted as ``wider`` (not a broken promise; listed with -v).

The suffix `` (linked through changed file X)`` that a changed-file scan adds to a finding
reported through another file is removed before comparing (it is the documented difference).

    python bench/context_diff.py /tmp/ctx/REPO [/tmp/ctx/REPO2 ...] --sample 40 --seed 1

A root needs a ``.git`` (copy the tree and ``git init`` it) so that the context search sees the
whole repository.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Key = tuple[str, str, int, str, str, Any]  # rule, file, line, resource, message, monthly dollars
_LINKED = re.compile(r" \(linked through changed file [^()]*\)$")


@dataclass
class RepoResult:
    root: Path
    whole: int = 0
    compared: int = 0
    missing: list[tuple[str, Key, Key | None]] = field(default_factory=list)  # file, expected, nearest got
    extra: list[tuple[str, Key]] = field(default_factory=list)
    wider: list[tuple[str, Key]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)


def key(finding: dict[str, Any]) -> Key:
    cost = finding.get("cost") or {}
    return (
        finding["rule_id"],
        finding["file"],
        int(finding["line"]),
        finding.get("resource") or "",
        _LINKED.sub("", finding["message"]),
        cost.get("monthly_usd"),
    )


def run_json(root: Path, args: list[str], finlint: str) -> dict[str, Any]:
    proc = subprocess.run(
        [finlint, "scan", *args, "--format", "json", "-q", "--exit-zero", "-j", "1"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def chains(root: Path) -> tuple[dict[tuple[str, str, int, str], set[str]], list[str]]:
    """Each whole-scan finding's files (its own, its chain, its inputs, its unit's shared files),
    keyed by (rule, file, line, resource); and every supported file of the tree (display paths)."""
    from finlint import context
    from finlint.context.units import chart_units, terraform_units
    from finlint.scan import ScanOptions, discover, display_path, lint

    here = Path.cwd()
    os.chdir(root)
    try:
        options = ScanOptions(paths=[Path(".")])
        result = lint(options)
        shown = [display_path(p, None) for p in discover([Path(".")], [], [])]
        tf_dirs = sorted({p.parent for p in Path(".").rglob("*.tf") if ".git" not in p.parts})
        charts = sorted({p.parent for p in Path(".").rglob("Chart.yaml") if ".git" not in p.parts})
        show = lambda p: display_path(p, None)  # noqa: E731
        units = terraform_units(tf_dirs, show) + chart_units(charts, show)
        plan = context.ContextPlan(root, [], units=units)
        out: dict[tuple[str, str, int, str], set[str]] = {}
        for f in result.findings:
            files = {f.file} | plan.linked_files(f)
            out.setdefault((f.rule_id, f.file, f.line, f.resource or ""), set()).update(files)
        return out, shown
    finally:
        os.chdir(here)


def compare(root: Path, sample: int, seed: int, finlint: str, workers: int, only: list[str]) -> RepoResult:
    res = RepoResult(root)
    whole = run_json(root, ["."], finlint)
    whole_keys = {key(f) for f in whole["findings"]}
    res.whole = len(whole_keys)
    concern, supported = chains(root)
    by_file: dict[str, set[Key]] = {}
    for k in whole_keys:
        files = concern.get(k[:4], {k[1]})
        for f in files:
            by_file.setdefault(f, set()).add(k)
    targets = sorted(f for f in by_file if (root / f).is_file())
    others = sorted(set(supported) - set(targets))
    random.Random(seed).shuffle(others)
    targets += others[:sample]
    if only:
        targets = [t for t in targets if any(o in t for o in only)]
    res.compared = len(targets)

    def one(target: str) -> tuple[str, dict[str, Any] | None, str]:
        try:
            return target, run_json(root, [target], finlint), ""
        except (RuntimeError, ValueError, subprocess.TimeoutExpired) as exc:
            return target, None, str(exc)

    with ThreadPoolExecutor(workers) as pool:
        for target, data, err in pool.map(one, targets):
            if data is None:
                res.failed.append((target, err))
                continue
            got = {key(f) for f in data["findings"]}
            for k in sorted(by_file.get(target, set()) - got, key=str):
                near = next((g for g in got if g[:2] == k[:2] and g[3] == k[3]), None)
                res.missing.append((target, k, near))
            for k in sorted(got - whole_keys, key=str):
                if not any(k == m[2] for m in res.missing if m[0] == target):
                    res.extra.append((target, k))
            for k in sorted((got & whole_keys) - by_file.get(target, set()), key=str):
                res.wider.append((target, k))
    return res


def show_key(k: Key) -> str:
    return f"{k[0]} {k[1]}:{k[2]} [{k[3]}] ${k[5]} :: {k[4][:160]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("roots", nargs="+", type=Path)
    ap.add_argument("--sample", type=int, default=20, help="other supported files per repository")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2, help="changed-file scans run at once")
    ap.add_argument("--only", action="append", default=[], help="compare only files containing this")
    ap.add_argument("--finlint", default=str(Path(sys.executable).with_name("finlint")))
    ap.add_argument("-v", "--verbose", action="store_true", help="list the wider findings too")
    args = ap.parse_args(argv)
    results = []
    for root in args.roots:
        root = root.absolute()
        if not (root / ".git").exists():
            print(f"{root}: no .git (copy it and git init it first)", file=sys.stderr)
            return 2
        res = compare(root, args.sample, args.seed, args.finlint, args.workers, args.only)
        results.append(res)
        for target, k, near in res.missing:
            print(f"MISSING  {res.root.name}  scan {target}\n  want {show_key(k)}")
            if near is not None:
                print(f"  got  {show_key(near)}")
        for target, k in res.extra:
            print(f"EXTRA    {res.root.name}  scan {target}\n  got  {show_key(k)}")
        for target, err in res.failed:
            print(f"FAILED   {res.root.name}  scan {target}: {err}")
        if args.verbose:
            for target, k in res.wider:
                print(f"wider    {res.root.name}  scan {target}\n  got  {show_key(k)}")
        sys.stdout.flush()
    print(f"\n{'repository':<62} {'whole':>5} {'files':>5} {'miss':>5} {'extra':>5} {'wider':>5} {'fail':>4}")
    for r in results:
        print(
            f"{r.root.name[:62]:<62} {r.whole:>5} {r.compared:>5} {len(r.missing):>5} {len(r.extra):>5} "
            f"{len(r.wider):>5} {len(r.failed):>4}"
        )
    bad = sum(len(r.missing) + len(r.extra) + len(r.failed) for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
