"""FIN901 unused-suppression: A suppression that suppresses nothing.

A finding of the scan itself, made by ``finlint.post.suppressions``; no facts, no price."""

from __future__ import annotations

from finlint.rules.base import Rule

RULE = Rule("FIN901", facts=(), cost_model=None, price=None)
