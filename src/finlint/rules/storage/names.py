"""Storage records named for checkpoints (FIN402, FIN403, FIN404)."""

from __future__ import annotations

import re
from typing import Any

from finlint.ir import FileSystem
from finlint.untrusted import bounded


def first_match(rx: re.Pattern[str], candidates: list[tuple[str, Any]]) -> tuple[str, str] | None:
    for field_name, value in candidates:
        if isinstance(value, str) and rx.search(bounded(value)):
            return field_name, value
    return None


def named(record: FileSystem, rx: re.Pattern[str]) -> tuple[str, str] | None:
    candidates: list[tuple[str, Any]] = [("name", record.name), ("creation_token", record.creation_token)]
    candidates += [("tags", v) for v in record.tags.values()]
    candidates.append(("address", record.address.rsplit(".", 1)[-1].rsplit("/", 1)[-1]))
    return first_match(rx, candidates)
