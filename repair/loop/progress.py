"""`repair run`'s progress on stderr: one line per step of the loop, from the trajectory's events as they are
logged (forensics, each attempt's retrieval, proposal, patch, gate, evaluations and score), so a run is never
silent for a minute. repair.progress decides rich (a terminal) or plain lines (a pipe or a log)."""
from __future__ import annotations

from contextlib import contextmanager

from repair.loop import trajectory
from repair.progress import Lines


def _score(score: dict | None) -> str:
    if not score:
        return "-"
    err = score.get("max_abs_err")
    return (f"full {score.get('full_passed')} passed, compact {score.get('compact_passed')} passed, max_abs "
            + ("inf" if err is None else f"{err:.2e}"))


def event_line(e: dict) -> str | None:
    """The line one trajectory event prints (None: an event that says nothing new)."""
    kind, n = e.get("event"), e.get("attempt")
    head = f"attempt {n}: " if n else ""
    if kind == "start":
        worker = (e.get("worker") or {}).get("kind") or (e.get("worker") or {}).get("name") or "?"
        bounds = " ".join(f"{k}={v}" for k, v in (e.get("bounds") or {}).items())
        return f"start: worker {worker}, backend {e.get('backend')}, bounds {bounds}"
    if kind == "evaluate":
        tiers = "  ".join(f"{t} {s['passed']}/{s['total']}" for t, s in (e.get("summary") or {}).items())
        what = "forensics" if n == 0 else f"attempt {n}"
        return f"{what}: {e.get('tier')} tier evaluated: {tiers}, integrity {e.get('integrity')} ({e.get('seconds')} s)"
    if kind == "forensics":
        s = e.get("symptom") or {}
        return f"forensics: {s.get('label')} @ {s.get('location', 'none')} in the {s.get('failed_tier')} tier; " \
               f"score {_score(e.get('score'))}"
    if kind == "retrieve":
        hits = e.get("hits") or []
        return (f"retrieved {len(hits)} patterns ({e.get('rule_patterns', 0)} with rules) for the {e.get('symptom')} "
                f"of attempt {n or 0}" + (" (the near-miss)" if not n else ""))
    if kind == "propose":
        cited = ", ".join(c[:12] if len(c) == 64 else c for c in e.get("cited") or []) or "none"  # entry ids
        tokens = (e.get("usage") or {}).get("total_tokens", 0)
        return f"{head}proposal ({e.get('kind')}, cites {cited}, {tokens} tokens)"
    if kind == "patch":
        return f"{head}patch applied" if e.get("ok") else f"{head}patch refused: {e.get('reason')}: {e.get('message')}"
    if kind == "gate":
        rules = ", ".join(e.get("rules") or [])
        return f"{head}integrity gate: {e.get('verdict')}" + (f" ({rules})" if rules else "")
    if kind == "accept":
        return f"{head}accepted: {_score(e.get('score'))}"
    if kind == "checkpoint":
        return f"{head}improved: {_score(e.get('score'))}"
    if kind == "rollback":
        return f"{head}no better: back to attempt {e.get('to_attempt')} ({_score(e.get('score'))})"
    if kind == "end":
        return f"end: {e.get('status')}" + (f" ({e.get('why')})" if e.get("why") else "")
    return None


@contextmanager
def run_progress(enabled: bool = True):
    """Print each step of the runs inside the block on stderr."""
    lines = Lines("repair run", enabled=enabled)

    def listen(e: dict) -> None:
        text = event_line(e)
        if text:
            lines(text)

    trajectory.LISTENERS.append(listen)
    try:
        yield lines
    finally:
        trajectory.LISTENERS.remove(listen)


_BOUND_OPTIONS = {"attempts": "--max-attempts", "turns": "--max-turns", "tokens": "--max-tokens",
                  "wall_s": "--max-wall"}


def ending_lines(outcome, worker: str) -> list[str]:
    """What `repair run` prints after its summary line: the near-miss's diagnosis, and for a run that did not
    repair, why it stopped, what each attempt did to the score and what to try next."""
    from repair.loop.forensics import symptom

    lines = []
    if outcome.source is not None:
        s = symptom(outcome.source.compact, outcome.source.full)
        if s.get("label") not in (None, "none"):
            lines.append(f"diagnosis: {s['label']} @ {s.get('location', 'none')} in the {s.get('failed_tier')} tier")
            lines += [f"  {note}" for note in dict.fromkeys(s.get("notes") or [])]
    if outcome.repaired:
        return lines
    if outcome.why:
        lines.append(f"why: {outcome.why}")
    for a in outcome.attempts:
        title = (a.diagnosis or {}).get("title")
        cites = f", cites {', '.join(a.cited)}" if a.cited else ""
        rules = f" ({', '.join(a.rules)})" if a.rules else ""
        lines.append(f"  attempt {a.attempt}: {a.outcome}{rules}{cites}" + (f": {title}" if title else ""))
    if outcome.best is not None:
        lines.append(f"best: attempt {outcome.best.attempt}, {_score(outcome.best.score.as_dict())}")
    lines.append("next: " + _next(outcome, worker))
    return lines


def _next(outcome, worker: str) -> str:
    if outcome.status in _BOUND_OPTIONS:
        return f"the {outcome.status} bound stopped the run: raise {_BOUND_OPTIONS[outcome.status]}"
    if outcome.status == "worker-exhausted" and worker == "rules":
        offered = len(outcome.retrieved)
        return (f"no rule of the patterns offered ({offered} retrieved) made this candidate pass; try "
                "--worker rules+litellm --model MODEL (the rules, then a model), or ingest repair records of this "
                "bug class (kb ingest RECORDS)")
    if outcome.status == "worker-exhausted":
        return "the worker had nothing more to propose; try another --worker or --model, or more patterns (--kb)"
    if outcome.status == "worker-failed":
        return "the worker failed (see why); check the model's settings, then rerun"
    return "see the trajectory (--out DIR: trajectory.jsonl) for each step"
