"""Evaluation results: the records `repair eval` emits and the rest of the tool consumes."""
from __future__ import annotations

from dataclasses import fields
from typing import Literal, get_type_hints

from pydantic import BaseModel, Field, create_model

from repair.engine.compare import Comparison
from repair.integrity import IntegrityVerdict

EVAL_SCHEMA = "repair.eval/v1"

# unsupported: the backend cannot run what the candidate uses (an AscendC API ascendc-cpu does not emulate): not a
# failure of the candidate, a case this environment cannot judge.
# unsupported-on-interpreter: the kernel uses a construct the Triton interpreter cannot run as a GPU would (the
# message names it and the line); not the kernel's failure, and `repair eval` exits 3 for it
CaseStatus = Literal["pass", "mismatch", "error", "crash", "timeout", "compile-error", "unsupported",
                     "unsupported-on-interpreter"]
Tier = Literal["compact", "full"]


def _compared() -> dict:
    """The fields a comparison fills, as Comparison defines them (but its status: a case's own says more)."""
    hints = get_type_hints(Comparison)
    return {f.name: (hints[f.name], f.default) for f in fields(Comparison) if f.name != "status"}


CaseResult = create_model(
    "CaseResult", __module__=__name__,
    case_id=(str, ...), tier=(Tier, ...), params=(dict, Field(default_factory=dict)), status=(CaseStatus, ...),
    **_compared(),  # from the reference process's comparison (a case that did not run keeps their defaults)
    seconds=(float, 0.0),  # candidate forward time for this case
    guard_log=(dict | None, None),  # the runtime guard's record of the forward (launches, kernels, aten ops, shapes)
    timing=(dict | None, None),  # the timed case's (device backends): repair.engine.timing.timing_record
    # what the backend noticed while the case ran that the hardware does silently (ascendc-cpu: a DataCopy length
    # rounded down to whole 32-byte blocks), for the user and the repair loop
    notes=(list[str], Field(default_factory=list)),
)


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
    # the candidate cannot be imported ("file:line: cannot be imported: ..."): every case errors; `repair eval` exits 2
    load_error: str | None = None
    # the candidate's processes confined themselves (REPAIR_CONFINE: no capabilities, Landlock, seccomp) ...
    confined: bool = False
    landlock: int = 0  # ... under this Landlock ABI (0: no Landlock on this kernel, or not confined)
    emulated: bool = False  # the kernels ran on an emulation of their hardware (ascendc-cpu), not on it
    tolerance: dict | None = None  # the problem's TOLERANCE as written (None: the defaults by dtype, engine.tolerance)
    # the largest case's launch figures (repair.engine.parallelism: programs, elements per program, warps)
    parallelism: dict | None = None
    # `--time` on a device backend: {candidate_ms, reference_ms, speedup, trials, device, ...} of the timed case
    timing: dict | None = None
    timing_note: str | None = None  # `--time` on a CPU backend: why nothing was timed
    wall_seconds: float = 0.0
    kernel_seconds: float = 0.0  # time inside candidate and reference forwards

    model_config = {"populate_by_name": True}

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)

    def failing_cases(self) -> list[CaseResult]:
        return [c for c in self.cases if c.status != "pass"]

    @property
    def unsupported(self) -> bool:
        """Some case could not be judged here and nothing else failed (no other case, no integrity finding): the
        environment's verdict, not the candidate's (exit 3)."""
        bad = self.failing_cases()
        return bool(bad) and all(c.status == "unsupported" for c in bad) and self.integrity.verdict == "clean"
