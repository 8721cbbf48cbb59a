"""The human form of an EvalResult: one line per case, then the tier summary and the verdict."""
from __future__ import annotations

from repair.engine.result import CaseResult, EvalResult


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.2e}"


def _params(p: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in p.items()) or "-"


def _detail(c: CaseResult) -> str:
    if c.status == "pass":
        return ""
    if c.diagnostics is not None and c.status == "mismatch":
        d = c.diagnostics
        where = f" @ {d.location}" if d.location not in ("none", "") else ""
        first = f" first {c.first_mismatch}" if c.first_mismatch is not None else ""
        return f"{d.symptom}{where}{first}"
    lines = [ln for ln in c.message.strip().splitlines() if ln.strip()]
    if c.status in ("compile-error", "unsupported"):  # the line that says why (the whole message follows the table)
        lines = lines[:1] if c.status == "unsupported" else [ln for ln in lines if "error" in ln][:1] or lines[:1]
    return lines[-1][:90] if c.status == "error" and lines else (lines[0][:90] if lines else "")


def _messages(r: EvalResult) -> list[str]:
    """Each distinct failure message and note in full, with the cases that gave it (the table's cells are cut)."""
    seen: dict[str, list[str]] = {}
    for c in r.cases:
        texts = [c.message.strip()] if c.status not in ("pass", "mismatch") and c.message.strip() else []
        for text in [*texts, *(f"note: {n}" for n in c.notes)]:
            seen.setdefault(text, []).append(c.case_id)
    out = []
    for text, cases in seen.items():
        head = f"{cases[0]}" if len(cases) == 1 else f"{cases[0]}..{cases[-1]} ({len(cases)} cases)"
        out.append(f"[{head}] " + text.replace("\n", "\n    "))
    return out


def _confinement(r: EvalResult) -> str:
    if not r.confined:
        return "not confined"
    return f"confined, landlock {r.landlock}" if r.landlock else "confined, no landlock"


def render_table(r: EvalResult) -> str:
    head = (f"{r.operator_id}" + (f" ({r.family})" if r.family else "")
            + f"  candidate {r.candidate_path}  backend {r.backend}  tier {r.tier}  seed {r.seed}")
    rows = [("case", "tier", "params", "status", "max_abs", "max_rel", "mism%", "detail")]
    for c in r.cases:
        frac = "-" if c.mismatch_frac is None else f"{100 * c.mismatch_frac:.1f}"
        rows.append((c.case_id, c.tier, _params(c.params), c.status, _num(c.max_abs_err), _num(c.max_rel_err),
                     frac, _detail(c)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = [head]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[-1])
    lines.extend(_messages(r))
    tiers = "  ".join(f"{t} {s.passed}/{s.total}" for t, s in r.summary.items())
    match = "" if r.match is None else f"  match {r.match:.3f}"
    integ = r.integrity.verdict
    if r.integrity.findings:  # policy findings and notes say so: only cheats fail under every policy
        tags = {f.rule + ("" if f.level == "cheat" else f" [{f.level}]") for f in r.integrity.findings}
        integ += " (" + ", ".join(sorted(tags)) + ")"
    if r.integrity.policy != "strict" or any(f.level == "policy" for f in r.integrity.findings):
        integ += f", policy {r.integrity.policy}"
    lines.append(f"{tiers}{match}  integrity {integ}  "
                 f"{'PASS' if r.passed else 'UNSUPPORTED' if r.unsupported else 'FAIL'}  [{r.wall_seconds:.2f}s wall, {r.kernel_seconds:.2f}s in forwards, "
                 f"{_confinement(r)}{', emulated' if r.emulated else ''}]")
    return "\n".join(lines)


def render_summary(results: list[EvalResult]) -> str:
    """One line per evaluation (several candidates in one command), then how many passed."""
    rows = [("candidate", "compact", "full", "match", "integrity", "verdict")]
    for r in results:
        tiers = [f"{r.summary[t].passed}/{r.summary[t].total}" if t in r.summary else "-" for t in ("compact", "full")]
        rows.append((r.candidate_path, *tiers, "-" if r.match is None else f"{r.match:.3f}", r.integrity.verdict,
                     "PASS" if r.passed else "UNSUPPORTED" if r.unsupported else "FAIL"))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    emulated = " (emulated)" if any(r.emulated for r in results) else ""
    return "\n".join(lines + [f"{sum(r.passed for r in results)} of {len(results)} candidates passed{emulated}"])
