"""Checkpoints: a candidate with its evaluations and a score that orders candidates."""
from __future__ import annotations

import math
from dataclasses import dataclass

from repair.engine import EvalResult

_BROKEN = ("error", "crash", "timeout", "compile-error", "unsupported", "unsupported-on-interpreter")


@dataclass(frozen=True, order=True)
class Score:
    """Full-tier passes, then compact passes, then lower max abs error (a broken case counts as infinite)."""

    full_passed: int
    compact_passed: int
    neg_max_err: float

    @classmethod
    def of(cls, compact: EvalResult, full: EvalResult | None = None) -> Score:
        full_passed = _passed(full, "full") if full is not None else 0
        return cls(full_passed, _passed(compact, "compact"), -max_error(compact))

    @property
    def max_err(self) -> float:
        return -self.neg_max_err

    def as_dict(self) -> dict:
        err = self.max_err
        return {
            "full_passed": self.full_passed,
            "compact_passed": self.compact_passed,
            "max_abs_err": err if math.isfinite(err) else None,
        }


def max_error(result: EvalResult) -> float:
    worst = 0.0
    for case in result.cases:
        if case.status in _BROKEN or case.nan_count or case.inf_count:
            return math.inf
        err = case.max_abs_err
        if err is not None:
            if not math.isfinite(err):
                return math.inf
            worst = max(worst, err)
    return worst


def _passed(result: EvalResult, tier: str) -> int:
    summary = result.summary.get(tier)
    if summary is not None and summary.total:
        return summary.passed
    return sum(1 for c in result.cases if c.tier == tier and c.status == "pass")


def compact_passes(result: EvalResult) -> bool:
    cases = [c for c in result.cases if c.tier == "compact"] or result.cases
    return bool(cases) and all(c.status == "pass" for c in cases)


@dataclass(frozen=True)
class Checkpoint:
    attempt: int  # 0: the near-miss itself
    candidate: str
    score: Score
    compact: EvalResult
    full: EvalResult | None = None


def failure_signature(checkpoint: Checkpoint) -> tuple:
    """Which cases fail and how: status, diagnosis, unwritten elements and a coarse mismatch fraction per case."""
    out = []
    for result in (checkpoint.compact, checkpoint.full):
        for c in (result.cases if result is not None else []):
            if c.status == "pass":
                continue
            d = c.diagnostics
            frac = round(c.mismatch_frac, 1) if c.mismatch_frac is not None else None
            out.append((c.tier, str(c.case_id), c.status, d.symptom if d else "", d.location if d else "",
                        bool(c.nan_count), frac))
    return tuple(sorted(out, key=repr))


def stepping_stone(checkpoint: Checkpoint, best: Checkpoint) -> bool:
    """A candidate no better than the best, passing as many cases, that fails otherwise: a part of a fix (one site of
    a bug at two) that the next change may complete, so a worker may build on it (both languages)."""
    same = (checkpoint.score.full_passed, checkpoint.score.compact_passed) == (best.score.full_passed,
                                                                              best.score.compact_passed)
    return same and checkpoint.score <= best.score and failure_signature(checkpoint) != failure_signature(best)
