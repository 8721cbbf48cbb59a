"""Hard bounds of a repair run, as data, and the budget that checks them before every worker call."""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable

from repair.errors import BadInput, RepairError
from repair.workers import Usage


class BoundExceeded(RepairError):
    """A bound is spent; the run ends with status `bound` and keeps its best checkpoint."""

    exit_code = 1

    def __init__(self, bound: str, used: float, limit: float):
        super().__init__(f"bound {bound!r} reached ({used:g} of {limit:g})")
        self.bound = bound


@dataclass(frozen=True)
class Bounds:
    attempts: int = 8  # candidates judged (patch check, gate, evaluation)
    turns: int = 8  # worker model calls
    tokens: int = 200_000  # prompt + completion tokens over the run
    wall_s: float = 1800.0

    def __post_init__(self):
        for name, value in asdict(self).items():
            if value is None or value <= 0:
                raise BadInput(f"bound {name} must be positive, got {value!r}")

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class Budget:
    """What the run has spent; `check()` raises BoundExceeded for the first spent bound."""

    bounds: Bounds
    clock: Callable[[], float] = time.monotonic
    attempts: int = 0
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    started: float = field(default=0.0)

    def __post_init__(self):
        self.started = self.clock()

    @property
    def elapsed(self) -> float:
        return self.clock() - self.started

    def spent(self) -> dict[str, float]:
        return {"attempts": self.attempts, "turns": self.turns, "tokens": self.usage.total, "wall_s": self.elapsed}

    def check(self) -> None:
        """Called before every worker call: the next attempt must fit in every bound."""
        spent = self.spent()
        for name, limit in self.bounds.as_dict().items():
            if spent[name] >= limit:
                raise BoundExceeded(name, spent[name], limit)

    def check_wall(self) -> None:
        """Called between the steps of an attempt: only the clock can run out there."""
        if self.elapsed >= self.bounds.wall_s:
            raise BoundExceeded("wall_s", self.elapsed, self.bounds.wall_s)

    def charge(self, turns: int, usage: Usage) -> None:
        self.turns += turns
        self.usage = self.usage + usage

    def tokens_left(self) -> int:
        return max(self.bounds.tokens - self.usage.total, 0)
