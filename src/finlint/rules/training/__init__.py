"""Rules of the training area: one module per rule (see finlint.rules.base)."""
