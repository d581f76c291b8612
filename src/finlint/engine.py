"""The policy engine: YAML policies over IR records, one policy for every input format.

A policy (one file in ``policies/``) names the IR kinds it applies to, optional ``let``
bindings to derived facts (:mod:`finlint.facts`), and a declarative ``condition``:

    all / any / not                         combine conditions
    exists: REF     missing: REF            present / absent in the source
    is_true: REF                            the value is exactly true
    equals / not_equals: [REF, VALUE]       VALUE may be a literal or $param
    in / not_in: [REF, LIST]
    matches: [REF, REGEX]                   re.search on a string value
    lt / lte / gt / gte: [REF, NUMBER]

REF is an IR field (``max_runtime_s``), a ``let`` name, or ``fact.NAME`` for a fact without
arguments. Evaluation is three-valued: any predicate over an Unknown value is unknown, and a
policy fires only when its condition is *known* to be true.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable

from finlint import selector
from finlint.errors import LocatedError
from finlint.facts import FACTS, Evidence
from finlint.finding import SEVERITIES, Finding
from finlint.ir import RECORD_TYPES, Record, Unknown, is_unknown
from finlint.yamlload import LineDict, YamlLoadError, load_all

POLICY_KEYS = {
    "id",
    "name",
    "summary",
    "severity",
    "applies_to",
    "params",
    "let",
    "condition",
    "at",
    "message",
    "cost_model",
    "docs",
    "examples",
    "tags",
}
DOCS_KEYS = {"what", "why", "known_false_positives", "remediation", "references"}
EXAMPLE_KEYS = {"name", "kind", "format", "filename", "code", "lines", "params", "description"}
COMBINATORS = {"all", "any", "not"}
UNARY = {"exists", "missing", "is_true"}
BINARY = {"equals", "not_equals", "in", "not_in", "matches", "lt", "lte", "gt", "gte"}
ID_RE = re.compile(r"^[A-Z]{2,5}\d{3}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class PolicyError(LocatedError):
    """A policy file that is not valid: reported as a usage/config error (exit 2)."""


@dataclass(frozen=True)
class Example:
    name: str
    kind: str  # fail | pass
    format: str
    code: str
    filename: str | None
    lines: tuple[int, ...]
    params: dict[str, Any]
    line: int  # where the example starts in the policy file


@dataclass(frozen=True)
class Policy:
    id: str
    name: str
    summary: str
    severity: str
    applies_to: tuple[str, ...]
    params: dict[str, Any]
    let: dict[str, Any]
    condition: Any  # a condition, or {kind: condition}
    at: tuple[str, ...]
    message: str | dict[str, str]  # one template, or one per IR kind
    cost_model: str | None
    docs: dict[str, Any]
    examples: tuple[Example, ...]
    tags: tuple[str, ...]
    path: str
    builtin: bool = True

    def condition_for(self, kind: str) -> Any:
        cond = self.condition
        if isinstance(cond, dict) and set(cond) <= set(self.applies_to) and cond:
            return cond.get(kind)
        return cond

    def message_for(self, kind: str) -> str:
        if isinstance(self.message, dict):
            return self.message[kind]
        return self.message


def builtin_policy_dir() -> Path:
    """The shipped pack: ``finlint/policies`` in an installed wheel, ``policies/`` in a checkout."""
    here = Path(__file__).resolve().parent
    installed = here / "policies"
    return installed if installed.is_dir() else here.parents[1] / "policies"


# --- loading and validation ------------------------------------------------------------------


def load_policies(extra_dirs: Iterable[Path] = ()) -> list[Policy]:
    policies: list[Policy] = []
    dirs = [(builtin_policy_dir(), True), *((Path(d), False) for d in extra_dirs)]
    for directory, builtin in dirs:
        if not directory.is_dir():
            raise PolicyError(str(directory), 1, "policy directory does not exist")
        for path in sorted(directory.rglob("*.y*ml")):
            policies.append(load_policy(path, builtin))
    seen: dict[str, str] = {}
    for p in policies:
        for key in (p.id, p.name):
            if key in seen:
                raise PolicyError(p.path, 1, f"duplicate policy id or name {key!r} (also in {seen[key]})")
            seen[key] = p.path
    return sorted(policies, key=lambda p: p.id)


def load_policy(path: Path, builtin: bool = True) -> Policy:
    file = str(path)
    try:
        docs = load_all(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(file, 1, f"cannot read policy: {exc}") from exc
    except YamlLoadError as exc:
        raise PolicyError(file, exc.line, exc.message) from exc
    if len(docs) != 1 or not isinstance(docs[0], LineDict):
        raise PolicyError(file, 1, "a policy file holds exactly one mapping")
    doc: LineDict = docs[0]

    def fail(key: str, message: str) -> PolicyError:
        return PolicyError(file, doc.line_of(key, 1), message)

    unknown = set(doc) - POLICY_KEYS
    if unknown:
        raise fail(sorted(unknown)[0], f"unknown policy key(s): {', '.join(sorted(unknown))}")
    for key in ("id", "name", "severity", "applies_to", "message", "docs"):
        if key not in doc:
            raise PolicyError(file, 1, f"policy is missing required key {key!r}")
    if not ID_RE.match(str(doc["id"])):
        raise fail("id", f"policy id {doc['id']!r} must look like FIN101")
    if not NAME_RE.match(str(doc["name"])):
        raise fail("name", f"policy name {doc['name']!r} must be kebab-case")
    if doc["severity"] not in SEVERITIES:
        raise fail("severity", f"severity must be one of {', '.join(SEVERITIES)}")
    applies = tuple(doc["applies_to"] or ())
    for kind in applies:
        if kind not in RECORD_TYPES:
            raise fail("applies_to", f"unknown IR kind {kind!r} (known: {', '.join(RECORD_TYPES)})")
    params = dict(doc.get("params") or {})
    lets = dict(doc.get("let") or {})
    for name, spec in lets.items():
        if not (isinstance(spec, dict) and spec.get("fact") in FACTS):
            raise fail("let", f"let {name!r} must be {{fact: NAME, args: [...]}} with a known fact")
    docs_block = doc["docs"]
    if not isinstance(docs_block, dict) or set(docs_block) - DOCS_KEYS:
        raise fail("docs", f"docs must be a mapping with keys from {sorted(DOCS_KEYS)}")
    condition = doc.get("condition")
    if applies:
        if condition is None:
            raise fail("condition", "a policy that applies to IR kinds needs a condition")
        per_kind = isinstance(condition, dict) and condition and set(condition) <= set(applies)
        for kind in applies:
            cond = condition.get(kind) if per_kind else condition
            if cond is None:
                raise fail("condition", f"no condition for kind {kind!r}")
            _validate_condition(cond, kind, lets, params, lambda m: fail("condition", m))
    message = doc["message"]
    if isinstance(message, dict):
        missing_kinds = set(applies) - set(message)
        if missing_kinds or set(message) - set(applies):
            raise fail("message", f"per-kind messages must cover exactly {sorted(applies)}")
        message = {str(k): str(v) for k, v in message.items()}
    else:
        message = str(message)
    examples = tuple(_load_example(file, e, i) for i, e in enumerate(doc.get("examples") or ()))
    at_raw = doc.get("at") or []
    at: list[str] = [str(a) for a in (at_raw if isinstance(at_raw, list) else [at_raw])]
    return Policy(
        id=str(doc["id"]),
        name=str(doc["name"]),
        summary=str(doc.get("summary") or doc["name"]),
        severity=str(doc["severity"]),
        applies_to=applies,
        params=params,
        let=lets,
        condition=condition,
        at=tuple(at),
        message=message,
        cost_model=doc.get("cost_model"),
        docs=dict(docs_block),
        examples=examples,
        tags=tuple(doc.get("tags") or ()),
        path=file,
        builtin=builtin,
    )


def _load_example(file: str, raw: Any, index: int) -> Example:
    line = getattr(raw, "line", 1)
    if not isinstance(raw, dict) or set(raw) - EXAMPLE_KEYS:
        raise PolicyError(file, line, f"example {index}: keys must come from {sorted(EXAMPLE_KEYS)}")
    if raw.get("kind") not in ("fail", "pass") or not raw.get("code") or not raw.get("format"):
        raise PolicyError(file, line, f"example {index}: needs kind (fail|pass), format and code")
    lines = tuple(int(n) for n in (raw.get("lines") or ()))
    if raw["kind"] == "fail" and not lines:
        raise PolicyError(file, line, f"example {index}: a fail example names the line(s) it fires on")
    return Example(
        name=str(raw.get("name") or f"example{index}"),
        kind=str(raw["kind"]),
        format=str(raw["format"]),
        code=str(raw["code"]),
        filename=raw.get("filename"),
        lines=lines,
        params=dict(raw.get("params") or {}),
        line=line,
    )


def _field_names(kind: str) -> set[str]:
    return {f.name for f in fields(RECORD_TYPES[kind])}


def _validate_ref(ref: Any, kind: str, lets: dict[str, Any], fail: Any) -> None:
    if not isinstance(ref, str):
        raise fail(f"a reference must be a string, got {ref!r}")
    if ref in lets:
        return
    if ref.startswith("fact."):
        if ref[5:] not in FACTS:
            raise fail(f"unknown fact {ref[5:]!r}")
        return
    if ref.split(".", 1)[0] not in _field_names(kind):
        raise fail(f"{kind} has no field {ref!r}")


def _validate_condition(
    cond: Any, kind: str, lets: dict[str, Any], params: dict[str, Any], fail: Any
) -> None:
    if not isinstance(cond, dict) or len(cond) != 1:
        raise fail(f"a condition is a mapping with one operator, got {cond!r}")
    ((op, arg),) = cond.items()
    if op in ("all", "any"):
        if not isinstance(arg, list) or not arg:
            raise fail(f"{op} takes a non-empty list")
        for sub in arg:
            _validate_condition(sub, kind, lets, params, fail)
    elif op == "not":
        _validate_condition(arg, kind, lets, params, fail)
    elif op in UNARY:
        _validate_ref(arg, kind, lets, fail)
    elif op in BINARY:
        if not isinstance(arg, list) or len(arg) != 2:
            raise fail(f"{op} takes [REF, VALUE]")
        _validate_ref(arg[0], kind, lets, fail)
        value = arg[1]
        if isinstance(value, str) and value.startswith("$") and value[1:] not in params:
            raise fail(f"unknown param {value!r}")
    else:
        raise fail(f"unknown operator {op!r}")


# --- evaluation ------------------------------------------------------------------------------


class _Env:
    """What a condition sees for one record: fields, params and (lazily computed) lets."""

    def __init__(self, policy: Policy, record: Record, params: dict[str, Any]) -> None:
        self.policy = policy
        self.record = record
        self.params = params
        self.lets: dict[str, Any] = {}
        self.unknowns: list[str] = []  # "ref: reason" for every Unknown a predicate met

    def param(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("$"):
            return self.params[value[1:]]
        if isinstance(value, list):
            return [self.param(v) for v in value]
        return value

    def ref(self, ref: str) -> Any:
        if ref in self.policy.let:
            if ref not in self.lets:
                spec = self.policy.let[ref]
                args = [self.param(a) for a in spec.get("args") or ()]
                self.lets[ref] = FACTS[spec["fact"]](self.record, *args)
            return self.lets[ref]
        if ref.startswith("fact."):
            return FACTS[ref[5:]](self.record)
        value: Any = self.record
        for part in ref.split("."):
            if value is None or is_unknown(value):
                return value
            value = value.get(part) if isinstance(value, dict) else getattr(value, part, None)
        return value


def evaluate(cond: dict[str, Any], env: _Env) -> bool | None:
    """Three-valued: True, False, or None when it depends on an unknown value."""
    ((op, arg),) = cond.items()
    if op == "all":
        results = [evaluate(c, env) for c in arg]
        if False in results:
            return False
        return None if None in results else True
    if op == "any":
        results = [evaluate(c, env) for c in arg]
        if True in results:
            return True
        return None if None in results else False
    if op == "not":
        inner = evaluate(arg, env)
        return None if inner is None else not inner
    if op in UNARY:
        value = env.ref(arg)
        if isinstance(value, Unknown):
            env.unknowns.append(f"{arg}: {value.reason}")
            return None
        if op == "exists":
            return value is not None and value is not False
        if op == "missing":
            return value is None
        return value is True
    value = env.ref(arg[0])
    target = env.param(arg[1])
    if isinstance(value, Unknown):
        env.unknowns.append(f"{arg[0]}: {value.reason}")
        return None
    if value is None:
        return op in ("not_equals", "not_in")
    if op == "equals":
        return bool(value == target)
    if op == "not_equals":
        return bool(value != target)
    if op in ("in", "not_in"):
        hit = value in (target or [])
        return hit if op == "in" else not hit
    if op == "matches":
        return isinstance(value, str) and re.search(str(target), value) is not None
    try:
        a, b = float(value), float(target)
    except (TypeError, ValueError):
        return None
    return {"lt": a < b, "lte": a <= b, "gt": a > b, "gte": a >= b}[op]


_PLACEHOLDER = re.compile(r"\{([A-Za-z_][\w.]*)(?::([^{}]*))?\}")


def render_message(template: str, env: _Env) -> str:
    def sub(match: re.Match[str]) -> str:
        name, spec = match.group(1), match.group(2)
        value = env.params[name] if name in env.params else env.ref(name)
        if isinstance(value, Unknown):
            return "unknown"
        if value is None:
            return "unset"
        if isinstance(value, (list, tuple)):
            value = ", ".join(str(v) for v in value)
        try:
            return format(value, spec) if spec else str(value)
        except (TypeError, ValueError):
            return str(value)

    return _PLACEHOLDER.sub(sub, template)


def _location(policy: Policy, env: _Env) -> tuple[int, int]:
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


def _evidence(env: _Env) -> dict[str, Any]:
    """The data behind every Evidence the policy's lets established, for the cost stage."""
    out: dict[str, Any] = {}
    for value in env.lets.values():
        if isinstance(value, Evidence):
            out.update(value.data)
    return out


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


