"""Variable values in Terraform's precedence: tfvars, auto.tfvars, --var-file, --var."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from finlint import ir
from finlint.ir import Unknown
from finlint.loaders.common.yamlload import YamlLoadError, load_all
from finlint.loaders.terraform import hcl as h
from finlint.loaders.terraform.eval import Evaluator
from finlint.loaders.terraform.files import Run, read_file


def root_tfvars(run: Run, directory: Path) -> dict[str, Any]:
    """Variable values in Terraform's precedence (lowest first): ``TF_VAR_name`` environment
    variables, terraform.tfvars(.json), *.auto.tfvars(.json), --var-file, --var."""
    paths: list[Path] = []
    for name in ("terraform.tfvars", "terraform.tfvars.json"):
        if (directory / name).is_file():
            paths.append(directory / name)
    paths += sorted(p for p in directory.glob("*.auto.tfvars") if p.is_file())
    paths += sorted(p for p in directory.glob("*.auto.tfvars.json") if p.is_file())
    # the configuration's own tfvars are the repository's: a symlink out of the roots is not
    # read; --var-file paths are the user's (the command line is trusted) and always read
    paths = [p for p in paths if run.confined(p)]
    paths += [Path(p) for p in run.options.get("tf_var_files") or []]
    values: dict[str, Any] = env_vars(run.options.get("environ"))
    for path in paths:
        values.update(tfvars_file(run, path))
    for key, raw in (run.options.get("tf_vars") or {}).items():
        values[key] = cli_var(str(raw))
    return values


class ConstScope:
    """tfvars files allow no references: everything but literals is unknown."""

    def variable(self, name: str) -> Any:
        return Unknown("tfvars cannot refer to variables")

    def local(self, name: str) -> Any:
        return Unknown("tfvars cannot refer to locals")

    def resource_attr(self, rtype: str, name: str, attr: str) -> Any:
        return Unknown("tfvars cannot refer to resources")

    def path(self, which: str) -> Any:
        return Unknown("path in tfvars")

    def read_file(self, path: str, file: str | None = None, line: int = 1) -> str | None:
        return None

    def notice(self, file: str, line: int, message: str) -> None:
        return None  # literals only: nothing can grow past the budget


def tfvars_file(run: Run, path: Path) -> dict[str, Any]:
    text = read_file(run, path)
    if text is None:
        return {}
    shown = run.display(path)
    if path.name.endswith(".json"):
        try:
            docs = load_all(text, is_json=True)
        except YamlLoadError as exc:
            run.result.errors.append(ir.LoadError(shown, exc.line, exc.message))
            return {}
        return dict(docs[0]) if docs and isinstance(docs[0], dict) else {}
    try:
        body = h.parse_text(text)
    except h.HclError as exc:
        run.result.errors.append(ir.LoadError(shown, exc.line, exc.message))
        return {}
    ev = Evaluator(ConstScope())
    return {name: ev.value(attr.expr) for name, attr in body.attrs.items()}


def env_vars(environ: Any = None) -> dict[str, Any]:
    """``TF_VAR_name`` variables of the scan's environment (``options["environ"]`` in tests),
    parsed as Terraform parses them: HCL for lists/maps/numbers/bools, else the raw string."""
    source = os.environ if environ is None else environ
    return {
        key[len("TF_VAR_") :]: cli_var(str(value))
        for key, value in sorted(source.items())
        if key.startswith("TF_VAR_") and len(key) > len("TF_VAR_")
    }


def cli_var(raw: str) -> Any:
    """``--var k=v``: an HCL literal when it parses as a number/bool/list/map, else the string."""
    text = raw.strip()
    if text[:1] in "[{" or text in ("true", "false", "null") or re.fullmatch(r"-?\d+(\.\d+)?", text):
        expr = h.parse_expression(text, 1)
        if not isinstance(expr, h.Opaque):
            return Evaluator(ConstScope()).value(expr)
    return raw
