"""The policy engine: YAML policies over IR records, one policy for every input format.

``policy`` loads and validates rule files, ``conditions`` evaluates a condition three-valued
over one record, ``facts`` holds the derived facts rules share, ``run`` runs the pack and
builds findings. See ``conditions`` for the condition language.
"""

from finlint.engine.policy import (
    Example,
    Policy,
    PolicyError,
    builtin_policy_dir,
    load_policies,
    load_policy,
)
from finlint.engine.run import EngineConfig, Undetermined, run_policies

__all__ = [
    "EngineConfig",
    "Example",
    "Policy",
    "PolicyError",
    "Undetermined",
    "builtin_policy_dir",
    "load_policies",
    "load_policy",
    "run_policies",
]
