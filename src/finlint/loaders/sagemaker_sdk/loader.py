"""SageMaker Python SDK launches in ``.py`` files and ``.ipynb`` notebooks -> ``TrainingJob`` records.

The code is read with ``ast`` and a small abstract interpreter (``sagemaker_sdk_interp``); it
is never imported or run (importing the SDK takes seconds, constructing a trainer calls AWS,
and user code may do anything). Files that mention neither ``sagemaker`` nor
``create_training_job`` are skipped after a substring test, so unrelated code costs nothing.
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path
from typing import Any, Callable

from finlint.ir import (
    Alternatives,
    Launches,
    LoadError,
    LoadResult,
    Location,
    Notice,
    Record,
    Suppression,
    TrainingJob,
    Unknown,
    ValueSource,
    distinct_suppressions,
    map_options,
)
from finlint.loaders.base import DocContext, no_finalize
from finlint.loaders.common import coerce
from finlint.loaders.common.yamlload import LineDict, LineList, YamlLoadError, load_all
from finlint.loaders.sagemaker_sdk.dataloader import MARKER as DATALOADER_MARKER
from finlint.loaders.sagemaker_sdk.dataloader import load_data_loaders
from finlint.loaders.sagemaker_sdk.launch import Launch, SdkInterpreter
from finlint.loaders.sagemaker_sdk.loops import launches_of
from finlint.loaders.sagemaker_sdk.script_args import load_script_args, mentions_checkpoint_args
from finlint.loaders.sagemaker_sdk.sdk_defaults import DEFAULTS_FIELDS, apply_defaults, find_defaults
from finlint.loaders.sagemaker_sdk.sources import Sources, origin_of
from finlint.loaders.sagemaker_sdk.values import DictVal, PartialStr

FORMAT = "sagemaker-python"
finalize = no_finalize  # no whole-scan pass
MARKERS = ("sagemaker", "create_training_job")

INT_FIELDS = ("instance_count", "max_runtime_s", "max_wait_s", "keep_alive_s", "volume_size_gb")
STR_FIELDS = (
    "instance_type",
    "checkpoint_s3_uri",
    "checkpoint_local_path",
    "training_plan",
    "training_image",
    "framework",
    "entry_point",
    "source_dir",
)

#: Cell magics whose body is still Python (the first line is dropped, the rest parsed).
PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun")

LineMap = Callable[[int], int]
#: boto3 ``batch.submit_job(...)`` (``finlint.loaders.common.batch_submit``, imported when present)
BATCH_SUBMIT = "submit_job"

#: How the SDK treats a missing max runtime (the FIN101 message names it).
DEFAULT_NOTES = {
    "sdk-estimator": "the SageMaker SDK Estimator default max_run of 86,400 s (24 h) applies",
    "sdk-remote": "the @remote default max_runtime_in_seconds of 86,400 s (24 h) applies",
    "sdk-model-trainer": "the ModelTrainer default stopping condition of 3,600 s (1 h) applies",
}


def mentions_sagemaker(text: str) -> bool:
    """The cheap pre-filter: only files naming SageMaker are parsed at all."""
    return any(marker in text for marker in MARKERS)


def load_file(path: Path, display: str, text: str, options: dict[str, Any]) -> LoadResult:
    """Entry point for ``.py`` and ``.ipynb`` files (see finlint.loaders)."""
    sdk = mentions_sagemaker(text)
    torch_data = DATALOADER_MARKER in text  # PyTorch DataLoader calls (FIN601), SageMaker or not
    script_args = path.suffix == ".py" and mentions_checkpoint_args(text)  # argparse checkpoint defaults
    batch_submit = BATCH_SUBMIT in text  # boto3 batch.submit_job(...): AWS Batch submissions
    if not sdk and not torch_data and not script_args and not batch_submit:
        return LoadResult()
    result = LoadResult()
    try:
        if path.suffix == ".ipynb":
            parsed = _parse_notebook(text, display, result)
        else:
            parsed = _parse_python(text, display, result)
        if parsed is None:
            return result
        tree, line_map = parsed
        if sdk:
            _analyse(tree, line_map, path, display, text, options, result)
        if torch_data and not _is_test_file(path):  # a test's DataLoader feeds no training job
            result.records.extend(load_data_loaders(tree, line_map, display, text, path.stem))
        if script_args and not _is_test_file(path):
            result.records.extend(load_script_args(tree, line_map, display, FORMAT))
        if batch_submit:
            from finlint.loaders.common import batch_submit as submit

            result.records.extend(submit.submissions(tree, line_map, display))
    except RecursionError:
        result.errors.append(LoadError(display, 1, "file is nested too deeply to analyse"))
    except MemoryError:
        result.errors.append(LoadError(display, 1, "out of memory while reading"))
    return result


# -- parsing -------------------------------------------------------------------------------
def _parse_python(text: str, display: str, result: LoadResult) -> tuple[ast.Module, LineMap] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not our business
            tree = ast.parse(text, filename=display)
    except SyntaxError as exc:
        hint = (
            " (Python 2 code is not analysed)" if _looks_like_python2(exc.msg) else _newer_syntax(text, exc)
        )
        result.errors.append(LoadError(display, exc.lineno or 1, f"invalid Python: {exc.msg}{hint}"))
        return None
    except ValueError as exc:  # source code string cannot contain null bytes
        result.errors.append(LoadError(display, 1, f"invalid Python: {exc}"))
        return None
    return tree, _identity


#: statements a newer Python reads that an older one calls invalid: (pattern, first version)
_NEWER_SYNTAX = (
    (re.compile(r"\s*type\s+[A-Za-z_]\w*\s*(\[[^\]]*\])?\s*="), (3, 12)),  # PEP 695 type alias
    (re.compile(r"\s*(async\s+)?(def|class)\s+[A-Za-z_]\w*\s*\["), (3, 12)),  # PEP 695 generics
    (re.compile(r"\s*except\*?\s+[^(:]+,[^:]*:"), (3, 14)),  # PEP 758 except without parentheses
)


def _newer_syntax(text: str, exc: SyntaxError) -> str:
    """A hint when the failing line is syntax of a newer Python than the one finlint runs on:
    the file is valid there, and running finlint on the project's Python reads it."""
    import sys

    lines = text.splitlines()
    if not exc.lineno or not 1 <= exc.lineno <= len(lines):
        return ""
    line = lines[exc.lineno - 1]
    for pattern, version in _NEWER_SYNTAX:
        if sys.version_info[:2] < version and pattern.match(line):
            need = ".".join(map(str, version))
            here = ".".join(map(str, sys.version_info[:2]))
            return f" (Python {need}+ syntax: finlint runs on Python {here}; run it on the project's Python)"
    return ""


