"""The quality gate: a record becomes knowledge only if every check passes; each failure says why.

Schema validity is checked when the file is read (ingest.load); this gate checks what a valid record
claims: a repaired status, full-tier match at or above the threshold, a clean integrity verdict on
every attempt, complete provenance with code hashes that match, and a diff that reproduces the repair.

The gate requires the strict integrity policy (the method's protocol: a framework epilogue over kernel outputs,
or an in-place update of an input, fails the verdict). A record whose verdicts were made under a laxer policy
(`repair run --policy epilogue`) is refused unless the caller accepts that policy (`accept_policy`).
"""
from __future__ import annotations

import re
from datetime import datetime

from ingest.load import Rejection
from ingest.patch import DiffError, apply_unified_diff
from ingest.record import RepairRecord
from provenance.canonical import sha256_text

DEFAULT_MIN_MATCH = 0.95
REQUIRED_POLICY = "strict"
POLICY_LAXNESS = {"strict": 0, "epilogue": 1}
_SHA256 = re.compile(r"^[0-9a-f]{64}$")


def gate(record: RepairRecord, *, min_match: float = DEFAULT_MIN_MATCH,
         accept_policy: str = REQUIRED_POLICY) -> list[Rejection]:
    """All the reasons to reject the record (empty: admit); `accept_policy`: the laxest integrity policy admitted."""
    reasons: list[Rejection] = []
    for check in (_status, _provenance, _hashes, _diff, _rules):
        reasons.extend(check(record))
    reasons.extend(_evidence(record, min_match))
    reasons.extend(_integrity(record))
    reasons.extend(_policy(record, accept_policy))
    return reasons


def _policy(r: RepairRecord, accept: str) -> list[Rejection]:
    limit = POLICY_LAXNESS.get(accept, 0)
    return [Rejection("integrity-policy", f"attempt {a.attempt}: integrity verdict made under the {a.policy} policy; "
                      f"this gate requires {REQUIRED_POLICY}" + (f" (or {accept})" if accept != REQUIRED_POLICY else ""))
            for a in r.integrity_history if POLICY_LAXNESS.get(a.policy, 99) > limit]


def _status(r: RepairRecord) -> list[Rejection]:
    if r.status != "repaired":
        return [Rejection("not-repaired", f"status is {r.status!r}; only repaired records are admitted")]
    return []


def _evidence(r: RepairRecord, min_match: float) -> list[Rejection]:
    e = r.evidence
    if e.full_total <= 0:
        return [Rejection("no-full-tier", "the final candidate was not evaluated on the full tier (full_total is 0)")]
    if not 0 <= e.full_passed <= e.full_total or not 0 <= e.compact_passed <= e.compact_total:
        return [Rejection("evidence-inconsistent", f"passed counts out of range ({e.full_passed}/{e.full_total} full)")]
    if abs(e.match - e.full_passed / e.full_total) > 1e-9:
        return [Rejection("evidence-inconsistent",
                          f"match {e.match} is not full_passed/full_total = {e.full_passed}/{e.full_total}")]
    if e.match < min_match:
        return [Rejection("match-below-threshold", f"full-tier match {e.match:.4f} is below --min-match {min_match}")]
    return []


def _integrity(r: RepairRecord) -> list[Rejection]:
    if not r.integrity_history:
        return [Rejection("integrity-missing", "the integrity history is empty (a verdict is required for every attempt)")]
    # "not-run": the proposal was refused before the gate (it did not parse, was empty, changed the signature).
    # That is a malformed reply, not a cheat, so it does not taint the history; an attempt at the reference is
    # recorded by the loop as a violation. The attempt that produced the repaired kernel must itself be clean.
    bad = [a for a in r.integrity_history if a.verdict == "violation"]
    out = [Rejection("integrity-not-clean",
                     f"attempt {a.attempt}: integrity verdict {a.verdict}" + (f" ({', '.join(a.rules)})" if a.rules else ""))
           for a in bad]
    last = r.integrity_history[-1]
    if r.status == "repaired" and last.verdict != "clean" and last not in bad:
        out.append(Rejection("integrity-not-clean", f"attempt {last.attempt}: the final attempt has no clean verdict ({last.verdict})"))
    return out


def _provenance(r: RepairRecord) -> list[Rejection]:
    missing = [name for name, value in (
        ("run_id", r.run_id), ("operator.id", r.operator.id), ("operator.problem_sha256", r.operator.problem_sha256),
        ("backend", r.backend), ("language", r.language), ("worker.kind", r.worker.kind),
        ("tool_version", r.tool_version), ("evidence.case_set_sha256", r.evidence.case_set_sha256),
    ) if not str(value).strip()]
    out = [Rejection("provenance-missing", f"{name} is empty") for name in missing]
    for name in ("operator.problem_sha256", "evidence.case_set_sha256"):
        value = r.operator.problem_sha256 if name.startswith("operator") else r.evidence.case_set_sha256
        if name not in missing and not _SHA256.match(value):
            out.append(Rejection("provenance-invalid", f"{name} is not a sha256 hex digest"))
    started, finished = _time(r.started_at), _time(r.finished_at)
    for name, raw, parsed in (("started_at", r.started_at, started), ("finished_at", r.finished_at, finished)):
        if parsed is None:
            out.append(Rejection("provenance-invalid", f"{name} {raw!r} is not an ISO 8601 time with a timezone"))
    if started and finished and finished < started:
        out.append(Rejection("provenance-invalid", "finished_at is before started_at"))
    return out


def _time(text: str) -> datetime | None:
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t if t.tzinfo is not None else None


def _hashes(r: RepairRecord) -> list[Rejection]:
    return [Rejection("sha256-mismatch", f"{name}.sha256 does not match {name}.code")
            for name, code in (("source", r.source), ("repaired", r.repaired)) if sha256_text(code.code) != code.sha256]


def _diff(r: RepairRecord) -> list[Rejection]:
    if r.source.code == r.repaired.code:
        return [Rejection("no-change", "source and repaired code are identical")]
    try:
        applied = apply_unified_diff(r.source.code, r.diff)
    except DiffError as e:
        return [Rejection("diff-mismatch", f"the diff does not apply to the source: {e}")]
    if applied != r.repaired.code:
        line = _first_difference(applied, r.repaired.code)
        return [Rejection("diff-mismatch", f"applying the diff to the source does not reproduce the repaired code (line {line})")]
    return []


def _rules(r: RepairRecord) -> list[Rejection]:
    """Executable rules a record carries must be valid and reproduce its own fix (repair.rules)."""
    if not r.rules:
        return []
    from ingest.rules.hooks import rule_problems

    return [Rejection(code, message) for code, message in rule_problems(r)]


def _first_difference(a: str, b: str) -> int:
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return i + 1
    return min(len(la), len(lb)) + 1
