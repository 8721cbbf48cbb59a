"""The bounded, knowledge-guided repair loop: forensics, retrieve, propose, gate, evaluate, checkpoint/rollback, accept.

The engine owns every decision; the worker only proposes. Bounds are checked before every worker call
and a spent bound ends the run with that bound's name as its status, keeping the best checkpoint.
"""
from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from repair.loop import forensics
from repair.loop.bounds import BoundExceeded, Bounds, Budget
from repair.loop.checkpoint import Checkpoint, Score, compact_passes, stepping_stone
from repair.errors import BadInput, CandidateLoadError
from repair.loop.judge import Judge
from repair.loop.form import Form, make_form
from repair.loop.patch import PatchRejected
from repair.engine import EvalResult
from repair.integrity import IntegrityFinding
from repair.loop.retrieve import RetrievalSource, Retriever, rule_patterns
from repair.loop.speed import SpeedCheck, SpeedOptions
from repair.loop.trajectory import Trajectory
from repair.workers import AttemptNote, CaseView, Pattern, Proposal, Usage, Worker, WorkerContext, WorkerExhausted, WorkerFailed

STALL_LIMIT = 2  # consecutive non-improving attempts before the best checkpoint is restored


@dataclass(frozen=True)
class RunConfig:
    problem: Path
    candidate: Path
    bounds: Bounds = field(default_factory=Bounds)
    k: int = 5  # patterns retrieved per query
    out: Path | None = None
    speed: SpeedOptions = field(default_factory=SpeedOptions)  # the parallelism guard and --keep-speed


@dataclass(frozen=True)
class AttemptLog:
    """What happened to one proposal; the run record's integrity history is built from these."""

    attempt: int
    # accepted, improved, changed (a stepping stone), not-improved, patch-rejected, integrity-violation, speed-refused
    outcome: str
    verdict: str  # clean, violation, not-run
    rules: tuple[str, ...] = ()
    cited: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)
    diagnosis: dict | None = None
    note: str = ""  # the worker's account of its proposal (a rule: which, where)
    base_score: Score | None = None  # the score of the kernel the proposal was applied to
    score: Score | None = None  # the proposal's score (None: it was not evaluated)
    speed: dict | None = None  # repair.loop.speed: parallelism (and device time) against the near-miss's


@dataclass
class RunOutcome:
    # repaired, already-passing, attempts, turns, tokens, wall_s, worker-exhausted, worker-failed, unsupported (the
    # backend cannot run what the near-miss uses: nothing here can judge a repair of it)
    status: str
    source: Checkpoint
    best: Checkpoint
    attempts: list[AttemptLog]
    usage: Usage
    turns: int
    retrieved: list[Pattern]
    started_at: str
    finished_at: str
    retrieval: RetrievalSource | None = None
    language: str = "python"  # python (Triton) or ascendc: what the loop's working text is
    why: str = ""  # for worker-exhausted / worker-failed / error: what happened
    out: Path | None = None
    record: object | None = None  # ingest.record.RepairRecord, set by the caller that builds it

    @property
    def repaired(self) -> bool:
        return self.status in ("repaired", "already-passing")

    @property
    def exit_code(self) -> int:
        return 0 if self.repaired else 3 if self.status == "unsupported" else 1


def run_repair(config: RunConfig, worker: Worker, retriever: Retriever, judge: Judge, *,
               clock: Callable[[], float] = time.monotonic) -> RunOutcome:
    problem_text = _read(config.problem)
    form = make_form(Path(config.problem), Path(config.candidate), problem_text, _read)
    out = config.out
    workdir = Path(tempfile.mkdtemp(prefix="repair-run-")) if out is None else out
    (workdir / "attempts").mkdir(parents=True, exist_ok=True)
    run = _Run(config, worker, retriever, judge, form, problem_text, workdir,
               Budget(config.bounds, clock=clock), Trajectory(out / "trajectory.jsonl" if out else None, clock=clock))
    try:
        run.status = run.loop()
    except BoundExceeded as e:
        run.status, run.why = e.bound, str(e)
    except WorkerExhausted as e:
        run.status, run.why = "worker-exhausted", str(e)
    except WorkerFailed as e:
        run.status, run.why = "worker-failed", str(e)
    except BaseException as e:
        run.status, run.why = "error", f"{type(e).__name__}: {e}"
        raise
    finally:
        run.finish()
        if out is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return run.outcome()


