"""FIN101 training-job-missing-max-runtime: Training job without an explicit max runtime.

The policy is ``policies/FIN101-training-job-missing-max-runtime.yaml``; this module holds its
facts and its price.

Price (runaway-runtime, exposure): what a stuck job bills before its runtime cap stops it.

per run  = hourly rate x instances x (cap hours - expected runtime hours, when the usage file gives one)
per month = per run x stuck runs per month (usage, default 1)
no cap at all (Kubernetes launchers, ``ir.UNCAPPED_LAUNCHERS``): an exposure, never a made-up total:
per day  = hourly rate x instances x 24 h; per run = per day x stuck_run_unnoticed_days (usage,
default 1 day); per month = per run x stuck runs per month
hourly rate: On-Demand, or for a managed-spot job the spot rate used elsewhere,
On-Demand x (1 - spot_discount): a stuck spot job bills spot prices.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from finlint.cost.common import (
    CostContext,
    brief_text,
    checked_cap,
    checked_instance_count,
    known,
    num,
    price_note,
    quote_json,
    spot_rate,
    unpriced,
    usd,
)
from finlint.domain import catalog
from finlint.domain.sagemaker import NO_CAP
from finlint.engine.facts import on_a_branch
from finlint.finding import Cost, Finding, Fix
from finlint.ir import (
    UNCAPPED_LAUNCHERS,
    Record,
    TrainingJob,
)
from finlint.rules.base import Rule

_DEFAULT_TEXT = {
    "sdk-estimator": "the SageMaker SDK Estimator default max_run of 86,400 s (24 h) applies",
    "sdk-remote": "the @remote default max_runtime_in_seconds of 86,400 s (24 h) applies",
    "sdk-model-trainer": "the ModelTrainer default stopping condition of 3,600 s (1 h) applies",
}


def max_runtime_default_text(record: Record) -> Any:
    """How the platform treats a missing max runtime, for FIN101's message."""
    if not isinstance(record, TrainingJob):
        return None
    if record.launcher in _DEFAULT_TEXT:
        return _DEFAULT_TEXT[record.launcher]
    note = record.default_note
    if note:
        return str(note)
    if record.launcher in UNCAPPED_LAUNCHERS:
        return f"{record.launcher} has {NO_CAP}"
    if record.max_runtime_default_s:
        return f"the default of {record.max_runtime_default_s:,} s applies"
    return "a CreateTrainingJob request without StoppingCondition is invalid"


def max_runtime_unset_on_a_branch(record: Record) -> Any:
    """Evidence that no max runtime is set, on at least one branch of the conditional that sets
    it (``max_run`` on the spot branch only): the same rule FIN201 decides spot by."""
    return on_a_branch(record, "max_runtime_s", lambda value: value is None, "no max runtime is set")


KIND = "exposure"  # what one stuck run bills: conditional, not expected


