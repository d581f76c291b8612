"""The wheel ships the policy pack and the data files (a `pip install .` user has no checkout)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def test_wheel_contains_policies_and_data(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "-v",  # the build backend's own warnings are printed only with -v
            "-w",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    # a TOML-table `project.license` warns (and stops building after 2027-02-18)
    assert "SetuptoolsDeprecationWarning" not in proc.stdout + proc.stderr
    (wheel,) = tmp_path.glob("finlint_aws-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    policies = {p.name for p in (REPO / "policies").glob("*.yaml")}
    assert policies and {f"finlint/policies/{p}" for p in policies} <= names
    assert {"finlint/data/instances.json", "finlint/data/pricing.json", "finlint/py.typed"} <= names
    src = REPO / "src"
    modules = {p.relative_to(src).as_posix() for p in (src / "finlint").rglob("*.py")}
    shipped = {n for n in names if n.endswith(".py")}
    assert modules <= shipped, f"missing from the wheel: {sorted(modules - shipped)}"
    assert shipped <= modules, f"stale modules in the wheel (a leftover build/?): {sorted(shipped - modules)}"
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "finlint = finlint.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "\nName: finlint-aws\n" in text and "\nLicense-Expression: Apache-2.0\n" in text
    assert any(n.endswith("licenses/LICENSE") for n in names)


def test_a_fresh_venv_installs_the_distribution_by_name_and_scans_the_demo(tmp_path: Path) -> None:
    """`pip install finlint-aws` (from the built wheel, dependencies from the configured index)
    into an empty venv gives the `finlint` command, and it scans the demo as the checkout does."""
    dist, venv = tmp_path / "dist", tmp_path / "venv"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "-q", "-w", str(dist)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    installed = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "-q", "--find-links", str(dist), "finlint-aws"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    if installed.returncode != 0:  # no package index reachable for the dependencies
        pytest.skip(
            f"pip could not install finlint-aws's dependencies here: {installed.stderr.strip()[-300:]}"
        )
    name = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            "import importlib.metadata as m; print(m.distribution('finlint-aws').metadata['Name'])",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert name.stdout.strip() == "finlint-aws"
    scan = subprocess.run(
        [str(bin_dir / "finlint"), "scan", "fixtures/demo", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert scan.returncode == 1, scan.stderr  # the demo's findings fail the scan, as the README says
    here = subprocess.run(
        [sys.executable, "-m", "finlint", "scan", "fixtures/demo", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert json.loads(scan.stdout)["summary"] == json.loads(here.stdout)["summary"]
