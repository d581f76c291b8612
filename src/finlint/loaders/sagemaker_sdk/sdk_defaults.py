"""The SageMaker Python SDK's own defaults files ("intelligent defaults"), applied where the SDK would.

The SDK fills arguments left unset from ``config.yaml`` files with ``SchemaVersion: '1.0'``
(an administrator file, then a user file; ``SAGEMAKER_ADMIN_CONFIG_OVERRIDE`` /
``SAGEMAKER_USER_CONFIG_OVERRIDE`` name a file or a directory holding ``config.yaml``). Its
default locations are outside any repository, so in a scanned tree a file applies when:

- the script sets ``os.environ["SAGEMAKER_*_CONFIG_OVERRIDE"]`` to a literal path, to
  ``os.getcwd()`` / ``Path.cwd()`` (taken as the script's directory) or to ``__file__``'s folder;
- an ``.env`` file in the script's directory or a parent names it (``KEY=path``);
- a defaults file sits next to the script (the notebook pattern: the override is set in a cell
  or in the environment the notebook runs in).

Which keys matter (read from the SDK's schema, ``sagemaker-core`` ``config_schema.py``, and
``sagemaker-train`` ``model_trainer.py``): ``SageMaker.PythonSDK.Modules.RemoteFunction.
InstanceType`` for ``@remote``; ``SageMaker.PythonSDK.Modules.ModelTrainer.{Compute,
StoppingCondition, CheckpointConfig}`` for ModelTrainer, each applied only when that argument
is not passed. ``SageMaker.TrainingJob`` (used by v2 estimators) has no instance type, runtime,
spot or checkpoint key, so nothing applies to estimators.
"""

from __future__ import annotations

import ast
import posixpath
import re
from pathlib import Path
from typing import Any, Mapping

from finlint.loaders.sagemaker_sdk.launch import CHECKPOINT_FIELDS, COMPUTE_FIELDS, STOPPING_FIELDS, Launch
from finlint.loaders.sagemaker_sdk.sources import MAX_PARENT_LEVELS, Sources
from finlint.loaders.sagemaker_sdk.values import DictVal

DEFAULTS_FIELDS = "sdk_defaults_fields"  # Launch.extra key: fields filled from a defaults file
OVERRIDES = ("SAGEMAKER_ADMIN_CONFIG_OVERRIDE", "SAGEMAKER_USER_CONFIG_OVERRIDE")
_ENV_LINE = re.compile(
    r"^\s*(?:export\s+)?(SAGEMAKER_(?:ADMIN|USER)_CONFIG_OVERRIDE)\s*=\s*['\"]?([^'\"#\s]+)"
)
#: ModelTrainer argument -> (CamelCase key in the file, its IR fields -> snake_case names).
TRAINER_KEYS: dict[str, tuple[str, Mapping[str, tuple[str, ...]]]] = {
    "compute": ("Compute", COMPUTE_FIELDS),
    "stopping_condition": ("StoppingCondition", STOPPING_FIELDS),
    "checkpoint_config": ("CheckpointConfig", CHECKPOINT_FIELDS),
}


def find_defaults(sources: Sources, tree: ast.Module, mentions_environ: bool = True) -> list[str]:
    """Absolute paths of the defaults files that apply to this script, admin first
    (``mentions_environ``: the text says ``environ``, else no assignment to it is looked for)."""
    found: dict[str, str] = {}
    for key, value in _environ_assignments(tree) if mentions_environ else ():
        path = _override_path(sources, value)
        if path is not None:
            found[key] = path
    for key, raw in _env_files(sources):
        found.setdefault(key, posixpath.normpath(posixpath.join(sources.script_dir, raw)))
    out: list[str] = []
    for key in OVERRIDES:
        if key in found:
            path = found[key]
            out.append(path if path.endswith((".yaml", ".yml")) else posixpath.join(path, "config.yaml"))
    beside = posixpath.join(sources.script_dir, "config.yaml")
    if not out and Path(beside).is_file():
        out.append(beside)
    return out


