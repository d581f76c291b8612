"""``finlint diff BASE_REF [PATH]``: the pull-request view.

Scans the working tree and BASE_REF, and reports the findings the change adds, the ones it
fixes and the change in monthly cost. The base is checked out into a temporary
``git worktree`` (detached, removed afterwards), so the user's checkout, index and stash are
never touched. The base scan runs from the same relative directory inside the worktree, so
both scans print the same paths and findings compare by rule, file and resource.

A base missing from a shallow CI clone is an error with the fetch that makes it exist, unless
``--fetch`` asks finlint to run that fetch itself (``git fetch --no-tags [--depth=N] origin --
REF``, the ref validated as a ref name or commit id first, never taken as an option) and retry.
finlint never fetches unasked: a scan needs no network.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from contextlib import contextmanager, suppress
from dataclasses import replace
from pathlib import Path
from typing import Callable, Iterator

from finlint.post.baseline import Comparison, Entry, compare
from finlint.result import ScanResult
from finlint.scan import ScanOptions, display_path

GIT_TIMEOUT_S = 300
# Set by git while a hook runs (pre-commit): they would point the worktree at the wrong index.
_GIT_ENV = (
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
    "GIT_PREFIX",
    "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY",
)


REMOTE = "origin"
#: what git check-ref-format refuses in a ref name (git help check-ref-format), and ``@{`` / ``..``
_BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|\.lock(/|$)|^\.|^/|[/.]$")
_COMMIT_ID = re.compile(r"[0-9a-fA-F]{40}([0-9a-fA-F]{24})?")


class DiffError(Exception):
    """Not a git repository, an unknown ref, or git failed (a usage error, exit 2)."""


def git(args: list[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV}
    env["GIT_TERMINAL_PROMPT"] = "0"  # a fetch that needs credentials fails, never waits on a prompt
    try:
        proc = subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except FileNotFoundError as exc:
        raise DiffError("git is not installed (finlint diff needs it)") from exc
    except subprocess.TimeoutExpired as exc:
        raise DiffError(f"git {' '.join(args)} timed out after {GIT_TIMEOUT_S} s") from exc
    if proc.returncode != 0:
        raise DiffError(f"git {' '.join(args)}: {proc.stderr.strip() or proc.stdout.strip()}")
    return proc.stdout.strip()


def repo_root(path: Path) -> Path:
    start = path if path.is_dir() else path.parent
    try:
        return Path(git(["rev-parse", "--show-toplevel"], start)).resolve()
    except DiffError as exc:
        raise DiffError(f"{path}: not inside a git repository ({exc})") from exc


def resolve_ref(root: Path, ref: str) -> str:
    if ref.startswith("-"):
        raise DiffError(f"invalid ref {ref!r}")
    try:
        return git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], root)
    except DiffError as exc:
        raise DiffError(f"unknown git ref {ref!r} (fetch it first: {fetch_hint(ref)})") from exc


def fetch_hint(ref: str) -> str:
    """The fetch that makes `ref` exist: `origin/main` is branch `main` of remote `origin`."""
    remote, sep, branch = ref.partition("/")
    if sep and remote == "origin" and branch:
        return f"`git fetch origin {branch}`"
    return f"`git fetch origin {ref}`"


def fetch_target(ref: str) -> str:
    """What to ask ``origin`` for: a commit id as is, ``origin/main`` as branch ``main``.

    Raises :class:`DiffError` for anything that is not a valid ref name or a full commit id
    (``git check-ref-format``'s rules, checked here so no text reaches git unvetted): a
    leading ``-`` never becomes an option.
    """
    if not ref or ref.startswith("-") or _BAD_REF.search(ref) or ref == "@":
        raise DiffError(f"cannot fetch {ref!r}: not a git ref name or commit id")
    if _COMMIT_ID.fullmatch(ref):
        return ref
    for prefix, replacement in ((f"refs/remotes/{REMOTE}/", "refs/heads/"), (f"{REMOTE}/", "")):
        if ref.startswith(prefix) and len(ref) > len(prefix):
            return replacement + ref[len(prefix) :]
    return ref


def fetch(root: Path, ref: str, depth: int) -> None:
    """``git fetch --no-tags --depth=N origin -- REF`` (no ``--depth`` in a complete clone,
    which a depth would make shallow)."""
    target = fetch_target(ref)
    shallow = git(["rev-parse", "--is-shallow-repository"], root) == "true"
    git(["fetch", "--no-tags", *([f"--depth={depth}"] if shallow else []), REMOTE, "--", target], root)


def resolve_or_fetch(root: Path, ref: str, fetch_depth: int | None) -> str:
    """``ref``'s commit; with ``fetch_depth``, fetched from origin first when it is missing."""
    try:
        return resolve_ref(root, ref)
    except DiffError:
        if fetch_depth is None:
            raise
    fetch(root, ref, fetch_depth)
    try:
        return resolve_ref(root, ref)  # a commit id, or origin/x the fetch updated
    except DiffError:  # a branch without a remote-tracking ref: what the fetch wrote
        return git(["rev-parse", "--verify", "--quiet", "FETCH_HEAD^{commit}"], root)


@contextmanager
def worktree(root: Path, commit: str) -> Iterator[Path]:
    """A detached worktree of ``commit`` in a temporary directory, always cleaned up."""
    holder = Path(tempfile.mkdtemp(prefix="finlint-diff-"))
    tree = holder / "base"
    try:
        git(["worktree", "add", "--detach", "--quiet", str(tree), commit], root)
        yield tree
    finally:
        if tree.exists():
            with suppress(DiffError):
                git(["worktree", "remove", "--force", str(tree)], root)
        shutil.rmtree(holder, ignore_errors=True)
        with suppress(DiffError):
            git(["worktree", "prune"], root)


def _in_tree(path: Path, root: Path, tree: Path) -> Path:
    absolute = path if path.is_absolute() else Path.cwd() / path
    try:
        return tree / absolute.resolve().relative_to(root)
    except ValueError:
        return path  # outside the repository: scanned as is


def _remap(file: str, base_cwd: Path, tree: Path, root: Path) -> str:
    """A path printed by the base scan -> the same file's path as the working-tree scan prints it."""
    absolute = Path(file) if os.path.isabs(file) else base_cwd / file
    try:
        return display_path(root / absolute.relative_to(tree))
    except ValueError:
        return file


def run(
    ref: str,
    options: ScanOptions,
    scan: Callable[[ScanOptions], ScanResult],
    fetch_depth: int | None = None,
) -> tuple[ScanResult, Comparison]:
    """Scan the working tree and ``ref``; mark findings present at ``ref`` as baseline.

    ``fetch_depth`` (``--fetch``): fetch a missing ``ref`` from origin at that depth first."""
    paths = options.paths or [Path(".")]
    root = repo_root(paths[0].absolute())
    commit = resolve_or_fetch(root, ref, fetch_depth)
    head = scan(options)
    cwd = Path.cwd().resolve()
    with worktree(root, commit) as tree:
        try:
            base_cwd = tree / cwd.relative_to(root)
        except ValueError:
            base_cwd = tree
        in_tree = (_in_tree(p, root, tree) for p in paths)
        base_paths = [base_cwd / p for p in in_tree if (base_cwd / p).exists()]
        if base_paths and base_cwd.is_dir():
            base = scan(replace(options, paths=base_paths, display_root=base_cwd))
            base_findings = [f for f in base.findings if f.suppressed is None]
        else:
            base_findings = []
        known = [replace(e, file=_remap(e.file, base_cwd, tree, root)) for e in map(Entry.of, base_findings)]
    label = f"{ref} ({commit[:7]})"
    return head, compare(head.findings, known, label)
