"""FIN000 parse-error: A file of a supported format could not be read or parsed.

A finding of the scan itself, made by ``finlint.scan.parse_error_findings`` (the loaders'
``LoadError``s); no facts, no price."""

from __future__ import annotations

from finlint.rules.base import Rule

RULE = Rule("FIN000", facts=(), cost_model=None, price=None)
