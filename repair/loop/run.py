"""`repair run`: wire the options into the loop (worker, retriever, judge) and write the run's outputs."""
from __future__ import annotations

import ast
import os
import secrets
from pathlib import Path

from repair.ascendc import is_ascendc_candidate, load_candidate, require_backend
from repair.engine import get_backend
from repair.engine import default_backend
from repair.loop.bounds import Bounds
from repair.errors import BadInput
from repair.loop.judge import HarnessJudge
from repair.loop.algorithm import RunConfig, RunOutcome
from repair.loop.retrieve import open_retriever
from repair.workers import WorkerOptions, make_worker


def repair_run(problem: Path, candidate: Path, *, worker: str = "scripted", model: str | None = None,
               script: Path | None = None, kb: Path | None = None, snapshot: str | None = None,
               eval_mode: bool = False, out: Path | None = None, bounds: Bounds | None = None,
               backend: str | None = None, seed: int | None = None, k: int = 5, timeout_s: float = 60.0,
               rules_off: tuple[str, ...] = (), policy: str = "strict") -> RunOutcome:
    """Repair CANDIDATE against PROBLEM; with `out`, leave the final candidate (final.py; an AscendC one as
    final.bundle and final.py/final.json/final/ in its own format), trajectory.jsonl and record.json there."""
    problem, candidate = Path(problem), Path(candidate)
    if not problem.is_file():
        raise BadInput(f"{problem}: no such file")
    ascendc = is_ascendc_candidate(candidate)
    backend = backend_for(candidate, backend)  # resolved once: the record names the backend that ran
    if ascendc:  # its numerics need an AscendC backend: say which is missing now (exit 3)
        require_backend(load_candidate(candidate), get_backend(backend).name)
    elif not candidate.is_file():
        raise BadInput(f"{candidate}: no such file")
    retriever = open_retriever(kb, snapshot, eval_mode=eval_mode, operator_id=static_operator_id(problem),
                               language="ascendc" if ascendc else None)
    if worker == "rules":
        check_rule_patterns(retriever)
    # a model's prompts and replies are kept beside the trajectory (redacted, with token counts)
    extra = {"exchanges_dir": Path(out) / "exchanges"} if out is not None else {}
    the_worker = make_worker(worker, WorkerOptions(model=model, script=script, extra=extra))
    # one seed for the whole run, so every candidate meets the same inputs and scores compare; it is recorded
    seed = secrets.randbits(31) if seed is None else seed
    judge = HarnessJudge(problem, backend=backend, seed=seed, timeout_s=timeout_s, rules_off=tuple(rules_off),
                         policy=policy)
    if out is not None:
        out = Path(out)
        out.mkdir(parents=True, exist_ok=True)
    from repair.loop.record import run_and_record

    return run_and_record(RunConfig(problem, candidate, bounds=bounds or Bounds(), k=k, out=out),
                          the_worker, retriever, judge, backend=backend)


STARTER_HINT = ("get the starter patterns with `kb ingest repair/rules/starter --kb DIR` and pass --kb DIR (or a "
                "snapshot of it with --snapshot ID)")


def check_rule_patterns(retriever) -> None:
    """The rules worker only applies the rules of KB patterns: with none to retrieve it can do nothing, so say so
    before any evaluation (BadInput, exit 2) and how to get them."""
    from repair.loop.retrieve import NoRetriever

    if isinstance(retriever, NoRetriever):
        raise BadInput(f"--worker rules has no patterns to apply (no --kb or --snapshot given): {STARTER_HINT}")
    rows = getattr(getattr(retriever, "_kb", None), "rows", None)
    if rows is not None and not any(_has_rules(r) for r in rows):
        where = retriever.source.kb_path or "the KB"
        raise BadInput(f"--worker rules has no patterns to apply: {where} holds {len(rows)} entries, none with "
                       f"rules; {STARTER_HINT}")


def _has_rules(row: dict) -> bool:
    """A retrieval row (kbstore.retrieve: the parsed pattern, else its canonical JSON) carries executable rules."""
    pattern = row.get("pattern")
    if isinstance(pattern, dict):
        return bool(pattern.get("rules"))
    text = row.get("canonical_json") or ""
    return '"rules":[' in text and '"rules":[]' not in text


def backend_for(candidate: Path, backend: str | None = None) -> str:
    """`backend` when given; else what a repair of this candidate runs on: default_ascendc_backend() for an AscendC
    candidate, $REPAIR_BACKEND (else triton-cpu) for a Triton one."""
    if backend:
        return backend
    return default_ascendc_backend() if is_ascendc_candidate(candidate) else default_backend()


def default_ascendc_backend() -> str:
    """The backend an AscendC candidate runs on when none is asked: $REPAIR_BACKEND when it names a backend that runs
    AscendC (npu on an Ascend host), else ascendc-cpu (the CPU emulation)."""
    from repair.engine import BACKENDS

    env = os.environ.get("REPAIR_BACKEND", "")
    return env if env in BACKENDS and "ascendc" in BACKENDS[env].languages else "ascendc-cpu"


def static_operator_id(problem: Path) -> str:
    """The operator id without importing the problem: a literal OPERATOR["id"], else the harness's default name."""
    default = problem.parent.name if problem.stem == "problem" else problem.stem
    try:
        tree = ast.parse(problem.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return default
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "OPERATOR" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return default
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                return value["id"]
    return default


def summary(outcome: RunOutcome) -> dict:
    """What `repair run --json` prints."""
    best = outcome.best
    return {
        "status": outcome.status,
        "why": outcome.why,
        "repaired": outcome.repaired,
        "attempts": len(outcome.attempts),
        "turns": outcome.turns,
        "tokens": outcome.usage.as_dict(),
        "best_attempt": best.attempt if best else None,
        "best_score": best.score.as_dict() if best else None,
        "outcomes": [a.outcome for a in outcome.attempts],
        "retrieved": [p.id for p in outcome.retrieved],
        "cited": list(dict.fromkeys(c for a in outcome.attempts for c in a.cited)),
        "language": outcome.language,
        "backend": outcome.record.backend if outcome.record is not None else None,
        "emulated": bool(outcome.source is not None and outcome.source.compact.emulated),
        "record_status": outcome.record.status if outcome.record is not None else None,
        "run_id": outcome.record.run_id if outcome.record is not None else None,
        "out": str(outcome.out) if outcome.out else None,
    }
