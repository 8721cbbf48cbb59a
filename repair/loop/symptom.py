"""The retrieval query of a failing `repair eval` result (the loop's, and `kb query --symptom EVAL.json`'s).

The knowledge base receives the query as data (text and code); it never reads an evaluation itself.

The text is short (what MiniLM handles well): symptom labels, locations, statuses and notes of the
failing cases; it feeds the dense and the BM25 ranking. The code part (error messages and the
candidate's code) feeds a third, BM25-only ranking matched against the stored snippets.
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from provenance.readfile import read_text
from repair.engine import EvalResult
from repair.errors import BadInput

CODE_CHARS = 4000


@dataclass(frozen=True)
class SymptomQuery:
    text: str  # short: symptoms, locations, statuses, notes (dense and BM25)
    code: str  # error messages and the candidate's code (BM25 only)
    family: str | None
    operator_id: str


def load_eval(path: str | Path) -> EvalResult:
    from pydantic import ValidationError

    path = Path(path)
    try:
        raw = json.loads(read_text(path))
    except OSError as e:
        raise BadInput(f"{path}: cannot read: {e.strerror or e}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(f"{path}: not a JSON eval result ({e})") from None
    try:
        return EvalResult.model_validate(raw)
    except ValidationError as e:
        first = e.errors()[0]
        raise BadInput(f"{path}: not a `repair eval --json` result: {'.'.join(map(str, first['loc']))}: {first['msg']}") from None


def symptom_query(result: EvalResult, *, base_dir: Path | None = None, code_chars: int = CODE_CHARS) -> SymptomQuery:
    failing = result.failing_cases() or result.cases
    labels = Counter(c.diagnostics.symptom for c in failing if c.diagnostics and c.diagnostics.symptom != "none")
    locations = Counter(c.diagnostics.location for c in failing if c.diagnostics and c.diagnostics.location != "none")
    statuses = sorted({c.status for c in failing})
    tiers = sorted({c.tier for c in failing})
    notes = list(dict.fromkeys(n for c in failing if c.diagnostics for n in c.diagnostics.notes))[:5]
    parts = []
    if labels:
        where = f" at {' and '.join(loc for loc, _ in locations.most_common(2))}" if locations else ""
        parts.append(f"symptom {' and '.join(label for label, _ in labels.most_common(3))}{where}")
    parts.append(f"failing cases {' '.join(statuses)} in the {'/'.join(tiers) or result.tier} tier")
    if result.integrity.verdict != "clean":
        parts.append("integrity " + " ".join(f.rule for f in result.integrity.findings))
    text = ". ".join(parts + notes)
    messages = list(dict.fromkeys(c.message.strip().splitlines()[-1][:200] for c in failing if c.message.strip()))[:3]
    code = _candidate_code(result.candidate_path, base_dir)[:code_chars]
    return SymptomQuery(text, "\n".join([*messages, code]), result.family, result.operator_id)


def _candidate_code(candidate_path: str, base_dir: Path | None) -> str:
    candidates = [Path(candidate_path)]
    if base_dir is not None and not Path(candidate_path).is_absolute():
        candidates.append(base_dir / candidate_path)
    for p in candidates:
        try:
            return read_text(p, errors="replace")  # a path from the result: maybe /dev/zero
        except OSError:
            continue
    return ""


def make_eval_result(bug_class: str, i: int = 0, *, candidate_path: str = "nearmiss.py"):
    """A failing `repair eval` result whose diagnostics show the bug class's symptom."""
    from ingest.synthetic import BUG_CLASSES, kernel_pair
    from provenance.canonical import sha256_text
    from repair.engine import CaseResult, Diagnostics, TierSummary

    b = BUG_CLASSES[bug_class]
    bad, _ = kernel_pair(i, bug_class)
    cases = [CaseResult(case_id=f"c{n}", tier="compact", status="mismatch" if n < 2 else "pass",
                        max_abs_err=0.7 if n < 2 else 0.0, mismatch_frac=0.02 if n < 2 else 0.0,
                        diagnostics=Diagnostics(symptom=b.symptom, location=b.location) if n < 2 else None)
             for n in range(4)]
    return EvalResult(operator_id=f"{b.family}_query", family=b.family, problem_path="problem.py",
                      problem_sha256=sha256_text("problem"), candidate_path=candidate_path,
                      candidate_sha256=sha256_text(bad), backend="cpu", tier="compact", seed=0,
                      case_set_sha256=sha256_text("cases"), cases=cases,
                      summary={"compact": TierSummary(passed=2, total=4)}, match=None, numerics_passed=False,
                      passed=False)
