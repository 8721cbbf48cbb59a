"""What a worker is: given the engine's context, propose one kernel-only change. The engine does the rest."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from repair.errors import RepairError


class WorkerFailed(RepairError):
    """The worker could not produce a proposal (model error after retries, context too long)."""

    exit_code = 1


class WorkerExhausted(RepairError):
    """The worker has nothing more to propose (a scripted worker at the end of its script)."""

    exit_code = 1


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0  # part of prompt_tokens served from the provider's cache

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )

    def as_dict(self) -> dict:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
            "total_tokens": self.total,
        }


@dataclass(frozen=True)
class Pattern:
    """A retrieved knowledge-base pattern, as the worker sees it."""

    id: str
    score: float
    title: str = ""
    bug_class: str = ""
    fix: str = ""
    before: str = ""
    after: str = ""
    rules: tuple[dict, ...] = ()


@dataclass(frozen=True)
class AttemptNote:
    """One line of history the worker may learn from (what was tried and what happened)."""

    attempt: int
    outcome: str  # improved, changed (no better, fails otherwise), not-improved, patch-rejected, integrity-violation, ...
    detail: str = ""


@dataclass(frozen=True)
class CaseView:
    """One evaluated case of the tier the worker is shown, passing or not, as data (forensics is its text)."""

    case_id: str
    tier: str
    params: dict = field(default_factory=dict)  # the case's parameters: shapes, dtype, attributes
    status: str = "pass"  # pass, mismatch, error, crash, timeout, compile-error
    symptom: str = "none"  # the diagnosis label (repair.engine.diagnose)
    location: str = "none"
    nan: int = 0  # NaN / Inf in the output where the reference is finite
    inf: int = 0
    mismatch_frac: float | None = None
    max_abs_err: float | None = None
    first_mismatch: tuple[int, ...] | None = None
    message: str = ""  # the failure's message (an emulator's fault, a compile error), at most 2000 characters
    notes: tuple[str, ...] = ()  # what the emulator noticed (a DataCopy's partial block dropped), at most 16

    @classmethod
    def of(cls, case) -> "CaseView":
        """From a repair.engine CaseResult."""
        diag = case.diagnostics
        return cls(str(case.case_id), case.tier, dict(case.params or {}), case.status,
                   diag.symptom if diag is not None else "none", diag.location if diag is not None else "none",
                   case.nan_count or 0, case.inf_count or 0, case.mismatch_frac, case.max_abs_err,
                   tuple(case.first_mismatch) if case.first_mismatch is not None else None,
                   (case.message or "")[:2000], tuple(getattr(case, "notes", None) or ())[:16])


@dataclass(frozen=True)
class CaseLabel:
    """One failing case as the engine labelled it (repair.engine.diagnose), handed to workers as data."""

    case_id: str
    tier: str
    status: str  # mismatch, error, crash, timeout, ...
    params: tuple[tuple[str, object], ...] = ()  # the case's parameters (sizes, layout, constructor arguments)
    symptom: str = "none"  # tail-localized, nan-introduced, scaled-output, ...
    location: str = "none"  # tail-columns, last-block, everywhere, ...
    notes: tuple[str, ...] = ()  # the diagnosis lines
    nan_count: int = 0
    inf_count: int = 0
    message: str = ""  # a fault's message (an error case's last line; an emulator's fault)

    @property
    def param_dict(self) -> dict:
        return dict(self.params)


@dataclass(frozen=True)
class FailureLabels:
    """The loop's labels of the failing evaluation the proposal must fix: its symptom and location (the run's),
    the tier that fails, and each failing case with its diagnosis."""

    symptom: str = "none"
    location: str = "none"
    tier: str = "compact"
    cases: tuple[CaseLabel, ...] = ()
    integrity: tuple[str, ...] = ()  # integrity rule names of the evaluation's findings

    @property
    def notes(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n for c in self.cases for n in c.notes))

    @property
    def messages(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.message for c in self.cases if c.message))


@dataclass(frozen=True)
class WorkerContext:
    attempt: int  # 1-based number of the attempt this proposal will become
    problem_text: str
    candidate_text: str  # the kernel the proposal applies to
    forensics: str  # the engine's rendering of the failing evaluation
    patterns: tuple[Pattern, ...] = ()
    history: tuple[AttemptNote, ...] = ()
    tokens_left: int | None = None
    # every pattern the retriever knows that carries executable rules, best retrieval first: a worker whose
    # proposals cost no tokens (rules) may try them all; `patterns` (the top k) is what a model is shown
    rule_patterns: tuple[Pattern, ...] = ()
    # what candidate_text is: "python" (a Triton .py file) or "ascendc" (a bundle of C++ sources,
    # repair.ascendc.bundle; a diff names its files, a full proposal is the whole bundle)
    language: str = "python"
    # every case of the tier `forensics` shows (passing ones too), and the backend that ran them: a worker may read
    # which cases fail and how as data (repair.workers.rules_worker checks each rule's explanation against them)
    cases: tuple[CaseView, ...] = ()
    backend: str | None = None
    # the same failing evaluation as `forensics`, as data: a worker reads these instead of parsing the text
    labels: FailureLabels = field(default_factory=FailureLabels)


@dataclass(frozen=True)
class Proposal:
    """A full candidate file (an AscendC candidate: the whole bundle) or a unified diff against ctx.candidate_text,
    and the pattern ids it used."""

    candidate: str | None = None
    diff: str | None = None
    cited: tuple[str, ...] = ()
    usage: Usage = field(default_factory=Usage)
    turns: int = 1  # model calls this proposal took (0 for workers that call no model)
    diagnosis: dict | None = None  # optional {title, bug_class, root_cause, fix}
    note: str = ""


@dataclass(frozen=True)
class WorkerInfo:
    kind: str
    model: str | None = None
    prompt_template_sha256: str | None = None


@runtime_checkable
class Worker(Protocol):
    info: WorkerInfo

    def propose(self, ctx: WorkerContext) -> Proposal: ...
