"""Rules of the notebooks area: one module per rule (see finlint.rules.base)."""
