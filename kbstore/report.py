"""A check's report: the problems it found, each {check, message}; ok when there are none (`kb verify`)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class ProblemReport:
    """Base of the verify reports (kbstore.verify.VerifyReport, kbstore.snapshot_verify.SnapshotVerifyReport)."""

    problems: list[dict] = field(default_factory=list, kw_only=True)  # {check, message}

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, check: str, message: str) -> None:
        self.problems.append({"check": check, "message": message})

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}
