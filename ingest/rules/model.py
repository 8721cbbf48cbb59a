"""The executable rule: a structural rewrite over the syntax tree, stored with a KB entry as data.

A rule is an ast-grep pattern with metavariables (`$X` one node, `$$$XS` a run of nodes) and a
rewrite template over the same metavariables, plus optional constraints. Rules are pydantic
models with a schema version; their canonical JSON is what the entry hashes.

Version 2 adds conditions over meaning, still as data: `flows` (the matched value reaches, or is
reached from, other code: ingest.rules.flow), `derive` (metavariables bound by a named fact about the
program: ingest.rules.facts) and `reference` (what the reference problem says). A rule that uses none
of them is written, and hashed, exactly as a version 1 rule.
"""
from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from provenance.canonical import canonical_json, content_hash
from ingest.rules.errors import BadRule

RULE_SCHEMA = "repair.rule/v1"
RULE_SCHEMA_V2 = "repair.rule/v2"
_V2_FIELDS = ("flows", "derive", "reference", "not_inside", "symptoms", "explains")

#: record/backend language -> the ast-grep language the rule is written in
LANGUAGES = {
    "triton": "python",
    "python": "python",
    "triton_ascend": "python",
    "cpp": "cpp",
    "c": "cpp",
    "cuda": "cpp",
    "ascendc": "cpp",
}

_METAVAR = re.compile(r"\$\$\$([A-Z_][A-Z0-9_]*)|\$([A-Z_][A-Z0-9_]*)")


class MetaConstraint(BaseModel):
    """What a single-node metavariable may bind to."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["any", "identifier", "literal", "number", "string", "call", "attribute"] = "any"
    regex: str | None = None  # the bound text must match (re.search semantics)
    not_regex: str | None = None  # the bound text must not match


class Flow(BaseModel):
    """The value at `source` reaches `sink` inside the matched node's function (and reaches no `not_sink`).

    Each end is the matched node (None), a metavariable of the match ("$X"), or a list of patterns:
    every match of a source pattern is a source; a sink pattern's `$SINK` binding is the sink (else its
    whole match). With `then`, a reached sink pattern's whole match must itself reach one of those
    (exp whose result is summed: sink tl.exp($SINK), then tl.sum).
    """

    model_config = ConfigDict(extra="forbid")

    source: str | list[str] | None = None
    sink: str | list[str] | None = None
    not_sink: list[str] = Field(default_factory=list)
    then: list[str] = Field(default_factory=list)

    @field_validator("source", "sink")
    @classmethod
    def _end(cls, v):
        if isinstance(v, str) and not re.fullmatch(r"\$[A-Z_][A-Z0-9_]*", v):
            raise ValueError(f"a flow end is a metavariable ($X) or a list of patterns, got {v!r}")
        return v


class Fact(BaseModel):
    """A named fact about the program (ingest.rules.facts) that binds a metavariable, or only filters."""

    model_config = ConfigDict(extra="forbid")

    fact: str
    of: str | None = None  # the metavariable the fact is about
    args: dict[str, str | int | float | bool | list[str]] = Field(default_factory=dict)


class Reference(BaseModel):
    """Regexes over the reference problem's source; checked only where the caller knows the problem."""

    model_config = ConfigDict(extra="forbid")

    requires_any: list[str] = Field(default_factory=list)
    forbids: list[str] = Field(default_factory=list)

    @field_validator("requires_any", "forbids")
    @classmethod
    def _compiles(cls, v: list[str]) -> list[str]:
        for rx in v:
            try:
                re.compile(rx)
            except re.error as e:
                raise ValueError(f"regex {rx!r}: {e}") from None
        return v


class Signature(BaseModel):
    """One way a rule's bug shows in an evaluation: which cases fail and how (ingest.rules.evidence reads it).

    Every condition given must hold of the evaluated tier's cases. Cues are the diagnosis labels and locations of a
    failing case (`tail-localized`, `last-block`, `everywhere`, ...), `nan` (a NaN or Inf where the reference is
    finite), `unwritten` (NaN in an output: on the emulations every output starts as NaN, so elements nobody wrote),
    and the faults an emulator reports (`queue`, `datacopy-align`, `local-bounds`, `gm-bounds`).
    """

    model_config = ConfigDict(extra="forbid")

    backends: list[str] = Field(default_factory=list)  # where this is how it shows ([]: every backend)
    statuses: list[str] = Field(default_factory=list)  # every failing case has one of these statuses
    cues: list[str] = Field(default_factory=list)  # some failing case shows one of these cues
    every_case: list[str] = Field(default_factory=list)  # every failing case shows one of these cues
    absent: list[str] = Field(default_factory=list)  # no failing case shows any of these
    faults: list[str] = Field(default_factory=list)  # a failing case's message matches one of these regexes
    low_precision_only: bool = False  # only half/bfloat16 cases fail, and some case of another dtype passes
    some_pass: bool = False  # some case of the tier passes (the bug depends on the case)

    @field_validator("faults")
    @classmethod
    def _compiles(cls, v: list[str]) -> list[str]:
        for rx in v:
            try:
                re.compile(rx)
            except re.error as e:
                raise ValueError(f"regex {rx!r}: {e}") from None
        return v


