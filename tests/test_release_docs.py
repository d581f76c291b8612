"""The README's pinned versions match what the release procedure (CONTRIBUTING.md) tags."""

from __future__ import annotations

import re
from pathlib import Path

import finlint

REPO = Path(__file__).resolve().parents[1]


def test_readme_pins_the_tag_of_the_current_version() -> None:
    version = finlint.__version__  # defined once (pyproject.toml reads it)
    readme = (REPO / "README.md").read_text()
    assert re.findall(r"^\s*rev:\s*(\S+)", readme, re.M) == [f"v{version}"]
    major = version.split(".")[0]
    for doc in (readme, (REPO / "docs" / "github-actions.md").read_text()):
        assert set(re.findall(r"finlint/finlint@(v\d+)\b", doc)) == {f"v{major}"}


def test_release_procedure_describes_both_tags() -> None:
    text = (REPO / "CONTRIBUTING.md").read_text()
    assert "## Releasing" in text
    assert "git tag -a v0.1.0" in text and "git tag -f v0" in text
