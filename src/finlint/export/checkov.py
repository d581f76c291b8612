"""finlint's rules as checkov YAML custom policies: ``finlint export checkov DIR``.

checkov runs in its own environment (never next to finlint: ``bc-python-hcl2`` and
``python-hcl2`` both install ``hcl2``), so the bridge is files: one ``CKV2_FIN_<n>.yaml`` per
rule, which ``checkov -d infra/ --external-checks-dir DIR --skip-download`` loads. checkov's
graph registry walks the directory for ``.yaml``/``.json`` policies
(``checkov/common/checks_infra/registry.py``); an ``__init__.py`` is only needed for Python
checks, so none is written.

How the two languages meet (checkov 3.3, "YAML Custom Policies" and its solvers):

* A checkov definition describes the *compliant* state: a resource of the listed types fails
  when it is false, passes when it is true, and is left out when it depends on a variable
  checkov could not render. A finlint condition describes the *violation* and never fires on an
  unknown value, so each resource type's violation ``V`` is exported as ``not: V``, and several
  resource types as ``and`` of one ``not`` each.
* ``V`` is built in negation normal form (``not`` pushed to the leaves, whose operators have
  exact opposites: ``exists``/``not_exists``, ``equals``/``not_equals``...): an attribute block
  is false on every other resource type, so ``V`` is false there and its ``not`` leaves the
  verdict to the block of the resource's own type.

What is translated comes from the policy files: a condition over plain IR fields is translated
through :data:`SOURCES` (IR field -> checkov attribute per resource type); rules whose
conditions use finlint's computed facts get a hand translation in :data:`HAND` (per rule id),
which also says where the translation is weaker than the rule. Everything else, and every
resource type finlint reads that checkov cannot judge the same way, is listed as a gap.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Literal, Mapping

import yaml

from finlint import catalog
from finlint.engine import Policy
from finlint.engine.policy import BINARY, UNARY

Level = Literal["full", "weaker", "nothing"]
SEVERITY = {"info": "INFO", "low": "LOW", "medium": "MEDIUM", "high": "HIGH", "critical": "CRITICAL"}
#: checkov's category enum has no cost category; CONVENTION is the closest (a practice, not a threat).
CATEGORY = "CONVENTION"
#: checkov requires custom graph-check ids of the form CKV2_<provider>_<n>.
ID_PREFIX = "CKV2_FIN_"
#: SageMaker's default max runtime when a Terraform or Kubernetes training job sets no stopping
#: condition (those loaders' ``max_runtime_default_s``).
SAGEMAKER_DEFAULT_MAX_RUNTIME_S = 86400
#: FIN301 on training jobs is translated exactly for jobs of up to this many instances.
MAX_EXACT_INSTANCE_COUNT = 16

NOT_CHECKOV_INPUTS = (
    "SageMaker API requests, Step Functions ASL files, pipeline definitions, SDK code and notebooks "
    "are not checkov inputs; checkov's results carry no dollar figure, no computed facts in the "
    "message and no finlint suppressions"
)


class Untranslatable(Exception):
    """A condition checkov's YAML policy language cannot express for one resource type."""


@dataclass(frozen=True)
class Attr:
    """Where checkov finds one IR field: one path, or several spellings of it (the first present
    is the value); ``boolean`` fields are tested with ``equals: true``."""

    paths: tuple[str, ...]
    boolean: bool = False

    @property
    def path(self) -> str:
        return self.paths[0]


@dataclass(frozen=True)
class Source:
    """A Terraform/CloudFormation/Kubernetes resource type finlint reads into IR ``kind``.

    ``fields`` maps IR field names to checkov attributes; ``None`` means checkov cannot judge
    this resource type the way finlint does, and ``gap`` says why.
    """

    framework: str  # terraform | cloudformation | kubernetes
    resource_type: str
    kind: str
    fields: Mapping[str, Attr] | None
    gap: str = ""
    #: attribute paths of which one must exist for finlint to read the resource as ``kind``
    #: (a Kubernetes ``TrainingJob`` without SageMaker's fields is another operator's CRD)
    guard: tuple[str, ...] = ()


