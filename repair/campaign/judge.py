"""A judge wrapper that keeps the gate accounting of a run and applies the evaluation ablations.

The loop sees an ordinary Judge. Behind it, every verdict is also written to `gates.jsonl` in the run
directory, so the campaign can count the candidates the workflow alone (compact numerics) would have
accepted and which of them the integrity gate or the full tier rejected. A candidate the static gate
rejects is still evaluated on the compact tier, as a shadow, to know whether the workflow would have
accepted it. Ablations:
- no-diagnostics: the loop sees evaluations without the harness's diagnostics;
- no-full-tier: the loop's full-tier request gets the compact result back (so it accepts on the compact
  tier, and its record carries no full-tier evidence); the real full tier runs as a shadow.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from provenance.redact import redact
from repair.engine import EvalResult
from repair.integrity import IntegrityVerdict
from repair.loop import read_trajectory


@dataclass
class AccountingJudge:
    inner: object  # a repair.loop.judge.Judge
    log_path: Path
    diagnostics: bool = True
    full_tier: bool = True
    _compact: dict = field(default_factory=dict)  # candidate -> its last compact result (no-full-tier reuses it)

    @property
    def backend(self) -> str:
        return self.inner.backend

    @property
    def rules_off(self) -> tuple[str, ...]:
        return self.inner.rules_off

    @property
    def policy(self) -> str:
        return getattr(self.inner, "policy", "strict")

    def gate(self, candidate: Path) -> IntegrityVerdict:
        verdict = self.inner.gate(candidate)
        self._log("gate", candidate, verdict=verdict.verdict, findings=_findings(verdict))
        if verdict.verdict != "clean":
            shadow = self.inner.evaluate(candidate, "compact")
            self._log("evaluate", candidate, tier="compact", shadow=True, **_summary(shadow))
        return verdict

    def evaluate(self, candidate: Path, tier: str) -> EvalResult:
        if tier == "full" and not self.full_tier:
            compact = self._compact.get(str(candidate)) or self.inner.evaluate(candidate, "compact")
            shadow = self.inner.evaluate(candidate, "full")
            self._log("evaluate", candidate, tier="full", shadow=True, **_summary(shadow))
            return self._strip(compact)
        result = self.inner.evaluate(candidate, tier)
        if tier == "compact":
            self._compact = {str(candidate): result}
        self._log("evaluate", candidate, tier=tier, shadow=False, **_summary(result))
        return self._strip(result)

    def _strip(self, result: EvalResult) -> EvalResult:
        if self.diagnostics:
            return result
        cases = [c.model_copy(update={"diagnostics": None}) for c in result.cases]
        return result.model_copy(update={"cases": cases})

    def _log(self, event: str, candidate: Path, **fields) -> None:
        entry = {"event": event, "candidate": attempt_name(Path(candidate)), **fields}
        with open(self.log_path, "a", encoding="utf-8") as fh:
            fh.write(redact(json.dumps(entry, sort_keys=True)) + "\n")


def attempt_name(candidate: Path) -> str:
    """How the gate log names a loop's candidate: attempt_001.py, or attempt_001/nearmiss_tail.py for an AscendC
    attempt written in its own format into a directory of its own (repair.loop.form)."""
    if candidate.parent.name == "source" or candidate.parent.name.startswith("attempt_"):
        return f"{candidate.parent.name}/{candidate.name}"
    return candidate.name


def _summary(result: EvalResult) -> dict:
    tier = result.summary.get(result.tier)
    failing = result.failing_cases()
    return {
        "statuses": dict(Counter(c.status for c in result.cases)),
        "first_failure": (f"{failing[0].case_id}: {failing[0].status} {failing[0].message.strip()[-300:]}"
                          if failing else ""),
        "numerics_passed": result.numerics_passed,
        "passed": tier.passed if tier else None,
        "total": tier.total if tier else None,
        "integrity": result.integrity.verdict,
        "findings": _findings(result.integrity),
    }


def _findings(verdict: IntegrityVerdict) -> list[dict]:
    return [{"rule": f.rule, "phase": f.phase, "message": f.message, "level": f.level} for f in verdict.findings]


def read_gate_log(path: Path) -> list[dict]:
    """The gate log's complete lines ([] before the first verdict; a line cut short by a kill ends it)."""
    return read_trajectory(path) if path.is_file() else []


def gate_accounting(events: list[dict]) -> tuple[int, int, int, int]:
    """(workflow_accepted, integrity_rejected, full_rejected, gate_rejected) over the candidates of one run.

    workflow accepted: the compact tier's numerics pass (the workflow without gates would stop here);
    integrity rejected: one of those with a violation from the static gate or the runtime guards (in either tier);
    full rejected: one of those whose full tier (real or shadow) fails numerically;
    gate rejected: one of those rejected by either (a candidate can fail both gates).
    """
    by_candidate: dict[str, dict] = {}
    for e in events:
        c = by_candidate.setdefault(e["candidate"], {"violation": False, "compact": None, "full": None})
        if e.get("integrity") == "violation" or e.get("verdict") == "violation":
            c["violation"] = True
        if e["event"] == "evaluate":
            c[e["tier"]] = e["numerics_passed"]
    accepted = [c for c in by_candidate.values() if c["compact"]]
    integrity = sum(c["violation"] for c in accepted)
    full = sum(1 for c in accepted if c["full"] is False)
    either = sum(1 for c in accepted if c["violation"] or c["full"] is False)
    return len(accepted), integrity, full, either
