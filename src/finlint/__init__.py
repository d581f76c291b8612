"""finlint: a FinOps linter for AI-training infrastructure on AWS."""

__version__ = "0.1.0"
