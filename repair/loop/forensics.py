"""Forensics: the engine's account of a failing evaluation, as text for the worker and a symptom for the record."""
from __future__ import annotations

from collections import Counter

from repair.engine import CaseResult, EvalResult

MAX_CASES = 6


def failing_view(compact: EvalResult, full: EvalResult | None) -> tuple[str, EvalResult]:
    """The tier whose failures the worker should see next: the full tier once the compact one passes."""
    if full is not None and full.failing_cases():
        return "full", full
    return "compact", compact


def render(compact: EvalResult, full: EvalResult | None = None) -> str:
    tier, result = failing_view(compact, full)
    failing = result.failing_cases()
    cases = _tier_cases(result, tier)
    lines = [f"tier {tier}: {len(cases) - len(failing)} of {len(cases)} cases pass"]
    for case in failing[:MAX_CASES]:
        lines.append(_case_line(case))
    if len(failing) > MAX_CASES:
        lines.append(f"... and {len(failing) - MAX_CASES} more failing cases")
    for f in result.integrity.findings:
        lines.append(f"integrity {f.rule} (line {f.line}): {f.message}")
    return "\n".join(lines)


def _case_line(c: CaseResult) -> str:
    parts = [f"- case {c.case_id} {c.params or ''} status={c.status}"]
    if c.max_abs_err is not None:
        parts.append(f"max_abs_err={c.max_abs_err:.3g}")
    if c.max_rel_err is not None:
        parts.append(f"max_rel_err={c.max_rel_err:.3g}")
    if c.mismatch_frac is not None:
        parts.append(f"mismatch_frac={c.mismatch_frac:.3g}")
    if c.nan_count or c.inf_count:
        parts.append(f"nan={c.nan_count} inf={c.inf_count}")
    if c.first_mismatch is not None:
        parts.append(f"first_mismatch={c.first_mismatch}")
    if c.shape is not None and c.expected_shape is not None and c.shape != c.expected_shape:
        parts.append(f"shape={c.shape} expected={c.expected_shape}")
    if c.diagnostics is not None and c.diagnostics.symptom != "none":
        parts.append(f"symptom={c.diagnostics.symptom} location={c.diagnostics.location}")
        parts.extend(c.diagnostics.notes[:3])
    parts.extend(f"note: {n}" for n in c.notes[:3])
    if c.message:
        lines = c.message.strip().splitlines()
        parts.append("message: " + (lines[0] if c.status == "unsupported" else lines[-1])[:300])
    return " ".join(parts)


def labels(compact: EvalResult, full: EvalResult | None = None):
    """The failing evaluation as data for the worker (repair.workers.FailureLabels): what `render` prints, typed."""
    from repair.workers import CaseLabel, FailureLabels

    tier, result = failing_view(compact, full)
    cases = []
    for c in result.failing_cases():
        d = c.diagnostics
        cases.append(CaseLabel(
            case_id=c.case_id, tier=c.tier, status=c.status, params=tuple(sorted((c.params or {}).items())),
            symptom=d.symptom if d is not None else "none", location=d.location if d is not None else "none",
            notes=tuple(d.notes) if d is not None else (), nan_count=c.nan_count or 0, inf_count=c.inf_count or 0,
            message=c.message.strip().splitlines()[-1][:300] if c.message and c.message.strip() else ""))
    s = symptom(compact, full)
    return FailureLabels(symptom=s["label"], location=s.get("location", "none"), tier=tier, cases=tuple(cases),
                         integrity=tuple(dict.fromkeys(f.rule for f in result.integrity.findings)))


def symptom(compact: EvalResult, full: EvalResult | None = None) -> dict:
    """The fields of ingest.record.Symptom for the evaluation that started the repair."""
    tier, result = failing_view(compact, full)
    failing = result.failing_cases()
    if not failing:
        return {"label": "none", "failed_tier": "none"}
    labels = Counter(c.diagnostics.symptom for c in failing if c.diagnostics and c.diagnostics.symptom != "none")
    first = failing[0]
    label = labels.most_common(1)[0][0] if labels else first.status
    located = [c.diagnostics.location for c in failing if c.diagnostics and c.diagnostics.location != "none"]
    notes = [n for c in failing for n in c.notes] + [n for c in failing if c.diagnostics for n in c.diagnostics.notes]
    return {
        "label": label,
        "location": located[0] if located else "none",
        "failed_tier": tier,
        "max_abs_err": _max(c.max_abs_err for c in failing),
        "max_rel_err": _max(c.max_rel_err for c in failing),
        "mismatch_frac": _max(c.mismatch_frac for c in failing),
        "statuses": dict(Counter(c.status for c in _tier_cases(result, tier))),
        "notes": list(dict.fromkeys(notes))[:5],
    }


def _tier_cases(result: EvalResult, tier: str) -> list[CaseResult]:
    return [c for c in result.cases if c.tier == tier] or result.cases


def _max(values) -> float | None:
    finite = [v for v in values if v is not None and v == v and abs(v) != float("inf")]
    return max(finite) if finite else None