def _looks_like_python2(msg: str) -> bool:
    """``print "x"`` / ``exec "x"``: CPython names the Python 2 statement in its message."""
    return "Missing parentheses in call to" in msg


def _identity(line: int) -> int:
    return line


def _parse_notebook(text: str, display: str, result: LoadResult) -> tuple[ast.Module, LineMap] | None:
    """Code cells as one module in cell order; module line -> the .ipynb line of that source line."""
    from finlint.loaders.sagemaker_sdk.nbjson import NotSimple, read_notebook

    try:
        notebook: Any = read_notebook(text)  # the cells only, with json's C scanner
    except NotSimple:  # the YAML loader reads it (and says where it is broken)
        try:
            docs = load_all(text, is_json=True)
        except YamlLoadError as exc:
            result.errors.append(LoadError(display, exc.line, f"invalid notebook: {exc.message}"))
            return None
        notebook = docs[0] if docs else None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if cells is None and isinstance(notebook, dict):  # nbformat 3
        sheets = notebook.get("worksheets")
        if isinstance(sheets, list) and sheets and isinstance(sheets[0], dict):
            cells = sheets[0].get("cells")
    if not isinstance(cells, list):
        result.errors.append(LoadError(display, 1, "invalid notebook: no 'cells' list"))
        return None
    module = ast.Module(body=[], type_ignores=[])
    file_lines: list[int] = [1]  # index = module line (1-based); [0] unused
    source_lines: list[str] = []  # the module's text, for `# finlint: ignore[...]` comments
    padded = 0  # newlines written in front of cells so far
    skipped: list[tuple[int, int, str]] = []  # (cell number, file line, why): one notice at the end
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        key = "source" if "source" in cell else "input"
        lines, lines_at = _cell_lines(cell.get(key), cell, key)
        if not lines:
            continue
        source = _strip_magics(lines)
        if source is None:
            continue  # %%bash, %%writefile...: not Python
        offset = len(file_lines) - 1
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # parsed below the cells before it: its line numbers are the module's without
                # ast.increment_lineno, a walk of every node of every cell (a third of the SDK
                # loader's time on notebook-heavy repositories)
                # -- until the padding written so far passes a few times the file's size:
                # past that (thousands of cells) the padding would make the notebook quadratic
                shift = offset if padded + offset <= _PAD_BUDGET + 4 * len(text) else 0
                padded += shift
                tree = ast.parse("\n" * shift + source)
                if not shift:
                    tree = ast.increment_lineno(tree, offset)
        except (SyntaxError, ValueError) as exc:
            line = (getattr(exc, "lineno", None) or shift + 1) - shift
            at = lines_at[min(max(line, 1), len(lines_at)) - 1]
            skipped.append((index + 1, at, getattr(exc, "msg", str(exc))))
            continue
        module.body.extend(tree.body)
        file_lines.extend(lines_at)
        source_lines.extend(source.split("\n")[: len(lines_at)])
    if skipped:
        result.notices.append(skipped_cells_notice(display, skipped))
    last = len(file_lines) - 1

    def line_map(line: int) -> int:
        return file_lines[min(max(line, 1), last)] if last else 1

    module.finlint_source_lines = source_lines  # type: ignore[attr-defined]
    return module, line_map


