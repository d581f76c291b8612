"""Policies: the model of one rule file in ``policies/`` and its validation at load time.

A policy that does not validate (unknown key, field, fact, param or operator) is a
:class:`PolicyError` with the file and line, reported as a configuration error (exit 2):
a typo never turns into a rule that silently matches nothing.
"""

from __future__ import annotations

import inspect
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable, Mapping, overload

from finlint.engine.facts import FactFn
from finlint.errors import LocatedError
from finlint.finding import SEVERITIES
from finlint.ir import RECORD_TYPES
from finlint.loaders.common.yamlload import LineDict, YamlLoadError, load_all
from finlint.untrusted import Unreadable, read_text, regex_problem

POLICY_KEYS = {
    "id",
    "name",
    "summary",
    "severity",
    "severity_when",
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
EXAMPLE_KEYS = {
    "name",
    "kind",
    "format",
    "filename",
    "code",
    "lines",
    "params",
    "description",
    "severity",
    "fixed",
}
SEVERITY_CASE_KEYS = {"when", "severity"}
COMBINATORS = {"all", "any", "not"}
UNARY = {"exists", "missing", "is_true"}
BINARY = {"equals", "not_equals", "in", "not_in", "matches", "lt", "lte", "gt", "gte"}
ID_RE = re.compile(r"^[A-Z]{2,5}\d{3}$")
NAME_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
#: A policy directory other than the shipped pack (``--policy-dir``, ``policy-dirs``: the
#: repository's own in a scan) is read flat, ``*.yaml``/``*.yml`` directly in it, at most this
#: many files of at most this size: ``policy-dirs: [/]`` lists one directory, never the disk.
MAX_POLICY_FILES = 1000
MAX_POLICY_BYTES = 1024 * 1024
#: A fact's argument with this name is a regular expression (checked like a ``matches`` operand).
REGEX_ARG = "pattern"


class PolicyError(LocatedError):
    """A policy file that is not valid: reported as a usage/config error (exit 2)."""


@dataclass(frozen=True)
class Example:
    """A documented bad (``fail``) or good (``pass``) example of a rule; every one runs as a test."""

    name: str
    kind: str  # fail | pass
    format: str
    code: str
    filename: str | None
    lines: tuple[int, ...]
    params: dict[str, Any]
    line: int  # where the example starts in the policy file
    severity: str | None = None  # the severity a fail example's findings must have
    fixed: str | None = None  # a fail example's code after `finlint fix --unsafe-fixes`


class Examples(Sequence[Example]):
    """A built-in policy's ``examples:``, parsed when first asked for (the tests, ``finlint
    rules``, the docs): they are about 85 % of the pack's YAML, and a scan never reads them.
    The test suite runs every one of them; a user policy's are checked when it is loaded."""

    def __init__(self, file: str, text: str) -> None:
        self._file = file
        self._text = text  # the policy text with everything before `examples:` blanked out
        self._parsed: tuple[Example, ...] | None = None

    def _all(self) -> tuple[Example, ...]:
        if self._parsed is None:
            try:
                docs = load_all(self._text)
            except YamlLoadError as exc:
                raise PolicyError(self._file, exc.line, exc.message) from exc
            raw = docs[0].get("examples") if len(docs) == 1 and isinstance(docs[0], LineDict) else None
            self._parsed = tuple(_load_example(self._file, e, i) for i, e in enumerate(raw or ()))
        return self._parsed

    @overload
    def __getitem__(self, index: int) -> Example: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Example]: ...
    def __getitem__(self, index: int | slice) -> Example | Sequence[Example]:
        return self._all()[index]

    def __len__(self) -> int:
        return len(self._all())

    def __iter__(self) -> Iterator[Example]:
        return iter(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (Examples, tuple)):
            return self._all() == tuple(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # like the tuple it stands for, compared by value

    def __repr__(self) -> str:
        return f"Examples({self._file!r})"


_EXAMPLES_KEY = re.compile(r"^examples:[ \t]*(?:#.*)?$", re.MULTILINE)
#: a line that may not follow the last top-level key: not blank, indented, a comment or a
#: sequence item (one search over the text, not a match per line)
_OUTSIDE = re.compile(r"^(?![ #]|- |-$|$)", re.MULTILINE)


def split_examples(text: str) -> tuple[str, str] | None:
    """``(head, examples)`` of a policy whose last top-level key is ``examples:``: the text
    before it, and the text from it with every earlier line blank (so its lines are the file's).
    None when the split is not certain (no such key, a later top-level key or document)."""
    match = _EXAMPLES_KEY.search(text)
    if match is None:
        return None
    tail = text[match.start() :]
    if _OUTSIDE.search(text, match.end() + 1) is not None:
        return None
    head = text[: match.start()]
    return head, "\n" * head.count("\n") + tail


@dataclass(frozen=True)
class SeverityCase:
    """``severity_when`` entry: this severity when the condition is known true (first match wins)."""

    when: Any  # a condition, or {kind: condition}
    severity: str

    def condition_for(self, kind: str, applies_to: tuple[str, ...]) -> Any:
        cond = self.when
        if isinstance(cond, dict) and cond and set(cond) <= set(applies_to):
            return cond.get(kind)
        return cond


@dataclass(frozen=True)
class Policy:
    """One rule of the pack, loaded from its YAML file: what it applies to, when it fires, its docs."""

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
    examples: Sequence[Example]  # a tuple, or the built-in pack's lazily parsed Examples
    tags: tuple[str, ...]
    path: str
    builtin: bool = True
    severity_when: tuple[SeverityCase, ...] = ()
    #: params that are regular expressions (a ``matches`` operand or a fact's ``pattern``): a
    #: config's value for one is checked with :func:`finlint.untrusted.regex_problem`
    regex_params: tuple[str, ...] = ()
    #: the fact table the policy was validated against (its lets, ``fact.NAME`` refs and messages)
    facts: Mapping[str, FactFn] = field(default_factory=dict, compare=False, hash=False)

    def severities(self) -> tuple[str, ...]:
        """Every severity a finding of this rule can have, the default first."""
        return tuple(dict.fromkeys([self.severity, *(c.severity for c in self.severity_when)]))

    def severity_label(self) -> str:
        """``medium`` or, with cases, ``medium (info when ...)`` for docs and listings."""
        if not self.severity_when:
            return self.severity
        return "/".join(self.severities())

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
    package = Path(__file__).resolve().parents[1]  # finlint/
    installed = package / "policies"
    return installed if installed.is_dir() else package.parents[1] / "policies"


# --- loading and validation ------------------------------------------------------------------


def load_policies(extra_dirs: Iterable[Path], *, facts: Mapping[str, FactFn]) -> list[Policy]:
    """The built-in pack plus ``extra_dirs``; ``facts``: every fact a policy may name (the shared
    facts and the rule modules' own: :func:`finlint.rules.load_policies` gives them)."""
    policies: list[Policy] = []
    dirs = [(builtin_policy_dir(), True), *((Path(d), False) for d in extra_dirs)]
    for directory, builtin in dirs:
        files = sorted(directory.rglob("*.y*ml")) if builtin else policy_files(directory)
        for path in files:
            policies.append(load_policy(path, builtin, facts))
    seen: dict[str, str] = {}
    for p in policies:
        for key in (p.id, p.name):
            if key in seen:
                raise PolicyError(p.path, 1, f"duplicate policy id or name {key!r} (also in {seen[key]})")
            seen[key] = p.path
    return sorted(policies, key=lambda p: p.id)


def policy_files(directory: Path) -> list[Path]:
    """The ``*.yaml``/``*.yml`` files directly in ``directory`` (not its subdirectories), sorted."""
    names: list[str] = []
    try:
        with os.scandir(directory) as listing:
            for entry in listing:
                if entry.name.endswith((".yaml", ".yml")) and not entry.name.startswith("."):
                    names.append(entry.name)
                    if len(names) > MAX_POLICY_FILES:
                        raise PolicyError(
                            str(directory), 1, f"more than {MAX_POLICY_FILES} policy files in one directory"
                        )
    except NotADirectoryError as exc:
        raise PolicyError(str(directory), 1, "policy directory is not a directory") from exc
    except FileNotFoundError as exc:
        raise PolicyError(str(directory), 1, "policy directory does not exist") from exc
    except OSError as exc:
        raise PolicyError(str(directory), 1, f"cannot list policy directory: {exc.strerror or exc}") from exc
    return [directory / name for name in sorted(names)]


def load_policy(path: Path, builtin: bool, facts: Mapping[str, FactFn]) -> Policy:
    file = str(path)
    lazy: Examples | None = None
    try:
        text = read_text(path, MAX_POLICY_BYTES)
        split = split_examples(text) if builtin else None
        if split is not None:
            text, lazy = split[0], Examples(file, split[1])
        docs = load_all(text)
    except Unreadable as exc:
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
        if not (isinstance(spec, dict) and spec.get("fact") in facts):
            raise fail("let", f"let {name!r} must be {{fact: NAME, args: [...]}} with a known fact")
    docs_block = doc["docs"]
    if not isinstance(docs_block, dict) or set(docs_block) - DOCS_KEYS:
        raise fail("docs", f"docs must be a mapping with keys from {sorted(DOCS_KEYS)}")
    severity_when = _load_severity_cases(doc, applies, lets, params, facts, fail)
    condition = doc.get("condition")
    if applies:
        if condition is None:
            raise fail("condition", "a policy that applies to IR kinds needs a condition")
        per_kind = isinstance(condition, dict) and condition and set(condition) <= set(applies)
        for kind in applies:
            cond = condition.get(kind) if per_kind else condition
            if cond is None:
                raise fail("condition", f"no condition for kind {kind!r}")
            _validate_condition(cond, kind, lets, params, facts, lambda m: fail("condition", m))
    message = doc["message"]
    if isinstance(message, dict):
        missing_kinds = set(applies) - set(message)
        if missing_kinds or set(message) - set(applies):
            raise fail("message", f"per-kind messages must cover exactly {sorted(applies)}")
        message = {str(k): str(v) for k, v in message.items()}
    else:
        message = str(message)
    regex_params = _check_regexes(doc, lets, condition, severity_when, params, facts, fail)
    examples: Sequence[Example] = (
        lazy
        if lazy is not None
        else tuple(_load_example(file, e, i) for i, e in enumerate(doc.get("examples") or ()))
    )
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
        severity_when=severity_when,
        regex_params=regex_params,
        facts=facts,
    )


