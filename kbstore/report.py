"""A check's report: problems (which fail it) and warnings, each {check, message}; ok when there are no problems."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class ProblemReport:
    """Base of the verify reports (kbstore.verify.VerifyReport, kbstore.snapshot_verify.SnapshotVerifyReport)."""

    problems: list[dict] = field(default_factory=list, kw_only=True)  # {check, message}
    # printed, but the check still passes: a stale cache (rebuilt from the data), a check that could not be made
    warnings: list[dict] = field(default_factory=list, kw_only=True)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, check: str, message: str) -> None:
        self.problems.append({"check": check, "message": message})

    def warn(self, check: str, message: str) -> None:
        self.warnings.append({"check": check, "message": message})

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}