def price(finding: Finding, ctx: CostContext) -> Cost:
    job = finding.record
    if not isinstance(job, TrainingJob):
        return unpriced(KIND, "runaway-runtime prices training jobs only")
    if len(job.landing_types) > 1 and job.max_runtime_s is None and job.launcher in UNCAPPED_LAUNCHERS:
        largest = _largest_landing(job, ctx)
        if largest is not None:
            return _exposure(job, largest[0], largest[1], ctx, largest[2])
    if not known(job.instance_type):
        return unpriced(KIND, "instance type unknown or unresolved")
    itype = str(job.instance_type)
    n, n_why = checked_instance_count(job)
    if n is None:
        return unpriced(KIND, n_why or "instance count unresolved")
    if job.max_runtime_s is None and job.launcher in UNCAPPED_LAUNCHERS:
        note = f" The instance type: {job.instance_types_from}." if job.instance_types_from else ""
        return _exposure(job, itype, n, ctx, note)
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        if not cap_how and job.max_runtime_s is None:
            cap_why = "no runtime cap applies (a request without StoppingCondition is invalid)"
        return unpriced(KIND, cap_why)
    cap_s = round(cap_h * 3600)
    params = ctx.params(job)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)

    expected = params.get("expected_runtime_hours")
    billed_h = max(0.0, cap_h - float(expected)) if expected is not None else cap_h
    hourly, rate_text = quote.usd, f"{itype} {quote.rate()}"
    discount = None
    if job.spot is True:
        hourly, discount = spot_rate(quote.usd, params)
        rate_text = (
            f"managed spot {usd(hourly, exact=True)}/h "
            f"({itype} {quote.rate()} x (1 - {num(discount)} spot discount))"
        )
    if expected is not None and float(expected) > cap_h:
        return _killed_unfinished(
            job, itype, n, cap_h, cap_how, float(expected), hourly, rate_text, quote, params
        )
    per_run = hourly * n * billed_h
    stuck = float(params.get("stuck_runs_per_month", 1))
    monthly = per_run * stuck

    hours_text = f"{num(cap_h)} h cap"
    if expected is not None:
        hours_text = f"({num(cap_h)} h cap - {num(float(expected))} h expected runtime)"
    basis = (
        f"A stuck run bills until the {num(cap_h)} h cap stops it ({cap_how}, {num(cap_s)} s): "
        f"{rate_text} x {n} instance(s) x {hours_text} = {usd(per_run)} per run; "
        f"x {num(stuck)} stuck run(s) per month = {usd(monthly)}/month. {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "billed_hourly_usd": hourly,
        "spot_discount": discount,
        "instances": n,
        "cap_hours": cap_h,
        "cap_source": cap_how,
        "expected_runtime_hours": expected,
        "billed_hours_per_run": billed_h,
        "stuck_runs_per_month": stuck,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    what = f"the {num(cap_h)} h cap"
    if expected is not None:
        what = f"{num(billed_h)} h left of the {num(cap_h)} h cap"
    brief = brief_text(
        f"if a run gets stuck: {n} x {itype} billed until {what} stops it, at {usd(hourly, exact=True)}/h"
        + (" spot" if discount is not None else "")
    )
    return Cost(monthly, per_run, KIND, basis, assumptions, brief=brief)


def _killed_unfinished(
    job: TrainingJob,
    itype: str,
    n: int,
    cap_h: float,
    cap_how: str,
    expected: float,
    hourly: float,
    rate_text: str,
    quote: Any,
    params: Any,
) -> Cost:
    """The default cap is shorter than the job's expected runtime: every run is stopped before it
    finishes, and the whole capped run is lost work (expected waste, not a what-if)."""
    per_run = hourly * n * cap_h
    runs = float(params.get("runs_per_month", 1))
    monthly = per_run * runs
    basis = (
        f"The job is expected to run {num(expected)} h (usage expected_runtime_hours), but the "
        f"{num(cap_h)} h cap ({cap_how}) stops it first: every run is killed unfinished, losing "
        f"{rate_text} x {n} instance(s) x {num(cap_h)} h = {usd(per_run)} per run; x {num(runs)} run(s) "
        f"per month = {usd(monthly)}/month. Set the max runtime above the expected runtime. "
        f"{price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "billed_hourly_usd": hourly,
        "instances": n,
        "cap_hours": cap_h,
        "cap_source": cap_how,
        "expected_runtime_hours": expected,
        "killed_unfinished": True,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    brief = brief_text(
        f"every run is killed unfinished: the {num(cap_h)} h cap is below the {num(expected)} h expected; "
        f"{n} x {itype} x {num(cap_h)} h lost"
    )
    return Cost(monthly, per_run, "waste", basis, assumptions, brief=brief)


def _largest_landing(job: TrainingJob, ctx: CostContext) -> tuple[str, int, str] | None:
    """The dearest of the types the pool a job lands on admits for its pods (``linking.landing``),
    the instances its pods take of it, and the sentence that says so; None when none is priced."""
    pricing = ctx.pricing_for(ctx.params(job))
    devices = job.placement.devices if job.placement is not None else None
    best: tuple[float, str, int] | None = None
    for name in job.landing_types:
        quote, spec = pricing.hourly(name), catalog.lookup(name)
        if quote is None:
            continue
        if spec is not None and spec.accelerators and devices:
            n: int | None = math.ceil(devices / spec.accelerators)
        else:
            n, _why = checked_instance_count(job)
        if n is not None and (best is None or quote.usd * n > best[0]):
            best = (quote.usd * n, name, n)
    if best is None:
        return None
    _bill, itype, n = best
    note = (
        f" The instance type is the dearest for the pods of the {len(job.landing_types)} types they may get "
        f"({job.instance_types_from}): an upper bound, Karpenter launches the cheapest that fits."
    )
    return itype, n, note


def _exposure(job: TrainingJob, itype: str, n: int, ctx: CostContext, type_note: str = "") -> Cost:
    """No cap at all: what a stuck run bills per day it goes on, for the days the usage file says
    it goes unnoticed (``stuck_run_unnoticed_days``, default 1: the figure is one day's)."""
    params = ctx.params(job)
    pricing = ctx.pricing_for(params)
    quote = pricing.hourly(itype)
    if quote is None:
        return unpriced(KIND, pricing.missing(itype), instance_type=itype, region=pricing.region)
    per_day = quote.usd * n * 24
    days = float(params.get("stuck_run_unnoticed_days", 1))
    per_run = per_day * days
    stuck = float(params.get("stuck_runs_per_month", 1))
    monthly = per_run * stuck
    basis = (
        f"Nothing stops a stuck run ({job.launcher} has {NO_CAP}): it bills "
        f"{itype} {quote.rate()} x {n} instance(s) x 24 h = {usd(per_day)} per day it continues; "
        f"x {num(days)} day(s) unnoticed (usage stuck_run_unnoticed_days) = {usd(per_run)} per run; "
        f"x {num(stuck)} stuck run(s) per month = {usd(monthly)}/month.{type_note} {price_note(quote)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "instances": n,
        "cap_hours": None,
        "cap_source": NO_CAP,
        "exposure_per_day_usd": per_day,
        "unnoticed_days": days,
        "stuck_runs_per_month": stuck,
        "region": quote.region,
        "prices": quote_json(quote),
    }
    if job.instance_types_from:
        assumptions["instance_type_from"] = job.instance_types_from
    brief = brief_text(
        f"no cap: a stuck run bills {usd(per_day)} per day ({n} x {itype} x 24 h), {num(days)} day(s) "
        "assumed unnoticed"
    )
    return Cost(monthly, per_run, KIND, basis, assumptions, brief=brief)


#: an unsafe fix's cap: the usage file's expected_runtime_hours x this margin, else the default below
FIX_MARGIN = 1.5
FIX_DEFAULT_HOURS = 24  # the SageMaker API/SDK v2 default cap, written down where none applies
_SDK_KEYWORD = {"sdk-estimator": "max_run", "sdk-remote": "max_runtime_in_seconds"}


def _fix_hours(usage: Mapping[str, Any]) -> tuple[float, str]:
    """The cap an unsafe fix writes, and where it came from."""
    expected = usage.get("expected_runtime_hours")
    if isinstance(expected, (int, float)) and expected > 0:
        return float(
            expected
        ) * FIX_MARGIN, f"expected_runtime_hours {num(float(expected))} x {FIX_MARGIN} margin"
    return float(
        FIX_DEFAULT_HOURS
    ), f"the {FIX_DEFAULT_HOURS} h SageMaker default, no expected_runtime_hours given"


def fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """SDK launchers: write down the default cap that applies today (safe). Slurm scripts
    (``#SBATCH --time``), Kubeflow, KubeRay and GPU ``batch/v1`` jobs (``activeDeadlineSeconds``) and
    AWS Batch job definitions (CloudFormation YAML and JSON ``Timeout.AttemptDurationSeconds``,
    ``RegisterJobDefinition`` JSON ``timeout.attemptDurationSeconds``, Terraform
    ``timeout { attempt_duration_seconds }``): unsafe, no cap applies today; the value is the
    usage file's expected_runtime_hours x 1.5, else 24 h. SageMaker API requests (JSON or YAML)
    and Step Functions JSON (``StoppingCondition.MaxRuntimeInSeconds``), SageMaker ``TrainingJob`` custom
    resources (``spec.stoppingCondition.maxRuntimeInSeconds``) and Terraform
    ``aws_sagemaker_training_job`` (``stopping_condition { max_runtime_in_seconds }``): 86400,
    the 1-day default that applies today (safe)."""
    from finlint.textedit import add_keyword, call_at, yaml_source

    job = finding.record
    if not isinstance(job, TrainingJob) or job.max_runtime_s is not None:
        return None
    if job.launcher in _SDK_KEYWORD and finding.file.endswith(".py"):
        call = call_at(text, job.location.line)
        keyword = _SDK_KEYWORD[job.launcher]
        edit = call and add_keyword(finding.file, text, call, f"{keyword}=86400")
        if not edit:
            return None
        return Fix(f"write down the 24 h default that applies today: {keyword}=86400", True, (edit,))
    if job.launcher == "slurm-sbatch":
        return _slurm_fix(finding, text, usage)
    if job.launcher == "aws-batch" and job.source_format == "cloudformation":
        return _batch_cloudformation_fix(finding, text, usage) or _batch_cfn_json_fix(finding, text, usage)
    if job.launcher == "aws-batch" and job.source_format == "aws-batch-api":
        return _batch_api_fix(finding, text, usage)
    if (job.launcher, job.source_format) in _SAGEMAKER_JSON:
        return _sagemaker_json_fix(finding, text)
    if job.source_format in ("terraform", "terraform-plan") and finding.file.endswith(".tf"):
        return _terraform_fix(finding, text, usage)
    if job.launcher == "kubernetes-crd" and yaml_source(finding.file):
        return _sagemaker_crd_fix(finding, text)
    if job.launcher in _K8S_DEADLINE and yaml_source(finding.file):
        return _kubernetes_fix(finding, text, usage, _K8S_DEADLINE[job.launcher])
    return None


def _batch_cloudformation_fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``Timeout: AttemptDurationSeconds`` on an ``AWS::Batch::JobDefinition`` in a YAML template
    (unsafe: AWS Batch sets no default; a JSON template is left alone)."""
    from finlint.textedit import yaml_add_key

    job = finding.record
    if job is None or not job.address:
        return None
    hours, why = _fix_hours(usage)
    seconds = round(hours * 3600)
    path = ("Resources", job.address, "Properties", "Timeout")  # a template's address: the logical id
    edit = yaml_add_key(finding.file, text, finding.line, path, "AttemptDurationSeconds", str(seconds), 3)
    if edit is None:
        return None
    return Fix(f"set Timeout.AttemptDurationSeconds: {seconds} ({why})", False, (edit,))


#: where a Kubernetes launcher's wall-clock limit goes (the mapping under the object)
_K8S_DEADLINE = {
    "kubeflow-training-operator": ("spec", "runPolicy"),
    "kuberay": ("spec",),
    "kubernetes-job": ("spec",),
    "kubernetes-cronjob": ("spec", "jobTemplate", "spec"),
}


def _kubernetes_fix(
    finding: Finding, text: str, usage: Mapping[str, Any], path: tuple[str, ...]
) -> Fix | None:
    """``activeDeadlineSeconds`` in the object's own YAML (unsafe: no limit applies today)."""
    from finlint.textedit import yaml_add_key

    hours, why = _fix_hours(usage)
    seconds = round(hours * 3600)
    edit = yaml_add_key(finding.file, text, finding.line, path, "activeDeadlineSeconds", str(seconds))
    if edit is None:
        return None
    where = ".".join((*path, "activeDeadlineSeconds"))
    return Fix(f"set {where}: {seconds} ({why})", False, (edit,))


def _slurm_fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``#SBATCH --time`` after the last directive before the first command (sbatch reads no further)."""
    from finlint.textedit import insert_line_after

    lines = text.splitlines()
    start = finding.line
    if not 1 <= start <= len(lines) or not lines[start - 1].startswith("#SBATCH"):
        return None
    last = start
    for number in range(start, len(lines) + 1):
        stripped = lines[number - 1].strip()
        if stripped and not stripped.startswith("#"):
            break
        if lines[number - 1].startswith("#SBATCH"):
            last = number
    hours, why = _fix_hours(usage)
    minutes = max(1, round(hours * 60))
    value = f"{minutes // 1440}-{minutes % 1440 // 60:02d}:{minutes % 60:02d}:00"
    edit = insert_line_after(finding.file, text, last, f"#SBATCH --time={value}")
    return Fix(f"add #SBATCH --time={value} ({why})", False, (edit,))


#: the JSON launchers whose request takes ``StoppingCondition`` (launcher, source format)
_SAGEMAKER_JSON = (("api-request", "sagemaker-api"), ("step-functions", "step-functions"))


def _json_root_line(text: str) -> int:
    """The line of a JSON document's first character (where its root object opens)."""
    return text[: len(text) - len(text.lstrip())].count("\n") + 1


def _batch_cfn_json_fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``"Timeout": {"AttemptDurationSeconds": N}`` in a JSON template's job definition (unsafe)."""
    from finlint.textedit.json_members import json_add_key

    job = finding.record
    if job is None or not job.address or not text.lstrip().startswith("{"):
        return None
    hours, why = _fix_hours(usage)
    seconds = round(hours * 3600)
    path = ("Resources", job.address, "Properties", "Timeout")
    edit = json_add_key(
        finding.file, text, _json_root_line(text), path, "AttemptDurationSeconds", str(seconds), 3
    )
    if edit is None:
        return None
    return Fix(f"set Timeout.AttemptDurationSeconds: {seconds} ({why})", False, (edit,))


def _batch_api_fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``"timeout": {"attemptDurationSeconds": N}`` in a ``RegisterJobDefinition`` request (unsafe)."""
    from finlint.textedit.json_members import json_add_key

    job = finding.record
    if job is None:
        return None
    hours, why = _fix_hours(usage)
    seconds = round(hours * 3600)
    edit = json_add_key(
        finding.file, text, job.location.line, ("timeout",), "attemptDurationSeconds", str(seconds)
    )
    if edit is None:
        return None
    return Fix(f"set timeout.attemptDurationSeconds: {seconds} ({why})", False, (edit,))


_SAGEMAKER_KEY = "StoppingCondition.MaxRuntimeInSeconds"


def _sagemaker_json_fix(finding: Finding, text: str) -> Fix | None:
    """``"StoppingCondition": {"MaxRuntimeInSeconds": 86400}`` in a CreateTrainingJob request or a
    Step Functions task's ``Parameters`` (safe: the 1-day API default applies today)."""
    from finlint.textedit.json_members import json_add_key, json_object_at

    job = finding.record
    if not isinstance(job, TrainingJob) or job.max_runtime_default_s != FIX_DEFAULT_HOURS * 3600:
        return None
    line = job.location.line
    if job.launcher == "api-request" and not text.lstrip().startswith("{"):
        return _sagemaker_yaml_fix(finding, text, line)
    path: tuple[str, ...] = ("Parameters",) if job.launcher == "step-functions" else ()
    request = json_object_at(text, line, path)
    if (
        request is None
        or request.get("AlgorithmSpecification") is None
        and request.get("ResourceConfig") is None
    ):
        return None  # not a training request's own object (a tuning job's, a pipeline's)
    edit = json_add_key(
        finding.file, text, line, (*path, "StoppingCondition"), "MaxRuntimeInSeconds", "86400", len(path)
    )
    if edit is None:
        return None
    return Fix(
        "write down the 1-day default that applies today: StoppingCondition.MaxRuntimeInSeconds 86400",
        True,
        (edit,),
    )


def _sagemaker_yaml_fix(finding: Finding, text: str, line: int) -> Fix | None:
    """The same in a YAML request (``aws sagemaker create-training-job --cli-input-yaml``)."""
    from finlint.textedit import yaml_add_key, yaml_scalar

    if not any(
        yaml_scalar(text, line, where) is not None
        for where in (("AlgorithmSpecification", "TrainingImage"), ("ResourceConfig", "InstanceType"))
    ):
        return None  # not a training request's own document
    edit = yaml_add_key(finding.file, text, line, ("StoppingCondition",), "MaxRuntimeInSeconds", "86400", 0)
    if edit is None:
        return None
    return Fix(f"write down the 1-day default that applies today: {_SAGEMAKER_KEY} 86400", True, (edit,))


def _sagemaker_crd_fix(finding: Finding, text: str) -> Fix | None:
    """``spec.stoppingCondition.maxRuntimeInSeconds: 86400`` on a SageMaker ``TrainingJob``
    custom resource (ACK or the legacy operator), safe: the controller calls CreateTrainingJob,
    whose 1-day default applies today."""
    from finlint.textedit import yaml_add_key, yaml_scalar

    job = finding.record
    if not isinstance(job, TrainingJob) or job.max_runtime_default_s != FIX_DEFAULT_HOURS * 3600:
        return None
    line = job.location.line
    if yaml_scalar(text, line, ("kind",)) != "TrainingJob":
        return None  # a tuning job's definitions sit elsewhere: left to a person
    path = ("spec", "stoppingCondition")
    edit = yaml_add_key(finding.file, text, line, path, "maxRuntimeInSeconds", "86400", 1)
    if edit is None:
        return None
    return Fix("write down the 1-day default that applies today: maxRuntimeInSeconds 86400", True, (edit,))


_TF_RESOURCE = r'\s*resource\s+"(aws_batch_job_definition|aws_sagemaker_training_job)"'


def _terraform_fix(finding: Finding, text: str, usage: Mapping[str, Any]) -> Fix | None:
    """``timeout { attempt_duration_seconds = N }`` on ``aws_batch_job_definition`` (unsafe) and
    ``stopping_condition { max_runtime_in_seconds = 86400 }`` on ``aws_sagemaker_training_job``
    (safe: the default), in the resource's own block."""
    import re

    from finlint.textedit.hcl import hcl_add

    job = finding.record
    if not isinstance(job, TrainingJob):
        return None
    lines = text.splitlines()
    line = job.location.line
    match = re.match(_TF_RESOURCE, lines[line - 1]) if 1 <= line <= len(lines) else None
    if match is None:
        return None
    if match.group(1) == "aws_sagemaker_training_job":
        if job.max_runtime_default_s != FIX_DEFAULT_HOURS * 3600:
            return None
        edit = hcl_add(finding.file, text, line, ("stopping_condition",), "max_runtime_in_seconds", "86400")
        if edit is None:
            return None
        return Fix(
            "write down the 1-day default that applies today: max_runtime_in_seconds = 86400", True, (edit,)
        )
    hours, why = _fix_hours(usage)
    seconds = round(hours * 3600)
    edit = hcl_add(finding.file, text, line, ("timeout",), "attempt_duration_seconds", str(seconds))
    if edit is None:
        return None
    return Fix(f"set timeout {{ attempt_duration_seconds = {seconds} }} ({why})", False, (edit,))


RULE = Rule(
    "FIN101",
    facts=(max_runtime_default_text, max_runtime_unset_on_a_branch),
    cost_model="runaway-runtime",
    price=price,
    fix=fix,
    fix_safety="safe and unsafe",
)
