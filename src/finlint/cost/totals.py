"""The headline figures of a run: avoidable spend and exposure, never added together.

Every priced finding has exactly one kind (:data:`KINDS`):

- ``savings``: a cheaper configuration for what bills today (a monthly run-rate difference);
- ``waste``: an expected monthly loss (probability x loss, both stated);
- ``exposure``: what it may bill or lose if something happens (a stuck job, a pool scaling to its
  limits): conditional, not expected.

The **avoidable spend** (``summary.monthly_usd``, what ``--max-monthly-usd`` gates on) is savings
plus waste, de-duplicated per resource: a resource's savings are alternatives of one another
(move to p4d, move to Trainium: only one can be done), so the largest counts, as AWS Cost
Optimization Hub keeps only the highest saving per resource; its expected wastes are distinct
losses and add. The **exposure** (``summary.exposure_usd``) is, per resource, its largest
exposure, summed over resources. A resource is what a finding's cost bills: the file system of
an EFS figure (``Cost.counted_once``), else the finding's resource.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from finlint.finding import Finding

Kind = Literal["savings", "waste", "exposure"]
KINDS: tuple[Kind, ...] = ("savings", "waste", "exposure")

#: what each kind means, for every report that prints a figure
MEANING: dict[str, str] = {
    "savings": "savings: a cheaper configuration for what bills today",
    "waste": "expected waste: probability x loss",
    "exposure": "exposure: what it may bill if it happens (not expected spend)",
}
AVOIDABLE = "avoidable spend (savings + expected waste, the largest saving per resource)"


@dataclass(frozen=True)
class Totals:
    """The run's figures by kind: ``avoidable_usd`` (savings + waste, de-duplicated per resource),
    ``exposure_usd`` (per resource the largest), how many active findings carry a figure and how
    many have none (``unpriced``: a cost model that could not price, or no cost model)."""

    avoidable_usd: float
    exposure_usd: float
    savings_usd: float
    waste_usd: float
    priced: int
    unpriced: int

    def headline(self) -> str:
        """One line for every report: the avoidable spend, and the exposure apart."""
        text = (
            f"avoidable ${self.avoidable_usd:,.0f}/month (savings ${self.savings_usd:,.0f} + "
            f"expected waste ${self.waste_usd:,.0f})"
        )
        if self.exposure_usd:
            text += f"; exposure ${self.exposure_usd:,.0f}/month if it happens (not added)"
        if self.unpriced:
            text += f"; {self.unpriced} finding(s) without a figure"
        return text

    def to_json(self) -> dict[str, object]:
        return {
            "monthly_usd": round(self.avoidable_usd, 2),
            "monthly_usd_means": AVOIDABLE,
            "savings_usd": round(self.savings_usd, 2),
            "waste_usd": round(self.waste_usd, 2),
            "exposure_usd": round(self.exposure_usd, 2),
            "priced": self.priced,
            "unpriced": self.unpriced,
        }


def resource_of(finding: Finding) -> str:
    """The bill a figure belongs to: a shared bill's resource (the EFS a claim and its workload
    describe: ``Cost.counted_once``), else the finding's resource."""
    shared = finding.cost.counted_once if finding.cost is not None else None
    return shared.resource if shared is not None else finding.resource


def totals(findings: Iterable[Finding]) -> Totals:
    """The figures of the active findings (suppressed and baselined ones never count)."""
    savings: dict[str, float] = defaultdict(float)
    waste: dict[str, float] = defaultdict(float)
    exposure: dict[str, float] = defaultdict(float)
    priced = unpriced = 0
    for f in findings:
        if not f.active:
            continue
        cost = f.cost
        if cost is None or cost.monthly_usd is None:
            unpriced += 1
            continue
        priced += 1
        key = resource_of(f)
        if cost.kind == "savings":
            savings[key] = max(savings[key], cost.monthly_usd)
        elif cost.kind == "waste":
            waste[key] += cost.monthly_usd
        else:
            exposure[key] = max(exposure[key], cost.monthly_usd)
    saved, wasted = sum(savings.values()), sum(waste.values())
    return Totals(saved + wasted, sum(exposure.values()), saved, wasted, priced, unpriced)
