"""Task-level pairing of two campaigns: one outcome per task per arm, and the exact McNemar test where it is justified.

A task is an operator. Each campaign gives one outcome per task by a fixed rule (metrics.TASK_RULES: a debug
campaign counts the task's first near-miss by name, a regeneration any of its K trials), so a task with
several near-misses is one pair, not several that share the regeneration's outcome and shrink the p-value.
"""
from __future__ import annotations

from pydantic import BaseModel

from repair.report.metrics import TASK_RULES, CampaignMetrics, Task
from repair.report.stats import PairedTable


def near_miss_note(kind_a: str, kind_b: str) -> str:
    """Why the report offers no test on near-miss pairs."""
    regen = " and a regeneration has one outcome per task" if "regenerate" in (kind_a, kind_b) else ""
    return (f"No near-miss-level test: the near-misses of one task share its difficulty{regen}, "
            "so pairs of near-misses are not independent and their p-value would be too small.")


class Comparison(BaseModel):
    a: str
    b: str
    level: str = "task"
    kind_a: str
    kind_b: str
    rule_a: str  # how `a` decides each task (TASK_RULES of its kind)
    rule_b: str
    pairs: int  # tasks both campaigns decided
    both: int
    only_a: int
    only_b: int
    neither: int
    only_a_tasks: list[str]
    only_b_tasks: list[str]
    undecided: int  # tasks both campaigns hold that one of them has not decided yet: left out
    set_aside_a: int  # near-misses of the paired tasks that do not count (debug)
    set_aside_b: int
    mcnemar_p: float | None  # None: refused, see no_test
    no_test: str | None = None
    tokens_per_success_a: float | None  # each campaign's own tokens (a debug campaign's: repairs only)
    tokens_per_success_b: float | None
    tokens_per_success_diff: float | None  # a - b
    tokens_per_success_reduction: float | None  # 1 - a/b: "a needs this share fewer tokens per success"
    end_to_end_a: float | None  # CampaignMetrics.end_to_end_tokens_per_success
    end_to_end_b: float | None
    end_to_end_reduction: float | None


def compare(a: CampaignMetrics, b: CampaignMetrics) -> Comparison | None:
    """The tasks both campaigns hold, paired one outcome per task; None when they share no task."""
    ta, tb = {t.operator_id: t for t in a.tasks}, {t.operator_id: t for t in b.tasks}
    shared = sorted(set(ta) & set(tb))
    if not shared:
        return None
    pairs = [op for op in shared if ta[op].recovered is not None and tb[op].recovered is not None]
    oa, ob = {op: bool(ta[op].recovered) for op in pairs}, {op: bool(tb[op].recovered) for op in pairs}
    table = PairedTable.from_outcomes(oa, ob)
    no_test = refusal(a, b, [(ta[op], tb[op]) for op in pairs])
    return Comparison(
        a=a.name, b=b.name, kind_a=a.kind, kind_b=b.kind, rule_a=TASK_RULES[a.kind], rule_b=TASK_RULES[b.kind], pairs=len(pairs),
        both=table.both, only_a=table.only_a, only_b=table.only_b, neither=table.neither,
        only_a_tasks=[op for op in pairs if oa[op] and not ob[op]],
        only_b_tasks=[op for op in pairs if ob[op] and not oa[op]],
        undecided=len(shared) - len(pairs),
        set_aside_a=sum(ta[op].set_aside for op in pairs), set_aside_b=sum(tb[op].set_aside for op in pairs),
        mcnemar_p=None if no_test else table.mcnemar_p, no_test=no_test,
        tokens_per_success_a=a.tokens_per_success, tokens_per_success_b=b.tokens_per_success,
        tokens_per_success_diff=_diff(a.tokens_per_success, b.tokens_per_success),
        tokens_per_success_reduction=_reduction(a.tokens_per_success, b.tokens_per_success),
        end_to_end_a=a.end_to_end_tokens_per_success, end_to_end_b=b.end_to_end_tokens_per_success,
        end_to_end_reduction=_reduction(a.end_to_end_tokens_per_success, b.end_to_end_tokens_per_success),
    )


def refusal(a: CampaignMetrics, b: CampaignMetrics, pairs: list[tuple[Task, Task]]) -> str | None:
    """Why a McNemar test on these task pairs could not be justified; None when it can."""
    if not pairs:
        return "no task is decided in both campaigns yet"
    if a.cohort_sha256 and b.cohort_sha256 and a.cohort_sha256 != b.cohort_sha256:
        return (f"the campaigns ran different cohort manifests ({a.cohort_sha256[:12]} vs {b.cohort_sha256[:12]}), "
                "so an operator id need not name the same task in both")
    if a.kind == b.kind == "debug":
        differ = [(x.operator_id, x.decided_by[0], y.decided_by[0]) for x, y in pairs if x.decided_by != y.decided_by]
        if differ:
            op, da, db = differ[0]
            return (f"{len(differ)} task(s) are decided by different near-misses (e.g. {op}: {da} in {a.name}, "
                    f"{db} in {b.name}), so a pair would not compare one input under two settings")
    return None


def _diff(x: float | None, y: float | None) -> float | None:
    return x - y if x is not None and y is not None else None


def _reduction(x: float | None, y: float | None) -> float | None:
    return 1 - x / y if x is not None and y else None