def _check_regexes(
    doc: LineDict,
    lets: dict[str, Any],
    condition: Any,
    cases: tuple[SeverityCase, ...],
    params: dict[str, Any],
    facts: Mapping[str, FactFn],
    fail: Any,
) -> tuple[str, ...]:
    """The policy's regex params; every regex it writes (literal or a param's default) must be
    safe to run on the scanned repository's text (:func:`finlint.untrusted.regex_problem`)."""
    found: list[tuple[str, Any]] = []  # (policy key, the regex or its $param)
    for spec in lets.values():
        names = _fact_arg_names(facts.get(str(spec.get("fact"))))
        args = spec.get("args") or []
        for index, arg in enumerate(args if isinstance(args, list) else []):
            if index < len(names) and names[index] == REGEX_ARG:
                found.append(("let", arg))
    for key, cond in [("condition", condition), *(("severity_when", c.when) for c in cases)]:
        found += [(key, operand) for operand in _matches_operands(cond)]
    regex_params: list[str] = []
    for key, value in found:
        if isinstance(value, str) and value.startswith("$") and value[1:] in params:
            name = value[1:]
            if name not in regex_params:
                regex_params.append(name)
            key, value = "params", params[name]
        problem = regex_problem(value)
        if problem:
            raise fail(key, problem)
    return tuple(regex_params)


