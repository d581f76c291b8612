"""Rules of the compute area: one module per rule (see finlint.rules.base)."""
