"""Translating a policy's condition into checkov's YAML policy language, per source; hand translations
for rules over facts (HAND)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping

from finlint.domain import catalog
from finlint.engine import Policy
from finlint.engine.policy import BINARY, UNARY
from finlint.export.checkov_sources import (
    LAUNCH_TEMPLATE,
    MAX_EXACT_INSTANCE_COUNT,
    SAGEMAKER_DEFAULT_MAX_RUNTIME_S,
    Attr,
    Level,
    Source,
    Untranslatable,
)


@dataclass(frozen=True)
class Translation:
    """A violation as a checkov block for one resource type (``block`` None: nothing)."""

    level: Level
    block: dict[str, Any] | None
    note: str = ""
    #: a weaker translation that only misses findings: checkov never fails a resource finlint passes
    sound: bool = False


#: A hand translation returns this when the rule can never fire on the resource type.
NOT_APPLICABLE = Translation("nothing", None, "not applicable")


@dataclass(frozen=True)
class TargetCoverage:
    """How much of a rule checkov can check on one resource type."""

    source: Source
    translation: Translation


_NEGATE = {
    "exists": "not_exists",
    "not_exists": "exists",
    "equals": "not_equals",
    "not_equals": "equals",
    "within": "not_within",
    "not_within": "within",
    "regex_match": "not_regex_match",
    "not_regex_match": "regex_match",
}


_COMPARE = {
    "lt": "less_than",
    "lte": "less_than_or_equal",
    "gt": "greater_than",
    "gte": "greater_than_or_equal",
}


#: not(a < v) on a present value is a >= v; on an absent value checkov's comparisons are false.
_COMPARE_NEGATED = {"lt": "gte", "lte": "gt", "gt": "lte", "gte": "lt"}


def attr_block(source: Source, attribute: str, operator: str, value: Any = None) -> dict[str, Any]:
    block: dict[str, Any] = {
        "cond_type": "attribute",
        "resource_types": [source.resource_type],
        "attribute": attribute,
        "operator": operator,
    }
    if value is not None:
        block["value"] = value
    return block


def search_regex(pattern: str) -> str:
    """finlint's ``re.search`` pattern as one for checkov's ``re.match`` (leading flags kept)."""
    m = re.match(r"\(\?[aiLmsux]+\)", pattern)
    flags, body = (m.group(0), pattern[m.end() :]) if m else ("", pattern)
    out = f"{flags}[\\s\\S]*?(?:{body})"
    re.compile(out)
    return out


def _param(value: Any, params: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith("$"):
        return params[value[1:]]
    if isinstance(value, list):
        return [_param(v, params) for v in value]
    return value


def _field(policy: Policy, source: Source, ref: str) -> Attr:
    if ref in policy.let:
        raise Untranslatable(f"`{ref}` is computed by finlint (fact `{policy.let[ref].get('fact')}`)")
    if ref.startswith("fact."):
        raise Untranslatable(f"`{ref}` is computed by finlint")
    attr = (source.fields or {}).get(ref)
    if attr is None:
        raise Untranslatable(
            f"field `{ref}` has no {source.resource_type} attribute in the translation table"
        )
    return attr


#: Leaves that hold when *some* spelling of the field satisfies them (the others: *every*).
_EXISTENTIAL = {"exists", "is_true", "equals", "in", "matches", "lt", "lte", "gt", "gte"}


def _leaf(source: Source, path: str, op: str, value: Any, boolean: bool, negate: bool) -> dict[str, Any]:
    """One finlint predicate (or its negation) on one attribute path."""
    if op == "is_true" or (op == "exists" and boolean):
        return attr_block(source, path, "not_equals" if negate else "equals", True)
    if op in ("exists", "missing"):
        operator = "exists" if op == "exists" else "not_exists"
        return attr_block(source, path, _NEGATE[operator] if negate else operator)
    if op in ("equals", "not_equals", "in", "not_in"):
        operator = {"equals": "equals", "not_equals": "not_equals", "in": "within", "not_in": "not_within"}[
            op
        ]
        return attr_block(source, path, _NEGATE[operator] if negate else operator, value)
    if op == "matches":
        rx = search_regex(str(value))
        if negate:  # absent, or present and not matching
            return {
                "or": [
                    attr_block(source, path, "not_exists"),
                    attr_block(source, path, "not_regex_match", rx),
                ]
            }
        return {"and": [attr_block(source, path, "exists"), attr_block(source, path, "regex_match", rx)]}
    if op in _COMPARE:
        if negate:
            return {
                "or": [
                    attr_block(source, path, "not_exists"),
                    attr_block(source, path, _COMPARE[_COMPARE_NEGATED[op]], value),
                ]
            }
        return attr_block(source, path, _COMPARE[op], value)
    raise Untranslatable(f"operator `{op}`")


def translate(
    cond: Any, policy: Policy, source: Source, params: Mapping[str, Any], negate: bool = False
) -> dict[str, Any]:
    """A finlint condition (the violation, or its negation) as a checkov block in NNF."""
    if not isinstance(cond, dict) or len(cond) != 1:
        raise Untranslatable(f"not a condition: {cond!r}")
    ((op, arg),) = cond.items()
    if op in ("all", "any"):
        conj = (op == "all") != negate
        return {"and" if conj else "or": [translate(c, policy, source, params, negate) for c in arg]}
    if op == "not":
        return translate(arg, policy, source, params, not negate)
    if op not in UNARY and op not in BINARY:
        raise Untranslatable(f"operator `{op}`")
    attr = _field(policy, source, arg if op in UNARY else arg[0])
    value = None if op in UNARY else _param(arg[1], params)
    blocks = [_leaf(source, path, op, value, attr.boolean, negate) for path in attr.paths]
    if len(blocks) == 1:
        return blocks[0]
    return {"or" if (op in _EXISTENTIAL) != negate else "and": blocks}


HandFn = Callable[[Policy, Source], "Translation | None"]


def _family_regex(families: list[str]) -> str:
    alternatives = "|".join(re.escape(f) for f in families)
    return f"^(?:ml\\.)?(?:{alternatives})\\."


def _fin301(policy: Policy, source: Source) -> Translation | None:
    families = list(policy.params.get("families") or [])
    rx = _family_regex(families)
    if source.fields is None:
        return None
    f = source.fields
    if source.kind == "notebook":
        return Translation("full", attr_block(source, f["instance_type"].path, "regex_match", rx))
    if source.kind == "training_job":
        return _fin301_training_job(policy, source, families)
    if source.kind == "compute_pool":
        # The whole list, as text: checkov 3.3 renders `[var.x]` as a nested list whose items a
        # `instance_types.*` wildcard does not reach, and a one-item list as the bare item. In the
        # text of a list every type is quoted; a bare item starts with the type.
        listed = "(?:[\\s\\S]*?['\"])?" + rx.lstrip("^")
        any_p5 = attr_block(source, f["instance_types"].path, "regex_match", listed)
        always_on = {
            "or": [
                attr_block(source, f["min_size"].path, "greater_than_or_equal", 1),
                attr_block(source, f["desired_size"].path, "greater_than_or_equal", 1),
            ]
        }
        capacity = "capacity_type" if source.framework == "terraform" else "CapacityType"
        not_block = attr_block(source, capacity, "not_equals", "CAPACITY_BLOCK")
        return Translation(
            "weaker",
            {"and": [any_p5, always_on, not_block]},
            "p5-class instance types listed on the node group with min or desired size >= 1 and "
            "no CAPACITY_BLOCK capacity type; " + LAUNCH_TEMPLATE,
        )
    return None


def _fin301_training_job(policy: Policy, source: Source, families: list[str]) -> Translation:
    """p5 job under ``min_gpu_hours``: count x GPUs x runtime hours, one disjunct per count."""
    f = source.fields or {}
    limit = float(policy.params.get("min_gpu_hours", 0))
    itype, count, runtime = f["instance_type"].path, f["instance_count"].path, f["max_runtime_s"].path
    by_gpus: dict[int, list[str]] = {}
    for spec in catalog.all_instances():
        if spec.family in families and spec.accelerators:
            by_gpus.setdefault(spec.accelerators, []).append(f"ml.{spec.name}")
    branches: list[dict[str, Any]] = []
    for gpus, names in sorted(by_gpus.items()):
        per_count: list[dict[str, Any]] = []
        for n in range(1, MAX_EXACT_INSTANCE_COUNT + 1):
            bound = limit * 3600.0 / (n * gpus)  # runtime seconds under which the job is small
            if bound <= 1:
                break
            # integer seconds: runtime < bound  <=>  runtime <= ceil(bound) - 1
            below = attr_block(source, runtime, "less_than_or_equal", math.ceil(bound) - 1)
            runtime_ok: dict[str, Any] = below
            if bound > SAGEMAKER_DEFAULT_MAX_RUNTIME_S:
                runtime_ok = {"or": [attr_block(source, runtime, "not_exists"), below]}
            count_is = attr_block(source, count, "equals", n)
            if n == 1:
                count_is = {"or": [attr_block(source, count, "not_exists"), count_is]}
            per_count.append({"and": [count_is, runtime_ok]})
        if per_count:
            branches.append(
                {
                    "and": [
                        attr_block(source, itype, "within", sorted(names)),
                        per_count[0] if len(per_count) == 1 else {"or": per_count},
                    ]
                }
            )
    if not branches:
        return Translation("nothing", None, "no instance type of the rule's families has accelerators")
    gpus8 = max(by_gpus)
    cap_h = limit / ((MAX_EXACT_INSTANCE_COUNT + 1) * gpus8)
    block: dict[str, Any] = branches[0] if len(branches) == 1 else {"or": branches}
    if "training_plan" in f:  # a job on a training plan uses capacity already bought
        block = {"and": [*(attr_block(source, p, "not_exists") for p in f["training_plan"].paths), block]}
    return Translation(
        "weaker",
        block,
        f"exact for jobs of up to {MAX_EXACT_INSTANCE_COUNT} instances (count x GPUs x max runtime, "
        f"one branch per count); larger p5 jobs under {limit:,.0f} GPU-hours (a cap under "
        f"{cap_h:.1f} h for {MAX_EXACT_INSTANCE_COUNT + 1} x {gpus8}-GPU instances) are not flagged",
        sound=True,
    )


def _fin401(policy: Policy, source: Source) -> Translation | None:
    rx = search_regex(str(policy.params.get("pattern", "")))
    if source.kind == "training_job":
        if source.fields is not None:
            return NOT_APPLICABLE  # finlint reads no file-system inputs of these resources
        return None
    if source.fields is None:
        return None
    if source.resource_type == "aws_efs_file_system":
        return Translation(
            "full",
            {
                "or": [
                    attr_block(source, "creation_token", "regex_match", rx),
                    attr_block(source, "tags.*", "regex_match", rx),
                ]
            },
            "name, creation token or a tag value says checkpoints",
        )
    if source.resource_type == "AWS::EFS::FileSystem":
        return Translation(
            "full",
            attr_block(source, "FileSystemTags.*.Value", "regex_match", rx),
            "a tag value (Name included) says checkpoints",
        )
    if source.resource_type == "aws_efs_access_point":
        return Translation(
            "weaker",
            {
                "or": [
                    attr_block(source, "root_directory.path", "regex_match", rx),
                    attr_block(source, "tags.Name", "regex_match", rx),
                ]
            },
            "root path or Name tag; finlint also reads the resource's own name "
            "(`aws_efs_access_point.checkpoints`), which checkov's conditions cannot see",
            sound=True,
        )
    if source.resource_type == "AWS::EFS::AccessPoint":
        return Translation(
            "weaker",
            attr_block(source, "RootDirectory.Path", "regex_match", rx),
            "root path only; finlint also reads the Name tag and the logical id",
            sound=True,
        )
    return None


def _fin201(policy: Policy, source: Source) -> Translation | None:
    """Managed spot without an S3 URI (the condition's first branch): the second branch is spot
    capacity the scan links to a Slurm or Batch job (``capacity_spot``), never a checkov input."""
    cond = policy.condition_for(source.kind)
    if source.fields is None or not isinstance(cond, dict) or not isinstance(cond.get("any"), list):
        return None
    try:
        return Translation("full", translate(cond["any"][0], policy, source, policy.params))
    except Untranslatable as exc:
        return Translation("nothing", None, f"not expressible in checkov: {exc}")


#: Rules whose conditions use computed facts: a translation per resource type (None: generic).
HAND: dict[str, HandFn] = {"FIN201": _fin201, "FIN301": _fin301, "FIN401": _fin401}


def translate_source(policy: Policy, source: Source) -> Translation:
    result = _translation(policy, source)
    if result.block is None or not source.guard:
        return result
    guard = {"or": [attr_block(source, path, "exists") for path in source.guard]}
    return replace(result, block={"and": [guard, result.block]})


def _translation(policy: Policy, source: Source) -> Translation:
    hand = HAND.get(policy.id)
    if hand is not None:
        result = hand(policy, source)
        if result is not None:
            return result
    if source.fields is None:
        return Translation("nothing", None, source.gap)
    cond = policy.condition_for(source.kind)
    if cond is None:
        return NOT_APPLICABLE
    try:
        block = translate(cond, policy, source, policy.params)
    except Untranslatable as exc:
        return Translation("nothing", None, f"not expressible in checkov: {exc}")
    return Translation("full", block)
