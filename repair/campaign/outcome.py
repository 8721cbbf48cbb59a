"""What one run of a campaign produced, as data the ledger stores and the report reads."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

# unsupported: the near-miss uses what the backend cannot run (an AscendC API ascendc-cpu lacks): neither a repair
# nor a failure of the worker, and no pass rate counts it
RunStatus = Literal["repaired", "failed", "crashed", "unsupported"]
FINISHED = ("repaired", "failed", "crashed", "unsupported")
ENVIRONMENT_MISSING = "environment-missing"  # a run's stop reason that stops the campaign instead of being recorded


class AttemptRow(BaseModel):
    attempt: int
    outcome: str  # improved, not-improved, patch-rejected, integrity-violation, full-failed, accepted, ...
    integrity: str = "not-run"  # clean, violation, not-run
    compact_passed: int | None = None
    compact_total: int | None = None
    full_passed: int | None = None
    full_total: int | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


class FindingRow(BaseModel):
    attempt: int
    rule: str
    phase: str = "static"
    message: str = ""
    level: str | None = None  # cheat, policy, note; None in ledgers written before findings had levels


LEVEL_ORDER = ("cheat", "policy", "note")


def integrity_level(findings: list[FindingRow]) -> str:
    """A run's worst integrity finding level over its attempts: cheat, policy, note or clean (a finding recorded
    before levels existed failed whatever it was: a cheat)."""
    levels = {f.level or "cheat" for f in findings}
    return next((lv for lv in LEVEL_ORDER if lv in levels), "clean")


class PatternRow(BaseModel):
    entry_id: str
    rank: int
    score: float | None = None
    cited: bool = False


class RunOutcome(BaseModel):
    key: str
    status: RunStatus
    stop_reason: str = ""  # the loop's status (repaired, attempts, tokens, wall_s, ...) or why the process died
    attempts: int = 0
    turns: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    wall_s: float = 0.0
    # Gate accounting: candidates the workflow alone (compact numerics) would have accepted, and how
    # many of those the integrity gate, the full tier, and either of them rejected (the two overlap).
    workflow_accepted: int = 0
    integrity_rejected: int = 0
    full_rejected: int = 0
    gate_rejected: int = 0
    full_shadow: bool = False  # no-full-tier ablation: full_rejected counts shadow verdicts
    attempt_rows: list[AttemptRow] = Field(default_factory=list)
    findings: list[FindingRow] = Field(default_factory=list)
    patterns: list[PatternRow] = Field(default_factory=list)
    # repair.loop.speed, from the run's record: whether the final kernel was flagged (shrunk parallelism, or on a
    # device slower than the near-miss), the worst shrink, its speedup over the reference (device backends only),
    # and how many attempts --keep-speed refused
    speed_flagged: bool | None = None
    speed_shrink: float | None = None
    speedup: float | None = None
    speed_refused: int = 0
    record_path: str | None = None  # relative to the campaign directory
    record_sha256: str | None = None
    error: str = ""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def cited(self) -> list[str]:
        return [p.entry_id for p in self.patterns if p.cited]
