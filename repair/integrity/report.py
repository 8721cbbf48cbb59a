"""Human-readable form of an integrity verdict (the CLI prints it; `--json` prints the model instead)."""
from __future__ import annotations

from repair.engine.result import IntegrityVerdict


def render_verdict(verdict: IntegrityVerdict, candidate: str = "") -> str:
    head = f"{candidate}: {verdict.verdict}" if candidate else verdict.verdict
    lines = [head + (f" ({len(verdict.findings)} findings)" if verdict.findings else "")]
    for f in verdict.findings:
        where = f"line {f.line}" if f.line else f.phase
        lines.append(f"  {where:>9}  {f.rule:<32} {f.message}")
        if f.evidence:
            lines.append(f"{'':13}{f.evidence}")
    if verdict.rules_off:
        lines.append(f"  rules off: {', '.join(verdict.rules_off)}")
    return "\n".join(lines)
