"""Typed hand-offs (issue 25): what crosses a stage boundary is a typed IR field, never an
``extra`` key. ``Record.extra`` is context only the loader package that wrote it reads: no
module outside ``src/finlint/loaders/`` reads it, and a loader package reads only keys it writes.
The loaders that set each typed field are checked on the inputs their own tests use."""

from __future__ import annotations

import ast
import pickle
import textwrap
from pathlib import Path

import pytest
from tests.conftest import FIXTURES, scan_paths
from tests.loaders.test_env_from import JOB as ENV_FROM_JOB
from tests.loaders.test_env_from import STORAGE, config_map
from tests.loaders.test_fieldtest_round3_infra import HYPERPOD_NODEPOOL, k8s_load
from tests.loaders.test_sdk_values_travel import ARGPARSE_LOCAL, CONFIG_YAML, HEADER, one

import finlint
from finlint.finding import CountedOnce
from finlint.ir import (
    CheckpointPath,
    ComputePool,
    EnvFrom,
    Launches,
    Location,
    PendingEnv,
    TrainingJob,
    ValueSource,
    Volume,
)
from finlint.scan import ScanOptions, lint

SRC = Path(finlint.__file__).parent


def _modules() -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(SRC.rglob("*.py"))]


def _is_extra(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "extra"


def test_no_module_outside_the_loaders_reads_extra() -> None:
    offenders = []
    for path, tree in _modules():
        rel = path.relative_to(SRC)
        if rel.parts[0] == "loaders":
            continue
        for node in ast.walk(tree):
            by_name = (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("getattr", "hasattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and node.args[1].value == "extra"
            )
            if _is_extra(node) or by_name:
                offenders.append(f"{rel}:{getattr(node, 'lineno', 0)}")
    assert offenders == [], "read a typed field instead of Record.extra: " + ", ".join(offenders)


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` (extra keys named by a constant)."""
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value.value, str):
                    out[target.id] = node.value.value
    return out


def _key(node: ast.AST | None, names: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return names.get(node.id)
    return None


def _package(path: Path) -> str:
    rel = path.relative_to(SRC / "loaders")
    return rel.parts[0] if len(rel.parts) > 1 else "loaders"


def test_a_loader_package_reads_only_the_extra_keys_it_writes() -> None:
    """``record.extra["k"]``, ``.extra.get("k")`` and ``"k" in record.extra`` in a loader
    package: ``k`` is written in that package (a dict key, a subscript assignment, setdefault)."""
    reads: dict[str, set[tuple[str, str]]] = {}
    writes: dict[str, set[str]] = {}
    for path, tree in _modules():
        if "loaders" not in path.relative_to(SRC).parts[:1]:
            continue
        package, names = _package(path), _constants(tree)
        shown = str(path.relative_to(SRC))
        for node in ast.walk(tree):
            read = None
            if isinstance(node, ast.Subscript) and _is_extra(node.value) and isinstance(node.ctx, ast.Load):
                read = _key(node.slice, names)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                if node.func.attr == "get" and _is_extra(node.func.value):
                    read = _key(node.args[0], names)
                elif node.func.attr == "setdefault":
                    writes.setdefault(package, set()).add(_key(node.args[0], names) or "")
            elif isinstance(node, ast.Compare) and any(_is_extra(c) for c in node.comparators):
                read = _key(node.left, names)
            elif isinstance(node, ast.Dict):
                writes.setdefault(package, set()).update(_key(k, names) or "" for k in node.keys)
            elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
                writes.setdefault(package, set()).add(_key(node.slice, names) or "")
            if read is not None:
                reads.setdefault(package, set()).add((read, shown))
    foreign = sorted(
        f"{where}: {key!r}"
        for package, found in reads.items()
        for key, where in found
        if key not in writes.get(package, set())
    )
    assert reads, "the check found no extra reads at all: it no longer sees them"
    assert foreign == [], "an extra key another package writes is a typed field: " + ", ".join(foreign)


# --- each loader sets the fields it hands on -------------------------------------------------


def test_sdk_loader_sets_value_sources_and_inputs(tmp_path: Path) -> None:
    code = HEADER + textwrap.dedent(
        """
        import yaml
        cfg = yaml.safe_load(open("config.yaml"))["training"]
        est = PyTorch(entry_point="t.py", instance_type=cfg["instance_type"], max_run=cfg["max_run"])
        """
    )
    job = one(tmp_path, {"launch.py": code, "config.yaml": CONFIG_YAML})
    assert job.value_sources == (
        ValueSource("instance_type", "config.yaml", 2, "config file"),
        ValueSource("max_runtime_s", "config.yaml", 4, "config file"),
    )
    assert job.inputs == ("config.yaml",)
    assert not {"value_sources", "inputs"} & set(job.extra)


def test_sdk_loader_sets_finding_note_for_a_local_mode_argparse_default(tmp_path: Path) -> None:
    job = one(tmp_path, {"launch.py": HEADER + ARGPARSE_LOCAL.format(choices='"local", "ml.p4d.24xlarge"')})
    assert job.finding_note.startswith("; local mode only by the argparse default 'local'")
    assert "finding_note" not in job.extra


def test_sdk_loader_sets_launches_and_default_note(tmp_path: Path) -> None:
    loop = 'for itype in ["ml.g5.xlarge", "ml.p4d.24xlarge"]:\n'
    code = HEADER + loop + '    PyTorch(entry_point="t.py", instance_type=itype).fit()\n'
    job = one(tmp_path, {"launch.py": code})
    assert job.launches == Launches(2, (3,))
    assert job.default_note and "Estimator" in job.default_note
    assert not {"launches", "launch_loops", "default_note"} & set(job.extra)


@pytest.mark.parametrize(
    ("fixture", "launcher"),
    [
        ("sagemaker-api", "api-request"),
        ("kubernetes", "kubernetes-crd"),
        ("terraform", "terraform"),
        ("cloudformation", "step-functions"),
    ],
)
def test_every_training_job_loader_names_its_default(fixture: str, launcher: str) -> None:
    jobs = [r for r in lint(ScanOptions(paths=[FIXTURES / fixture])).records if isinstance(r, TrainingJob)]
    of_launcher = [j for j in jobs if j.launcher == launcher]
    assert of_launcher and all(j.default_note for j in of_launcher)
    assert all("default_note" not in j.extra for j in jobs)


def test_kubernetes_loader_sets_checkpoint_paths() -> None:
    result = lint(ScanOptions(paths=[FIXTURES / "kubernetes" / "bad" / "job-nfs-efs-checkpoints.yaml"]))
    (job,) = [r for r in result.records if isinstance(r, Volume)]
    assert job.checkpoint_paths == (CheckpointPath("/mnt/ckpt/resnet", 16, "command"),)
    assert "checkpoint_paths" not in job.extra


def test_kubernetes_loader_sets_env_from_and_linking_adds_its_paths(tmp_path: Path) -> None:
    (tmp_path / "job.yaml").write_text(ENV_FROM_JOB.format(env="", arg="--save-dir=$(CKPT_ROOT)/run1"))
    loaded = k8s_load(ENV_FROM_JOB.format(env="", arg="--save-dir=$(CKPT_ROOT)/run1"))
    (workload,) = [r for r in loaded.records if isinstance(r, Volume)]
    assert workload.env_from == (
        EnvFrom(
            ("train-env",),
            13,
            (),
            (PendingEnv("--save-dir=$(CKPT_ROOT)/run1", "--save-dir=$(CKPT_ROOT)/run1", "args", 15),),
        ),
    )
    assert workload.checkpoint_paths == () and "env_from" not in workload.extra
    (tmp_path / "storage.yaml").write_text(STORAGE)
    (tmp_path / "env.yaml").write_text(config_map("  CKPT_ROOT: /state/ckpt\n"))
    linked = [r for r in lint(ScanOptions(paths=[tmp_path])).records if isinstance(r, Volume) and r.env_from]
    found = {p.path: p for p in linked[0].checkpoint_paths}  # the key itself and the expanded flag
    assert set(found) == {"/state/ckpt", "/state/ckpt/run1"}
    assert (
        found["/state/ckpt/run1"].line == 15
        and "envFrom ConfigMap train-env" in found["/state/ckpt/run1"].source
    )


def test_karpenter_loader_sets_hyperpod_node_class() -> None:
    (pool,) = [r for r in k8s_load(HYPERPOD_NODEPOOL).records if isinstance(r, ComputePool)]
    assert pool.hyperpod_node_class is True and "hyperpod_node_class" not in pool.extra


def test_typed_fields_pickle_and_compare() -> None:
    """Records cross process boundaries under ``--jobs``: the side records survive pickling."""
    job = TrainingJob(
        address="a",
        location=Location("f.py", 1, 2),
        source_format="sagemaker-sdk",
        value_sources=(ValueSource("instance_type", "c.yaml", 3, "config file"),),
        finding_note="; note",
        inputs=("c.yaml",),
        default_note="default",
        launches=Launches(None, (4, 5), "not over literal values"),
    )
    volume = Volume(
        address="v",
        location=Location("j.yaml", 1, 9),
        source_format="kubernetes",
        checkpoint_paths=(CheckpointPath("/efs/x", 3, "args"),),
        env_from=(EnvFrom(("m",), 2, ("A",), (PendingEnv("$(X)", "$(X)", "args", 4),)),),
    )
    for record in (job, volume):
        assert pickle.loads(pickle.dumps(record)) == record
    assert hash(job.launches) == hash(Launches(None, (4, 5), "not over literal values"))


def test_counted_once_is_the_de_duplication_key() -> None:
    result = scan_paths([FIXTURES / "demo" / "kubernetes"], select=("FIN401",))
    shared = {f.cost.counted_once for f in result.findings if f.cost is not None}
    assert shared == {CountedOnce("storage", "PersistentVolumeClaim/training/training-checkpoints")}
    for f in result.findings:  # the reader still sees the key among the assumptions
        assert (
            f.cost is not None
            and f.cost.assumptions["storage"] == "PersistentVolumeClaim/training/training-checkpoints"
        )
        assert "counted_once" not in f.cost.to_json()
