"""A one-file scan (the pre-commit case) imports only what that file needs.

Import time is most of a one-file run, so each module below that slips back onto the path is a
measurable regression (``python bench/compare.py`` prints the figures). The scan runs in a fresh
interpreter so the test sees exactly what a cold process imports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_PROBE = """
import json, sys
from finlint.cli import main
try:
    main(args=sys.argv[1:], prog_name="finlint")
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def _modules_after(args: list[str], cwd: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    last = proc.stderr.strip().splitlines()[-1]
    modules: list[str] = json.loads(last)
    return set(modules)


def test_one_cloudformation_file_imports_one_loader_and_one_cost_model(tmp_path: Path) -> None:
    template = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"
    modules = _modules_after(["scan", "--format", "json", str(template)], tmp_path)
    assert "finlint.loaders.cloudformation.loader" in modules  # the sanity check: it did scan
    assert "finlint.cost.spot" in modules  # the model of the finding it prices
    # every rule module: the registry checks each policy against its module (~10 ms)
    assert "finlint.rules.storage.fin401_checkpoints_on_efs" in modules
    never = {
        "finlint.loaders.terraform.mapping",  # plan claims() is tried on every document
        "finlint.loaders.terraform.loader",
        "finlint.loaders.kubernetes.loader",
        "finlint.loaders.sagemaker_sdk.loader",
        "finlint.linking.env",  # only with ConfigMaps
        "finlint.post.suppressions",  # no 'finlint:' comment, no ignore metadata
        "finlint.post.baseline",
        "finlint.cost.breakdown",  # `finlint cost` only
        "difflib",  # did-you-mean hints only on errors
        "multiprocessing",  # --jobs only pays off from a few hundred files
        "mmap",
        "hcl2",
        "lark",
        "tomllib",
        "finlint.review.hosts",  # `finlint suggest` only: urllib.request, http.client, email, ssl
        "http.client",
    }
    assert modules & never == set()


def test_a_suppression_comment_still_loads_suppressions(tmp_path: Path) -> None:
    """The shortcut above must not lose suppressions: a file with one gets them applied."""
    template = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"
    text = template.read_text(encoding="utf-8")
    (tmp_path / "t.yaml").write_text("# finlint: ignore-file[FIN201] accepted for this test\n" + text)
    out = tmp_path / "report.json"
    modules = _modules_after(["scan", "--format", "json", "--output", str(out), "t.yaml"], tmp_path)
    assert "finlint.post.suppressions" in modules
    report = json.loads(out.read_text(encoding="utf-8"))
    fin201 = [f for f in report["findings"] if f["rule_id"] == "FIN201"]
    assert fin201 and all(f.get("suppressed") for f in fin201)


def test_every_dataclass_says_what_it_is() -> None:
    """A dataclass without a docstring gets its signature as one, which tells a reader nothing:
    each of ours says what it is."""
    import dataclasses
    import importlib
    import pkgutil

    import finlint

    missing = []
    for info in pkgutil.walk_packages(finlint.__path__, "finlint."):
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra (the Helm SDK) that is not installed
            continue
        for name, value in vars(module).items():
            ours = (
                isinstance(value, type) and dataclasses.is_dataclass(value) and value.__module__ == info.name
            )
            if ours and (value.__doc__ or "").startswith(f"{name}("):
                missing.append(f"{info.name}.{name}")
    assert missing == []


def test_a_scan_parses_no_policy_example(tmp_path: Path) -> None:
    """The built-in pack's examples (~85 % of its YAML) are parsed only when asked for."""
    probe = """
import sys
from finlint.cli import main
from finlint.engine import policy
parsed = []
real = policy._load_example
policy._load_example = lambda *a: parsed.append(a) or real(*a)
try:
    main(args=sys.argv[1:], prog_name="finlint")
except SystemExit:
    pass
print(len(parsed), file=sys.stderr)
"""
    template = REPO / "fixtures" / "cloudformation" / "bad" / "sfn-spot-no-checkpoint.yaml"
    proc = subprocess.run(
        [sys.executable, "-c", probe, "scan", "--format", "text", str(template)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.stderr.strip().splitlines()[-1] == "0", proc.stderr
