"""Changed-file scans against the whole scan: reductions of the mismatches the differential field
test (``bench/context_diff.py``, docs/field-test-context.md) found on public repositories.

Each test builds a small repository, scans it whole, then scans one changed file, and checks
that every whole-scan finding the file is part of comes back the same (rule, file, line,
resource, message without the "linked through" note, dollars)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from tests.test_context import needs_git, repo, scan

from finlint.context import index as index_module
from finlint.context.index import RepoIndex, Sniff, sniff_imports, sniff_text

_LINKED = re.compile(r" \(linked through changed file [^()]*\)$")


def notebook(*cells: str) -> str:
    """A minimal .ipynb whose code cells hold ``cells`` (JSON: quotes inside are escaped)."""
    return json.dumps(
        {
            "cells": [
                {"cell_type": "code", "metadata": {}, "outputs": [], "source": c.splitlines(keepends=True)}
                for c in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def keys(report: dict[str, Any]) -> set[tuple[Any, ...]]:
    return {
        (
            f["rule_id"],
            f["file"],
            f["line"],
            f["resource"],
            _LINKED.sub("", f["message"]),
            (f.get("cost") or {}).get("monthly_usd"),
        )
        for f in report["findings"]
    }


def check_same(
    root: Path, monkeypatch: pytest.MonkeyPatch, changed: str, launcher: str
) -> set[tuple[Any, ...]]:
    """The whole scan's findings in ``launcher`` all come back when only ``changed`` is scanned."""
    _, whole = scan(root, monkeypatch, ".")
    want = {k for k in keys(whole) if k[1] == launcher}
    assert want, "the reduction must produce a finding in the launcher"
    _, part = scan(root, monkeypatch, changed)
    assert want <= keys(part)
    assert keys(part) <= keys(whole)
    return want


LAUNCH_CELL = """from sagemaker.pytorch import PyTorch
{imports}
est = PyTorch(
    entry_point="train.py",
    role="arn:aws:iam::111122223333:role/R",
    framework_version="2.1",
    py_version="py310",
    instance_type=INSTANCE,
    instance_count=1,
)
est.fit()
"""


# --- fix 1: a notebook's import of a changed module (JSON source lines start with a quote) -------


@needs_git
def test_notebook_importing_a_changed_module_is_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "nb/launch.ipynb": notebook(LAUNCH_CELL.format(imports="from helpers import INSTANCE")),
            "nb/helpers.py": 'INSTANCE = "ml.p5.48xlarge"\n',
        },
    )
    check_same(root, monkeypatch, "nb/helpers.py", "nb/launch.ipynb")


# --- fix 2: a package import from a folder above the module (``from src.settings import``) ----


@needs_git
def test_launcher_above_a_changed_package_module_is_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "proj/launch.py": LAUNCH_CELL.format(imports="from src.settings import INSTANCE"),
            "proj/src/__init__.py": "",
            "proj/src/settings.py": 'INSTANCE = "ml.p5.48xlarge"\n',
        },
    )
    check_same(root, monkeypatch, "proj/src/settings.py", "proj/launch.py")


# --- fix 3: a module imported through another module (inputs are transitive) -------------------


@needs_git
def test_module_imported_through_another_module_reaches_the_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "job/launch.py": LAUNCH_CELL.format(imports="from conf import INSTANCE"),
            "job/conf.py": "from base import INSTANCE\n",
            "job/base.py": 'INSTANCE = "ml.p5.48xlarge"\n',
        },
    )
    check_same(root, monkeypatch, "job/base.py", "job/launch.py")


# --- fix 4: a config file two folders below its launcher ----------------------------------------

CONFIG_LAUNCHER = """import yaml
from sagemaker.pytorch import PyTorch

cfg = yaml.safe_load(open("configs/train/params.yaml"))
est = PyTorch(
    entry_point="train.py",
    role="arn:aws:iam::111122223333:role/R",
    framework_version="2.1",
    py_version="py310",
    instance_type=cfg["instance_type"],
    instance_count=1,
)
est.fit()
"""


@needs_git
def test_config_two_folders_below_its_launcher_pulls_it_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "exp/launch.py": CONFIG_LAUNCHER,
            "exp/configs/train/params.yaml": "instance_type: ml.p5.48xlarge\n",
        },
    )
    check_same(root, monkeypatch, "exp/configs/train/params.yaml", "exp/launch.py")


# --- fix 5: a notebook naming a training script (JSON-escaped quotes around entry_point) --------

SCRIPT = """from torch.utils.data import DataLoader

def loaders(dataset):
    return DataLoader(dataset, batch_size=64)
"""
NB_LAUNCH = """from sagemaker.pytorch import PyTorch

est = PyTorch(entry_point="train.py", source_dir="scripts", instance_type="ml.g5.12xlarge", max_run=3600)
est.fit()
"""


@needs_git
def test_notebook_running_a_changed_training_script_is_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(tmp_path, {"bert/launch.ipynb": notebook(NB_LAUNCH), "bert/scripts/train.py": SCRIPT})
    want = check_same(root, monkeypatch, "bert/scripts/train.py", "bert/scripts/train.py")
    assert any("entry point" in k[4] or "source_dir" in k[4] for k in want)  # the job's GPU, not a guess