def _a(*paths: str, boolean: bool = False) -> Attr:
    return Attr(paths, boolean)


_K8S_IN_TF = (
    "a Kubernetes object in a YAML string (`yaml_body`), which checkov's Terraform graph does not "
    "parse; finlint reads it as Kubernetes (Karpenter requirements against its instance catalog, "
    "TrainingJob fields, PVC -> EFS links)"
)
_K8S_STORAGE = (
    "Kubernetes storage and workloads: finlint follows workload -> PVC -> StorageClass/PV -> EFS "
    "across resources and files; checkov's attribute conditions judge one resource at a time"
)
_ASL = (
    "training jobs are task states inside the state machine's definition (JSON): checkov's "
    "conditions cannot select the SageMaker task states and test each one"
)
_LAUNCH_TEMPLATE = (
    "instance types, market options and capacity reservations come from a launch template or "
    "launch configuration (another resource), which finlint follows and checkov's attribute "
    "conditions do not"
)

#: Every Terraform/CloudFormation/Kubernetes resource type finlint reads, by IR kind.
SOURCES: tuple[Source, ...] = (
    Source(
        "terraform",
        "aws_sagemaker_training_job",
        "training_job",
        {
            "instance_type": _a("resource_config.instance_type"),
            "instance_count": _a("resource_config.instance_count"),
            "volume_size_gb": _a("resource_config.volume_size_in_gb"),
            "keep_alive_s": _a("resource_config.keep_alive_period_in_seconds"),
            "spot": _a("enable_managed_spot_training", boolean=True),
            "max_runtime_s": _a("stopping_condition.max_runtime_in_seconds"),
            "max_wait_s": _a("stopping_condition.max_wait_time_in_seconds"),
            "checkpoint_s3_uri": _a("checkpoint_config.s3_uri"),
            "checkpoint_local_path": _a("checkpoint_config.local_path"),
        },
    ),
    Source("terraform", "aws_sfn_state_machine", "training_job", None, _ASL),
    Source("cloudformation", "AWS::StepFunctions::StateMachine", "training_job", None, _ASL),
    Source("cloudformation", "AWS::Serverless::StateMachine", "training_job", None, _ASL),
    Source(
        "kubernetes",
        "TrainingJob",
        "training_job",
        {
            "instance_type": _a("spec.resourceConfig.instanceType"),
            "instance_count": _a("spec.resourceConfig.instanceCount"),
            "volume_size_gb": _a("spec.resourceConfig.volumeSizeInGB"),
            "keep_alive_s": _a("spec.resourceConfig.keepAlivePeriodInSeconds"),
            "training_plan": _a("spec.resourceConfig.trainingPlanARN", "spec.resourceConfig.trainingPlanArn"),
            "spot": _a("spec.enableManagedSpotTraining", boolean=True),
            "max_runtime_s": _a("spec.stoppingCondition.maxRuntimeInSeconds"),
            "max_wait_s": _a("spec.stoppingCondition.maxWaitTimeInSeconds"),
            # ACK spells it s3URI, the original operator s3Uri
            "checkpoint_s3_uri": _a(
                "spec.checkpointConfig.s3URI", "spec.checkpointConfig.s3Uri", "spec.checkpointConfig.S3Uri"
            ),
            "checkpoint_local_path": _a("spec.checkpointConfig.localPath"),
        },
        guard=(
            "spec.resourceConfig",
            "spec.stoppingCondition",
            "spec.algorithmSpecification",
            "spec.trainingJobName",
        ),
    ),
    Source(
        "kubernetes",
        "HyperParameterTuningJob",
        "training_job",
        None,
        "one training job per definition, several in a list (`trainingJobDefinitions`) whose items "
        "checkov's conditions cannot test one by one; not translated",
    ),
    Source(
        "terraform",
        "aws_sagemaker_notebook_instance",
        "notebook",
        {"instance_type": _a("instance_type"), "volume_size_gb": _a("volume_size"), "name": _a("name")},
    ),
    Source(
        "cloudformation",
        "AWS::SageMaker::NotebookInstance",
        "notebook",
        {
            "instance_type": _a("InstanceType"),
            "volume_size_gb": _a("VolumeSizeInGB"),
            "name": _a("NotebookInstanceName"),
        },
    ),
    Source(
        "terraform",
        "aws_eks_node_group",
        "compute_pool",
        {
            "instance_types": _a("instance_types"),
            "min_size": _a("scaling_config.min_size"),
            "desired_size": _a("scaling_config.desired_size"),
            "max_size": _a("scaling_config.max_size"),
            "name": _a("node_group_name"),
        },
    ),
    Source(
        "cloudformation",
        "AWS::EKS::Nodegroup",
        "compute_pool",
        {
            "instance_types": _a("InstanceTypes"),
            "min_size": _a("ScalingConfig.MinSize"),
            "desired_size": _a("ScalingConfig.DesiredSize"),
            "max_size": _a("ScalingConfig.MaxSize"),
            "name": _a("NodegroupName"),
        },
    ),
    Source("terraform", "aws_autoscaling_group", "compute_pool", None, _LAUNCH_TEMPLATE),
    Source("cloudformation", "AWS::AutoScaling::AutoScalingGroup", "compute_pool", None, _LAUNCH_TEMPLATE),
    Source("terraform", "aws_instance", "compute_pool", None, _LAUNCH_TEMPLATE),
    Source("cloudformation", "AWS::EC2::Instance", "compute_pool", None, _LAUNCH_TEMPLATE),
    Source("terraform", "aws_batch_compute_environment", "compute_pool", None, _LAUNCH_TEMPLATE),
    Source("cloudformation", "AWS::Batch::ComputeEnvironment", "compute_pool", None, _LAUNCH_TEMPLATE),
    Source(
        "terraform",
        "awscc_sagemaker_cluster",
        "compute_pool",
        None,
        "HyperPod instance groups are a list of groups inside one resource (and exempt by default)",
    ),
    Source(
        "cloudformation",
        "AWS::SageMaker::Cluster",
        "compute_pool",
        None,
        "HyperPod instance groups are a list of groups inside one resource (and exempt by default)",
    ),
    Source("terraform", "kubectl_manifest", "compute_pool", None, _K8S_IN_TF),
    Source("terraform", "kubectl_manifest", "volume", None, _K8S_IN_TF),
    Source("terraform", "kubectl_manifest", "training_job", None, _K8S_IN_TF),
    Source("terraform", "kubernetes_* (PVC, PV, StorageClass, workloads)", "volume", None, _K8S_STORAGE),
    Source(
        "kubernetes",
        "NodePool, Provisioner",
        "compute_pool",
        None,
        "finlint evaluates Karpenter requirements against its instance catalog (which p5-class "
        "types they admit, whether spec.limits fit one); checkov's conditions cannot",
    ),
    Source(
        "kubernetes",
        "ClusterConfig (eksctl)",
        "compute_pool",
        None,
        "node groups are a list inside one eksctl document, each with its own sizes and types",
    ),
    Source("kubernetes", "PVC, PV, StorageClass, workloads", "volume", None, _K8S_STORAGE),
    Source(
        "terraform",
        "aws_efs_file_system",
        "file_system",
        {
            "creation_token": _a("creation_token"),
            "name": _a("tags.Name"),
            "throughput_mode": _a("throughput_mode"),
        },
    ),
    Source(
        "cloudformation",
        "AWS::EFS::FileSystem",
        "file_system",
        {"throughput_mode": _a("ThroughputMode")},
    ),
    Source(
        "terraform",
        "aws_efs_access_point",
        "volume",
        {"root_path": _a("root_directory.path"), "name": _a("tags.Name")},
    ),
    Source("cloudformation", "AWS::EFS::AccessPoint", "volume", {"root_path": _a("RootDirectory.Path")}),
)


