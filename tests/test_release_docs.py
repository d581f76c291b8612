"""The README's pinned versions match what the release procedure (CONTRIBUTING.md) tags."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import finlint

REPO = Path(__file__).resolve().parents[1]


def test_readme_pins_the_tag_of_the_current_version() -> None:
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert finlint.__version__ == version
    readme = (REPO / "README.md").read_text()
    assert re.findall(r"^\s*rev:\s*(\S+)", readme, re.M) == [f"v{version}"]
    major = version.split(".")[0]
    for doc in (readme, (REPO / "docs" / "github-actions.md").read_text()):
        assert set(re.findall(r"finlint/finlint@(v\d+)\b", doc)) == {f"v{major}"}


def test_release_procedure_describes_both_tags() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text()
    assert "## Releasing" in text
    assert "git tag -a v0.1.0" in text and "git tag -f v0" in text
