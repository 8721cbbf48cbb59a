"""Build the repair record (ingest.record.RepairRecord) of a finished run, for `kb ingest`, and write it beside the run."""
from __future__ import annotations

import os

from ingest.record import (
    Code,
    Diagnosis,
    Evidence,
    IntegrityAttempt,
    Operator,
    RepairRecord,
    Retrieval,
    Speed,
    Symptom,
    Worker,
)
from ingest.patch import unified_diff  # the diff the ingest gate re-applies, so it must round-trip there
from provenance.canonical import content_hash, sha256_text
from provenance.redact import redact
from provenance.version import tool_version
from repair.loop import forensics
from repair.loop.algorithm import RunConfig, RunOutcome, run_repair
from repair.loop.judge import Judge
from repair.loop.retrieve import Retriever
from repair.engine import EvalResult
from repair.workers import Pattern, WorkerInfo
from repair.workers import Worker as LoopWorker  # ingest.record's Worker is the record's field

RECORD = "record.json"
DIFF = "final.diff"  # the record's diff as a file of its own, so a report page can link to it


def run_and_record(config: RunConfig, worker: LoopWorker, retriever: Retriever, judge: Judge, *,
                   backend: str) -> RunOutcome:
    """run_repair, then the run's record on the outcome and, with config.out, in record.json (its diff also in
    final.diff) beside final.py and trajectory.jsonl; a run that ended before its near-miss was evaluated has
    none, nor one whose near-miss the backend cannot judge (`unsupported`: there is no repair to learn from)."""
    outcome = run_repair(config, worker, retriever, judge)
    if outcome.source is not None and outcome.status != "unsupported":
        outcome.record = build_record(outcome, worker.info, backend=backend, rules_off=judge.rules_off,
                                      policy=getattr(judge, "policy", "strict"), speed=config.speed,
                                      problem_name=config.problem.name, candidate_name=config.candidate.name)
        if config.out is not None:
            for name, text in ((DIFF, outcome.record.diff), (RECORD, outcome.record.to_json() + "\n")):
                tmp = config.out / (name + ".tmp")
                tmp.write_text(redact(text), encoding="utf-8")  # a last net
                os.replace(tmp, config.out / name)
    return outcome


def build_record(outcome: RunOutcome, worker: WorkerInfo, *, backend: str, rules_off: tuple[str, ...] = (),
                 policy: str = "strict", speed=None,
                 problem_name: str = "problem.py", candidate_name: str = "candidate.py") -> RepairRecord:
    """Accepted runs give status "repaired"; every other run "failed", with its best checkpoint as `repaired`."""
    if outcome.source is None:
        raise ValueError("the run ended before the near-miss was evaluated; there is nothing to record")
    source, best = outcome.source, outcome.best
    status = "repaired" if outcome.status == "repaired" else "failed"
    ascendc = outcome.language == "ascendc"  # its code is the candidate's bundle (repair.ascendc.bundle)
    final_eval = best.full or best.compact
    cited = _cited(outcome)
    record = dict(
        status=status,
        operator=Operator(id=source.compact.operator_id, family=source.compact.family,
                          problem_sha256=source.compact.problem_sha256),
        backend=backend,
        language="ascendc" if ascendc else "triton",
        emulated=bool(source.compact.emulated),
        source=Code(code=source.candidate, sha256=sha256_text(source.candidate)),
        repaired=Code(code=best.candidate, sha256=sha256_text(best.candidate)),
        diff=unified_diff(source.candidate, best.candidate, path=f"{candidate_name}.bundle" if ascendc else candidate_name),
        symptom=Symptom(**forensics.symptom(source.compact, source.full)),
        diagnosis=_diagnosis(outcome, cited),
        evidence=_evidence(final_eval, best.compact, backend),
        integrity_history=[
            IntegrityAttempt(attempt=a.attempt, verdict=a.verdict,
                             rules=list(a.rules) if a.verdict == "violation" else [], rules_off=list(rules_off),
                             policy=policy)
            for a in outcome.attempts
        ],
        worker=Worker(kind=worker.kind, model=worker.model, prompt_template_sha256=worker.prompt_template_sha256,
                      prompt_tokens=outcome.usage.prompt_tokens, completion_tokens=outcome.usage.completion_tokens,
                      cached_tokens=outcome.usage.cached_tokens),
        retrieval=Retrieval(snapshot_id=_source(outcome, "snapshot_id"), kb_version=_source(outcome, "kb_version"),
                            retrieved=[p.id for p in outcome.retrieved], cited=cited),
        rules=[],
        speed=_speed(outcome, speed),
        tool_version=tool_version(),
        started_at=outcome.started_at,
        finished_at=outcome.finished_at,
    )
    run_id = content_hash({
        "operator": record["operator"].model_dump(), "source": record["source"].sha256,
        "repaired": record["repaired"].sha256, "worker": record["worker"].model_dump(),
        "started_at": outcome.started_at, "status": status,
    })[:24]
    return RepairRecord(run_id=run_id, **record)


