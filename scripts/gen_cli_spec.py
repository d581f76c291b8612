"""Write ``src/finlint/cli_spec.py``: the ``scan`` command's options, read from the click command.

The click-free fast path of ``finlint scan`` (``finlint.fastcli``) parses with this table, so
click stays the one place where options are declared. Run after changing an option of ``scan``:

    python scripts/gen_cli_spec.py

``tests/test_fastcli.py`` fails while the file is stale, and checks the fast parser against
click's own on generated command lines.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from pprint import pformat
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "src" / "finlint" / "cli_spec.py"

HEADER = '''"""The ``scan`` command's options as data, for the click-free fast path (``finlint.fastcli``).

Generated from the click command by ``scripts/gen_cli_spec.py``; do not edit by hand
(``tests/test_fastcli.py`` fails while it is stale).

``OPTIONS``: option string -> (parameter, kind, multiple, type); kind is ``value`` (takes a
value), ``flag`` (sets True), ``on``/``off`` (a ``--x/--no-x`` pair). Types: ``("str",)``,
``("choice", choices)``, ``("path", exists, file_okay, dir_okay, readable)``,
``("int"|"float", min, max, min_open, max_open)``, ``("budget",)``.
"""

from __future__ import annotations

from typing import Any

'''


def type_spec(ptype: Any) -> tuple[Any, ...]:
    import click

    from finlint.cli_support import Budget

    if isinstance(ptype, Budget):
        return ("budget",)
    if isinstance(ptype, click.Choice):
        if not ptype.case_sensitive:
            raise SystemExit("case-insensitive choices are not supported by the fast path")
        return ("choice", tuple(str(c) for c in ptype.choices))
    if isinstance(ptype, click.Path):
        if ptype.allow_dash or ptype.resolve_path or ptype.writable or ptype.executable:
            raise SystemExit(f"click.Path settings the fast path does not model: {ptype!r}")
        return ("path", bool(ptype.exists), bool(ptype.file_okay), bool(ptype.dir_okay), bool(ptype.readable))
    if isinstance(ptype, (click.IntRange, click.FloatRange)):
        if ptype.clamp:
            raise SystemExit("clamped ranges are not supported by the fast path")
        kind = "int" if isinstance(ptype, click.IntRange) else "float"
        return (kind, ptype.min, ptype.max, bool(ptype.min_open), bool(ptype.max_open))
    if ptype is click.STRING or isinstance(ptype, click.types.StringParamType):
        return ("str",)
    raise SystemExit(f"a parameter type the fast path does not model: {ptype!r}; extend finlint.fastcli")


def compute() -> tuple[dict[str, tuple[Any, ...]], tuple[Any, ...], dict[str, Any], tuple[str, ...]]:
    """(OPTIONS, ARGUMENT, DEFAULTS, HELP_OPTIONS) of the click ``scan`` command."""
    import click

    from finlint.cli import main

    command = main.commands["scan"]
    options: dict[str, tuple[Any, ...]] = {}
    argument: tuple[Any, ...] | None = None
    for param in command.params:
        if isinstance(param, click.Argument):
            if argument is not None or param.nargs != -1:
                raise SystemExit("the fast path models one variadic argument")
            argument = (param.name, type_spec(param.type))
            continue
        assert isinstance(param, click.Option)
        if param.envvar or param.prompt or param.is_eager or param.callback or param.nargs != 1:
            raise SystemExit(f"option {param.name} uses a click feature the fast path does not model")
        if param.is_flag and param.secondary_opts:
            for opt in param.opts:
                options[opt] = (param.name, "on", False, ())
            for opt in param.secondary_opts:
                options[opt] = (param.name, "off", False, ())
        elif param.is_flag:
            for opt in param.opts:
                options[opt] = (param.name, "flag", False, ())
        else:
            for opt in param.opts:
                options[opt] = (param.name, "value", bool(param.multiple), type_spec(param.type))
    parent = main.make_context("finlint", ["scan"], resilient_parsing=True)
    ctx = command.make_context("scan", [], parent=parent, resilient_parsing=True)
    defaults = {name: value for name, value in ctx.params.items()}
    help_opts = tuple(sorted(command.get_help_option_names(ctx)))
    assert argument is not None
    return options, argument, defaults, help_opts


def render() -> str:
    options, argument, defaults, help_opts = compute()
    body = HEADER
    body += f"OPTIONS: dict[str, tuple[Any, ...]] = {pformat(options, width=100, sort_dicts=True)}\n\n"
    body += f"ARGUMENT: tuple[Any, ...] = {argument!r}\n\n"
    body += f"DEFAULTS: dict[str, Any] = {pformat(defaults, width=100, sort_dicts=True)}\n\n"
    body += f"HELP_OPTIONS: tuple[str, ...] = {help_opts!r}\n"
    return body


def main() -> int:
    text = render()
    TARGET.write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(TARGET)], check=False)
    print(f"wrote {TARGET.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
