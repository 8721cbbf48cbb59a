"""An integrity verdict: the findings the gate emits, and their human form (`--json` prints the model instead)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, model_validator


Level = Literal["cheat", "policy", "note"]
Policy = Literal["strict", "epilogue"]
POLICIES = ("strict", "epilogue")
# the level a rule's findings have unless the finding says otherwise (a static framework op over a kernel's output
# is a policy finding; the runtime guard measures an epilogue's share and says cheat when it is not small)
POLICY_RULES = frozenset({"runtime.input-mutated"})
NOTE_RULES = frozenset({"static.kernel-not-launched"})


def default_level(rule: str) -> str:
    return "policy" if rule in POLICY_RULES else "note" if rule in NOTE_RULES else "cheat"


class IntegrityFinding(BaseModel):
    rule: str
    message: str
    line: int | None = None
    evidence: str = ""
    phase: Literal["static", "runtime"] = "static"
    file: str | None = None  # where `line` is when it is not the candidate file's (an AscendC source)
    # cheat: the result did not come from the candidate's kernels (always fails); policy: a framework epilogue over
    # kernel outputs or an in-place update of an input (fails under the strict policy only); note: said, never fails
    level: Level = "cheat"
    share: float | None = None  # a policy finding's share of the forward's work (elements), where measured
    # a runtime finding's case and the input it is about, as fields where it was made (the evidence says them too, in
    # words that may change): what decides about the finding reads these
    case_id: str | None = None
    input_index: int | None = None

    @model_validator(mode="before")
    @classmethod
    def _rule_level(cls, data):
        if isinstance(data, dict) and data.get("level") is None and "rule" in data:
            data = {**data, "level": default_level(data["rule"])}
        return data


class IntegrityVerdict(BaseModel):
    verdict: Literal["clean", "violation"] = "clean"
    findings: list[IntegrityFinding] = Field(default_factory=list)
    rules_off: list[str] = Field(default_factory=list)
    policy: Policy = "strict"  # what policy findings count as: strict fails them, epilogue reports them


def render_verdict(verdict: IntegrityVerdict, candidate: str = "") -> str:
    head = f"{candidate}: {verdict.verdict}" if candidate else verdict.verdict
    lines = [head + (f" ({len(verdict.findings)} findings)" if verdict.findings else "")]
    for f in verdict.findings:
        where = f"{f.file}:{f.line}" if f.file else f"line {f.line}" if f.line else f.phase
        tag = "" if f.level == "cheat" else f"[{f.level}{'' if f.share is None else f' {f.share:.1%} of the work'}] "
        lines.append(f"  {where:>9}  {f.rule:<32} {tag}{f.message}")
        if f.evidence:
            lines.append(f"{'':13}{f.evidence}")
    if verdict.policy != "strict" or any(f.level == "policy" for f in verdict.findings):
        lines.append(f"  policy: {verdict.policy}" + (" (policy findings fail)" if verdict.policy == "strict"
                                                      else " (policy findings are reported, not failed)"))
    if verdict.rules_off:
        lines.append(f"  rules off: {', '.join(verdict.rules_off)}")
    return "\n".join(lines)
