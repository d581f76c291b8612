"""Rules of the storage area: one module per rule (see finlint.rules.base)."""