def apply_defaults(sources: Sources, files: list[str], launches: list[Launch]) -> None:
    """Fill the launches' unset fields from the defaults files (later files win)."""
    merged: dict[str, Any] = {}
    for path in files:
        before = set(sources.inputs)
        data = sources.load_config(path, "yaml")
        if not isinstance(data, DictVal) or not _is_defaults_file(data):
            sources.inputs.difference_update(sources.inputs - before)  # not an input of this script
            continue
        modules = _path(data, "SageMaker", "PythonSDK", "Modules")
        if not isinstance(modules, DictVal):
            continue
        for section in ("RemoteFunction", "ModelTrainer"):
            found = _path(modules, section)
            if isinstance(found, DictVal):
                merged.setdefault(section, {}).update({k: v for k, (v, _) in found.entries.items()})
    if not merged:
        return
    for launch in launches:
        if launch.launcher == "sdk-remote":
            _apply_remote(launch, merged.get("RemoteFunction", {}))
        elif launch.launcher == "sdk-model-trainer":
            _apply_trainer(launch, merged.get("ModelTrainer", {}))


def _apply_remote(launch: Launch, section: dict[str, Any]) -> None:
    value = section.get("InstanceType")
    if value is not None and "instance_type" not in launch.fields:
        launch.fields["instance_type"] = (value, launch.line)
        launch.extra.setdefault(DEFAULTS_FIELDS, []).append("instance_type")


def _apply_trainer(launch: Launch, section: dict[str, Any]) -> None:
    for _, (key, fields) in TRAINER_KEYS.items():
        config = section.get(key)
        if not isinstance(config, DictVal) or any(f in launch.fields for f in fields):
            continue  # the argument is passed: the SDK keeps it
        for ir_field, names in fields.items():
            for name in names:
                camel = "".join(p.capitalize() for p in name.split("_"))
                entry = config.entries.get(name) or config.entries.get(camel)
                if entry is not None:
                    launch.fields[ir_field] = (entry[0], launch.line)
                    launch.extra.setdefault(DEFAULTS_FIELDS, []).append(ir_field)
                    break


def _is_defaults_file(data: DictVal) -> bool:
    version = data.entries.get("SchemaVersion")
    return version is not None and str(version[0]) == "1.0" and "SageMaker" in data.entries


def _path(value: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(value, DictVal) or key not in value.entries:
            return None
        value = value.entries[key][0]
    return value


def _environ_assignments(tree: ast.Module) -> list[tuple[str, ast.expr]]:
    """``os.environ["SAGEMAKER_..._OVERRIDE"] = value`` and ``os.environ.setdefault(k, value)``."""
    out: list[tuple[str, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                key = _environ_key(target)
                if key in OVERRIDES:
                    out.append((key, node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("setdefault", "update")
            and ast.unparse(node.func.value) == "os.environ"
            and len(node.args) == 2
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in OVERRIDES
        ):
            out.append((str(node.args[0].value), node.args[1]))
    return out


def _environ_key(target: ast.expr) -> str | None:
    if (
        isinstance(target, ast.Subscript)
        and ast.unparse(target.value) == "os.environ"
        and isinstance(target.slice, ast.Constant)
        and isinstance(target.slice.value, str)
    ):
        return target.slice.value
    return None


def _override_path(sources: Sources, value: ast.expr) -> str | None:
    text = ast.unparse(value)
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return posixpath.normpath(posixpath.join(sources.script_dir, value.value))
    if text in ("os.getcwd()", "str(Path.cwd())", "Path.cwd()", "os.path.dirname(__file__)",
                "os.path.dirname(os.path.abspath(__file__))", "str(Path(__file__).parent)"):  # fmt: skip
        return sources.script_dir
    return None


def _env_files(sources: Sources) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    here = Path(sources.script_dir)
    for directory in [here, *list(here.parents)[:MAX_PARENT_LEVELS]]:
        env = directory / ".env"
        try:
            text = env.read_text("utf-8") if env.is_file() and env.stat().st_size < 65536 else ""
        except (OSError, UnicodeDecodeError):
            continue
        for line in text.splitlines():
            match = _ENV_LINE.match(line)
            if match:
                raw = match.group(2)
                if not posixpath.isabs(raw):
                    raw = posixpath.normpath(posixpath.join(directory.as_posix(), raw))
                out.append((match.group(1), raw))
    return out


__all__ = ["apply_defaults", "find_defaults"]
