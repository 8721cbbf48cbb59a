"""evaluate(): the engine. It plans cases, drives the reference and candidate processes, compares.

The engine imports neither the problem nor the candidate. Per case: the reference process builds
inputs from the case seed; the candidate process runs on them first (the expected outputs do not
exist yet); then the reference runs Model on its own pristine copy; the engine compares.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from repair.backends import Backend, get_backend
from repair.errors import BadInput
from repair.problem import TIERS, CaseSpec, case_set_sha256, check_candidate_file, check_problem_file
from repair.processes import CandidateProcess, Outcome, ReferenceProcess, open_reference
from repair.result import CaseResult, EvalResult, IntegrityFinding, IntegrityVerdict, TierSummary
from repair.sandbox import fork_server


def case_seed(seed: int, case_id: str, salt: str = "") -> int:
    """Per-case seed derived from the evaluation seed (stable across runs with the same seed)."""
    digest = hashlib.sha256(f"{seed}:{case_id}:{salt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# -- the evaluation -----------------------------------------------------------------------------

class _Session:
    """One candidate against one reference: candidate processes, case runs, runtime findings."""

    def __init__(self, be: Backend, ref: ReferenceProcess, candidate: str, scratch: str, *,
                 seed: int, timeout_s: float, mem_limit_mb: int, rules_off: list[str], n_runs: int):
        self.be, self.ref, self.candidate, self.scratch = be, ref, candidate, scratch
        self.seed, self.timeout_s, self.mem_limit_mb, self.rules_off = seed, timeout_s, mem_limit_mb, rules_off
        self.cpu_seconds = int(timeout_s * (n_runs + 2) * (os.cpu_count() or 1)) + 30  # a backstop, not the timeout
        self.startup_failure: Outcome | None = None
        self.n_procs = 0
        self.findings: list[IntegrityFinding] = []
        self.candidate_seconds = 0.0
        self.proc: CandidateProcess | None = self._spawn()  # imports while the reference builds inputs

    def _spawn(self) -> CandidateProcess:
        self.n_procs += 1
        return CandidateProcess(self.be, self.candidate, self.scratch, mem_limit_mb=self.mem_limit_mb,
                                timeout_s=self.timeout_s, cpu_seconds=self.cpu_seconds,
                                rules_off=self.rules_off, index=self.n_procs)

    def _process(self) -> CandidateProcess | Outcome:
        if self.startup_failure is not None:
            return self.startup_failure  # importing failed once: it will fail the same way again
        if self.proc is None:
            self.proc = self._spawn()
        startup = self.proc.startup()
        if startup.kind != "ok":
            self.proc.kill()
            self.proc = None
            self.startup_failure = startup
        return startup if startup.kind != "ok" else self.proc

    def _run_candidate(self, values: dict, payload: bytearray, seed: int) -> Outcome:
        proc = self._process()
        if isinstance(proc, Outcome):
            return proc
        out = proc.run(values, payload, seed)
        if out.fatal:  # the next case gets a fresh process
            proc.kill()
            self.proc = None
        return out

    def run_case(self, case: CaseSpec, salt: str = "") -> tuple[CaseResult, list | None, list | None]:
        """Run one case; returns the result and (candidate outputs, expected outputs) when both exist."""
        from repair._wire import decode_values
        from repair.compare import compare_outputs

        seed = case_seed(self.seed, case.case_id, salt)
        key = f"{case.case_id}/{salt}"
        values, payload = self.ref.prepare(case, seed, key)
        out = self._run_candidate(values, payload, seed)
        base = {"case_id": case.case_id, "tier": case.tier, "params": case.params}
        if out.kind != "ok":
            self.ref.discard(key)
            status = "crash" if out.kind == "oom" else out.kind
            return CaseResult(**base, status=status, message=out.message), None, None
        try:
            seconds = float(out.header["seconds"])
            actual = decode_values(out.header["outputs"], out.payload)
        except (KeyError, TypeError, ValueError) as e:  # WireError included: the process is not trusted again
            self.ref.discard(key)
            self.proc.kill()
            self.proc = None
            message = f"malformed outputs from the candidate process: {e}"
            return CaseResult(**base, status="crash", message=message), None, None
        self.candidate_seconds += seconds
        expected = self.ref.run(key, seed, case.case_id)
        for f in out.header.get("findings", []):
            f = dict(f, phase="runtime")
            f["evidence"] = f"{f.get('evidence', '')} [case {case.case_id}]".strip()
            self.findings.append(IntegrityFinding(**f))
        c = compare_outputs(expected, actual, self.ref.spec.tolerance_for)
        return CaseResult(**base, status=c.status, max_abs_err=c.max_abs_err, max_rel_err=c.max_rel_err,
                          mismatch_frac=c.mismatch_frac, nan_count=c.nan_count, inf_count=c.inf_count,
                          first_mismatch=c.first_mismatch, shape=c.shape, expected_shape=c.expected_shape,
                          dtype=c.dtype, expected_dtype=c.expected_dtype, message=c.message,
                          diagnostics=c.diagnostics, seconds=seconds,
                          guard_log=out.header.get("guard_log")), actual, expected

    def reseed_check(self, case: CaseSpec, first: CaseResult, actual: list, expected: list) -> CaseResult:
        """Run the case again on inputs from another seed: re-verification plus the insensitivity check."""
        again, actual2, expected2 = self.run_case(case, salt="reseed")
        fn = _integrity_fn("runtime", "insensitivity_findings")
        if fn is not None and actual2 is not None:
            self.findings += fn(actual, actual2, expected, expected2)
        if again.status != "pass":
            again.message = f"passed its first seed, failed with a second: {again.message}".strip()
            return again
        return first

    def close(self) -> None:
        if self.proc is not None:
            self.proc.close()
            self.proc = None


def _integrity_fn(module: str, name: str):
    """A function of engineer C's integrity package, or None while it is not there."""
    import importlib

    try:
        return getattr(importlib.import_module(f"repair.integrity.{module}"), name)
    except (ImportError, AttributeError):
        return None