class Rule(BaseModel):
    """One structural rewrite: `pattern` -> `rewrite`, where constraints hold."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, serialize_by_alias=True)

    schema_: Literal["repair.rule/v1", "repair.rule/v2"] = Field(RULE_SCHEMA, alias="schema")
    id: str
    language: Literal["python", "cpp"] = "python"
    bug_class: str = ""
    title: str = ""
    pattern: str
    # ast-grep selector: match the node of this kind inside the parsed pattern (for fragments such as a
    # keyword argument, written as pattern "f(mask=$A <= $B)" with selector "keyword_argument")
    selector: str | None = None
    rewrite: str
    where: dict[str, MetaConstraint] = Field(default_factory=dict)
    # kernel: inside a @triton.jit function (C++: a __global__/__aicore__ function); host: outside one
    context: Literal["any", "kernel", "host"] = "any"
    # patterns (metavariables bound by the match) that must / must not occur in the enclosing function
    requires: list[str] = Field(default_factory=list)
    requires_any: list[str] = Field(default_factory=list)  # at least one of these must occur there
    forbids: list[str] = Field(default_factory=list)
    origin: Literal["hand", "distilled", "learned"] = "hand"  # learned: generalised at ingest (ingest.learn)
    # version 2: conditions over meaning
    flows: list[Flow] = Field(default_factory=list)  # each must hold at the match
    derive: dict[str, Fact] = Field(default_factory=dict)  # metavariables bound by facts, in order
    reference: Reference | None = None
    not_inside: list[str] = Field(default_factory=list)  # patterns no ancestor of the match may match
    # the failure cues its bug class shows (diagnosis labels and locations, `nan`, `layout`, `param`): a worker
    # tries first the rules whose cues the failing evaluation shows
    symptoms: list[str] = Field(default_factory=list)
    # what the evaluation looks like when this rule's bug is the cause (any one signature): a worker that knows the
    # evaluated cases tries the rules whose explanation fits first and never one whose explanation it contradicts
    explains: list[Signature] = Field(default_factory=list)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9._/-]{0,127}", v):
            raise ValueError(f"rule id {v!r} must be lowercase [a-z0-9._/-], at most 128 characters")
        return v

    @model_validator(mode="after")
    def _metavars_bound(self) -> "Rule":
        bound = metavariables(self.pattern)
        for extra in (*self.requires, *self.requires_any):  # metavariables bound by a required pattern
            bound |= metavariables(extra)
        for flow in self.flows:
            for end in (flow.source, flow.sink):
                if isinstance(end, str) and end[1:] not in bound:
                    raise ValueError(f"flow names {end}, which the pattern does not bind")
        for name, fact in self.derive.items():
            if fact.of is not None and fact.of.lstrip("$") not in bound:
                raise ValueError(f"fact {fact.fact} is about ${fact.of.lstrip('$')}, which the pattern does not bind")
            bound.add(name)
        for name in metavariables(self.rewrite) - bound:
            raise ValueError(f"rewrite uses ${name}, which the pattern does not bind")
        for name in self.where:
            if name not in bound:
                raise ValueError(f"constraint on ${name}, which the pattern does not bind")
        if self.pattern.strip() == self.rewrite.strip() and not self.derive:  # a fact may carry the edits
            raise ValueError("rewrite equals pattern")
        if self.uses_v2():
            self.schema_ = RULE_SCHEMA_V2
        return self

    def uses_v2(self) -> bool:
        return bool(self.flows or self.derive or self.reference is not None or self.not_inside or self.symptoms
                    or self.explains)

    def to_dict(self) -> dict:
        """The JSON form stored in a record's `rules` list (a rule without version 2 fields: exactly version 1's)."""
        data = self.model_dump(mode="json", by_alias=True)
        for name in _V2_FIELDS:
            if data.get(name) in (None, [], {}):
                data.pop(name, None)
        return data

    def canonical(self) -> str:
        return canonical_json(self.to_dict())

    def sha256(self) -> str:
        return content_hash(self.to_dict())


def metavariables(template: str) -> set[str]:
    """Names of the metavariables used in a pattern or rewrite template."""
    return {a or b for a, b in _METAVAR.findall(template)}


def rule_from_dict(data: dict, *, where: str = "rule") -> Rule:
    """Validate one stored rule; a bad one is a BadRule naming what is wrong."""
    try:
        return Rule.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first["loc"]) or "rule"
        raise BadRule(f"{where}: {loc}: {first['msg']}") from None


def rules_of(record_or_entry, *, where: str = "record") -> list[Rule]:
    """The rules a repair record or KB entry carries (anything with a `rules` list of dicts)."""
    raw = record_or_entry.get("rules", []) if isinstance(record_or_entry, dict) else getattr(record_or_entry, "rules", [])
    return [rule_from_dict(r, where=f"{where} rules[{i}]") for i, r in enumerate(raw or [])]


def language_of(name: str) -> str:
    try:
        return LANGUAGES[name.lower()]
    except KeyError:
        raise BadRule(f"no rule language for {name!r}; known: {', '.join(sorted(LANGUAGES))}") from None
