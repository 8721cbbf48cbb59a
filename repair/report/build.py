"""The report: every campaign's metrics and, for each later campaign, its task-level pairing with the first."""
from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from repair.report.metrics import CampaignMetrics, load_campaign
from repair.report.pairing import Comparison, compare

REPORT_SCHEMA = "repair.report/v2"


class Report(BaseModel):
    schema_: str = Field(REPORT_SCHEMA, alias="schema")
    campaigns: list[CampaignMetrics]
    comparisons: list[Comparison] = Field(default_factory=list)
    unpaired: list[str] = Field(default_factory=list)  # later campaigns sharing no task with the first

    model_config = {"populate_by_name": True}

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)


def build_report(paths: list[Path]) -> Report:
    """Every campaign's metrics and, for each later campaign, its paired comparison with the first one."""
    campaigns = [load_campaign(p) for p in paths]
    names = [c.name for c in campaigns]
    for i, c in enumerate(campaigns):  # two directories with the same name: tell them apart by position
        if names.count(c.name) > 1:
            c.name = f"{c.name}#{i + 1}"
    comparisons, unpaired = [], []
    for c in campaigns[1:]:
        cmp = compare(campaigns[0], c)
        (comparisons.append(cmp) if cmp is not None else unpaired.append(c.name))
    return Report(campaigns=campaigns, comparisons=comparisons, unpaired=unpaired)
