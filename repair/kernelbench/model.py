"""The records of a KernelBench import: budgets, the probe's request and answer, an imported or refused problem."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from repair.errors import BadInput

REQUEST_SCHEMA = "repair.kernelbench.probe-request/v1"
DERIVATION_SCHEMA = "repair.kernelbench.derivation/v1"
IMPORT_SCHEMA = "repair.kernelbench.import/v1"


class Refused(BadInput):
    """A problem whose cases cannot be derived; the message is the one-line reason."""


class Budget(BaseModel):
    """What one case may cost: elements of its inputs and outputs together, and the reference's FLOPs."""

    model_config = ConfigDict(frozen=True)

    elements: int = Field(gt=0)
    flops: int = Field(gt=0)

    def fits(self, size: CaseSize) -> bool:
        return size.elements <= self.elements and size.flops <= self.flops

    def divided(self, by: int) -> Budget:
        return Budget(elements=max(1, self.elements // by), flops=max(1, self.flops // by))


# Measured with the correct Triton candidates of tests/repair/kernelbench on 2 shared cores (README): a compact case
# of this size takes 1-3 s under the interpreter with the usual blocks (1024 elements, 64x64x32 tiles).
CPU_BUDGET = Budget(elements=1 << 22, flops=1 << 26)
FULL_DIVISOR = 8  # the full tier's cases are this much smaller than the compact one: they are many
BACKENDS = ("triton-cpu", "cuda", "npu")


def default_budget(backend: str) -> Budget | None:
    """The compact case's budget on a backend: None (upstream's own shape) on a GPU or NPU."""
    if backend not in BACKENDS:
        raise BadInput(f"unknown backend {backend!r}; expected one of {', '.join(BACKENDS)}")
    return CPU_BUDGET if backend == "triton-cpu" else None


def resolve_budget(backend: str, elements: int | None = None, flops: int | None = None) -> Budget | None:
    """The backend's default budget with what the user gave in its place (on cuda/npu, a bound of their own)."""
    budget = default_budget(backend)
    if elements is None and flops is None:
        return budget
    base = budget or Budget(elements=1 << 62, flops=1 << 62)
    return Budget(elements=elements or base.elements, flops=flops or base.flops)


class CaseSize(BaseModel):
    elements: int = 0
    flops: int = 0


class ProbeRequest(BaseModel):
    """What the probe process is asked: derive the cases of one upstream file and check them."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["repair.kernelbench.probe-request/v1"] = Field(REQUEST_SCHEMA, alias="schema")
    path: str
    text: str
    sha256: str
    operator_id: str
    family: str
    budget: Budget | None  # None: the compact case is upstream's own shape
    full_budget: Budget
    scale: float | None = None  # a fixed factor for the compact case instead of the budget's
    full_cases: int = 8
    check_on_cpu: int = CPU_BUDGET.elements * 4  # a case with more elements is checked on the meta device only


class Dropped(BaseModel):
    variant: str
    reason: str


class Derivation(BaseModel):
    """What the probe found: which constants are sizes, the cases, and what it left out and why."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["repair.kernelbench.derivation/v1"] = Field(DERIVATION_SCHEMA, alias="schema")
    constants: dict[str, Any]  # every free size constant, as upstream sets it
    sizes: list[str]  # the constants the cases set (they change get_inputs()'s shapes)
    kept: dict[str, str]  # constants that change the shapes but stay as written, and why
    scale: float  # the compact case's factor (1.0: upstream's shape)
    original: CaseSize
    compact: CaseSize
    cases: list[dict[str, Any]]  # CASES as written
    dropped: list[Dropped] = Field(default_factory=list)
    adjusted: dict[str, str] = Field(default_factory=dict)  # variant -> the constant it keeps back, and why
    checked: dict[str, str] = Field(default_factory=dict)  # variant -> "cpu" or "meta": where the reference ran it
    reference_seconds: float = 0.0  # the reference's forwards on the CPU, all checked cases together


class ImportedProblem(BaseModel):
    """One imported problem, as `repair import kernelbench --json` prints it."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["repair.kernelbench.import/v1"] = Field(IMPORT_SCHEMA, alias="schema")
    name: str
    operator_id: str
    family: str
    upstream: str  # the file as given
    upstream_sha256: str
    problem: str  # DIR/<name>/problem.py
    upstream_copy: str  # DIR/<name>/<file>: byte for byte, for kb freeze's provenance rule
    compact: int
    full: int
    derivation: Derivation

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)

    def line(self) -> str:
        """One line for the terminal: where it went, its tiers, what was scaled."""
        d = self.derivation
        scaled = ", ".join(f"{n} {d.constants[n]}->{d.cases[0][n]}" for n in d.sizes if d.cases[0][n] != d.constants[n])
        left_out = f"; {len(d.dropped)} variants left out" if d.dropped else ""
        return (f"{self.name}: {self.problem} ({self.compact} compact + {self.full - self.compact} full"
                f"{'; ' + scaled if scaled else '; upstream shape'}{left_out})")


class Refusal(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["repair.kernelbench.import/v1"] = Field(IMPORT_SCHEMA, alias="schema")
    upstream: str
    refused: str  # the one-line reason

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True)

    def line(self) -> str:
        return f"refused: {self.upstream}: {self.refused}"