# --- translation results ---------------------------------------------------------------------


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
    source: Source
    translation: Translation


@dataclass(frozen=True)
class RuleExport:
    policy: Policy
    targets: tuple[TargetCoverage, ...]
    reason: str = ""  # why a rule with no targets is not exported

    @property
    def check_id(self) -> str:
        digits = re.sub(r"\D", "", self.policy.id)
        return f"{ID_PREFIX}{digits}"

    @property
    def exported(self) -> tuple[TargetCoverage, ...]:
        return tuple(t for t in self.targets if t.translation.block is not None)

    @property
    def level(self) -> Level:
        if not self.exported:
            return "nothing"
        if all(t.translation.level == "full" for t in self.targets):
            return "full"
        return "weaker"

    def document(self) -> dict[str, Any]:
        p = self.policy
        blocks = [{"not": t.translation.block} for t in self.exported]
        definition = blocks[0] if len(blocks) == 1 else {"and": blocks}
        return {
            "metadata": {
                "id": self.check_id,
                "name": f"finlint {p.id} {p.name}: {p.summary}",
                "category": CATEGORY,
                "severity": SEVERITY.get(p.severity, p.severity.upper()),
                "guideline": guideline(self),
            },
            "definition": definition,
        }


# --- generic translation of a condition over plain fields ------------------------------------

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