@needs_git
def test_launcher_beside_a_module_it_names_from_the_folder_above_is_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "src/__init__.py": "",
            "src/launch.py": LAUNCH_CELL.format(imports="from src.settings import INSTANCE"),
            "src/settings.py": 'INSTANCE = "ml.p5.48xlarge"\n',
        },
    )
    check_same(root, monkeypatch, "src/settings.py", "src/launch.py")


# --- fix 6: a script shipped by a launcher beside it whose source_dir is its own folder ---------

SAME_FOLDER_LAUNCH = """from sagemaker.pytorch import PyTorch

est = PyTorch(entry_point="training.py", source_dir="./", instance_type="ml.g5.12xlarge", max_run=3600)
est.fit()
"""


@needs_git
def test_script_beside_a_launcher_shipping_its_folder_is_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "nas/launch.py": SAME_FOLDER_LAUNCH,
            "nas/training.py": "print('train')\n",
            "nas/datasets.py": SCRIPT,
        },
    )
    want = check_same(root, monkeypatch, "nas/datasets.py", "nas/datasets.py")
    assert any("source_dir" in k[4] for k in want)


# --- left, now fixed: a module imported from a sibling subtree (the import index) -------------


@needs_git
def test_launcher_in_a_sibling_subtree_importing_a_changed_module_is_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # rl_gamerserver_ray: launch/run.py resolves ``orchestrator.clients.db`` from the folder above
    # its own, so it sits in neither the module's folder nor any folder above it
    root = repo(
        tmp_path,
        {
            "rl/launch/run.py": LAUNCH_CELL.format(imports="from orchestrator.clients.db import INSTANCE"),
            "rl/orchestrator/__init__.py": "",
            "rl/orchestrator/clients/__init__.py": "",
            "rl/orchestrator/clients/db.py": 'INSTANCE = "ml.p5.48xlarge"\n',
        },
    )
    check_same(root, monkeypatch, "rl/orchestrator/clients/db.py", "rl/launch/run.py")


@needs_git
def test_sibling_subtree_module_importing_the_changed_module_reaches_the_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(
        tmp_path,
        {
            "rl/launch/run.py": LAUNCH_CELL.format(imports="from orchestrator.manager import INSTANCE"),
            "rl/orchestrator/manager.py": "from orchestrator.clients.db import INSTANCE\n",
            "rl/orchestrator/clients/db.py": 'INSTANCE = "ml.p5.48xlarge"\n',
        },
    )
    check_same(root, monkeypatch, "rl/orchestrator/clients/db.py", "rl/launch/run.py")


def test_import_sniff_names_modules_as_the_loader_resolves_them(tmp_path: Path) -> None:
    text = (
        "import os, a.b as c\nfrom .x import y\nfrom . import s, t as u\nfrom ..p.q import (r,\n"
        "    z)\nx = 1; import k\n# import the data\n"
    )
    assert sniff_imports(text) == ("os", "a.b", ".x", ".s", ".t", "..p.q", "k", "the")
    cell = notebook("from helpers import INSTANCE\nimport numpy as np\n")
    assert sniff_text(tmp_path / "n.ipynb", cell, tmp_path).imports == ("helpers", "numpy")
    root = tmp_path / "r"
    for name, body in {
        "a/b/c.py": "",
        "a/b/near.py": "import c\nfrom .c import x\n",  # its own folder: both
        "a/x/y/z/deep.py": "from b.c import x\n",  # base a/ is 3 above a/x/y/z: the loader finds it
        "a/x/y/z/w/deeper.py": "from b.c import x\n",  # 4 above: it does not
        "a/x/rel.py": "from ..b.c import x\n",  # ..b from a/x is a/b
        "a/x/wrong.py": "from .b.c import x\n",  # .b from a/x is a/x/b
        "top.py": "import a.b.c\n",
        "other.py": "import c\n",  # c from the root is c.py, not a/b/c.py
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body, encoding="utf-8")
    found = RepoIndex(root).importers(root / "a/b/c.py")
    assert sorted(Path(p).relative_to(root).as_posix() for p in found) == [
        "a/b/near.py",
        "a/x/rel.py",
        "a/x/y/z/deep.py",
        "top.py",
    ]


def test_import_index_cache_follows_import_changes_and_the_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "r"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "db.py").write_text("X = 1\n", encoding="utf-8")
    launcher = root / "run.py"
    launcher.write_text("import os\n", encoding="utf-8")
    first = RepoIndex(root)
    assert first.importers(root / "pkg" / "db.py") == []
    first.save()
    cached = RepoIndex(root)
    cached._read_sniff = None  # type: ignore[assignment,method-assign]  # must come from the cache
    assert cached.importers(root / "pkg" / "db.py") == []
    launcher.write_text("import os\nfrom pkg.db import X  # now it does\n", encoding="utf-8")
    assert RepoIndex(root).importers(root / "pkg" / "db.py") == [str(launcher)]
    # a cache written by another version is not read: its sniffs would lack imports
    target = first._cache_file()
    assert target is not None
    data = json.loads(target.read_text("utf-8"))
    assert data["version"] == index_module.CACHE_VERSION
    monkeypatch.setattr(index_module, "CACHE_VERSION", index_module.CACHE_VERSION + 1)
    stale = RepoIndex(root)
    assert stale._cached() == {}
    # an entry in the old three-part form is re-read, never taken for a sniff without imports
    assert Sniff.from_json([[], [], []]) is None