def _resolve_rules_off(rules_off) -> list[str]:
    resolve = _integrity_fn("rules", "resolve_rules_off")
    return list(resolve(rules_off)) if resolve else sorted(set(rules_off))


def _verdict(static: IntegrityVerdict | None, runtime: list[IntegrityFinding], rules_off: list[str]) -> IntegrityVerdict:
    seen, unique = set(), []
    for f in runtime:  # one finding per rule and message, with the first case that showed it
        if (f.rule, f.message) not in seen:
            seen.add((f.rule, f.message))
            unique.append(f)
    make, merge = _integrity_fn("rules", "make_verdict"), _integrity_fn("rules", "merge_verdicts")
    if make is None or merge is None:
        found = (static.findings if static else []) + unique
        return IntegrityVerdict(verdict="violation" if found else "clean", findings=found, rules_off=rules_off)
    rt = make(unique, rules_off)
    return merge(static, rt) if static is not None else rt


def _summary(results: list[CaseResult], tier: str) -> tuple[dict[str, TierSummary], float | None]:
    """Counts of what ran, per tier: compact = the compact cases; full = every case (only when the full tier ran)."""
    compact = [r for r in results if r.tier == "compact"]
    summary = {"compact": TierSummary(passed=sum(r.status == "pass" for r in compact), total=len(compact))}
    match = None
    if tier == "full":
        passed = sum(r.status == "pass" for r in results)
        summary["full"] = TierSummary(passed=passed, total=len(results))
        match = passed / len(results) if results else None
    return summary, match


def evaluate(problem: str | Path, candidate: str | Path, *, tier: str = "full", backend: str = "triton-cpu",
             seed: int | None = None, timeout_s: float = 60.0, mem_limit_mb: int = 4096, rules_off=(),
             integrity: bool = True) -> EvalResult:
    """Evaluate a candidate against a problem on the asked tier; see the module docstring for the protocol."""
    t0 = time.perf_counter()
    if tier not in TIERS:
        raise BadInput(f"unknown tier {tier!r} (compact or full)")
    if timeout_s <= 0 or mem_limit_mb <= 0:
        raise BadInput("timeout and memory limit must be positive")
    be = get_backend(backend)
    problem, candidate = str(problem), str(candidate)
    check_problem_file(problem)
    candidate_sha, parses = check_candidate_file(candidate)
    rules_off = _resolve_rules_off(rules_off)
    be.check_available()
    server = fork_server(be)  # starts importing torch + triton in its own process...
    import torch  # noqa: F401  (...while the engine imports the torch it compares with)

    seed = secrets.randbits(31) if seed is None else int(seed)
    scan = _integrity_fn("static", "scan") if integrity and parses else None
    scratch = server.scratch("eval-")
    with ThreadPoolExecutor(max_workers=1) as pool:  # the static scan overlaps the runs (the engine mostly waits)
        static = pool.submit(scan, problem, candidate, rules_off=rules_off) if scan else None
        try:
            with open_reference(problem, backend=be, timeout_s=max(timeout_s, 120.0)) as ref:
                cases = ref.spec.cases_for(tier)
                session = _Session(be, ref, candidate, scratch, seed=seed, timeout_s=timeout_s,
                                   mem_limit_mb=mem_limit_mb, rules_off=rules_off, n_runs=len(cases) + 1)
                try:
                    results = _run_cases(session, cases, reseed=integrity)
                finally:
                    session.close()
                spec, ref_seconds = ref.spec, ref.seconds
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        static = static.result() if static is not None else None
    summary, match = _summary(results, tier)
    numerics = all(r.status == "pass" for r in results)
    if integrity:
        verdict = _verdict(static, session.findings, rules_off)
    else:
        verdict = IntegrityVerdict(rules_off=_resolve_rules_off(["*"]))
    return EvalResult(
        operator_id=spec.operator_id, family=spec.family, problem_path=problem, problem_sha256=spec.sha256,
        candidate_path=candidate, candidate_sha256=candidate_sha, backend=be.name, tier=tier, seed=seed,
        case_set_sha256=case_set_sha256(cases), cases=results, summary=summary, match=match,
        numerics_passed=numerics, integrity=verdict, passed=numerics and verdict.verdict == "clean",
        wall_seconds=time.perf_counter() - t0, kernel_seconds=session.candidate_seconds + ref_seconds)


def _run_cases(session: _Session, cases: list[CaseSpec], *, reseed: bool) -> list[CaseResult]:
    results: list[CaseResult] = []
    reseeded = not reseed
    for case in cases:
        result, actual, expected = session.run_case(case)
        if not reseeded and case.tier == "compact" and result.status == "pass":
            reseeded = True
            result = session.reseed_check(case, result, actual, expected)
        results.append(result)
    return results
