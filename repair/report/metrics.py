"""The numbers of a campaign report, computed from campaign ledgers (never from the run directories)."""
from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field

from repair.campaign import FINISHED, RUNS, Ledger, integrity_level
from repair.report.stats import pass_at_k, wilson_interval

# How each kind of campaign gives one outcome per task (operator): stated in every report that pairs them.
TASK_RULES = {
    "debug": "its first near-miss by name (natural order) is repaired; its other near-misses are set aside",
    "regenerate": "any of its K trials passes (Pass@K, all K finished)",
}


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
    status: str  # repaired, failed, crashed, unsupported, pending, running
    tokens: int = 0  # prompt + completion tokens of the run
    generation_tokens: int | None = None  # debug: what generating the near-miss cost, when the manifest said
    integrity: str | None = None  # worst finding level over its attempts (cheat, policy, note, clean); None unfinished
    integrity_rules: list[str] = Field(default_factory=list)  # the rules of its findings at that level
    files: dict[str, str] = Field(default_factory=dict)  # what its run directory holds: kind -> path (RUN_FILES)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def judged(self) -> bool:
        """Finished with a verdict on the worker (an `unsupported` near-miss has none)."""
        return self.finished and self.status != "unsupported"


class Task(BaseModel):
    """One task (operator) of a campaign with its one outcome under TASK_RULES[kind]."""

    operator_id: str
    decided_by: list[str]  # the labels of the runs that decide it: the first near-miss, or the K trials
    recovered: bool | None  # None while a deciding run has not finished
    tokens: int  # debug: the counted repair's tokens; regenerate: its trials' up to the first success (a user stops there)
    generation_tokens: int | None = None  # debug: generating the counted near-miss, when the manifest said
    set_aside: int = 0  # debug: the task's near-misses that do not count


class CampaignMetrics(BaseModel):
    name: str
    path: str
    kind: str
    worker: str
    model: str | None = None
    ablations: list[str] = Field(default_factory=list)
    snapshot: str | None = None
    cohort_sha256: str | None = None  # the cohort manifest's hash (None: a single problem)
    backend: str = "triton-cpu"  # what every run's evaluations ran on (the campaign's config)
    emulated: bool = False  # that backend emulates its hardware (ascendc-cpu): the figures are not the NPU's
    created_at: str | None = None  # when the campaign was first started
    policy: str = "strict"  # the integrity policy its runs were judged under
    trials: int = 1
    operators: int
    runs: int
    finished: int
    repaired: int
    crashed: int
    unsupported: int = 0  # runs whose near-miss the backend cannot judge: in no rate
    pass_at_1: Rate
    pass_at_k: Rate | None = None  # regenerate: Pass@K with K = trials
    task_rate: Rate  # tasks recovered under TASK_RULES[kind], of the tasks decided
    tokens: int
    uncached_tokens: int
    tokens_per_success: float | None  # this campaign's own tokens: a debug campaign's repairs only
    uncached_tokens_per_success: float | None
    generation_given: int  # debug: finished runs whose near-miss's generation cost the manifest gave
    generation_tokens: int | None  # debug: their sum, when given for every finished run
    generation_models: list[str] = Field(default_factory=list)
    # End to end: debug, its repairs plus generating its near-misses (None unless given for every finished run);
    # regenerate, the same as tokens_per_success (every token of it is a generation).
    end_to_end_tokens_per_success: float | None
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
    # speed (repair.loop.speed): KernelBench's fast_p over the finished runs, repaired and more than p times faster
    # than the reference (None: no run was timed; the CPU backends never time), and the parallelism guard's counts
    fast_1: Rate | None = None
    fast_1_2: Rate | None = None
    speed_measured: int = 0  # finished runs whose final kernel had parallelism figures to compare
    speed_flagged: int = 0  # ... of them flagged (shrunk past the guard's factor, or slower on a device)
    speed_refused: int = 0  # attempts --keep-speed refused
    units: list[Unit]
    tasks: list[Task]

    def task(self, operator_id: str) -> Task | None:
        return next((t for t in self.tasks if t.operator_id == operator_id), None)

    def cost_curve(self, generation: bool = False) -> list[tuple[int, int]] | None:
        """(cumulative tokens, tasks recovered) after each decided task in name order, from (0, 0); with
        `generation`, a debug campaign's counted near-misses' generation added (None where not given)."""
        decided = [t for t in self.tasks if t.recovered is not None]
        if generation and (self.kind != "debug" or not decided or any(t.generation_tokens is None for t in decided)):
            return None
        points, spent, won = [(0, 0)], 0, 0
        for t in decided:
            spent += t.tokens + ((t.generation_tokens or 0) if generation else 0)
            won += t.recovered
            points.append((spent, won))
        return points


# a run directory's files a reader opens, in the order a page links them
RUN_FILES = (("diff", "final.diff"), ("trajectory", "trajectory.jsonl"), ("record", "record.json"),
             ("final", "final.py"), ("final", "final.bundle"))


def run_files(campaign: Path, key: str) -> dict[str, str]:
    """The files of RUN_FILES that run `key` left, each as its path."""
    run_dir = campaign / RUNS / key
    found: dict[str, str] = {}
    for kind, name in RUN_FILES:
        if kind not in found and (run_dir / name).is_file():
            found[kind] = str(run_dir / name)
    return found


