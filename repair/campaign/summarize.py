"""Read a run directory (trajectory, gate log, record) back into a RunOutcome; works on a killed run's leftovers too."""
from __future__ import annotations

import json
import re
from pathlib import Path

from provenance.canonical import sha256_text
from repair.campaign.judge import gate_accounting, read_gate_log
from repair.campaign.outcome import AttemptRow, FindingRow, PatternRow, RunOutcome
from repair.loop import RECORD, read_trajectory

TRAJECTORY = "trajectory.jsonl"
GATE_LOG = "gates.jsonl"
REPAIRED = ("repaired", "already-passing")


def summarize(key: str, run_dir: Path, out_dir: Path, *, full_shadow: bool = False,
              crashed: str | None = None) -> RunOutcome:
    """The outcome of the run in run_dir; `crashed` is the reason when its process died or raised."""
    events = _read_jsonl(run_dir / TRAJECTORY)
    end = next((e for e in reversed(events) if e.get("event") == "end"), None)
    gates = read_gate_log(run_dir / GATE_LOG)
    accepted, integrity, full, either = gate_accounting(gates)
    usage = (end or {}).get("usage") or _sum_usage(events)
    spent = (end or {}).get("spent") or {}
    loop_status = (end or {}).get("status", "")
    if crashed is not None:
        status, reason = "crashed", crashed
    elif end is None:
        status, reason = "crashed", "the run ended without an end event"
    else:
        status = "repaired" if loop_status in REPAIRED else "unsupported" if loop_status == "unsupported" else "failed"
        reason = loop_status
    record = run_dir / RECORD
    rows = _attempt_rows(events)
    return RunOutcome(
        key=key,
        status=status,
        stop_reason=reason,
        attempts=int(spent.get("attempts", len(rows))),
        turns=int(spent.get("turns", sum(1 for e in events if e.get("event") == "propose"))),
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        cached_tokens=int(usage.get("cached_tokens", 0)),
        wall_s=float(spent.get("wall_s", events[-1]["t"] if events else 0.0)),
        workflow_accepted=accepted,
        integrity_rejected=integrity,
        full_rejected=full,
        gate_rejected=either,
        full_shadow=full_shadow,
        attempt_rows=rows,
        findings=_findings(gates, events),
        patterns=_patterns(events, record),
        **_speed(events, record),
        record_path=str(record.relative_to(out_dir)) if record.is_file() else None,
        record_sha256=sha256_text(record.read_bytes()) if record.is_file() else None,
        error=((end or {}).get("why") or "") if crashed is None else crashed,
    )


def _speed(events: list[dict], record: Path) -> dict:
    """The run's speed figures: its record's `speed` (repair.loop.speed) and the attempts --keep-speed refused."""
    out = {"speed_refused": sum(1 for e in events if e.get("event") == "speed" and e.get("refused"))}
    try:
        speed = json.loads(record.read_text(encoding="utf-8")).get("speed") if record.is_file() else None
    except (OSError, ValueError):
        speed = None
    if isinstance(speed, dict):
        timing = speed.get("timing") or {}
        out.update(speed_flagged=bool(speed.get("flagged")), speed_shrink=speed.get("shrink"),
                   speedup=timing.get("speedup"))
    return out


def _attempt_rows(events: list[dict]) -> list[AttemptRow]:
    rows: dict[int, dict] = {}
    for e in events:
        n = e.get("attempt")
        if not isinstance(n, int) or n < 1:
            continue
        row = rows.setdefault(n, {"attempt": n, "outcome": "not-improved", "integrity": "not-run"})
        kind = e.get("event")
        if kind == "propose":
            for k in ("prompt_tokens", "completion_tokens", "cached_tokens"):
                row[k] = int((e.get("usage") or {}).get(k, 0))
        elif kind == "patch" and not e.get("ok", True):
            row["outcome"] = "patch-rejected"
        elif kind == "gate":
            row["integrity"] = e.get("verdict", "not-run")
            if row["integrity"] == "violation":
                row["outcome"] = "integrity-violation"
        elif kind == "evaluate":
            for tier, s in (e.get("summary") or {}).items():
                if tier in ("compact", "full") and s.get("total"):
                    row[f"{tier}_passed"], row[f"{tier}_total"] = s.get("passed"), s.get("total")
            if e.get("integrity") == "violation":
                row["integrity"], row["outcome"] = "violation", "integrity-violation"
            elif row["integrity"] == "not-run":
                row["integrity"] = "clean"
        elif kind == "accept":
            row["outcome"] = "accepted"
        elif kind == "checkpoint" and row["outcome"] == "not-improved":
            row["outcome"] = "improved"
        elif kind == "stepping-stone" and row["outcome"] == "not-improved":
            row["outcome"] = "changed"
    return [AttemptRow(**rows[n]) for n in sorted(rows)]


def _findings(gates: list[dict], events: list[dict]) -> list[FindingRow]:
    """From the gate log (it has messages); runs without one fall back to the trajectory's rule ids."""
    attempt_of = {"source.py": 0, "source": 0}
    out, seen = [], set()
    for g in gates:
        name = g["candidate"]
        n = attempt_of.get(name.split("/")[0], _attempt_number(name))
        for f in g.get("findings") or []:
            key = (n, f["rule"], f.get("phase", "static"))
            if key not in seen:
                seen.add(key)
                out.append(FindingRow(attempt=n, rule=f["rule"], phase=f.get("phase", "static"),
                                      message=f.get("message", ""), level=f.get("level")))
    if not gates:
        for e in events:
            if e.get("event") == "gate":
                out.extend(FindingRow(attempt=e["attempt"], rule=r) for r in e.get("rules") or [])
    return out


def _attempt_number(name: str) -> int:
    m = re.match(r"attempt_(\d+)", name)
    if m:
        return int(m.group(1))
    digits = "".join(ch for ch in name if ch.isdigit())
    return int(digits) if digits else -1


def _patterns(events: list[dict], record: Path) -> list[PatternRow]:
    scores: dict[str, float] = {}
    order: list[str] = []
    for e in events:
        if e.get("event") == "retrieve":
            for h in e.get("hits") or []:
                if h["id"] not in scores:
                    order.append(h["id"])
                    scores[h["id"]] = h.get("score")
    cited = {c for e in events if e.get("event") == "propose" for c in e.get("cited") or []}
    if record.is_file():
        retrieval = json.loads(record.read_text(encoding="utf-8")).get("retrieval") or {}
        order += [r for r in retrieval.get("retrieved", []) if r not in scores]
        cited = set(retrieval.get("cited", [])) or cited
    return [PatternRow(entry_id=pid, rank=i, score=scores.get(pid), cited=pid in cited) for i, pid in enumerate(order)]


def _sum_usage(events: list[dict]) -> dict:
    total = {"prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}
    for e in events:
        if e.get("event") == "propose":
            for k in total:
                total[k] += int((e.get("usage") or {}).get(k, 0))
    return total


def _read_jsonl(path: Path) -> list[dict]:
    return read_trajectory(path) if path.is_file() else []
