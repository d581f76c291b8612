"""--jobs N: parallel parsing gives exactly the output of --jobs 1."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import signal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from tests.samples import P5_NOTEBOOK

import finlint.parallel as parallel
from finlint.cli import main
from finlint.reporters import ReportContext
from finlint.reporters.json_report import render
from finlint.scan import ScanOptions, lint

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REAL_CAN_FORK = parallel.can_fork
# These tests exercise the fork mechanics in this (pytest) process, which may carry the Go
# runtime's threads once a Helm test has rendered a chart: the fork is allowed here on purpose
# (the children only run finlint's Python code), and the warning Python 3.12+ gives for it is
# expected. What a real multi-threaded scan does is tested below with REAL_CAN_FORK.
pytestmark = pytest.mark.filterwarnings(
    r"ignore:This process \(pid=\d+\) is multi-threaded:DeprecationWarning"
)


@pytest.fixture(autouse=True)
def fork_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "can_fork", lambda: hasattr(os, "fork"))


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
def test_a_failed_chunk_is_loaded_again_not_lost(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serial = report(tree, 1, monkeypatch)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "MAX_CHUNK", 7)
    main = os.getpid()

    def flaky(paths: list[Path], options: ScanOptions) -> object:
        assert os.getpid() != main, "this process loads a failed chunk file by file"
        (tmp_path / "failed-in-worker").touch()
        raise MemoryError("ran out")  # every chunk a worker takes

    monkeypatch.setattr(parallel, "_load_chunk", flaky)  # inherited by forked workers
    assert report(tree, 2, monkeypatch) == serial
    assert (tmp_path / "failed-in-worker").exists()


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_killed_worker_loses_no_file(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker killed mid-scan (the OOM killer): its chunks are loaded here, nothing is lost."""
    serial = report(tree, 1, monkeypatch)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "MAX_CHUNK", 7)
    main = os.getpid()
    real = parallel._load_chunk

    def killed(paths: list[Path], options: ScanOptions) -> object:
        if os.getpid() != main:
            (tree.parent / "killed").touch()
            os.kill(os.getpid(), signal.SIGKILL)
        return real(paths, options)

    monkeypatch.setattr(parallel, "_load_chunk", killed)
    assert report(tree, 2, monkeypatch) == serial
    assert report(tree, 3, monkeypatch) == serial
    assert (tree.parent / "killed").exists()  # a worker did take a chunk, and died


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


