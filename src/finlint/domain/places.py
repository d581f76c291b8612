"""Which of several objects of one name a reference means: the nearest in the repository.

Kubernetes names an object by kind and name, and a repository often holds several (one per
environment or example folder); linking and the loaders that resolve a reference (a claim, a
ConfigMap, a Trainer runtime, the pool a pod lands on) take the one whose file shares the most
leading path parts with the referring file.
"""

from __future__ import annotations


def closeness(a: str, b: str) -> int:
    """How many leading path parts two files share (the same file shares them all)."""
    shared = 0
    for x, y in zip(a.split("/"), b.split("/"), strict=False):
        if x != y:
            break
        shared += 1
    return shared
