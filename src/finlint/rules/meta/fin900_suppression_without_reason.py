"""FIN900 suppression-without-reason: A suppression that does not say why the finding is accepted.

A finding of the scan itself, made by ``finlint.post.suppressions``; no facts, no price."""

from __future__ import annotations

from finlint.rules.base import Rule

RULE = Rule("FIN900", facts=(), cost_model=None, price=None)
