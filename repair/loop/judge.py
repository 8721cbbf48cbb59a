"""The engine's judge: the static integrity gate and the evaluation harness behind one small protocol."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from repair.engine import default_backend
from repair.errors import EnvironmentMissing
from repair.engine import EvalResult
from repair.integrity import IntegrityVerdict


@runtime_checkable
class Judge(Protocol):
    backend: str
    rules_off: tuple[str, ...]

    def gate(self, candidate: Path) -> IntegrityVerdict: ...

    def evaluate(self, candidate: Path, tier: str) -> EvalResult: ...


@dataclass(frozen=True)
class HarnessJudge:
    """repair.integrity.static.scan before, repair.engine.harness.evaluate (which also runs the runtime guards) after."""

    problem: Path
    backend: str = field(default_factory=default_backend)  # $REPAIR_BACKEND, else triton-cpu
    seed: int | None = None
    timeout_s: float = 60.0
    mem_limit_mb: int = 4096
    rules_off: tuple[str, ...] = ()
    policy: str = "strict"  # repair.integrity.POLICIES: whether policy findings (framework epilogues) fail

    def gate(self, candidate: Path) -> IntegrityVerdict:
        try:
            from repair.integrity import scan
        except ImportError as e:
            raise EnvironmentMissing(f"the integrity gate is not installed ({e})") from None
        return scan(self.problem, candidate, rules_off=self.rules_off, policy=self.policy)

    def evaluate(self, candidate: Path, tier: str) -> EvalResult:
        try:
            from repair.engine import evaluate
        except ImportError as e:
            raise EnvironmentMissing(f"the evaluation harness is not installed ({e})") from None
        return evaluate(
            self.problem,
            candidate,
            tier=tier,
            backend=self.backend,
            seed=self.seed,
            timeout_s=self.timeout_s,
            mem_limit_mb=self.mem_limit_mb,
            rules_off=self.rules_off,
            integrity=True,
            policy=self.policy,
        )
