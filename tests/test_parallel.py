"""--jobs N: parallel parsing gives exactly the output of --jobs 1."""

from __future__ import annotations

import json
import multiprocessing
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK

import finlint.parallel as parallel
from finlint.cli import main
from finlint.reporters import ReportContext
from finlint.reporters.json_report import render
from finlint.scan import ScanOptions, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The fixtures (every format, Terraform included) plus enough files for several chunks."""
    root = tmp_path / "tree"
    shutil.copytree(FIXTURES, root)
    for i in range(60):
        (root / "gen" / f"nb-{i}.yaml").parent.mkdir(exist_ok=True)
        (root / "gen" / f"nb-{i}.yaml").write_text(P5_NOTEBOOK.replace("ResearchNotebook", f"Nb{i}"))
    (root / "gen" / "broken.yaml").write_text("AWSTemplateFormatVersion: x\nResources: [\n")
    return root


def report(root: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.chdir(root)
    result = lint(ScanOptions(paths=[Path(".")], jobs=jobs))
    return render(result, ReportContext())


def test_jobs_output_is_identical(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "MAX_CHUNK", 7)
    serial = report(tree, 1, monkeypatch)
    assert report(tree, 2, monkeypatch) == serial
    assert report(tree, 3, monkeypatch) == serial
    data = json.loads(serial)
    assert data["summary"]["files_scanned"] > 100 and data["errors"]
    assert sum(1 for f in data["findings"] if f["rule_id"] == "FIN301") >= 60


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_failed_chunk_is_loaded_again_not_lost(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    serial = report(tree, 1, monkeypatch)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "MAX_CHUNK", 7)
    real = parallel._load_chunk

    def flaky(paths: list[Path]) -> object:
        if any(p.name == "nb-3.yaml" for p in paths):
            raise MemoryError("worker ran out")
        return real(paths)

    monkeypatch.setattr(parallel, "_load_chunk", flaky)  # inherited by forked workers
    assert report(tree, 2, monkeypatch) == serial


def test_small_scans_stay_serial(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "nb.yaml").write_text(P5_NOTEBOOK)

    def no_pool(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("a pool was started for one file")

    import concurrent.futures

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    assert lint(ScanOptions(paths=[tmp_path], jobs=8)).findings


def test_cli_jobs_option(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.chdir(tree)
    one = CliRunner().invoke(main, ["scan", ".", "--format", "json", "--jobs", "1"])
    two = CliRunner().invoke(main, ["scan", ".", "--format", "json", "-j", "2"])
    assert one.exit_code == two.exit_code == 1 and one.stdout == two.stdout
    assert CliRunner().invoke(main, ["scan", ".", "--jobs", "0"]).exit_code == 2