def skipped_cells_notice(display: str, skipped: list[tuple[int, int, str]]) -> Notice:
    """One notice per notebook for its cells that are not Python (``pip install`` lines, R or
    shell code), at the first: a notebook of many such cells is one line, not one each."""
    number, line, why = skipped[0]
    if len(skipped) == 1:
        return Notice(display, line, f"notebook cell {number} skipped: not valid Python ({why})")
    numbers = ", ".join(str(n) for n, _, _ in skipped[:8]) + (", ..." if len(skipped) > 8 else "")
    note = f"{len(skipped)} notebook cells skipped: not valid Python (cells {numbers}; first: {why})"
    return Notice(display, line, note)


#: newlines a notebook may put in front of its cells (then ``ast.increment_lineno``), besides 4 per byte
_PAD_BUDGET = 1 << 20


def _cell_lines(source: Any, cell: Any, key: str) -> tuple[list[str], list[int]]:
    """A cell's source lines and the notebook file line of each."""
    fallback = cell.line_of(key) if isinstance(cell, LineDict) else 1
    if isinstance(source, str):
        lines = source.split("\n")
        return lines, [fallback] * len(lines)
    if not isinstance(source, list):
        return [], []
    out: list[str] = []
    at: list[int] = []
    for i, item in enumerate(source):
        if not isinstance(item, str):
            continue
        where = source.line_of(i) if isinstance(source, LineList) else fallback
        parts = item.split("\n")
        if parts and parts[-1] == "" and len(parts) > 1:
            parts.pop()
        for part in parts:
            out.append(part)
            at.append(where)
    return out, at


_MAGIC = re.compile(r"^(\s*)[!%]")
#: ``files = !ls`` / ``env = %env``: IPython's shell/magic assignment; the target keeps a value.
_MAGIC_ASSIGN = re.compile(r"^(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=)\s*[!%]")
#: ``est.fit?``, ``?est``, ``PyTorch??``: IPython help, not Python.
_HELP = re.compile(r"^(\s*)(?:\?{1,2}[A-Za-z_][\w.]*|[A-Za-z_][\w.]*\?{1,2})\s*$")