def _cited(outcome: RunOutcome) -> list[str]:
    return list(dict.fromkeys(c for a in outcome.attempts for c in a.cited))


def _diagnosis(outcome: RunOutcome, cited: list[str]) -> Diagnosis:
    """The worker's own diagnosis of the accepted (or last) attempt, else the top cited pattern's, else the symptom;
    a model's explanation (its prose, when it ignored the TITLE:/ROOT_CAUSE: lines) is the root cause then."""
    said = next((a.diagnosis["explanation"] for a in reversed(outcome.attempts)
                 if a.diagnosis and a.diagnosis.get("explanation")), None)
    for attempt in reversed(outcome.attempts):
        d = attempt.diagnosis or {}
        if d.get("bug_class") and d.get("fix"):
            return Diagnosis(title=str(d.get("title") or d["bug_class"]), bug_class=str(d["bug_class"]),
                             root_cause=str(d.get("root_cause") or d.get("explanation") or "not stated"),
                             fix=str(d["fix"]))
        if attempt.outcome == "accepted":
            break
    patterns: dict[str, Pattern] = {p.id: p for p in outcome.retrieved}
    for pid in cited:
        p = patterns.get(pid)
        if p is not None and p.bug_class:
            return Diagnosis(title=p.title or p.bug_class, bug_class=p.bug_class,
                             root_cause=said or f"as in pattern {p.id}", fix=p.fix or "see diff")
    label = forensics.symptom(outcome.source.compact, outcome.source.full)["label"]
    return Diagnosis(title=f"{label} in {outcome.source.compact.operator_id}", bug_class="unclassified",
                     root_cause=said or f"not stated by the worker; the evaluation showed {label}", fix="see diff")


def _evidence(final: EvalResult, compact: EvalResult, backend: str) -> Evidence:
    full = final.summary.get("full")
    comp = compact.summary.get("compact")
    full_passed, full_total = (full.passed, full.total) if full and final.tier == "full" else (0, 0)
    return Evidence(
        compact_passed=comp.passed if comp else sum(c.status == "pass" for c in compact.cases),
        compact_total=comp.total if comp else len(compact.cases),
        full_passed=full_passed,
        full_total=full_total,
        match=final.match if final.match is not None else (full_passed / full_total if full_total else 0.0),
        case_set_sha256=final.case_set_sha256,
        backend=backend,
        seed=final.seed,
    )


def _source(outcome: RunOutcome, name: str):
    return getattr(outcome.retrieval, name, None)


def _speed(outcome: RunOutcome, options) -> Speed | None:
    """The best attempt's speed diagnosis (repair.loop.speed) as the record's `speed`, None where none was made."""
    best = outcome.best.attempt if outcome.best is not None else None
    diag = next((a.speed for a in outcome.attempts if a.attempt == best and a.speed), None)
    if diag is None:
        return None
    p, t = diag["parallelism"], diag.get("timing")
    timing = None
    final = outcome.best.full
    if t is not None and final is not None and final.timing and "error" not in final.timing:
        ft = final.timing
        timing = dict(candidate_ms=ft["candidate_ms"], reference_ms=ft["reference_ms"], speedup=ft.get("speedup"),
                      trials=ft["trials"], device=ft["device"], near_miss_ms=t["near_miss_ms"],
                      compiled_ms=ft.get("compiled_ms"))
    return Speed(near_miss=diag.get("near_miss"), repaired=diag.get("candidate"), shrink=p.get("ratio"),
                 measure=p.get("measure"), factor=p["factor"], flagged=bool(diag["flagged"]),
                 keep_speed=getattr(options, "keep", None), timing=timing)