def _fact_arg_names(fn: FactFn | None) -> list[str]:
    """The names of a fact's arguments after the record."""
    if fn is None:
        return []
    return list(inspect.signature(fn).parameters)[1:]


def _matches_operands(cond: Any) -> list[Any]:
    """The regex operands of every ``matches`` in a condition (or a per-kind mapping of them)."""
    out: list[Any] = []
    stack = [cond]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
        elif isinstance(node, dict):
            for op, arg in node.items():
                if op == "matches" and isinstance(arg, list) and len(arg) == 2:
                    out.append(arg[1])
                else:
                    stack.append(arg)
    return out


def _load_severity_cases(
    doc: LineDict,
    applies: tuple[str, ...],
    lets: dict[str, Any],
    params: dict[str, Any],
    facts: Mapping[str, FactFn],
    fail: Any,
) -> tuple[SeverityCase, ...]:
    """``severity_when: [{when: CONDITION, severity: info}, ...]``: per-case severity, validated
    like the condition (same fields, facts, lets and params, per kind or shared)."""
    raw = doc.get("severity_when")
    if raw is None:
        return ()
    if not applies:
        raise fail("severity_when", "severity_when needs a policy that applies to IR kinds")
    if not isinstance(raw, list) or not raw:
        raise fail("severity_when", "severity_when is a non-empty list of {when: CONDITION, severity: LEVEL}")
    cases: list[SeverityCase] = []
    for index, case in enumerate(raw):
        if not isinstance(case, dict) or set(case) != SEVERITY_CASE_KEYS:
            raise fail(
                "severity_when", f"severity_when[{index}] needs exactly the keys 'when' and 'severity'"
            )
        if case["severity"] not in SEVERITIES:
            raise fail(
                "severity_when", f"severity_when[{index}]: severity must be one of {', '.join(SEVERITIES)}"
            )
        when = case["when"]
        per_kind = isinstance(when, dict) and when and set(when) <= set(applies)
        for kind in applies:
            cond = when.get(kind) if per_kind else when
            if cond is None:
                continue  # the case does not apply to this kind
            _validate_condition(
                cond,
                kind,
                lets,
                params,
                facts,
                lambda m, i=index: fail("severity_when", f"severity_when[{i}]: {m}"),
            )
        cases.append(SeverityCase(when, str(case["severity"])))
    return tuple(cases)


