"""Context hooks: given files -> the other files of the repository they need.

Each hook takes the given files (absolute) and the :class:`~finlint.context.index.RepoIndex`
and yields files, or directories to load whole. :data:`HOOKS` is the one list; a new format
that links files adds its hook here.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Callable, Iterable, Iterator, Sequence

from finlint.context.index import (
    MAX_CLOSURE_ROUNDS,
    MAX_SNIFF_BYTES,
    PYTHON,
    STRUCTURED,
    RepoIndex,
    norm,
)

# --- hooks: given files -> the context they need ----------------------------------------------

ContextHook = Callable[[Sequence[Path], RepoIndex], Iterable[Path]]


def kubernetes_storage(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """Objects that claims, volumes and storage classes resolve to, in both directions.

    Forward: a workload's ``claimName`` -> the file defining that claim -> its StorageClass or
    PV. Backward: a changed StorageClass -> the claims and PVs of that class -> the workloads
    that mount those claims. Names are matched as sniffed (a superset); parsing decides.
    """
    given_set = {str(p) for p in given}
    wanted_defs: set[str] = set()  # names someone refers to: find where they are defined
    wanted_refs: set[str] = set()  # names defined here: find who refers to them
    for changed in given:
        if changed.suffix in (*STRUCTURED, ".tf"):
            sniff = index.sniff(changed)
            wanted_defs.update(sniff.refs)
            wanted_refs.update(sniff.defines)
    if not wanted_defs and not wanted_refs:
        return
    sniffs = [(p, index.sniff(p)) for p in index.entries((*STRUCTURED, ".tf")) if p not in given_set]
    sniffs = [(p, s) for p, s in sniffs if s.defines or s.refs]
    taken: set[str] = set()
    for _round in range(MAX_CLOSURE_ROUNDS):
        grew = False
        for path, sniff in sniffs:
            if path in taken:
                continue
            forward = not wanted_defs.isdisjoint(sniff.defines)
            backward = not wanted_refs.isdisjoint(sniff.refs)
            if forward or backward:
                taken.add(path)
                grew = True
                if forward:
                    wanted_defs.update(sniff.refs)
                if backward:
                    wanted_refs.update(sniff.defines)
        if not grew:
            break
    yield from (Path(p) for p in sorted(taken))


def terraform_callers(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """The configurations that call a changed local module (up to the root that calls nothing).

    A changed ``.tf``/``.tfvars`` already loads its own directory; a module directory is loaded
    through its callers so its variables are bound to what they pass.
    """
    wanted = {norm(p.parent) for p in given if p.suffix in (".tf", ".tfvars")}
    if not wanted:
        return
    callers: dict[Path, list[Path]] = {}
    for tf in index.files((".tf",)):
        for module_dir in index.sniff(tf).module_dirs:
            callers.setdefault(norm(index.root / module_dir), []).append(tf)
    seen: set[Path] = set()
    frontier = list(wanted)
    while frontier:
        directory = frontier.pop()
        for tf in callers.get(directory, ()):
            caller = norm(tf.parent)
            if caller in seen or caller in wanted:
                continue
            seen.add(caller)
            frontier.append(caller)
            yield tf


def helm_chart(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """The chart a file belongs to: the nearest directory up to the root with a ``Chart.yaml``.

    The chart directory is passed whole, so a chart loader (directory unit) renders it with its
    values; without one, its manifests are read as usual.
    """
    root = norm(index.root)
    seen: set[Path] = set()
    for path in given:
        directory = norm(path.parent)
        while True:
            if (directory / "Chart.yaml").is_file():
                if directory not in seen:
                    seen.add(directory)
                    yield directory
                break
            if directory == root or directory.parent == directory or not directory.is_relative_to(root):
                break
            directory = directory.parent


_SDK_DEFAULTS = re.compile(r"^SchemaVersion\s*:", re.MULTILINE)
#: how far above a changed config or module its launcher may sit (the SDK loader reads configs
#: and follows imports up to three folders above a script: ``sources.MAX_PARENT_LEVELS``)
MAX_LAUNCHER_LEVELS = 3
#: what starts an import statement: a line start, blank, or the quote that opens a notebook's
#: JSON source line (``"from utils import x\n"``)
_LEAD = r"(?:^|[\s\"'])"


def _import_pattern(module: Path, folder: Path) -> re.Pattern[str] | None:
    """An import of ``module`` (a .py file) written in a launcher of ``folder`` (an ancestor of
    its folder): ``import utils``, ``from .utils import``, ``from . import utils`` in the same
    folder; ``from src.utils import``, ``import pkg.sub.mod`` from a folder above it (or from
    the same folder, naming it from a base above: ``from src.utils`` in ``src/``)."""
    try:
        parts = module.with_suffix("").relative_to(folder).parts
    except ValueError:
        return None
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    dotted = r"\.".join(re.escape(p) for p in parts)
    # a launcher may name it from a folder above its own (``from src.utils`` inside src/)
    return re.compile(rf"{_LEAD}(?:from|import)\s+(?:\.+|(?:\w+\.)*){dotted}\b", re.MULTILINE)


def python_launchers(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """Launchers that read a changed file: a config file named in their text (its folder or up
    to :data:`MAX_LAUNCHER_LEVELS` above), a module they import (``utils``, ``src.utils``,
    from the same folders, or from anywhere in the repository through the cached import index,
    :meth:`RepoIndex.importers`: a sibling subtree importing ``orchestrator.clients.db``; through
    the modules that import it in turn), or every launcher beside a SageMaker SDK defaults file
    (``SchemaVersion:``), which the SDK applies by location."""
    seen: set[Path] = set()
    todo = [p for p in given if p.suffix != ".ipynb"]
    done: set[Path] = set()
    rounds = 0
    while todo and rounds < MAX_CLOSURE_ROUNDS * 8:
        path = todo.pop(0)
        rounds += 1
        if path in done:
            continue
        done.add(path)
        levels = MAX_LAUNCHER_LEVELS
        config: re.Pattern[str] | None = None
        if path.suffix != ".py":
            config = re.compile(re.escape(path.name))
            try:
                if _SDK_DEFAULTS.search(path.read_text("utf-8", errors="replace")[:4096]):
                    config, levels = re.compile(""), 1  # applied by location: beside or one above
            except OSError:
                continue
        folder = path.parent
        for _level in range(levels + 1):
            if not folder.is_relative_to(index.root):
                break
            pattern = config or _import_pattern(path, folder)
            if pattern is not None:
                for candidate, text in _python_files(folder, index, skip={path, *seen}):
                    if pattern.search(text):
                        seen.add(candidate)
                        yield candidate
                        if candidate.suffix == ".py":  # a module importing it: its importers too
                            todo.append(candidate)
            if folder == index.root:
                break
            folder = folder.parent
        if path.suffix == ".py":  # importers anywhere in the repository, from the import index
            for found in index.importers(path):
                candidate = Path(found)
                if candidate not in seen and candidate != path:
                    seen.add(candidate)
                    yield candidate
                    if candidate.suffix == ".py":
                        todo.append(candidate)


def _python_files(folder: Path, index: RepoIndex, skip: set[Path]) -> Iterator[tuple[Path, str]]:
    """The Python files of ``folder`` (not excluded, regular, not too large) with their text."""
    for candidate in sorted(folder.glob("*")):
        if candidate.suffix not in PYTHON or candidate in skip:
            continue
        if index.is_excluded(candidate) or not candidate.is_file():
            continue
        try:
            if candidate.stat().st_size > MAX_SNIFF_BYTES:
                continue
            yield candidate, candidate.read_text("utf-8", errors="replace")
        except OSError:
            continue


#: How far above a training script its launcher may sit (``source_dir="src/training"``).
MAX_SCRIPT_DEPTH = 3


def training_script_launchers(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """The SageMaker launchers that run a changed training script (FIN601 needs the job's
    instance type): files in the script's folder or up to :data:`MAX_SCRIPT_DEPTH` folders above
    that mention SageMaker and name the script (its ``entry_point``) or a folder on the way
    down to it (its ``source_dir``), or, in the script's own folder, set a ``source_dir`` at all
    (``source_dir="."`` ships the folder). Only scripts that build a ``DataLoader`` ask."""
    seen: set[Path] = set()
    for path in given:
        if path.suffix not in PYTHON:
            continue
        try:
            if "DataLoader" not in path.read_text("utf-8", errors="replace")[:MAX_SNIFF_BYTES]:
                continue
        except OSError:
            continue
        folder, below = path.parent, [path.name]
        for _level in range(MAX_SCRIPT_DEPTH + 1):
            if not folder.is_relative_to(index.root):
                break
            names = [re.escape(n) for n in below]
            # a closing quote may be escaped: notebooks are JSON (``entry_point=\\"train.py\\"``);
            # beside the script, a launcher whose source_dir is its own folder (".", "./",
            # os.path.abspath("")) ships every script there without naming it
            alternatives = rf"[\"'/](?:{'|'.join(names)})\\?[\"'/]"
            pattern = re.compile(alternatives + (r"|\bsource_dir\b" if folder == path.parent else ""))
            for candidate, text in _python_files(folder, index, skip={path, *seen}):
                if "sagemaker" in text and pattern.search(text):
                    seen.add(candidate)
                    yield candidate
            below.append(folder.name)
            if folder == index.root:
                break
            folder = folder.parent


def manifest_inputs(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """The manifests whose container values a changed file sets, with their storage context: a
    changed ``.env`` -> the templated (``${``) manifests in its folder (envsubst fills them from
    it, :mod:`finlint.loaders.common.dotenv`); a changed Python script with an argparse checkpoint
    option -> the manifests that name it in a command (its default is their checkpoint path)."""
    envs = [p for p in given if p.name == ".env"]
    scripts: list[Path] = []
    for path in given:
        if path.suffix == ".py":
            try:
                text = path.read_text("utf-8", errors="replace")[:MAX_SNIFF_BYTES]
            except OSError:
                continue
            if "add_argument" in text and re.search(r"(?i)checkpoint|ckpt", text):
                scripts.append(path)
    if not envs and not scripts:
        return
    folders = {p.parent for p in envs}
    names = {p.name for p in scripts}
    found: list[Path] = []
    for candidate in index.entries(STRUCTURED):
        path = Path(candidate)
        if path in given:
            continue
        in_folder = path.parent in folders
        if not in_folder and not names:
            continue
        try:
            text = path.read_text("utf-8", errors="replace")[:MAX_SNIFF_BYTES]
        except OSError:
            continue
        if (in_folder and "${" in text) or any(name in text for name in names):
            found.append(path)
    yield from found
    if found:
        yield from kubernetes_storage(found, index)  # their claims and classes, as for a given manifest


#: Slurm scripts' suffixes (the Slurm loader's; a file with no extension is sniffed by it)
SLURM_SCRIPTS = (".sbatch", ".slurm", ".sh", ".bash", ".job", ".batch", ".submit")
#: what a cluster configuration a Slurm job links to says (ParallelCluster, HyperPod, slurm.conf)
_CLUSTER = re.compile(r"SlurmQueues|\bworkload_manager\b|^\s*PartitionName\s*=", re.MULTILINE)
#: at most this many Slurm scripts below a changed cluster configuration are read as context
MAX_SLURM_SCRIPTS = 500


def _is_cluster_config(candidate: Path, index: RepoIndex) -> bool:
    name = candidate.name
    if not (name.endswith("slurm.conf") or candidate.suffix in STRUCTURED):
        return False
    if index.is_excluded(candidate) or not candidate.is_file():
        return False
    try:
        if candidate.stat().st_size > MAX_SNIFF_BYTES:
            return False
        return _CLUSTER.search(candidate.read_text("utf-8", errors="replace")) is not None
    except OSError:
        return False


#: at most this many directory entries are looked at below a changed cluster configuration
MAX_SLURM_WALK = 20_000


def _scripts_below(folder: Path, index: RepoIndex) -> Iterator[Path]:
    """Slurm scripts in ``folder`` and below (no symlinked folders, no skipped ones), bounded."""
    from finlint.loaders.common.discovery import SKIP_DIRS

    seen = found = 0
    for directory, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            seen += 1
            if seen > MAX_SLURM_WALK or found >= MAX_SLURM_SCRIPTS:
                return
            candidate = Path(directory) / name
            if candidate.suffix in SLURM_SCRIPTS and not index.is_excluded(candidate):
                found += 1
                yield candidate


def slurm_cluster(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """A changed Slurm script -> the cluster configurations in its folder and the folders above
    (``slurm.conf``, ParallelCluster, HyperPod provisioning parameters: its partition's instance
    types, limit and spot capacity come from the nearest); a changed configuration -> the Slurm
    scripts in its folder and below (they link to it). The Slurm link decides which applies."""
    root = norm(index.root)
    seen: set[Path] = set(given)
    for path in given:
        if path.suffix in SLURM_SCRIPTS or "." not in path.name:
            folder = norm(path.parent)
            while folder.is_relative_to(root):
                for config in sorted(folder.glob("*")):
                    if config not in seen and _is_cluster_config(config, index):
                        seen.add(config)
                        yield config
                if folder == root or folder.parent == folder:
                    break
                folder = folder.parent
        elif _is_cluster_config(path, index):
            for script in _scripts_below(norm(path.parent), index):
                if script not in seen:
                    seen.add(script)
                    yield script


#: a Batch job definition's name where it is defined (API request, CloudFormation, Terraform)
_JOB_DEFINITION = re.compile(
    r"\"jobDefinitionName\"\s*:\s*\"([\w.-]+)\"|JobDefinitionName:\s*[\"']?([\w.-]+)|"
    r"resource\s+\"aws_batch_job_definition\"\s+\"[\w-]+\"\s*\{[^}]*?\bname\s*=\s*\"([\w.-]+)\""
)
#: a literal ``jobDefinition=`` of a boto3 ``submit_job`` call (a name, ``name:3`` or an ARN)
_SUBMITTED = re.compile(r"jobDefinition\s*=\s*[\"'](?:[^\"']*job-definition/)?([\w.-]+?)(?::\d+)?[\"']")


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > MAX_SNIFF_BYTES:
            return None
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return None


def batch_submitters(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """AWS Batch: a changed job definition -> the Python files in its folder or up to
    :data:`MAX_LAUNCHER_LEVELS` above that ``submit_job`` it by name (their ``timeout`` is its
    limit); a changed submitting script -> the files in those folders that define the job
    definitions it names. Literal names only, as ``loaders.common.batch_submit`` reads them."""
    seen: set[Path] = set(given)
    for path in given:
        text = _read(path) if path.suffix in (*STRUCTURED, ".tf", ".py") else None
        if text is None:
            continue
        if path.suffix == ".py":
            names = set(_SUBMITTED.findall(text)) if "submit_job" in text else set()
        else:
            names = {next(g for g in m if g) for m in _JOB_DEFINITION.findall(text)}
        if not names:
            continue
        folder = path.parent
        for _level in range(MAX_LAUNCHER_LEVELS + 1):
            if not folder.is_relative_to(index.root):
                break
            for candidate in sorted(folder.glob("*")):
                if candidate in seen or index.is_excluded(candidate) or not candidate.is_file():
                    continue
                if path.suffix == ".py":
                    if candidate.suffix not in (*STRUCTURED, ".tf"):
                        continue
                    other = _read(candidate)
                    found = {next(g for g in m if g) for m in _JOB_DEFINITION.findall(other or "")}
                else:
                    if candidate.suffix != ".py":
                        continue
                    other = _read(candidate)
                    found = set(_SUBMITTED.findall(other)) if other and "submit_job" in other else set()
                if names & found:
                    seen.add(candidate)
                    yield candidate
            if folder == index.root:
                break
            folder = folder.parent


#: The context providers, in order. A new format adds its hook here.
_TRAINING_KIND = re.compile(
    r"^kind:\s*['\"]?(?:PyTorchJob|TFJob|MPIJob|XGBoostJob|PaddleJob|JAXJob|TrainJob|JobSet|RayJob|Job|"
    r"CronJob|HyperPodPyTorchJob)\b",
    re.MULTILINE,
)
_ACCELERATOR = re.compile(r"nvidia\.com/gpu|amd\.com/gpu|aws\.amazon\.com/neuron")
_TRAIN_JOB = re.compile(r"^kind:\s*['\"]?TrainJob\b", re.MULTILINE)
_RUNTIME = re.compile(r"^kind:\s*['\"]?(?:Cluster)?TrainingRuntime\b", re.MULTILINE)
_POOL = re.compile(
    r"^kind:\s*['\"]?(?:NodePool|Provisioner|ClusterConfig)\b"
    r"|\baws_eks_node_group\b|\bAWS::EKS::Nodegroup\b",
    re.MULTILINE,
)
_NAME = re.compile(r"^\s+name:\s*['\"]?([\w.-]+)", re.MULTILINE)
_HEAD_BYTES = 256 * 1024  # the kinds and names a training manifest or a pool file shows


def _head(path: Path) -> str:
    try:
        with path.open("rb") as handle:
            return handle.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def kubernetes_training(given: Sequence[Path], index: RepoIndex) -> Iterator[Path]:
    """What a Kubernetes training job links to (``linking.landing``, ``loaders.kubernetes.trainer``):
    an accelerated workload -> the files with Karpenter pools and node groups its pods may land
    on; a ``TrainJob`` -> the runtimes of the names it mentions, and a changed runtime -> the
    TrainJobs naming it. Names are matched as written (a superset); loading decides."""
    texts = {p: _head(p) for p in given if p.suffix in (*STRUCTURED, ".tf")}
    wants_pools = any(_TRAINING_KIND.search(t) and _ACCELERATOR.search(t) for t in texts.values())
    job_names = {n for t in texts.values() if _TRAIN_JOB.search(t) for n in _NAME.findall(t)}
    runtime_names = {n for t in texts.values() if _RUNTIME.search(t) for n in _NAME.findall(t)}
    if not (wants_pools or job_names or runtime_names):
        return
    for candidate in index.files((*STRUCTURED, ".tf")):
        if candidate in texts or index.is_excluded(candidate):
            continue
        text = _head(candidate)
        if _links(text, wants_pools, job_names, runtime_names):
            yield candidate


def _links(text: str, wants_pools: bool, job_names: set[str], runtime_names: set[str]) -> bool:
    """Does a candidate file hold a pool, a runtime a given TrainJob names, or a TrainJob naming a
    given runtime?"""
    if wants_pools and _POOL.search(text):
        return True
    names = set(_NAME.findall(text)) if job_names or runtime_names else set()
    if job_names and _RUNTIME.search(text) and not job_names.isdisjoint(names):
        return True
    return bool(runtime_names and _TRAIN_JOB.search(text) and not runtime_names.isdisjoint(names))


HOOKS: tuple[ContextHook, ...] = (
    kubernetes_storage,
    kubernetes_training,
    terraform_callers,
    helm_chart,
    python_launchers,
    training_script_launchers,
    manifest_inputs,
    slurm_cluster,
    batch_submitters,
)
