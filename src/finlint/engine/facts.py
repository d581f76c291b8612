"""Derived facts that several rules need, computed once in Python on the IR.

Policies reference them by name (``fact: gpu_hours_per_run``) instead of re-encoding the
logic in each rule. Every fact is tri-state in spirit: a value, ``None`` (does not apply) or
:class:`~finlint.ir.Unknown` (cannot tell statically), and a rule never fires on Unknown.
Facts that explain *why* return :class:`Evidence`, whose text goes into the message and
whose line (when known) is where the finding points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from finlint.domain import catalog
from finlint.domain.branches import OnBranches, branches_where
from finlint.domain.sagemaker import runtime_cap
from finlint.ir import (
    UNCAPPED_LAUNCHERS,
    Alternatives,
    ComputePool,
    Record,
    TrainingJob,
    Unknown,
    is_unknown,
    map_options,
)


@dataclass(frozen=True)
class Evidence:
    """Why a fact holds: a sentence for the message, the line that shows it, what the price needs.

    ``data``: the rule's own frozen evidence type (``PoolTypes`` of the pool rules), exactly what
    its price function reads, or None; ``chain``: the files a link went through (a workload ->
    claim -> StorageClass), which changed-file context (``finlint.context``) reads.
    """

    text: str
    line: int | None = None
    data: object | None = field(default=None, compare=False, hash=False)
    chain: tuple[str, ...] = field(default=(), compare=False, hash=False)

    def __str__(self) -> str:
        return self.text


FactFn = Callable[..., Any]
#: The facts several rules share (the table's other entries are the rule modules' own, given by
#: :mod:`finlint.rules`; the engine imports no rule code).
SHARED_FACTS: dict[str, FactFn] = {}


def fact(fn: FactFn) -> FactFn:
    """A shared fact: several rules (or user policies) name it."""
    SHARED_FACTS[fn.__name__] = fn
    return fn


def exact(fn: FactFn) -> FactFn:
    """A fact that maps an :class:`~finlint.ir.Alternatives` option by option (the others see
    alternatives as a plain Unknown: ``conditions`` demotes what they pass through)."""
    fn.exact_alternatives = True  # type: ignore[attr-defined]
    return fn


# --- training jobs and notebooks -------------------------------------------------------------


@fact
@exact
def instance_family(record: Record) -> Any:
    return map_options(getattr(record, "instance_type", None), _family)


def _family(value: Any) -> Any:
    if value is None or is_unknown(value):
        return value
    return catalog.family_of(str(value))


@fact
@exact
def accelerators_per_instance(record: Record) -> Any:
    return map_options(getattr(record, "instance_type", None), _accelerators)


def _accelerators(value: Any) -> Any:
    if value is None or is_unknown(value):
        return value
    spec = catalog.lookup(str(value))
    return spec.accelerators if spec else Unknown(f"{value} is not in the instance catalog")


@fact
def effective_max_runtime_s(record: Record) -> Any:
    """The runtime cap in force: the explicit one, else the launcher's default."""
    if not isinstance(record, TrainingJob):
        return None
    return runtime_cap(record)[0]


@fact
def gpu_hours_per_run(record: Record) -> Any:
    """Instances x accelerators per instance x max runtime hours (the default when unset)."""
    if not isinstance(record, TrainingJob):
        return None
    count: Any = 1 if record.instance_count is None else record.instance_count
    gpus = accelerators_per_instance(record)
    runtime = effective_max_runtime_s(record)
    if runtime is None and record.launcher in UNCAPPED_LAUNCHERS:
        return Unknown(f"{record.launcher} has no runtime cap: the job runs until it finishes")
    for value in (count, gpus, runtime):
        if value is None or is_unknown(value):
            return value if is_unknown(value) else Unknown("instance type not set")
    return float(count) * float(gpus) * float(runtime) / 3600.0


@fact
def uses_reserved_capacity(record: Record) -> Any:
    """Capacity that is already bought: capacity blocks, targeted reservations, training plans."""
    if isinstance(record, TrainingJob):
        plan = record.training_plan
        return None if plan is None else (plan if is_unknown(plan) else True)
    if isinstance(record, ComputePool):
        if record.capacity_reservation is True:
            return True
        types = record.capacity_types
        if isinstance(types, Unknown):
            return types
        if types is None:
            return False
        return bool(types) and all(t in ("capacity-block", "reserved") for t in types)
    return False


def on_a_branch(
    record: Record, field_name: str, holds: Callable[[Any], bool], phrase: str, domain: tuple[Any, ...] = ()
) -> Any:
    """Evidence that a leak holds where ``field_name`` takes a value ``holds`` accepts, on at
    least one branch of the conditional that sets it (:mod:`finlint.domain.branches`): the one
    rule FIN101 and FIN201 decide by. Its text is "" when every branch leaks, else says on which
    (``phrase``: "spot is on"); None when no branch does; the Unknown when the values are not known."""
    value = getattr(record, field_name, None)
    found = branches_where(value, holds, domain)
    if isinstance(found, Unknown):
        return found
    hits, every = found
    if not hits:
        return None
    line = record.line_of(field_name)
    if every:
        return Evidence("", line)
    if all(
        hit is None for hit in hits
    ):  # unset there: the rule's own place (the call), not another branch's line
        line = record.location.line
    assert isinstance(value, Unknown)  # some values, not all: the setting was not known
    where = "on a branch where" if isinstance(value, Alternatives) else "if"
    text = f" ({where} {phrase}: {value.reason})"
    return Evidence(text, line, data=OnBranches(field_name, hits, value.reason))


# --- compute pools ---------------------------------------------------------------------------


# --- checkpoints on EFS ----------------------------------------------------------------------
