"""From an admitted repair record to a KB pattern entry (content-addressed) and its evidence.

The pattern is what a repairer can reuse: symptom, diagnosis, fix, the changed hunks and the rules.
Its id is the sha256 of its canonical JSON, so two runs that find the same fix for the same symptom
give one entry. What differs between runs (statistics of the failing evaluation, run ids, models,
times, gate evidence) is evidence, stored once per admitted record.
"""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ingest.patch import snippets, unified_diff
from ingest.record import RepairRecord
from provenance.canonical import canonical_json, content_hash, sha256_text

PATTERN_SCHEMA = "kb.pattern/v1"
EVIDENCE_SCHEMA = "kb.evidence/v1"
EMBED_TEXT_CHARS = 400


class PatternSymptom(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: str
    location: str = "none"
    failed_tier: str = "compact"


class Pattern(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["kb.pattern/v1"] = Field(PATTERN_SCHEMA, alias="schema")
    title: str
    bug_class: str
    root_cause: str
    fix: str
    symptom: PatternSymptom
    before: str  # the changed hunks of the near-miss, with context
    after: str  # the same hunks repaired
    diff: str  # canonical unified diff source -> repaired (regenerated, so run-specific headers do not split entries)
    language: str
    backend: str
    family: str | None = None
    rules: list[dict] = Field(default_factory=list)

    def canonical(self) -> str:
        return canonical_json(self.model_dump(mode="json", by_alias=True))

    @property
    def id(self) -> str:
        return sha256_text(self.canonical())


class Evidence(BaseModel):
    """One admitted record's contribution to an entry: who produced it, how it was checked."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_: Literal["kb.evidence/v1"] = Field(EVIDENCE_SCHEMA, alias="schema")
    record_sha256: str
    run_id: str
    operator_id: str
    family: str | None
    problem_sha256: str
    source_sha256: str
    repaired_sha256: str
    symptom_stats: dict  # max_abs_err, max_rel_err, mismatch_frac, statuses, notes of the failing evaluation
    gate: dict  # match, min_match, tier counts, case_set_sha256, integrity history
    worker: dict  # kind, model, prompt_template_sha256, tokens
    retrieval: dict  # snapshot/KB version used and the pattern ids cited
    tool_version: str
    started_at: str
    finished_at: str


def record_sha256(record: RepairRecord) -> str:
    return content_hash(record.model_dump(mode="json", by_alias=True))


def pattern_from_record(record: RepairRecord) -> Pattern:
    diff = unified_diff(record.source.code, record.repaired.code)
    before, after = snippets(diff)
    d, s = record.diagnosis, record.symptom
    return Pattern(
        title=d.title.strip(), bug_class=d.bug_class.strip(), root_cause=d.root_cause.strip(), fix=d.fix.strip(),
        symptom=PatternSymptom(label=s.label, location=s.location, failed_tier=s.failed_tier),
        before=before, after=after, diff=diff, language=record.language, backend=record.backend,
        family=record.operator.family, rules=_entry_rules(record),
    )


def _entry_rules(record: RepairRecord) -> list[dict]:
    """The record's own rules, else rules distilled from its fix (repair.rules), else none."""
    from ingest.rules.hooks import rules_for_record

    return rules_for_record(record)


def evidence_from_record(record: RepairRecord, *, min_match: float, accept_policy: str = "strict") -> Evidence:
    """The evidence row; its gate names the integrity policy the gate admitted under when laxer than strict (a
    strict admission's row is as it always was)."""
    s, e, w = record.symptom, record.evidence, record.worker
    policy = {} if accept_policy == "strict" else {"accept_policy": accept_policy}
    return Evidence(
        record_sha256=record_sha256(record), run_id=record.run_id, operator_id=record.operator.id,
        family=record.operator.family, problem_sha256=record.operator.problem_sha256,
        source_sha256=record.source.sha256, repaired_sha256=record.repaired.sha256,
        symptom_stats={"max_abs_err": s.max_abs_err, "max_rel_err": s.max_rel_err, "mismatch_frac": s.mismatch_frac,
                       "statuses": s.statuses, "notes": s.notes},
        gate={"match": e.match, "min_match": min_match, "full_passed": e.full_passed, "full_total": e.full_total,
              "compact_passed": e.compact_passed, "compact_total": e.compact_total,
              "case_set_sha256": e.case_set_sha256, "seed": e.seed,
              "integrity_history": [a.model_dump(mode="json") for a in record.integrity_history], **policy},
        worker=w.model_dump(mode="json"), retrieval=record.retrieval.model_dump(mode="json"),
        tool_version=record.tool_version, started_at=record.started_at, finished_at=record.finished_at,
    )


def embed_text(p: Pattern) -> str:
    """Short text for the dense index: title, symptom, bug class and fix (MiniLM is slow on long text;
    the root cause and the code go to BM25)."""
    text = f"{p.title}. symptom {p.symptom.label} at {p.symptom.location}. {p.bug_class}. fix: {p.fix}"
    return text[:EMBED_TEXT_CHARS]


def lexical_text(p: Pattern) -> str:
    """What BM25 matches: the words, the labels and the near-miss side of the changed code (a failing
    kernel looks like `before`; indexing `after` too made entries match code they had fixed)."""
    return "\n".join([p.title, p.bug_class, p.symptom.label, p.symptom.location, p.root_cause, p.fix,
                      p.family or "", p.language, p.before])
