"""The numbers of a campaign report, computed from campaign ledgers (never from the run directories)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from repair.campaign import Ledger
from repair.report.stats import PairedTable, pass_at_k, wilson_interval

REPORT_SCHEMA = "repair.report/v1"


class Rate(BaseModel):
    """A proportion with its Wilson 95% interval; `value` may differ from successes/n for averaged Pass@k."""

    value: float | None
    successes: float
    n: int
    low: float
    high: float

    @classmethod
    def of(cls, successes: int, n: int, value: float | None = None) -> Rate:
        low, high = wilson_interval(successes, n)
        return cls(value=value if value is not None else (successes / n if n else None),
                   successes=successes, n=n, low=low, high=high)


class Unit(BaseModel):
    key: str
    operator_id: str
    label: str  # candidate stem or trial-N
    status: str  # repaired, failed, crashed, pending, running


class CampaignMetrics(BaseModel):
    name: str
    path: str
    kind: str
    worker: str
    model: str | None = None
    ablations: list[str] = Field(default_factory=list)
    snapshot: str | None = None
    trials: int = 1
    operators: int
    runs: int
    finished: int
    repaired: int
    crashed: int
    pass_at_1: Rate
    pass_at_k: Rate | None = None  # regenerate: Pass@K with K = trials
    tokens: int
    uncached_tokens: int
    tokens_per_success: float | None
    uncached_tokens_per_success: float | None
    mean_attempts: float | None
    mean_wall_s: float | None
    workflow_accepted: int
    integrity_rejected: int
    full_rejected: int
    gate_rejected: int
    integrity_rejection: Rate
    full_tier_rejection: Rate
    gate_rejection: Rate  # either gate
    full_tier_shadow: bool
    patterns_cited_per_success: float | None
    stop_reasons: dict[str, int]
    units: list[Unit]

    def outcomes(self) -> dict[str, bool]:
        return {u.key: u.status == "repaired" for u in self.units if u.status in ("repaired", "failed", "crashed")}

    def operator_outcomes(self) -> dict[str, bool]:
        """Per operator: any finished unit repaired (for a regeneration: the Pass@K indicator)."""
        out: dict[str, bool] = {}
        for u in self.units:
            if u.status in ("repaired", "failed", "crashed"):
                out[u.operator_id] = out.get(u.operator_id, False) or u.status == "repaired"
        return out


class Comparison(BaseModel):
    a: str
    b: str
    level: str  # run: same runs in both; task: each near-miss against its operator's regeneration; operator
    pairs: int
    both: int
    only_a: int
    only_b: int
    neither: int
    mcnemar_p: float
    tokens_per_success_a: float | None
    tokens_per_success_b: float | None
    tokens_per_success_diff: float | None  # a - b
    tokens_per_success_reduction: float | None  # 1 - a/b: "a needs this share fewer tokens per success"


def load_campaign(path: Path) -> CampaignMetrics:
    ledger = Ledger(Path(path), read_only=True)
    config = ledger.config()
    rows = ledger.runs()
    finished = [r.outcome for r in rows if r.outcome is not None]
    successes = [o for o in finished if o.status == "repaired"]
    tokens = sum(o.total_tokens for o in finished)
    uncached = sum(o.total_tokens - o.cached_tokens for o in finished)
    accepted = sum(o.workflow_accepted for o in finished)
    integrity = sum(o.integrity_rejected for o in finished)
    full = sum(o.full_rejected for o in finished)
    either = sum(o.gate_rejected for o in finished)
    units = [Unit(key=r.key, operator_id=r.operator_id, label=r.key.split("/", 1)[-1],
                  status=r.outcome.status if r.outcome else ("running" if r.starts else "pending")) for r in rows]
    p1, pk = _pass_rates(config.kind, config.trials, units)
    return CampaignMetrics(
        name=Path(path).resolve().name, path=str(path), kind=config.kind, worker=config.worker, model=config.model,
        ablations=config.ablations, snapshot=config.snapshot, trials=config.trials,
        operators=len({r.operator_id for r in rows}), runs=len(rows), finished=len(finished),
        repaired=len(successes), crashed=sum(o.status == "crashed" for o in finished),
        pass_at_1=p1, pass_at_k=pk,
        tokens=tokens, uncached_tokens=uncached,
        tokens_per_success=tokens / len(successes) if successes else None,
        uncached_tokens_per_success=uncached / len(successes) if successes else None,
        mean_attempts=_mean([o.attempts for o in finished]), mean_wall_s=_mean([o.wall_s for o in finished]),
        workflow_accepted=accepted, integrity_rejected=integrity, full_rejected=full, gate_rejected=either,
        integrity_rejection=Rate.of(integrity, accepted), full_tier_rejection=Rate.of(full, accepted),
        gate_rejection=Rate.of(either, accepted),
        full_tier_shadow="no-full-tier" in config.ablations,
        patterns_cited_per_success=_mean([len(o.cited) for o in successes]),
        stop_reasons=dict(sorted(Counter(o.stop_reason for o in finished).items())),
        units=units,
    )


def _pass_rates(kind: str, trials: int, units: list[Unit]) -> tuple[Rate, Rate | None]:
    done = [u for u in units if u.status in ("repaired", "failed", "crashed")]
    wins = sum(u.status == "repaired" for u in done)
    if kind != "regenerate":
        return Rate.of(wins, len(done)), None
    per_op: dict[str, list[bool]] = {}
    for u in done:
        per_op.setdefault(u.operator_id, []).append(u.status == "repaired")
    # Pass@1 averages each operator's success share; its interval is over all trials.
    p1 = sum(sum(v) / len(v) for v in per_op.values()) / len(per_op) if per_op else None
    complete = {op: v for op, v in per_op.items() if len(v) >= trials}
    pk_values = [pass_at_k(len(v), sum(v), trials) for v in complete.values()]
    pk_wins = sum(any(v) for v in complete.values())
    pk = Rate.of(pk_wins, len(complete), sum(pk_values) / len(pk_values) if pk_values else None)
    return Rate.of(wins, len(done), p1), pk


def compare(a: CampaignMetrics, b: CampaignMetrics) -> Comparison | None:
    """Paired outcomes on the runs (or operators) both campaigns finished; None when they share none."""
    level, oa, ob = _paired(a, b)
    if not oa:
        return None
    table = PairedTable.from_outcomes(oa, ob)
    ta, tb = a.tokens_per_success, b.tokens_per_success
    return Comparison(
        a=a.name, b=b.name, level=level, pairs=len(set(oa) & set(ob)),
        both=table.both, only_a=table.only_a, only_b=table.only_b, neither=table.neither, mcnemar_p=table.mcnemar_p,
        tokens_per_success_a=ta, tokens_per_success_b=tb,
        tokens_per_success_diff=ta - tb if ta is not None and tb is not None else None,
        tokens_per_success_reduction=1 - ta / tb if ta is not None and tb else None,
    )


def _paired(a: CampaignMetrics, b: CampaignMetrics) -> tuple[str, dict[str, bool], dict[str, bool]]:
    if a.kind == b.kind == "debug" or (a.kind == b.kind and a.trials == b.trials):
        oa, ob = a.outcomes(), b.outcomes()
        shared = set(oa) & set(ob)
        if shared:
            return "run", {k: oa[k] for k in shared}, {k: ob[k] for k in shared}
    if a.kind != b.kind:
        debug, regen = (a, b) if a.kind == "debug" else (b, a)
        ops = regen.operator_outcomes()
        d = {k: v for k, v in debug.outcomes().items() if k.split("/", 1)[0] in ops}
        r = {k: ops[k.split("/", 1)[0]] for k in d}
        return "task", *((d, r) if a is debug else (r, d))
    oa, ob = a.operator_outcomes(), b.operator_outcomes()
    shared = set(oa) & set(ob)
    return "operator", {k: oa[k] for k in shared}, {k: ob[k] for k in shared}


class Report(BaseModel):
    schema_: str = Field(REPORT_SCHEMA, alias="schema")
    campaigns: list[CampaignMetrics]
    comparisons: list[Comparison] = Field(default_factory=list)
    unpaired: list[str] = Field(default_factory=list)  # later campaigns sharing no run or operator with the first

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


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
