"""Running the policy pack over the IR: which rules run, with which params, and what they find.

Each policy is evaluated on every record of the kinds it applies to; a known-true condition
is a :class:`~finlint.finding.Finding` (pointing at the attribute that causes it, carrying the
facts' evidence for the cost stage), an unknown one an :class:`Undetermined` entry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from finlint import selector
from finlint.engine.conditions import Env, compile_condition, evaluate, render_message
from finlint.engine.facts import Evidence
from finlint.engine.origins import sourced_location
from finlint.engine.policy import Policy
from finlint.finding import Finding
from finlint.ir import Record, Unknown


def _location(policy: Policy, env: Env) -> tuple[int, int]:
    record = env.record
    for name in policy.at:
        if name in policy.let:
            value = env.ref(name)
            if isinstance(value, Evidence) and value.line:
                return value.line, value.line
            continue
        line = record.line_of(name)
        if line:
            return line, line
    return record.location.line, record.location.end_line


def _undetermined_line(policy: Policy, env: Env) -> int:
    """Where an undetermined check points: the line of the first attribute whose value was
    unknown (the ``!Ref``, ``var.x`` or ``{{ .Values.x }}`` a person would make static), else
    the attribute the rule points at, else the resource."""
    record = env.record
    unknown_fields: dict[str, str] | None = None  # reason -> the first field holding that Unknown
    for ref, reason in zip(env.unknown_refs, env.unknown_reasons, strict=True):
        if ref in policy.let or ref.startswith("fact."):
            # a fact's Unknown usually passes on a field's (same reason): point at that field
            if unknown_fields is None:
                unknown_fields = {}
                for attr, value in record.attributes().items():
                    if isinstance(value, Unknown):
                        unknown_fields.setdefault(value.reason, attr)
            name = unknown_fields.get(reason)
        else:
            name = ref.split(".", 1)[0]
        line = record.line_of(name) if name else None
        if line:
            return line
    return _location(policy, env)[0]


def _alternatives_note(env: Env) -> str:
    """What a verdict decided on alternatives says: the rule holds for every one of them."""
    parts = [f"{ref.removeprefix('fact.')} is {v.shown()} ({v.reason})" for ref, v in env.decided.items()]
    return f" [for each possible value: {'; '.join(parts)}]" if parts else ""


def _evidence(env: Env) -> tuple[tuple[object, ...], tuple[str, ...]]:
    """The typed data behind every Evidence the policy's lets established (for its price) and
    the files their links went through (for changed-file context)."""
    data: list[object] = []
    chain: list[str] = []
    for value in env.lets.values():
        if isinstance(value, Evidence):
            if value.data is not None:
                data.append(value.data)
            chain.extend(value.chain)
    return tuple(data), tuple(dict.fromkeys(chain))


@dataclass
class EngineConfig:
    """Which policies run and how: select/ignore by id or slug, per-policy params and severity."""

    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)

    def enabled(self, policy: Policy) -> bool:
        return selector.enabled(policy, self.select, self.ignore)

    def params_for(self, policy: Policy) -> dict[str, Any]:
        merged = dict(policy.params)
        for key, values in self.params.items():
            if selector.rule_for(key, [policy]) is not None:
                merged.update(values)
        return merged

    def severity_for(self, policy: Policy) -> str:
        for key, value in self.severity.items():
            if selector.rule_for(key, [policy]) is not None:
                return value
        return policy.severity

    def severity_overridden(self, policy: Policy) -> bool:
        """A configured severity is fixed: it replaces the default and every ``severity_when`` case."""
        return any(selector.rule_for(key, [policy]) is not None for key in self.severity)


def _case_severity(policy: Policy, kind: str, env: Env, default: str) -> str:
    """The first ``severity_when`` case known true for this record, else the default.

    A case that is unknown (it touches an Unknown value) does not match: the default stays.
    """
    for case in policy.severity_when:
        cond = case.condition_for(kind, policy.applies_to)
        if cond is not None and evaluate(cond, env) is True:
            return case.severity
    return default


@dataclass(frozen=True)
class Undetermined:
    """A policy that could not decide on a record because a value is not known statically.

    Never a finding (a rule never fires on an unknown); reported so a user can see what finlint
    could not check and why (``--show-undetermined``, JSON ``undetermined``).
    """

    rule_id: str
    rule: str
    file: str
    line: int
    resource: str
    reasons: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "rule": self.rule,
            "file": self.file,
            "line": self.line,
            "resource": self.resource,
            "reasons": list(self.reasons),
        }


#: ``(policy index, index in its applies_to, record index)``: sorting results by it gives
#: exactly the order a single pass over all records produces.
Tag = tuple[int, int, int]
Tagged = tuple[Tag, "Finding | Undetermined"]


def run_policies(
    policies: list[Policy],
    records: list[Record],
    config: EngineConfig,
    undetermined: list[Undetermined] | None = None,
) -> list[Finding]:
    tagged = evaluate_records(policies, records, config, range(len(records)), undetermined is not None)
    return collect(tagged, undetermined)


def collect(tagged: list[Tagged], undetermined: list[Undetermined] | None) -> list[Finding]:
    """The findings of ``tagged`` in order; its undetermined entries go to ``undetermined``."""
    findings: list[Finding] = []
    for _, item in tagged:
        if isinstance(item, Finding):
            findings.append(item)
        elif undetermined is not None:
            undetermined.append(item)
    return findings


def evaluate_records(
    policies: list[Policy],
    records: list[Record],
    config: EngineConfig,
    indices: Sequence[int],
    want_undetermined: bool,
) -> list[Tagged]:
    """Every enabled policy over ``records[i]`` for ``i`` in ``indices``, each result tagged
    (see :data:`Tag`) so that parts evaluated apart (``--jobs``) merge into the serial order."""
    by_kind: dict[str, list[tuple[int, Record]]] = {}
    for index in indices:
        record = records[index]
        by_kind.setdefault(record.KIND, []).append((index, record))
    out: list[Tagged] = []
    for p_index, policy in enumerate(policies):
        if not policy.applies_to or not config.enabled(policy):
            continue
        params = config.params_for(policy)
        severity = config.severity_for(policy)
        fixed = config.severity_overridden(policy)
        for k_index, kind in enumerate(policy.applies_to):
            test = compile_condition(policy.condition_for(kind))
            for index, record in by_kind.get(kind, ()):
                env = Env(policy, record, params)
                verdict = test(env)
                if verdict is None and want_undetermined:
                    reasons = tuple(dict.fromkeys(env.unknowns))
                    line = _undetermined_line(policy, env)
                    entry = Undetermined(
                        policy.id, policy.name, record.location.file, line, record.address, reasons
                    )
                    out.append(((p_index, k_index, index), entry))
                if verdict is not True:
                    continue
                line, end_line = _location(policy, env)
                file, line, end_line, note = sourced_location(policy, record, line, end_line)
                evidence, chain = _evidence(env)
                finding = Finding(
                    rule_id=policy.id,
                    rule=policy.name,
                    severity=severity if fixed else _case_severity(policy, kind, env, severity),
                    file=file,
                    line=line,
                    end_line=max(end_line, line),
                    resource=record.address,
                    message=render_message(policy.message_for(kind), env) + note + _alternatives_note(env),
                    record=record,
                    cost_model=policy.cost_model,
                    params=dict(params),
                    evidence=evidence,
                    chain_files=chain,
                )
                out.append(((p_index, k_index, index), finding))
    return out
