"""The human form of an EvalResult: one line per case, then the tier summary and the verdict.

Lines fit WIDTH columns (a terminal's 100): a case's detail wraps onto continuation lines under its column, and
an error is never cut; the diagnosis notes (the most useful line: "each failing row is a constant multiple of the
reference's ...") are printed under the table, not only in --json.
"""
from __future__ import annotations

import textwrap

from repair.engine.result import CaseResult, EvalResult
from repair.engine.tolerance import DEFAULT_TOLERANCE

WIDTH = 100


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
    return lines[-1] if c.status == "error" and lines else (lines[0] if lines else "")


def _messages(r: EvalResult) -> list[str]:
    """Each distinct failure message of more than one line (a row shows one line whole) and each emulator note,
    in full, wrapped, with the cases that gave it."""
    seen: dict[str, list[str]] = {}
    for c in r.cases:
        text = c.message.strip()
        texts = [text] if c.status not in ("pass", "mismatch") and "\n" in text else []
        for t in [*texts, *(f"note: {n}" for n in c.notes)]:
            seen.setdefault(t, []).append(c.case_id)
    out = []
    for text, cases in seen.items():
        head = f"{cases[0]}" if len(cases) == 1 else f"{cases[0]}..{cases[-1]} ({len(cases)} cases)"
        first, *rest = text.splitlines()
        out += _wrap(f"[{head}] {first}", 0) + [ln for line in rest for ln in _wrap(line, 4)]
    return out


def _confinement(r: EvalResult) -> str:
    if not r.confined:
        return "not confined"
    return f"confined, landlock {r.landlock}" if r.landlock else "confined, no landlock"


def tolerance_text(tolerance: dict | None) -> str:
    """The tolerance an evaluation compared with: the problem's TOLERANCE, or the defaults by dtype."""
    if not tolerance:
        by = {}
        for dtype, t in DEFAULT_TOLERANCE.items():
            by.setdefault((t["atol"], t["rtol"]), []).append(dtype.replace("float", "fp").replace("bfp", "bf"))
        return "tolerance by dtype (" + ", ".join(f"{'/'.join(d)} {a:g}" if a == rt else f"{'/'.join(d)} {a:g}/{rt:g}"
                                                  for (a, rt), d in by.items()) + ")"
    flat = {k: v for k, v in tolerance.items() if k in ("atol", "rtol")}
    parts = [" ".join(f"{k}={v:g}" for k, v in flat.items())] if flat else []
    parts += [f"{k}: " + " ".join(f"{kk}={vv:g}" for kk, vv in v.items()) for k, v in tolerance.items() if k not in flat]
    return "tolerance " + "; ".join(parts) + " (its TOLERANCE)"


def backend_text(r: EvalResult) -> str:
    return f"backend {r.backend}" + (" (emulated: not the hardware)" if r.emulated else "")


def _wrap(text: str, indent: int) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=" " * indent, subsequent_indent=" " * indent,
                         break_long_words=True, break_on_hyphens=False) or [""]


def render_table(r: EvalResult) -> str:
    op = f"{r.operator_id}" + (f" ({r.family})" if r.family else "")
    lines = [f"{op}  candidate {r.candidate_path}"]  # a path is not wrapped: it goes on a line of its own
    if len(lines[0]) > WIDTH:
        lines = [op, f"  candidate {r.candidate_path}"]
    lines += _wrap(f"{backend_text(r)}  tier {r.tier}  seed {r.seed}  {tolerance_text(r.tolerance)}", 0)
    rows = [("case", "tier", "params", "status", "max_abs", "max_rel", "mism%", "detail")]
    for c in r.cases:
        frac = "-" if c.mismatch_frac is None else f"{100 * c.mismatch_frac:.1f}"
        rows.append((c.case_id, c.tier, _params(c.params), c.status, _num(c.max_abs_err), _num(c.max_rel_err),
                     frac, _detail(c)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    if sum(widths) + 2 * len(widths) > WIDTH - 8:  # long params: each case's go under it, with its detail
        rows = [(*row[:2], *row[3:-1], f"{row[2]}  {row[-1]}".rstrip() if n else "params  detail")
                for n, row in enumerate(rows)]
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        left = "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  "
        if len(left) + len(row[-1]) <= WIDTH or not row[-1]:
            lines.append((left + row[-1]).rstrip())
        else:  # the detail goes under the row, whole, wrapped
            lines.append(left.rstrip())
            lines += _wrap(row[-1], 6)
    notes = [(c.case_id, n) for c in r.cases if c.status != "pass" and c.diagnostics is not None
             for n in c.diagnostics.notes]
    if notes:
        lines.append("diagnosis:")
        for case_id, note in notes:
            lines += textwrap.wrap(f"{case_id}: {note}", WIDTH, initial_indent="  ", subsequent_indent="      ")
    lines.extend(_messages(r))
    tiers = "  ".join(f"{t} {s.passed}/{s.total}" for t, s in r.summary.items())
    match = "" if r.match is None else f"  match {r.match:.3f}"
    integ = r.integrity.verdict
    if r.integrity.findings:  # policy findings and notes say so: only cheats fail under every policy
        tags = {f.rule + ("" if f.level == "cheat" else f" [{f.level}]") for f in r.integrity.findings}
        integ += " (" + ", ".join(sorted(tags)) + ")"
    if r.integrity.policy != "strict" or any(f.level == "policy" for f in r.integrity.findings):
        integ += f", policy {r.integrity.policy}"
    if r.load_error:  # where, as `repair check` says it (file:line)
        lines += _wrap(f"does not load: {r.load_error}", 0)
        integ = "not scanned (the candidate does not load)"
    verdict = f"{tiers}{match}  integrity {integ}  {'PASS' if r.passed else 'UNSUPPORTED' if r.unsupported else 'FAIL'}"
    timing = (f"[{r.wall_seconds:.2f}s wall, {r.kernel_seconds:.2f}s in forwards, "
              f"{_confinement(r)}{', emulated' if r.emulated else ''}]")
    lines += [f"{verdict}  {timing}"] if len(verdict) + 2 + len(timing) <= WIDTH else [verdict, timing]
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
