"""bench/fuzz.py runs: a short seeded run of every generator (hostile names, evaluator budgets,
template masking, paths outside the tree) ends with no traceback, hang, invalid report or leak.
The 5,000-case run is ``python bench/fuzz.py --cases 5000`` (figures in the issue note)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(sys.platform == "win32", reason="the fuzzer's workers use fork and RLIMIT_AS")
def test_a_short_fuzz_run_is_clean(tmp_path: Path) -> None:
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import fuzz
    finally:
        sys.path.pop(0)
    names = {g.__name__ for g in fuzz.GENERATORS}
    assert {"gen_cfn_eval", "gen_tf_eval", "gen_sdk_eval", "gen_template"} <= names
    proc = subprocess.run(
        # a hang is no answer in 60 s: a loaded CI machine must not turn a slow case into one
        [
            sys.executable,
            str(REPO / "bench" / "fuzz.py"),
            "--cases",
            "44",
            "--seed",
            "3",
            "--jobs",
            "2",
            "--timeout",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "leak         0" in proc.stdout and "traceback    0" in proc.stdout


def test_the_leak_check_catches_a_read_outside_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """With confinement switched off (as before issue 24), the fuzzer reports the canary."""
    sys.path.insert(0, str(REPO / "bench"))
    try:
        import fuzz
    finally:
        sys.path.pop(0)
    from finlint.confine import Roots

    case = {
        "main.tf": b'resource "aws_sagemaker_notebook_instance" "n" {\n'
        b'  name          = "n"\n'
        b'  role_arn      = "r"\n  instance_type = file("../canary.txt")\n}\n'
    }
    assert fuzz.run_case(case) is None
    monkeypatch.setattr(Roots, "contains", lambda self, path: True)
    found = fuzz.run_case(case)
    assert found is not None and found[0] == "leak", found
