"""Evaluation results: the records `repair eval` emits and the rest of the tool consumes."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from repair.engine.diagnose import Diagnostics, TensorStats  # noqa: F401  (stdlib dataclasses: the sandbox makes them)
from repair.integrity import IntegrityFinding, IntegrityVerdict

EVAL_SCHEMA = "repair.eval/v1"

CaseStatus = Literal["pass", "mismatch", "error", "crash", "timeout"]
Tier = Literal["compact", "full"]


class CaseResult(BaseModel):
    case_id: str
    tier: Tier
    params: dict = Field(default_factory=dict)
    status: CaseStatus
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    mismatch_frac: float | None = None
    nan_count: int = 0
    inf_count: int = 0
    first_mismatch: list[int] | None = None
    shape: list[int] | None = None
    expected_shape: list[int] | None = None
    dtype: str | None = None
    expected_dtype: str | None = None
    message: str = ""  # error text, traceback tail, timeout/crash reason
    diagnostics: Diagnostics | None = None
    seconds: float = 0.0  # candidate forward time for this case
    guard_log: dict | None = None  # the runtime guard's record of the forward (launches, kernels, aten ops)


class TierSummary(BaseModel):
    passed: int = 0
    total: int = 0


class EvalResult(BaseModel):
    schema_: str = Field(EVAL_SCHEMA, alias="schema")
    operator_id: str
    family: str | None = None
    problem_path: str
    problem_sha256: str
    candidate_path: str
    candidate_sha256: str
    backend: str
    tier: Tier
    seed: int
    case_set_sha256: str
    cases: list[CaseResult]
    summary: dict[str, TierSummary]  # "compact" / "full"
    match: float | None  # passed full-tier cases / full-tier cases (None when the full tier was not run)
    numerics_passed: bool
    integrity: IntegrityVerdict = Field(default_factory=IntegrityVerdict)
    passed: bool  # numerics passed AND integrity clean
    # the candidate's processes confined themselves (REPAIR_CONFINE: no capabilities, Landlock, seccomp) ...
    confined: bool = False
    landlock: int = 0  # ... under this Landlock ABI (0: no Landlock on this kernel, or not confined)
    wall_seconds: float = 0.0
    kernel_seconds: float = 0.0  # time inside candidate and reference forwards

    model_config = {"populate_by_name": True}

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)

    def failing_cases(self) -> list[CaseResult]:
        return [c for c in self.cases if c.status != "pass"]