def _strip_magics(lines: list[str]) -> str | None:
    """IPython syntax -> Python with the same line count, or None for a non-Python cell."""
    first = next((ln.strip() for ln in lines if ln.strip()), "")
    out = list(lines)
    if first.startswith("%%"):
        if first.split()[0] not in PYTHON_CELL_MAGICS:
            return None
        idx = next(i for i, ln in enumerate(lines) if ln.strip())
        out[idx] = ""
    continued = False  # the line before was a shell/magic line ending in a backslash
    for i, line in enumerate(out):
        if continued:  # `!cmd \` / `%pip install \`: IPython joins the next line to it
            continued = line.rstrip().endswith("\\")
            out[i] = ""
            continue
        match = _MAGIC.match(line)
        if match:
            out[i] = match.group(1) + "pass"  # !pip install ..., %matplotlib inline
            continued = line.rstrip().endswith("\\")
            continue
        match = _MAGIC_ASSIGN.match(line)
        if match:
            out[i] = match.group(1) + " None"  # files = !ls: the rest of the cell is still Python
            continued = line.rstrip().endswith("\\")
            continue
        match = _HELP.match(line)
        if match:
            out[i] = match.group(1) + "pass"  # est.fit?
    return "\n".join(out) + "\n"


# -- analysis ------------------------------------------------------------------------------
TEST_SKIP = "inside a test"
_TEST_NOTICE = re.compile(r"^(\d+) training launch(?:es)? in test code (?:was|were) not checked")


def test_launches_notice(count: int) -> str:
    """What counts as test code: files ``test_*.py``, ``*_test.py``, ``conftest.py``; functions
    named ``test*`` and pytest fixtures; classes named ``Test*`` or subclassing ``*TestCase``."""
    noun, verb = ("launch", "was") if count == 1 else ("launches", "were")
    return f"{count} training {noun} in test code {verb} not checked; --include-tests checks them"


def summarize_test_notices(notices: list[Notice]) -> list[Notice]:
    """The per-file test-code notices of a scan as one summary notice (at the first file)."""
    counted = [(n, _TEST_NOTICE.match(n.message)) for n in notices]
    hits = [(n, m) for n, m in counted if m is not None]
    if len(hits) < 2:
        return notices
    total = sum(int(m.group(1)) for _, m in hits)
    first = hits[0][0]
    files = len(hits)
    summary = Notice(first.file, first.line, f"{test_launches_notice(total)} ({files} files)")
    out = [n for n, m in counted if m is None]
    out.append(summary)
    return out