def _rules_view(root: Path, jobs: int, monkeypatch: pytest.MonkeyPatch) -> tuple[str, list[object], bool]:
    monkeypatch.chdir(root)
    result = lint(ScanOptions(paths=[Path(".")], jobs=jobs))
    ids = {id(r) for r in result.records}
    same_records = all(
        f.record is not None and id(f.record) in ids for f in result.findings if f.rule_id != "FIN000"
    )
    return render(result, ReportContext()), [u.to_json() for u in result.undetermined], same_records


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_rules_evaluated_in_forked_processes_give_the_serial_output(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Findings (messages, costs, suppressions), their order and the undetermined list are those
    of one pass; every finding points at a record of this process, not a copy."""
    monkeypatch.setattr(parallel, "MIN_FILES", 10**9)  # parse serially: only the rules are split
    serial = _rules_view(tree, 1, monkeypatch)
    assert serial[1], "the fixtures have undetermined checks: the comparison covers them"
    monkeypatch.setattr(parallel, "MIN_RECORDS", 0)
    marks = tree.parent / "slices"
    marks.mkdir()
    real = parallel._evaluate_slice

    def marked(indices: list[int]) -> object:
        (marks / f"{os.getpid()}-{indices[0]}").touch()
        return real(indices)

    monkeypatch.setattr(parallel, "_evaluate_slice", marked)  # inherited by forked workers
    for jobs in (2, 3):
        split = _rules_view(tree, jobs, monkeypatch)
        assert split == serial
        assert split[2] is True
    pids = {int(m.name.split("-")[0]) for m in marks.iterdir()}
    assert os.getpid() not in pids  # the workers evaluate every share...
    assert len(pids) >= 2  # ...in two pools of forked processes (--jobs 2, then --jobs 3)


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_failed_rule_worker_falls_back_to_one_pass(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "MIN_FILES", 10**9)
    serial = _rules_view(tree, 1, monkeypatch)
    monkeypatch.setattr(parallel, "MIN_RECORDS", 0)

    def broken(indices: list[int]) -> object:
        raise MemoryError("worker ran out")

    monkeypatch.setattr(parallel, "_evaluate_slice", broken)
    assert _rules_view(tree, 2, monkeypatch) == serial


def test_rule_shares_are_dealt_kind_by_kind() -> None:
    """Each share gets every N-th record of each kind, whatever their order in the list (one
    template making a notebook and a file system, next to each other, gave one share every
    notebook when records were dealt in list order)."""
    from finlint.ir import FileSystem, Location, Notebook

    at = Location("t.yaml", 1, 1)
    records = [
        r
        for i in range(6)
        for r in (Notebook(f"nb{i}", at, "cloudformation"), FileSystem(f"fs{i}", at, "cloudformation"))
    ]
    shares = parallel._deal(records, 2)
    assert sorted(i for share in shares for i in share) == list(range(len(records)))
    for share in shares:
        kinds = [records[i].KIND for i in share]
        assert kinds.count("notebook") == kinds.count("file_system") == 3


def test_can_fork_only_while_no_other_thread_runs() -> None:
    """A fresh finlint process may fork; one with another thread (here a Python one; the Go
    runtime's threads count too, being OS threads) may not."""
    import subprocess
    import sys
    import threading

    code = "from finlint.parallel import can_fork; print(can_fork())"
    fresh = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert fresh.stdout.strip() == str(hasattr(os, "fork"))
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert REAL_CAN_FORK() is False
    finally:
        stop.set()
        other.join()


def test_a_multi_threaded_process_scans_without_forking(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A library user's threaded server (or a scan that rendered a chart with the Go-based Helm
    SDK) never forks: loading goes to spawned workers, the rules to one pass; same output."""
    import threading

    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    monkeypatch.setattr(parallel, "MIN_RECORDS", 0)
    serial = report(tree, 1, monkeypatch)
    monkeypatch.setattr(parallel, "can_fork", REAL_CAN_FORK)
    real_context = multiprocessing.get_context

    def no_fork(method: str | None = None) -> object:
        assert method != "fork", "forked from a multi-threaded process"
        return real_context(method)

    monkeypatch.setattr(multiprocessing, "get_context", no_fork)
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        assert report(tree, 2, monkeypatch) == serial
    finally:
        stop.set()
        other.join()


def _terraform_tree(root: Path) -> Path:
    """Configurations that call a shared module, one that calls another configuration, and a
    cycle nobody else calls: the units a serial scan leaves out are its module directories."""
    pool = 'variable "t" {}\nresource "aws_eks_node_group" "p" {\n  instance_types = [var.t]\n}\n'
    (root / "modules" / "pool").mkdir(parents=True)
    (root / "modules" / "pool" / "main.tf").write_text(pool)
    for i in range(6):
        stack = root / f"stack{i}"
        stack.mkdir()
        (stack / "main.tf").write_text(
            f'module "p" {{\n  source = "../modules/pool"\n  t = "p5.48xlarge"\n}}\n# {i}\n'
        )
    (root / "stack0" / "more.tf").write_text('module "s1" {\n  source = "../stack1"\n}\n')
    for a, b in (("cyc_a", "cyc_b"), ("cyc_b", "cyc_a")):
        (root / a).mkdir()
        (root / a / "main.tf").write_text(f'module "x" {{\n  source = "../{b}"\n}}\n{pool}')
    return root


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_terraform_units_in_workers_leave_out_the_modules_a_serial_scan_leaves_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from finlint.loaders import dispatch

    root = _terraform_tree(tmp_path / "tf")
    serial = report(root, 1, monkeypatch)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    real = dispatch.load_unit

    def spy(spec: Any, directory: Path, files: list[Path], options: ScanOptions) -> Any:
        (tmp_path / f"loaded-{os.getpid()}-{directory.name}").touch()
        return real(spec, directory, files, options)

    monkeypatch.setattr(dispatch, "load_unit", spy)  # inherited by forked workers
    assert report(root, 2, monkeypatch) == serial
    loaders = {p.name.split("-")[1] for p in tmp_path.glob("loaded-*")}
    assert loaders and str(os.getpid()) not in loaders  # every unit loaded in a worker
    records = [(r.location.file, r.address) for r in lint(ScanOptions(paths=[Path(".")], jobs=2)).records]
    assert records == [(r.location.file, r.address) for r in lint(ScanOptions(paths=[Path(".")])).records]
    # the module and stack1 only through their callers, the cycle from its first member
    assert ("modules/pool/main.tf", "module.s1.module.p.aws_eks_node_group.p") in records
    assert {file.split("/")[0] for file, _ in records} == {"modules", "cyc_a", "cyc_b"}
    assert len(records) == 8


@pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")
def test_a_failed_unit_group_is_loaded_here_with_its_module_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from finlint.loaders import dispatch

    root = _terraform_tree(tmp_path / "tf")
    serial = report(root, 1, monkeypatch)
    monkeypatch.setattr(parallel, "MIN_FILES", 0)
    main, real = os.getpid(), dispatch.load_unit

    def failing(spec: Any, directory: Path, files: list[Path], options: ScanOptions) -> Any:
        if os.getpid() != main:
            (tmp_path / "failed-in-worker").touch()
            raise MemoryError("ran out")  # every group a worker takes
        return real(spec, directory, files, options)

    monkeypatch.setattr(dispatch, "load_unit", failing)
    assert report(root, 2, monkeypatch) == serial
    assert (tmp_path / "failed-in-worker").exists()
