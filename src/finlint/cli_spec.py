"""The ``scan`` command's options as data, for the click-free fast path (``finlint.fastcli``).

Generated from the click command by ``scripts/gen_cli_spec.py``; do not edit by hand
(``tests/test_fastcli.py`` fails while it is stale).

``OPTIONS``: option string -> (parameter, kind, multiple, type); kind is ``value`` (takes a
value), ``flag`` (sets True), ``on``/``off`` (a ``--x/--no-x`` pair). Types: ``("str",)``,
``("choice", choices)``, ``("path", exists, file_okay, dir_okay, readable)``,
``("int"|"float", min, max, min_open, max_open)``, ``("budget",)``.
"""

from __future__ import annotations

from typing import Any

OPTIONS: dict[str, tuple[Any, ...]] = {
    "--baseline": ("baseline", "value", False, ("path", False, True, False, True)),
    "--color": ("color", "on", False, ()),
    "--config": ("config_file", "value", False, ("path", True, True, False, True)),
    "--exclude": ("exclude", "value", True, ("str",)),
    "--exit-zero": ("exit_zero", "flag", False, ()),
    "--fail-on": ("fail_on", "value", False, ("choice", ("info", "low", "medium", "high", "critical"))),
    "--format": (
        "formats",
        "value",
        True,
        ("choice", ("text", "json", "sarif", "github", "markdown", "junit", "html", "gitlab", "auto")),
    ),
    "--helm-values": ("helm_values", "value", True, ("path", True, True, False, True)),
    "--ignore": ("ignore", "value", True, ("str",)),
    "--include-tests": ("include_tests", "flag", False, ()),
    "--jobs": ("jobs", "value", False, ("int", 1, None, False, False)),
    "--max-file-mb": ("max_file_mb", "value", False, ("float", 0, 1000000.0, True, False)),
    "--max-monthly-usd": ("max_monthly_usd", "value", False, ("budget",)),
    "--max-yaml-nodes": ("max_yaml_nodes", "value", False, ("int", 1, None, False, False)),
    "--no-color": ("color", "off", False, ()),
    "--no-context": ("no_context", "flag", False, ()),
    "--output": ("outputs", "value", True, ("path", False, True, False, True)),
    "--policy-dir": ("policy_dir", "value", True, ("path", False, False, True, True)),
    "--pricing": ("pricing", "value", False, ("path", True, True, False, True)),
    "--quiet": ("quiet", "flag", False, ()),
    "--region": ("region", "value", False, ("str",)),
    "--select": ("select", "value", True, ("str",)),
    "--show-undetermined": ("show_undetermined", "flag", False, ()),
    "--usage-file": ("usage_file", "value", False, ("path", False, True, False, True)),
    "--var": ("tf_vars", "value", True, ("str",)),
    "--var-file": ("var_file", "value", True, ("path", True, True, False, True)),
    "--write-baseline": ("write_baseline", "value", False, ("path", False, True, False, True)),
    "-j": ("jobs", "value", False, ("int", 1, None, False, False)),
    "-o": ("outputs", "value", True, ("path", False, True, False, True)),
    "-q": ("quiet", "flag", False, ()),
}

ARGUMENT: tuple[Any, ...] = ("paths", ("path", True, True, True, True))

DEFAULTS: dict[str, Any] = {
    "baseline": None,
    "color": None,
    "config_file": None,
    "exclude": (),
    "exit_zero": False,
    "fail_on": "low",
    "formats": (),
    "helm_values": (),
    "ignore": (),
    "include_tests": False,
    "jobs": None,
    "max_file_mb": None,
    "max_monthly_usd": None,
    "max_yaml_nodes": None,
    "no_context": False,
    "outputs": (),
    "paths": (),
    "policy_dir": (),
    "pricing": None,
    "quiet": False,
    "region": None,
    "select": (),
    "show_undetermined": False,
    "tf_vars": (),
    "usage_file": None,
    "var_file": (),
    "write_baseline": None,
}

HELP_OPTIONS: tuple[str, ...] = ("--help", "-h")
