"""The loop's speed check: did an attempt make the near-miss slower (device timings) or less parallel (every backend)?

Every attempt that evaluates gets a `speed` event in the trajectory when its figures can be compared with the
near-miss's; a flagged one is a diagnosis the worker sees in its history and the user in the record. Under
`--keep-speed F` a flagged attempt is refused (outcome `speed-refused`), like an attempt a gate refused: on a
device backend when its median time is more than F times the near-miss's, on a CPU backend (where time means
nothing) when it shrank the near-miss's parallelism by more than the guard's factor.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from repair.engine import PARALLELISM_FACTOR, compare_parallelism, eval_figures, parallelism_summary

SPEED_RULE = "speed.parallelism-shrunk"
SLOWER_RULE = "speed.slower"
SLOWER = 1.2  # on a device, an attempt this much slower than the near-miss is flagged (fast_p's p = 1.2 the other way)


@dataclass(frozen=True)
class SpeedOptions:
    keep: float | None = None  # --keep-speed F: refuse what is more than F times slower (or flagged, off device)
    factor: float = PARALLELISM_FACTOR  # --parallelism-factor: a shrink past this flags an attempt

    def __post_init__(self):
        from repair.errors import BadInput

        if self.keep is not None and not self.keep >= 1.0:
            raise BadInput(f"--keep-speed {self.keep}: a factor of at least 1 (1.0: no slower than the near-miss)")
        if not self.factor >= 1.0:
            raise BadInput(f"--parallelism-factor {self.factor}: a factor of at least 1")


def _tier(checkpoint):
    return checkpoint.full if checkpoint.full is not None else checkpoint.compact


class SpeedCheck:
    """Compares each attempt with the near-miss on the tier both ran: the full tier where the near-miss has one
    (under --keep-speed it is evaluated here once where the run did not, so a refusal rests on the large cases;
    otherwise the flag compares the compact tier then, at no extra evaluation)."""

    def __init__(self, options: SpeedOptions, judge, trajectory):
        self.options, self.judge, self.trajectory = options, judge, trajectory
        self.source = None
        self.source_path: Path | None = None
        self._full = None  # the near-miss's full-tier result, once asked for
        self._asked = False

    def start(self, source, path: Path) -> None:
        self.source, self.source_path = source, path

    def _source_eval(self, tier: str):
        """The near-miss's evaluation on `tier` (its full tier is evaluated here once, where the run had none)."""
        if tier == "compact" or self.source.full is not None:
            return self.source.full if tier == "full" else self.source.compact
        if self.options.keep is None:
            return None
        if not self._asked:
            self._asked = True
            try:
                self._full = self.judge.evaluate(self.source_path, "full")
            except Exception as e:  # noqa: BLE001  (the comparison falls back to the compact tier)
                self.trajectory.log("speed", attempt=0, note=f"the near-miss's full tier did not run: {e}")
        return self._full

    def check(self, n: int, checkpoint) -> dict | None:
        """The attempt's speed diagnosis (logged), or None where nothing compares."""
        after = _tier(checkpoint)
        figures_after = eval_figures(after)
        if not figures_after:
            return None
        before = self._source_eval(after.tier)
        figures_before = eval_figures(before) if before is not None else {}
        if not figures_before and after.tier == "full":  # no full tier of the near-miss to compare: compact
            figures_before, figures_after = eval_figures(self.source.compact), eval_figures(checkpoint.compact)
        shrink = compare_parallelism(figures_before, figures_after, self.options.factor)
        if shrink is None:
            return None
        diagnosis = {"parallelism": shrink, "near_miss": parallelism_summary(figures_before),
                     "candidate": parallelism_summary(figures_after)}
        timing = _timing(before, after)
        if timing is not None:
            diagnosis["timing"] = timing
        diagnosis["flagged"] = bool(shrink["flagged"] or (timing or {}).get("slower"))
        diagnosis["refused"] = self.refuses(diagnosis)
        self.trajectory.log("speed", attempt=n, **diagnosis)
        return diagnosis

    def refuses(self, diagnosis: dict) -> bool:
        keep = self.options.keep
        if keep is None:
            return False
        timing = diagnosis.get("timing")
        if timing is not None:  # a device: the time decides
            return timing["ratio"] > keep
        return bool(diagnosis["parallelism"]["flagged"])

    def rule(self, diagnosis: dict) -> str:
        return SLOWER_RULE if diagnosis.get("timing") is not None else SPEED_RULE


def _timing(before, after) -> dict | None:
    """The attempt's median time against the near-miss's, where both were timed on a device."""
    tb, ta = getattr(before, "timing", None), getattr(after, "timing", None)
    if not tb or not ta or not tb.get("candidate_ms") or not ta.get("candidate_ms"):
        return None
    ratio = ta["candidate_ms"] / tb["candidate_ms"]
    return {"near_miss_ms": tb["candidate_ms"], "attempt_ms": ta["candidate_ms"], "ratio": round(ratio, 3),
            "slower": ratio > SLOWER, "device": ta.get("device")}