_INSTANCE_TYPE = re.compile(r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")


def _analyse(
    tree: ast.Module,
    line_map: LineMap,
    path: Path,
    display: str,
    text: str,
    options: dict[str, Any],
    result: LoadResult,
) -> None:
    is_test_file = _is_test_file(path)
    interp = SdkInterpreter(is_test_file=is_test_file, sources=Sources(path, display))
    interp.instance_literals = (
        {
            n.value
            for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and _INSTANCE_TYPE.match(n.value)
        }
        if "ml." in text  # a walk of the whole tree, for the files that can have one
        else set()
    )
    interp.run_module(tree)
    for line, message in interp.notices:
        result.notices.append(Notice(display, line_map(line), message))
    include_tests = bool(options.get("include_tests"))
    if include_tests:
        for launch in interp.launches:
            if launch.skip == TEST_SKIP:
                launch.skip = None
                launch.extra["in_test_code"] = True
    if interp.sources is not None:
        defaults = find_defaults(interp.sources, tree, "environ" in text)
        if defaults:
            apply_defaults(interp.sources, defaults, [la for la in interp.launches if la.skip is None])
    inputs = tuple(sorted(interp.sources.inputs - {display})) if interp.sources is not None else ()
    if inputs:  # files the values were read from: a changed-file scan reports through them
        for launch in interp.launches:
            launch.inputs = launch.inputs or inputs  # Record.inputs: finlint.context reads it
    in_tests = [la for la in interp.launches if la.skip == TEST_SKIP]
    if in_tests:
        first = min(la.line for la in in_tests)
        result.notices.append(Notice(display, line_map(first), test_launches_notice(len(in_tests))))
    launches = sorted(
        (la for la in interp.launches if la.skip is None), key=lambda la: (la.line, la.end_line)
    )
    seen: dict[str, int] = {}
    ctx = DocContext(file=display, lines=text.splitlines(), options=options)
    cell_lines = getattr(tree, "finlint_source_lines", None)
    for launch in launches:
        base = f"{path.stem}:{launch.name}"
        seen[base] = seen.get(base, 0) + 1
        address = base if seen[base] == 1 else f"{base}#{seen[base]}"
        record = _to_record(launch, address, display, line_map, ctx, result)
        if record is not None and cell_lines and "finlint:" in text:
            record = record.with_changes(suppressions=_notebook_suppressions(launch, cell_lines, line_map))
        if record is not None:
            result.records.append(record)


def _is_test_file(path: Path) -> bool:
    return path.name.startswith("test_") or path.stem.endswith("_test") or path.name == "conftest.py"


def _notebook_suppressions(launch: Launch, lines: list[str], line_map: LineMap) -> tuple[Suppression, ...]:
    """``# finlint: ignore[...]`` comments inside notebook cells (the scanner reads .py comments
    itself; in a notebook they are inside JSON strings): on the call's first line or alone
    above it, as in a .py file."""
    from finlint.loaders.common.comments import parse_comments

    out: list[Suppression] = []
    for entry in parse_comments("cell.py", lines):
        if entry.scope == "line" and launch.line in entry.targets:
            out.extend(Suppression(rule, entry.reason, line_map(entry.line)) for rule in entry.rules)
    return distinct_suppressions(out)


def _to_record(
    launch: Launch, address: str, display: str, line_map: LineMap, ctx: DocContext, result: LoadResult
) -> Record | None:
    location = Location(display, line_map(launch.line), line_map(launch.end_line))
    extra: dict[str, Any] = {"sdk_class": launch.sdk_class, **launch.extra}
    from_defaults = set(extra.pop(DEFAULTS_FIELDS, ()))
    #: what later stages read: typed TrainingJob fields, never extra keys
    typed: dict[str, Any] = {"finding_note": launch.finding_note, "inputs": launch.inputs}
    site = launches_of(launch.sites)
    if site is not None:  # launched in a loop: how many times (None: unknown) and where
        loops = tuple(line_map(line) for line in site.lines)
        typed["launches"] = Launches(site.count, loops, site.why if site.count is None else None)
    if launch.default_runtime is not None:  # named in FIN101's message, also for pipeline steps
        typed["default_note"] = DEFAULT_NOTES.get(launch.sdk_kind, DEFAULT_NOTES["sdk-estimator"])
    if launch.request is not None:
        return _api_record(launch, address, location, extra, typed, line_map, ctx, result)
    values: dict[str, Any] = {}
    attr_lines: dict[str, int] = {}
    sources: list[ValueSource] = []
    for ir_field, (value, line) in launch.fields.items():
        converted = _ir_value(ir_field, value)
        if converted is None:
            continue
        values[ir_field] = converted
        attr_lines[ir_field] = line_map(line)
        origin = origin_of(value)
        if origin is not None:  # read from a config file: the finding names (and points at) it
            what = "SageMaker SDK defaults file" if ir_field in from_defaults else "config file"
            sources.append(ValueSource(ir_field, origin[0], origin[1], what))
    if launch.runs is not None:
        runs = _ir_value("instance_count", launch.runs[0])
        values["runs_multiplier"] = 1 if runs is None else runs
        attr_lines["runs_multiplier"] = line_map(launch.runs[1])
    # spot on one branch (or an unresolved flag) stays as it is: FIN201 and FIN101 decide on
    # branches by one rule (engine.facts.on_a_branch), never this loader
    return TrainingJob(
        address=address,
        location=location,
        source_format=FORMAT,
        attr_lines=attr_lines,
        name=extra.get("job_name"),
        extra=extra,
        value_sources=tuple(sources),
        launcher=launch.launcher,
        max_runtime_default_s=launch.default_runtime,
        **typed,
        **values,
    )


def _ir_value(ir_field: str, value: Any) -> Any:
    """An interpreter value -> what the IR field holds (None, a typed value or Unknown);
    alternatives option by option (a plain Unknown when one of them does not convert)."""
    if isinstance(value, Alternatives):
        return map_options(value, lambda option: _ir_value(ir_field, option))
    if value is None or isinstance(value, Unknown):
        return value
    if getattr(value, "is_bool", False):  # a config file's true/false (sources.OriginBool)
        value = bool(value)
    # scalars convert through coerce, as in every other loader ("3600" and 3600.0 are 3600)
    scalar = isinstance(value, (bool, int, float, str))
    if ir_field in INT_FIELDS:
        return coerce.to_int(value, ir_field) if scalar else Unknown(f"{_shown(value)} is not a number")
    if ir_field == "spot":
        return coerce.to_bool(value, ir_field) if scalar else Unknown(f"{_shown(value)} is not a boolean")
    if ir_field in STR_FIELDS:
        if isinstance(value, PartialStr):
            if ir_field in ("checkpoint_s3_uri", "training_image"):
                # present; the rules read only its presence, or the image's repository name
                return value.template
            return Unknown(f"partly dynamic string {value.template!r}")
        if scalar:
            return coerce.to_str(value, ir_field)
        return Unknown(f"{_shown(value)} is not a string")
    return value


def _shown(value: Any) -> str:
    if isinstance(value, (int, float, str)):
        return repr(value)
    return type(value).__name__


# -- boto3 create_training_job -------------------------------------------------------------
#: Keys the rules read, filled with Unknown when a request dict may hold more than we see.
_REQUEST_KEYS: dict[tuple[str, ...], tuple[str, ...]] = {
    (): ("ResourceConfig", "StoppingCondition", "EnableManagedSpotTraining", "CheckpointConfig"),
    ("ResourceConfig",): ("InstanceType", "InstanceCount", "VolumeSizeInGB", "KeepAlivePeriodInSeconds"),
    ("StoppingCondition",): ("MaxRuntimeInSeconds", "MaxWaitTimeInSeconds"),
    ("CheckpointConfig",): ("S3Uri", "LocalPath"),
}


def _api_record(
    launch: Launch,
    address: str,
    location: Location,
    extra: dict[str, Any],
    typed: dict[str, Any],
    line_map: LineMap,
    ctx: DocContext,
    result: LoadResult,
) -> Record | None:
    from finlint.loaders.sagemaker_api.request import training_job_from_request

    assert launch.request is not None
    request = _to_request(launch.request, line_map, ())
    record = training_job_from_request(
        request,
        ctx,
        launcher="api-request",
        address=address,
        source_format=FORMAT,
        fallback_line=location.line,
    )
    if record is None:
        return None
    merged = {**dict(getattr(record, "extra", {}) or {}), **extra}
    return record.with_changes(location=location, extra=merged, **typed)


def _to_request(value: Any, line_map: LineMap, path: tuple[str, ...]) -> Any:
    """Interpreter values -> plain data with lines (LineDict/LineList), Unknown where unresolved."""
    if isinstance(value, DictVal):
        out = LineDict()
        out.line = line_map(value.line)
        out.end_line = line_map(value.end_line or value.line)
        out.key_lines = {}
        for key, (item, line) in value.entries.items():
            out[key] = _to_request(item, line_map, (*path, str(key)))
            out.key_lines[key] = line_map(line)
        if value.open:
            for key in _REQUEST_KEYS.get(path, ()):
                if key not in out:
                    out[key] = Unknown("the request dict may hold more keys than are visible")
                    out.key_lines[key] = out.line
        return out
    if isinstance(value, tuple):
        items = LineList(_to_request(v, line_map, path) for v in value)
        items.line = items.end_line = 0
        items.item_lines = []
        return items
    if isinstance(value, PartialStr):
        if path[-2:] == ("CheckpointConfig", "S3Uri"):
            return value.template
        return Unknown(f"partly dynamic string {value.template!r}")
    if value is None or isinstance(value, (bool, int, float, str, Unknown)):
        return value
    return Unknown(f"{type(value).__name__} is not known statically")