def _load_example(file: str, raw: Any, index: int) -> Example:
    line = getattr(raw, "line", 1)
    if not isinstance(raw, dict) or set(raw) - EXAMPLE_KEYS:
        raise PolicyError(file, line, f"example {index}: keys must come from {sorted(EXAMPLE_KEYS)}")
    if raw.get("kind") not in ("fail", "pass") or not raw.get("code") or not raw.get("format"):
        raise PolicyError(file, line, f"example {index}: needs kind (fail|pass), format and code")
    from finlint.loaders import example_files

    if raw["format"] not in example_files():
        known = ", ".join(sorted(example_files()))
        raise PolicyError(file, line, f"example {index}: unknown format {raw['format']!r} (known: {known})")
    lines = tuple(int(n) for n in (raw.get("lines") or ()))
    if raw["kind"] == "fail" and not lines:
        raise PolicyError(file, line, f"example {index}: a fail example names the line(s) it fires on")
    severity = raw.get("severity")
    if severity is not None and (raw["kind"] != "fail" or severity not in SEVERITIES):
        raise PolicyError(file, line, f"example {index}: severity is for fail examples, one of {SEVERITIES}")
    return Example(
        name=str(raw.get("name") or f"example{index}"),
        kind=str(raw["kind"]),
        format=str(raw["format"]),
        code=str(raw["code"]),
        filename=raw.get("filename"),
        lines=lines,
        params=dict(raw.get("params") or {}),
        line=line,
        severity=None if severity is None else str(severity),
        fixed=_fixed(file, line, index, raw),
    )


def _fixed(file: str, line: int, index: int, raw: dict[str, Any]) -> str | None:
    """A fail example's ``fixed:`` text (what its fix makes of ``code``)."""
    fixed = raw.get("fixed")
    if fixed is None:
        return None
    if raw["kind"] != "fail" or not isinstance(fixed, str):
        raise PolicyError(file, line, f"example {index}: fixed is the text of a fail example after its fix")
    return fixed


def _field_names(kind: str) -> set[str]:
    return {f.name for f in fields(RECORD_TYPES[kind])}


def _validate_ref(ref: Any, kind: str, lets: dict[str, Any], facts: Mapping[str, FactFn], fail: Any) -> None:
    if not isinstance(ref, str):
        raise fail(f"a reference must be a string, got {ref!r}")
    if ref in lets:
        return
    if ref.startswith("fact."):
        if ref[5:] not in facts:
            raise fail(f"unknown fact {ref[5:]!r}")
        return
    if ref.split(".", 1)[0] not in _field_names(kind):
        raise fail(f"{kind} has no field {ref!r}")


def _validate_condition(
    cond: Any,
    kind: str,
    lets: dict[str, Any],
    params: dict[str, Any],
    facts: Mapping[str, FactFn],
    fail: Any,
) -> None:
    if not isinstance(cond, dict) or len(cond) != 1:
        raise fail(f"a condition is a mapping with one operator, got {cond!r}")
    ((op, arg),) = cond.items()
    if op in ("all", "any"):
        if not isinstance(arg, list) or not arg:
            raise fail(f"{op} takes a non-empty list")
        for sub in arg:
            _validate_condition(sub, kind, lets, params, facts, fail)
    elif op == "not":
        _validate_condition(arg, kind, lets, params, facts, fail)
    elif op in UNARY:
        _validate_ref(arg, kind, lets, facts, fail)
    elif op in BINARY:
        if not isinstance(arg, list) or len(arg) != 2:
            raise fail(f"{op} takes [REF, VALUE]")
        _validate_ref(arg[0], kind, lets, facts, fail)
        value = arg[1]
        if isinstance(value, str) and value.startswith("$") and value[1:] not in params:
            raise fail(f"unknown param {value!r}")
    else:
        raise fail(f"unknown operator {op!r}")