def run_policies(
    policies: list[Policy],
    records: list[Record],
    config: EngineConfig,
    undetermined: list[Undetermined] | None = None,
) -> list[Finding]:
    by_kind: dict[str, list[Record]] = {}
    for record in records:
        by_kind.setdefault(record.KIND, []).append(record)
    findings: list[Finding] = []
    for policy in policies:
        if not policy.applies_to or not config.enabled(policy):
            continue
        params = config.params_for(policy)
        severity = config.severity_for(policy)
        for kind in policy.applies_to:
            cond = policy.condition_for(kind)
            for record in by_kind.get(kind, ()):
                env = _Env(policy, record, params)
                verdict = evaluate(cond, env)
                if verdict is None and undetermined is not None:
                    reasons = tuple(dict.fromkeys(env.unknowns))
                    undetermined.append(
                        Undetermined(
                            policy.id,
                            policy.name,
                            record.location.file,
                            record.location.line,
                            record.address,
                            reasons,
                        )
                    )
                if verdict is not True:
                    continue
                line, end_line = _location(policy, env)
                findings.append(
                    Finding(
                        rule_id=policy.id,
                        rule=policy.name,
                        severity=severity,
                        file=record.location.file,
                        line=line,
                        end_line=max(end_line, line),
                        resource=record.address,
                        message=render_message(policy.message_for(kind), env),
                        record=record,
                        cost_model=policy.cost_model,
                        params=dict(params),
                        evidence=_evidence(env),
                    )
                )
    return findings
