"""The repair record: the contract between `repair` (which writes them) and `kb ingest` (which reads them).

The JSON Schema published at ingest/schema/repair_record.v1.json is generated from these models
(`python -m ingest.record > ingest/schema/repair_record.v1.json`) and a test keeps the two equal.
"""
from __future__ import annotations

import sys
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

RECORD_SCHEMA = "repair.record/v1"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Operator(_Strict):
    id: str
    family: str | None = None
    problem_sha256: str


class Code(_Strict):
    code: str
    sha256: str


class Symptom(_Strict):
    """Diagnostics of the failing evaluation that started the repair."""

    label: str  # symptom label from the harness (tail-localized, nan-introduced, ...)
    location: str = "none"
    failed_tier: Literal["compact", "full", "none"] = "compact"
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    mismatch_frac: float | None = None
    statuses: dict[str, int] = Field(default_factory=dict)  # status -> count of cases
    notes: list[str] = Field(default_factory=list)


class Diagnosis(_Strict):
    title: str
    bug_class: str  # mask-off-by-one, missing-other, reduction-init, grid-floor-div, loop-tail, ...
    root_cause: str
    fix: str


class Evidence(_Strict):
    """Evaluation of the final candidate."""

    compact_passed: int
    compact_total: int
    full_passed: int
    full_total: int
    match: float  # full_passed / full_total
    case_set_sha256: str
    backend: str
    seed: int | None = None


class IntegrityAttempt(_Strict):
    attempt: int
    verdict: Literal["clean", "violation", "not-run"]
    rules: list[str] = Field(default_factory=list)  # rule ids of findings
    rules_off: list[str] = Field(default_factory=list)
    # the integrity policy the verdict was made under (strict: policy findings fail); left out when strict, so a
    # record made before the field existed dumps and hashes as it did
    policy: Literal["strict", "epilogue"] = Field("strict", exclude_if=lambda v: v == "strict")


class Worker(_Strict):
    kind: str  # scripted, litellm, rules, hand
    model: str | None = None
    prompt_template_sha256: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


class Retrieval(_Strict):
    snapshot_id: str | None = None  # None: the live KB (then kb_version says which)
    kb_version: int | None = None
    retrieved: list[str] = Field(default_factory=list)  # entry ids, best first
    cited: list[str] = Field(default_factory=list)


class RepairRecord(_Strict):
    schema_: Literal["repair.record/v1"] = Field(RECORD_SCHEMA, alias="schema")
    run_id: str
    status: Literal["repaired", "failed"]
    operator: Operator
    backend: str
    language: str = "triton"  # triton, cuda, c, cpp, ascendc: what the kernels are written in (kb query --language)
    # the kernels ran on an emulation of their hardware (ascendc-cpu); left out when false, so a record that never
    # emulated dumps (and hashes) as it did before the field existed
    emulated: bool = Field(False, exclude_if=lambda v: not v)
    source: Code  # the near-miss
    repaired: Code  # the final candidate (for failed runs: the best checkpoint)
    diff: str  # unified diff source -> repaired
    symptom: Symptom
    diagnosis: Diagnosis
    evidence: Evidence
    integrity_history: list[IntegrityAttempt]
    worker: Worker
    retrieval: Retrieval = Field(default_factory=Retrieval)
    rules: list[dict] = Field(default_factory=list)  # executable rewrite rules carried by the pattern
    tool_version: str
    started_at: str  # ISO 8601 UTC
    finished_at: str

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)


def json_schema() -> dict:
    return RepairRecord.model_json_schema(by_alias=True)


if __name__ == "__main__":
    import json

    json.dump(json_schema(), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
