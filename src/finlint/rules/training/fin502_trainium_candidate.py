"""FIN502 trainium-candidate: Sustained PyTorch training on p4d/p5 On-Demand that Trainium could
run for less.

The policy is ``policies/FIN502-trainium-candidate.yaml``; this module holds its facts and its
price.

Price (trainium, savings): per run = hourly x instances x hours x trainium_saving (field
figure: 40 % lower cost per token on Trainium than A100); hours = expected_runtime_hours, else
the cap; x runs_per_month.
"""

from __future__ import annotations

import re
from typing import Any

from finlint.cost.common import (
    CostContext,
    brief_text,
    checked_cap,
    job_quote,
    jobs_per_run,
    num,
    price_note,
    quote_json,
    runs_per_month,
    unpriced,
    usd,
)
from finlint.domain import catalog
from finlint.finding import Cost, Finding
from finlint.ir import Record, TrainingJob
from finlint.rules.base import Rule

_IMAGE_FRAMEWORKS = (
    ("pytorch", re.compile(r"pytorch|torch", re.IGNORECASE)),
    ("tensorflow", re.compile(r"tensorflow", re.IGNORECASE)),
    ("mxnet", re.compile(r"mxnet", re.IGNORECASE)),
)


def training_framework(record: Record) -> Any:
    """The framework a job runs: read from its image's repository name when it has one, else the
    one its launcher names (an SDK framework class with the framework's own image).

    An explicit image that names no known framework (a custom or vendor repository such as
    ``nova-fine-tune-repo``, even behind a ``PyTorch`` estimator) is None: FIN502 stays silent.
    """
    if not isinstance(record, TrainingJob):
        return None
    image = record.training_image
    if isinstance(image, str):
        repository = image.rsplit("/", 1)[-1]
        return next((name for name, rx in _IMAGE_FRAMEWORKS if rx.search(repository)), None)
    if image is None:
        return record.framework
    return image  # Unknown: the image decides, and it is not known


#: FIN502's field figure: Trainium's cost per token of training throughput vs A100 (field guide).
TRAINIUM_SAVING = 0.40
#: a cap past a week is not a runtime (FIN102 flags it): FIN502 will not price a job at it
UNGUARDED_CAP_H = 7 * 24.0


def price_trainium(finding: Finding, ctx: CostContext) -> Cost:
    kind = "savings"
    got = job_quote(finding, ctx, kind)
    if isinstance(got, Cost):
        return got
    job, itype, n, quote, params = got
    cap_h, cap_how, cap_why = checked_cap(job)
    if cap_h is None:
        return unpriced(kind, cap_why)
    expected = params.get("expected_runtime_hours")
    if expected is None and cap_h > UNGUARDED_CAP_H:
        # FIN102's territory: a cap past a week says nothing about how long the job runs
        return unpriced(
            kind,
            f"the job would be priced at its {num(cap_h)} h cap, past a week: set expected_runtime_hours",
            cap_hours=cap_h,
        )
    run_h = min(float(expected), cap_h) if expected is not None else cap_h
    run_how = (
        "expected runtime (usage)" if expected is not None else f"the {cap_how}: a sustained job runs to it"
    )
    saving = float(finding.params.get("trainium_saving", TRAINIUM_SAVING))
    if not 0.0 <= saving <= 1.0:
        return unpriced(kind, f"trainium_saving {saving} is not a share between 0 and 1")
    per_job = quote.usd * n * run_h * saving
    jobs, jobs_how = jobs_per_run(job)
    per_run = per_job * jobs
    runs, runs_how = runs_per_month(job, params)
    monthly = per_job * runs
    trn = ctx.pricing_for(params).hourly("ml.trn1.32xlarge" if itype.startswith("ml.") else "trn1.32xlarge")
    trn_text = (
        f" For reference, {trn.key} lists {trn.rate()}: the saving is per token, not per hour." if trn else ""
    )
    h100 = catalog.family_of(itype.removeprefix("ml.")) in ("p5", "p5e", "p5en")
    up_to = "up to " if h100 else ""
    against = (
        "an upper bound here: the field figure compares Trainium with A100, and an H100 job costs "
        "less per token than an A100 one"
        if h100
        else "field figure: cost per token 40 % below A100, '40-50 % less than comparable NVIDIA offerings'"
    )
    basis = (
        f"{itype} {quote.rate()} x {n} instance(s) x {num(round(run_h, 4))} h ({run_how}) = "
        f"{usd(quote.usd * n * run_h)} per job on NVIDIA; Trainium trains the same tokens for "
        f"{up_to}{num(saving * 100)} % less ({against}): {up_to}{usd(per_job)} per job"
        + (f" x {jobs_how} = {usd(per_run)} per run" if jobs > 1 else "")
        + f"; x {runs_how} = {usd(monthly)}/month, when the model is supported by the Neuron SDK."
        f"{trn_text} {price_note(quote, trn)}"
    )
    assumptions = {
        "instance_type": itype,
        "hourly_usd": quote.usd,
        "instances": n,
        "run_hours": run_h,
        "trainium_saving": saving,
        "upper_bound": h100,
        "jobs_per_run": jobs,
        "runs_per_month": runs,
        "region": quote.region,
        "prices": quote_json(quote, trn),
    }
    brief = brief_text(
        f"saves {up_to}{num(saving * 100)} % per token on Trainium: {n} x {itype} x {num(round(run_h, 2))} h "
        f"at {quote.rate()}"
    )
    return Cost(monthly, per_run, kind, basis, assumptions, brief=brief)


RULE = Rule("FIN502", facts=(training_framework,), cost_model="trainium", price=price_trainium)
