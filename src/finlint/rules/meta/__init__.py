"""Rules of the meta area: one module per rule (see finlint.rules.base)."""