def load_campaign(path: Path) -> CampaignMetrics:
    ledger = Ledger(Path(path), read_only=True)
    config = ledger.config()
    rows = ledger.runs()
    costs = ledger.generation_costs()
    finished = [r.outcome for r in rows if r.outcome is not None]
    successes = [o for o in finished if o.status == "repaired"]
    tokens = sum(o.total_tokens for o in finished)
    uncached = sum(o.total_tokens - o.cached_tokens for o in finished)
    accepted = sum(o.workflow_accepted for o in finished)
    integrity = sum(o.integrity_rejected for o in finished)
    full = sum(o.full_rejected for o in finished)
    either = sum(o.gate_rejected for o in finished)
    units = [Unit(key=r.key, operator_id=r.operator_id, label=r.key.split("/", 1)[-1],
                  status=r.outcome.status if r.outcome else ("running" if r.starts else "pending"),
                  tokens=r.outcome.total_tokens if r.outcome else 0,
                  generation_tokens=costs[r.key].tokens if r.key in costs else None,
                  files=run_files(Path(path), r.key), **_integrity(r.outcome)) for r in rows]
    units.sort(key=lambda u: (u.operator_id, natural_key(u.label)))
    given = [costs[o.key] for o in finished if o.key in costs]
    generation = sum(g.tokens for g in given) if finished and len(given) == len(finished) else None
    per_success = (lambda n: n / len(successes) if successes and n is not None else None)
    p1, pk = _pass_rates(config.kind, config.trials, units)
    tasks = task_outcomes(config.kind, config.trials, units)
    decided = [t for t in tasks if t.recovered is not None]
    return CampaignMetrics(
        name=Path(path).resolve().name, path=str(path), kind=config.kind, worker=config.worker, model=config.model,
        ablations=config.ablations, snapshot=config.snapshot, trials=config.trials,
        backend=config.backend, emulated=_emulated(config.backend), created_at=ledger.created_at(),
        policy=config.policy,
        cohort_sha256=config.manifest_sha256 if config.manifest else None,
        operators=len({r.operator_id for r in rows}), runs=len(rows), finished=len(finished),
        repaired=len(successes), crashed=sum(o.status == "crashed" for o in finished),
        unsupported=sum(o.status == "unsupported" for o in finished),
        pass_at_1=p1, pass_at_k=pk, task_rate=Rate.of(sum(t.recovered for t in decided), len(decided)),
        tokens=tokens, uncached_tokens=uncached,
        tokens_per_success=per_success(tokens), uncached_tokens_per_success=per_success(uncached),
        generation_given=len(given), generation_tokens=generation,
        generation_models=sorted({g.model for g in given if g.model}),
        end_to_end_tokens_per_success=per_success(tokens if config.kind == "regenerate"
                                                  else None if generation is None else tokens + generation),
        mean_attempts=_mean([o.attempts for o in finished]), mean_wall_s=_mean([o.wall_s for o in finished]),
        workflow_accepted=accepted, integrity_rejected=integrity, full_rejected=full, gate_rejected=either,
        integrity_rejection=Rate.of(integrity, accepted), full_tier_rejection=Rate.of(full, accepted),
        gate_rejection=Rate.of(either, accepted),
        full_tier_shadow="no-full-tier" in config.ablations,
        patterns_cited_per_success=_mean([len(o.cited) for o in successes]),
        stop_reasons=dict(sorted(Counter(o.stop_reason for o in finished).items())),
        **_speed(finished),
        units=units, tasks=tasks,
    )


def _speed(finished: list) -> dict:
    timed = any(o.speedup is not None for o in finished)

    def fast(p: float) -> Rate | None:
        wins = sum(1 for o in finished if o.status == "repaired" and o.speedup is not None and o.speedup > p)
        return Rate.of(wins, len(finished)) if timed else None

    return {"fast_1": fast(1.0), "fast_1_2": fast(1.2),
            "speed_measured": sum(o.speed_flagged is not None for o in finished),
            "speed_flagged": sum(bool(o.speed_flagged) for o in finished),
            "speed_refused": sum(o.speed_refused for o in finished)}


def _integrity(outcome) -> dict:
    if outcome is None:
        return {}
    level = integrity_level(outcome.findings)
    rules = sorted({f.rule for f in outcome.findings if (f.level or "cheat") == level})
    return {"integrity": level, "integrity_rules": rules}


def _emulated(backend: str) -> bool:
    from repair.engine import BACKENDS

    return bool(getattr(BACKENDS.get(backend), "emulated", False))


def task_outcomes(kind: str, trials: int, units: list[Unit]) -> list[Task]:
    """One Task per operator, in name order, decided by TASK_RULES[kind]."""
    per_op: dict[str, list[Unit]] = {}
    for u in units:
        per_op.setdefault(u.operator_id, []).append(u)
    tasks = []
    for op in sorted(per_op):
        mine = sorted(per_op[op], key=lambda u: natural_key(u.label))
        if kind == "regenerate":
            done = [u for u in mine if u.judged]
            recovered = any(u.status == "repaired" for u in done) if len(done) >= trials else None
            first = next((i for i, u in enumerate(mine) if u.status == "repaired"), len(mine) - 1)
            tasks.append(Task(operator_id=op, decided_by=[u.label for u in mine], recovered=recovered,
                              tokens=sum(u.tokens for u in mine[: first + 1])))
        else:
            head = mine[0]
            tasks.append(Task(operator_id=op, decided_by=[head.label],
                              recovered=head.status == "repaired" if head.judged else None,
                              tokens=head.tokens, generation_tokens=head.generation_tokens, set_aside=len(mine) - 1))
    return tasks


def natural_key(label: str) -> list:
    """Sort key that reads digit runs as numbers: nearmiss_2 before nearmiss_10."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"(\d+)", label)]


def _pass_rates(kind: str, trials: int, units: list[Unit]) -> tuple[Rate, Rate | None]:
    done = [u for u in units if u.judged]
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


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
