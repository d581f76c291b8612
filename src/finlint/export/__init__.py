"""Exports of finlint's rules into other tools' policy languages (``finlint export ...``).

An export is generated files, never an import: the other tool runs in its own environment
(checkov's ``bc-python-hcl2`` and finlint's ``python-hcl2`` install the same ``hcl2`` package).
"""