def _read(path: Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise BadInput(f"{path}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not UTF-8 text") from None


class _Run:
    def __init__(self, config, worker, retriever, judge, form: Form, problem_text, workdir, budget, trajectory):
        self.config, self.worker, self.retriever, self.judge, self.form = config, worker, retriever, judge, form
        self.problem_text, self.source_text, self.workdir = problem_text, form.source_text, workdir
        self.budget, self.trajectory = budget, trajectory
        self.started_at = _now()
        self.status, self.why = "running", ""
        self.source = self.best = self.current = None
        self.stall = 0
        self.attempts: list[AttemptLog] = []
        self.retrieved: dict[str, Pattern] = {}
        self._queries: dict[tuple, tuple[list[Pattern], list[Pattern]]] = {}  # checkpoint -> (top k, rule-carrying)
        self._free: dict[str, Pattern] = {}  # rule-carrying patterns offered; retrieved once a proposal cites one
        self.speed = SpeedCheck(config.speed, judge, trajectory)

    # -- the algorithm --------------------------------------------------------------------
    def loop(self) -> str:
        self.trajectory.log("start", problem=str(self.config.problem), candidate=str(self.config.candidate),
                            bounds=self.config.bounds.as_dict(), worker=vars(self.worker.info),
                            retrieval=vars(self.retriever.source), language=self.form.language,
                            backend=getattr(self.judge, "backend", None))
        source_path = self.form.write(self.source_text, self.workdir / "attempts", 0)
        self.source = self.best = self.current = self.judge_candidate(0, self.source_text, source_path)
        self.speed.start(self.source, source_path)
        self.trajectory.log("forensics", attempt=0, score=self.source.score.as_dict(),
                            symptom=forensics.symptom(self.source.compact, self.source.full))
        if self.accepted(self.source):
            return "already-passing"
        if self.source.compact.unsupported:  # the environment cannot judge it: no worker is asked, nothing is failed
            self.why = _unsupported_why(self.source.compact)
            return "unsupported"
        while True:
            self.budget.check()
            patterns, free = self.retrieve()
            proposal = self.propose(patterns, free)
            self.budget.attempts += 1
            if self.attempt(self.budget.attempts, proposal):
                return "repaired"

    def retrieve(self) -> tuple[list[Pattern], list[Pattern]]:
        """Query once per checkpoint the worker starts from (its failing evaluation and its code): the top k
        patterns, and every pattern that carries rules (free to try), both best first."""
        _, failing = forensics.failing_view(self.current.compact, self.current.full)
        key = (self.current.attempt, failing.tier)
        if key not in self._queries:
            hits = self.retriever.query(failing, self.current.candidate, self.config.k)
            for p in hits:
                self.retrieved.setdefault(p.id, p)
            free = rule_patterns(self.retriever, failing, self.current.candidate, self.config.k)
            self._queries[key] = (hits, free)
            for p in free:
                self._free.setdefault(p.id, p)
            self.trajectory.log("retrieve", attempt=self.current.attempt, tier=failing.tier,
                                symptom=forensics.symptom(self.current.compact, self.current.full)["label"],
                                query=getattr(self.retriever, "last_query", ""),
                                hits=[{"id": p.id, "score": p.score} for p in hits], rule_patterns=len(free))
        return self._queries[key]

    def propose(self, patterns: list[Pattern], free: list[Pattern] = ()) -> Proposal:
        ctx = WorkerContext(
            attempt=self.budget.attempts + 1,
            problem_text=self.problem_text,
            candidate_text=self.current.candidate,
            forensics=self.forensics_text(),
            labels=forensics.labels(self.current.compact, self.current.full),
            patterns=tuple(patterns),
            history=tuple(AttemptNote(a.attempt, a.outcome, ",".join(a.rules)) for a in self.attempts),
            tokens_left=self.budget.tokens_left(),
            rule_patterns=tuple(free),
            language=self.form.language,
            cases=self.case_views(),
            backend=forensics.failing_view(self.current.compact, self.current.full)[1].backend,
        )
        proposal = self.worker.propose(ctx)
        self.budget.charge(proposal.turns, proposal.usage)
        known = {p.id for p in (*patterns, *ctx.rule_patterns)}
        self.trajectory.log("propose", attempt=ctx.attempt, kind="diff" if proposal.diff is not None else "file",
                            cited=list(proposal.cited), uncited_unknown=[c for c in proposal.cited if c not in known],
                            usage=proposal.usage.as_dict(), turns=proposal.turns, note=proposal.note)
        return proposal

    def attempt(self, n: int, proposal: Proposal) -> bool:
        """Validate, gate, evaluate and checkpoint one proposal; True when it is accepted."""
        for c in proposal.cited:
            if c not in self.retrieved and c in self._free:
                self.retrieved[c] = self._free[c]
        cited = tuple(c for c in proposal.cited if c in self.retrieved)
        log = dict(attempt=n, cited=cited, usage=proposal.usage, diagnosis=proposal.diagnosis, note=proposal.note,
                   base_score=self.current.score)
        try:
            text = self.form.apply(proposal, self.current.candidate)
            path = self.form.write(text, self.workdir / "attempts", n)
        except PatchRejected as e:
            self.trajectory.log("patch", attempt=n, ok=False, reason=e.reason, message=e.message)
            # reaching for the reference is an integrity matter; a malformed patch is not
            verdict = "violation" if e.reason == "touches-reference" else "not-run"
            return self.settle(AttemptLog(outcome="patch-rejected", verdict=verdict, rules=(e.reason,), **log))
        self.trajectory.log("patch", attempt=n, ok=True, file=path.name)
        try:
            gate = self.judge.gate(path)
        except CandidateLoadError as e:  # the patched file cannot be imported: a malformed proposal, not a cheat
            self.trajectory.log("gate", attempt=n, verdict="not-run", rules=["load-error"], message=str(e))
            return self.settle(AttemptLog(outcome="patch-rejected", verdict="not-run", rules=("load-error",), **log))
        self.trajectory.log("gate", attempt=n, verdict=gate.verdict, rules=_rules(gate.findings))
        if gate.verdict != "clean":
            return self.settle(AttemptLog(outcome="integrity-violation", verdict="violation",
                                          rules=_rules(gate.findings), **log))
        self.budget.check_wall()
        checkpoint = self.judge_candidate(n, text, path)
        if checkpoint.compact.unsupported:  # the attempt reached for an API the backend lacks: not judged, not kept
            self.trajectory.log("unsupported", attempt=n, why=_unsupported_why(checkpoint.compact))
            return self.settle(AttemptLog(outcome="unsupported", verdict="clean", **log))
        log["score"] = checkpoint.score
        runtime = _runtime_findings(checkpoint)
        if runtime:
            return self.settle(AttemptLog(outcome="integrity-violation", verdict="violation", rules=runtime, **log))
        speed = log["speed"] = self.speed.check(n, checkpoint)
        flagged = (self.speed.rule(speed),) if speed is not None and speed["flagged"] else ()
        if speed is not None and speed["refused"]:  # --keep-speed: a repair that serialises the kernel is no repair
            return self.settle(AttemptLog(outcome="speed-refused", verdict="clean", rules=flagged, **log))
        if self.accepted(checkpoint):
            self.best = self.current = checkpoint
            self.trajectory.log("accept", attempt=n, score=checkpoint.score.as_dict())
            return self.settle(AttemptLog(outcome="accepted", verdict="clean", rules=flagged, **log))
        improved = checkpoint.score > self.best.score
        changed = not improved and stepping_stone(checkpoint, self.best)
        self.current = checkpoint
        if improved:
            self.best = checkpoint
            self.trajectory.log("checkpoint", attempt=n, score=checkpoint.score.as_dict())
        elif changed:  # no better, but fails otherwise: a part of a fix another change may complete
            self.trajectory.log("stepping-stone", attempt=n, score=checkpoint.score.as_dict())
        outcome = "improved" if improved else "changed" if changed else "not-improved"
        return self.settle(AttemptLog(outcome=outcome, verdict="clean", rules=flagged, **log))

    def settle(self, entry: AttemptLog) -> bool:
        """Count the attempt; two non-improving ones in a row restore the best checkpoint."""
        self.attempts.append(entry)
        if entry.outcome in ("accepted", "improved"):
            self.stall = 0
            return entry.outcome == "accepted"
        self.stall += 1
        if self.stall >= STALL_LIMIT:
            self.trajectory.log("rollback", attempt=entry.attempt, to_attempt=self.best.attempt,
                                changed=self.current is not self.best, score=self.best.score.as_dict())
            self.current = self.best
            self.stall = 0
        return False

    def judge_candidate(self, n: int, text: str, path: Path) -> Checkpoint:
        """Compact tier; the full tier only once the compact one passes."""
        compact = self.evaluate(n, path, "compact")
        full = None
        if compact_passes(compact) and compact.integrity.verdict == "clean":
            self.budget.check_wall()
            full = self.evaluate(n, path, "full")
        return Checkpoint(n, text, Score.of(compact, full), compact, full)

    def evaluate(self, n: int, path: Path, tier: str) -> EvalResult:
        result = self.judge.evaluate(path, tier)
        summary = {t: s.model_dump() for t, s in result.summary.items()}
        self.trajectory.log("evaluate", attempt=n, tier=tier, passed=result.passed, summary=summary,
                            integrity=result.integrity.verdict, seconds=round(result.wall_seconds, 3))
        return result

    def accepted(self, checkpoint: Checkpoint) -> bool:
        """Every full-tier case passes and the integrity verdict is clean."""
        full = checkpoint.full
        return (full is not None and full.passed and full.integrity.verdict == "clean"
                and bool(full.cases) and not full.failing_cases())

    # -- helpers ----------------------------------------------------------------------------
    def case_views(self) -> tuple[CaseView, ...]:
        tier, result = forensics.failing_view(self.current.compact, self.current.full)
        return tuple(CaseView.of(c) for c in ([c for c in result.cases if c.tier == tier] or result.cases))

    def forensics_text(self) -> str:
        return forensics.render(self.current.compact, self.current.full)

    def finish(self) -> None:
        self.finished_at = _now()
        final = self.best.candidate if self.best is not None else self.source_text
        if self.config.out is not None:
            self.form.write_final(final, self.config.out)
        spent = self.budget.spent()
        spent["wall_s"] = round(spent["wall_s"], 3)
        self.trajectory.log("end", status=self.status, why=self.why, spent=spent, usage=self.budget.usage.as_dict(),
                            best_attempt=self.best.attempt if self.best else None,
                            best_score=self.best.score.as_dict() if self.best else None)
        self.trajectory.close()

    def outcome(self) -> RunOutcome:
        return RunOutcome(
            status=self.status, source=self.source, best=self.best, attempts=self.attempts,
            usage=self.budget.usage, turns=self.budget.turns, retrieved=list(self.retrieved.values()),
            started_at=self.started_at, finished_at=self.finished_at, retrieval=self.retriever.source, why=self.why,
            out=self.config.out, language=self.form.language,
        )


def _unsupported_why(result: EvalResult) -> str:
    case = next(c for c in result.cases if c.status == "unsupported")
    return (case.message.strip().splitlines() or ["unsupported"])[0]


def _rules(findings: list[IntegrityFinding]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f.rule for f in findings))


def _runtime_findings(checkpoint: Checkpoint) -> tuple[str, ...]:
    verdicts = [checkpoint.compact.integrity] + ([checkpoint.full.integrity] if checkpoint.full else [])
    return tuple(dict.fromkeys(f.rule for v in verdicts if v.verdict != "clean" for f in v.findings)) or (
        ("runtime-violation",) if any(v.verdict != "clean" for v in verdicts) else ())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
