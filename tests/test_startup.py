"""The command's start-up shortcuts change nothing but the time they take."""

from __future__ import annotations

import re
import subprocess
import sys

from finlint import startup


def test_pyyaml_still_writes_the_pattern_we_replace() -> None:
    probe = "import yaml.reader; print(ascii(yaml.reader.Reader.NON_PRINTABLE.pattern))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == ascii(startup.YAML_NON_PRINTABLE)


def test_the_replacement_matches_exactly_the_same_characters() -> None:
    every = "".join(map(chr, range(sys.maxunicode + 1)))  # surrogates included
    slow = [m.start() for m in re.finditer(startup.YAML_NON_PRINTABLE, every)]
    fast = [m.start() for m in re.finditer(startup.YAML_NON_PRINTABLE_EQUIVALENT, every)]
    assert slow == fast and len(slow) > 2048


def test_seeding_gives_yaml_the_equivalent_pattern() -> None:
    probe = (
        "from finlint import startup\n"
        "assert startup.seed_yaml_reader_pattern()\n"
        "import yaml, yaml.reader\n"
        "print(yaml.reader.Reader.NON_PRINTABLE.pattern == startup.YAML_NON_PRINTABLE_EQUIVALENT)\n"
        "print(yaml.safe_load('a: [1, 2]\\n'))\n"
        "assert not startup.seed_yaml_reader_pattern()  # yaml imported: nothing to do\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["True", "{'a': [1, 2]}"]


def test_collection_is_paused_while_modules_load_and_back_for_the_scan() -> None:
    probe = (
        "import gc\n"
        "from finlint import startup\n"
        "startup.prepare()\n"
        "import finlint.runner\n"
        "print(gc.isenabled())\n"
        "startup.resume_gc()\n"
        "print(gc.isenabled(), gc.get_freeze_count() > 1000)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:2] == ["False", "True True"]


def test_a_library_user_keeps_collection_on() -> None:
    probe = (
        "import gc\nfrom finlint import startup\nstartup.resume_gc()\n"
        "print(gc.isenabled(), gc.get_freeze_count())\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True 0"  # nothing paused, nothing frozen
