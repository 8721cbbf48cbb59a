"""An integrity verdict: the findings the gate emits, and their human form (`--json` prints the model instead)."""
from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class IntegrityFinding(BaseModel):
    rule: str
    message: str
    line: int | None = None
    evidence: str = ""
    phase: Literal["static", "runtime"] = "static"
    file: str | None = None  # where `line` is when it is not the candidate file's (an AscendC source)


class IntegrityVerdict(BaseModel):
    verdict: Literal["clean", "violation"] = "clean"
    findings: list[IntegrityFinding] = Field(default_factory=list)
    rules_off: list[str] = Field(default_factory=list)


def render_verdict(verdict: IntegrityVerdict, candidate: str = "") -> str:
    head = f"{candidate}: {verdict.verdict}" if candidate else verdict.verdict
    lines = [head + (f" ({len(verdict.findings)} findings)" if verdict.findings else "")]
    for f in verdict.findings:
        where = f"{f.file}:{f.line}" if f.file else f"line {f.line}" if f.line else f.phase
        lines.append(f"  {where:>9}  {f.rule:<32} {f.message}")
        if f.evidence:
            lines.append(f"{'':13}{f.evidence}")
    if verdict.rules_off:
        lines.append(f"  rules off: {', '.join(verdict.rules_off)}")
    return "\n".join(lines)
