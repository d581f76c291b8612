"""A long fuzz run of every loader: ``python bench/fuzz.py [EXAMPLES]`` (default 5,000 per loader).

The normal suite runs ``tests/loaders/test_fuzz_loaders.py`` with a few dozen examples each; this runs
the same properties with many more, randomised (not derandomised), and prints the time taken.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> int:
    examples = sys.argv[1] if len(sys.argv) > 1 else "5000"
    env = {**os.environ, "FINLINT_FUZZ_EXAMPLES": examples}
    started = time.monotonic()
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/loaders/test_fuzz_loaders.py",
    ]
    code = subprocess.run(cmd, cwd=REPO, env=env, check=False).returncode
    print(f"fuzz: {examples} examples per loader, {time.monotonic() - started:.1f} s, exit {code}")
    return code


if __name__ == "__main__":
    sys.exit(main())
