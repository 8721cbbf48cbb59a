"""The report: every campaign's metrics and, for each later campaign, its task-level pairing with the first."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from repair.report.metrics import CampaignMetrics, Task, Unit, load_campaign
from repair.report.pairing import Comparison, compare

REPORT_SCHEMA = "repair.report/v3"  # v3: each run names its files


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


@dataclass(frozen=True)
class OutcomeCell:
    """One campaign's outcome for one operator: its task, and each run with whether it alone decides the task (a
    debug campaign's first near-miss by name, where the operator has several)."""

    task: Task | None
    runs: list[tuple[Unit, bool]]


@dataclass(frozen=True)
class OutcomeRow:
    operator: str
    cells: list[OutcomeCell]  # one per campaign
    only: list[str | None]  # one per comparison: the campaign that alone recovered the task, if one did


def outcome_rows(report: Report) -> list[OutcomeRow]:
    """The outcome grid every format draws (Markdown, HTML table, SVG): one row per operator, sorted."""
    rows = []
    for op in sorted({u.operator_id for c in report.campaigns for u in c.units}):
        cells = []
        for c in report.campaigns:
            task = c.task(op)
            units = [u for u in c.units if u.operator_id == op]
            alone = c.kind == "debug" and len(units) > 1 and task is not None
            cells.append(OutcomeCell(task, [(u, alone and u.label in task.decided_by) for u in units]))
        only = [x.a if op in x.only_a_tasks else x.b if op in x.only_b_tasks else None for x in report.comparisons]
        rows.append(OutcomeRow(op, cells, only))
    return rows