# --- hand translations for rules over finlint's computed facts -------------------------------

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
            "no CAPACITY_BLOCK capacity type; " + _LAUNCH_TEMPLATE,
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


#: Rules whose conditions use computed facts: a translation per resource type (None: generic).
HAND: dict[str, HandFn] = {"FIN301": _fin301, "FIN401": _fin401}


# --- building the export ---------------------------------------------------------------------


def _translate_source(policy: Policy, source: Source) -> Translation:
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


def export_rule(policy: Policy) -> RuleExport:
    if not policy.applies_to:
        return RuleExport(policy, (), "a meta rule about finlint's own input (parse errors, suppressions)")
    targets = []
    for source in SOURCES:
        if source.kind not in policy.applies_to:
            continue
        translation = _translate_source(policy, source)
        if translation is NOT_APPLICABLE:
            continue
        targets.append(TargetCoverage(source, translation))
    return RuleExport(policy, tuple(targets), "" if targets else "no Terraform or CloudFormation input")


def export_rules(policies: list[Policy]) -> list[RuleExport]:
    return [export_rule(p) for p in sorted(policies, key=lambda p: p.id)]


def _paragraph(text: Any) -> str:
    return " ".join(str(text or "").split())


def pricing_text(policy: Policy) -> str:
    """How finlint prices the rule: the cost model and the first line of its documentation."""
    if not policy.cost_model:
        return "finlint attaches no dollar figure to this rule."
    from finlint.cost import _models

    fn = _models().get(policy.cost_model)
    doc = sys.modules[fn.__module__].__doc__ if fn is not None else None
    summary = _paragraph(doc.strip().splitlines()[0]) if doc and doc.strip() else ""
    text = f"How finlint prices it: the `{policy.cost_model}` cost model"
    return f"{text} ({summary})" if summary else f"{text}."


def grouped(export: RuleExport) -> list[tuple[Level, str, list[Source]]]:
    """The rule's resource types grouped by (level, note), in SOURCES order, each type once."""
    groups: dict[tuple[Level, str], list[Source]] = {}
    seen: set[tuple[str, str]] = set()
    for t in export.targets:
        key = (t.source.framework, t.source.resource_type)
        if key in seen:
            continue
        seen.add(key)
        groups.setdefault((t.translation.level, t.translation.note), []).append(t.source)
    return [(level, note, sources) for (level, note), sources in groups.items()]


def guideline(export: RuleExport) -> str:
    p = export.policy
    covered = [
        f"{s.resource_type} ({level})"
        for level, _, sources in grouped(export)
        if level != "nothing"
        for s in sources
    ]
    missing = [
        s.resource_type for level, _, sources in grouped(export) if level == "nothing" for s in sources
    ]
    gaps = f"; not covered: {', '.join(missing)}" if missing else ""
    return (
        f"finlint {p.id} {p.name}. Why it costs money: {_paragraph(p.docs.get('why'))} "
        f"Fix: {_paragraph(p.docs.get('remediation'))} {pricing_text(p)}. "
        f"This checkov policy is {export.level}: {', '.join(covered)}{gaps} "
        "(finlint's docs/checkov.md says why). "
        "Run `finlint scan` for the dollar figures and the inputs checkov does not read "
        "(SageMaker API requests, SDK code, Step Functions, Karpenter pools)."
    )


GENERATED = "# Generated by `finlint export checkov`"


def write(exports: list[RuleExport], directory: Path) -> tuple[list[Path], list[Path]]:
    """Write one ``CKV2_FIN_<n>.yaml`` per exportable rule into ``directory``.

    Returns (written, removed): a policy this command generated earlier for a rule that is no
    longer exported is removed, so checkov does not keep running a stale check; other files in
    the directory are left alone. Raises ``OSError`` when the directory cannot be written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for e in exports:
        if not e.exported:
            continue
        path = directory / f"{e.check_id}.yaml"
        source = Path(e.policy.path).name
        header = (
            f"{GENERATED} from {source}; do not edit.\n"
            f"# Coverage: {e.level}. Run with: checkov -d infra/ "
            f"--external-checks-dir {directory.name} --skip-download\n"
        )
        body = yaml.safe_dump(e.document(), sort_keys=False, allow_unicode=True, width=100)
        path.write_text(header + body, encoding="utf-8")
        written.append(path)
    removed = []
    for old in sorted(directory.glob(f"{ID_PREFIX}*.yaml")):
        if old in written or not old.is_file():
            continue
        try:
            first = old.read_text(encoding="utf-8").split("\n", 1)[0]
        except (OSError, UnicodeDecodeError):
            continue
        if first.startswith(GENERATED):
            old.unlink()
            removed.append(old)
    return written, removed


def _cell(level: Level, note: str, sources: list[Source]) -> str:
    names = ", ".join(f"`{s.resource_type}`" for s in sources)
    return f"{names}: {level}" + (f" ({note})" if note else "")


FRAMEWORKS = {"terraform": "Terraform", "cloudformation": "CloudFormation", "kubernetes": "Kubernetes"}


def coverage_markdown(exports: list[RuleExport]) -> str:
    """The coverage table of docs/checkov.md (``finlint export checkov DIR --markdown``)."""
    lines = [
        "| rule | checkov id | checkov gets | " + " | ".join(FRAMEWORKS.values()) + " |",
        "|---|---|---|" + "---|" * len(FRAMEWORKS),
    ]
    for e in exports:
        cells: dict[str, list[str]] = {framework: [] for framework in FRAMEWORKS}
        for level, note, sources in grouped(e):
            for framework, cell in cells.items():
                mine = [s for s in sources if s.framework == framework]
                if mine:
                    cell.append(_cell(level, note, mine))
        texts = ["<br>".join(cell) or "-" for cell in cells.values()]
        if not e.targets:
            texts[0] = e.reason or "-"
        check_id = e.check_id if e.exported else "-"
        lines.append(
            f"| {e.policy.id} {e.policy.name} | {check_id} | **{e.level}** | " + " | ".join(texts) + " |"
        )
    lines.append("")
    lines.append(f"Never in checkov, for every rule: {NOT_CHECKOV_INPUTS}.")
    return "\n".join(lines) + "\n"


def coverage_text(exports: list[RuleExport]) -> str:
    """The plain-text coverage report ``finlint export checkov`` prints."""
    out = []
    for e in exports:
        target = e.check_id if e.exported else "not exported"
        out.append(f"{e.policy.id} {e.policy.name} -> {target} ({e.level})")
        for level, note, sources in grouped(e):
            names = ", ".join(f"{s.framework} {s.resource_type}" for s in sources)
            out.append(f"    {level}: {names}" + (f": {note}" if note else ""))
        if not e.targets:
            out.append(f"    {e.reason}")
    out.append(f"Never in checkov: {NOT_CHECKOV_INPUTS}.")
    return "\n".join(out) + "\n"
