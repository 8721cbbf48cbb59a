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
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from repair.backends import Backend, get_backend
from repair.errors import BadInput
from repair.problem import (TIERS, CaseSpec, ProblemSpec, case_set_sha256, check_candidate_file,
                            check_problem_file, spec_from_report)
from repair.result import CaseResult, EvalResult, IntegrityFinding, IntegrityVerdict, TierSummary
from repair.sandbox import Child, ChildDied, ChildTimeout, fork_server

_FSIZE_MB = 1024


def case_seed(seed: int, case_id: str, salt: str = "") -> int:
    """Per-case seed derived from the evaluation seed (stable across runs with the same seed)."""
    digest = hashlib.sha256(f"{seed}:{case_id}:{salt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# -- reference process --------------------------------------------------------------------------

class ReferenceProcess:
    """The process that imports the problem: spec, per-case inputs, expected outputs."""

    def __init__(self, child: Child, problem: str, timeout_s: float):
        self.child, self.problem, self.timeout_s = child, problem, timeout_s
        self.spec: ProblemSpec | None = None
        self.seconds = 0.0

    def _call(self, header: dict, what: str) -> tuple[dict, bytearray]:
        try:
            reply, payload = self.child.request(header, timeout=self.timeout_s)
        except ChildTimeout:
            self.child.kill()
            raise BadInput(f"{self.problem}: reference {what} took longer than {self.timeout_s:g}s") from None
        except ChildDied as e:
            raise BadInput(f"{self.problem}: reference process {e} during {what}: {self.child.log_tail(300)}") from None
        if reply.get("status") == "bad-input":
            raise BadInput(f"{self.problem}: {reply['error']}")
        if reply.get("status") != "ok":
            last = (reply.get("traceback") or "").strip().splitlines()[-1:] or [reply.get("error", "")]
            raise BadInput(f"{self.problem}: reference {what} failed: {last[0]}")
        return reply, payload

    def greet(self, sha256: str) -> ProblemSpec:
        try:
            reply, _ = self.child.receive(timeout=self.timeout_s)
        except ChildTimeout:
            self.child.kill()
            raise BadInput(f"{self.problem}: importing the problem took longer than {self.timeout_s:g}s") from None
        except ChildDied as e:
            raise BadInput(f"{self.problem}: reference process {e} while importing the problem") from None
        if reply.get("status") != "ready":
            last = (reply.get("traceback") or "").strip().splitlines()[-1:] or [reply.get("error", "")]
            raise BadInput(f"{self.problem}: {reply.get('error', 'import failed')}: {last[0]}".rstrip(": "))
        report, _ = self._call({"op": "spec"}, "spec")
        self.spec = spec_from_report(self.problem, sha256, report)
        return self.spec

    def prepare(self, case: CaseSpec, seed: int, key: str) -> tuple[dict, bytearray]:
        reply, payload = self._call({"op": "prepare", "params": case.params, "seed": seed, "key": key},
                                    f"get_init_inputs/get_inputs on case {case.case_id}")
        return reply["values"], payload

    def run(self, key: str, seed: int, case_id: str) -> tuple[list, float]:
        from repair._wire import decode_values

        reply, payload = self._call({"op": "run", "key": key, "seed": seed}, f"Model forward on case {case_id}")
        self.seconds += reply["seconds"]
        return decode_values(reply["outputs"], payload), reply["seconds"]

    def discard(self, key: str) -> None:
        self._call({"op": "discard", "key": key}, "discard")


@contextmanager
def open_reference(problem: str | Path, *, backend: str | Backend = "triton-cpu", timeout_s: float = 120.0,
                   scratch: str | None = None):
    """A running reference process for `problem`, with its validated spec in `.spec`."""
    be = get_backend(backend) if isinstance(backend, str) else backend
    sha = check_problem_file(problem)
    be.check_available()
    server = fork_server(be)
    own = scratch is None
    scratch = scratch or tempfile.mkdtemp(prefix="repair-eval-")
    cwd = os.path.join(scratch, "reference")
    os.makedirs(cwd, exist_ok=True)
    child = server.spawn("reference", {"backend": be.name, "cwd": cwd, "path": str(Path(problem).resolve())},
                         log_path=os.path.join(scratch, "reference.log"))
    ref = ReferenceProcess(child, str(problem), timeout_s)
    try:
        ref.greet(sha)
        yield ref
    finally:
        child.close()
        if own:
            shutil.rmtree(scratch, ignore_errors=True)


# -- candidate process --------------------------------------------------------------------------

@dataclass
class Outcome:
    """What one candidate run produced."""

    kind: str  # ok | error | oom | timeout | crash
    message: str = ""
    header: dict = field(default_factory=dict)
    payload: bytearray | None = None

    @property
    def fatal(self) -> bool:
        """The process cannot be trusted for the next case."""
        return self.kind in ("oom", "timeout", "crash")


class CandidateProcess:
    """A warm sandboxed process that imported the candidate; replaced after a crash or timeout."""

    def __init__(self, server, be: Backend, candidate: str, scratch: str, *, mem_limit_mb: int, timeout_s: float,
                 cpu_seconds: int, rules_off: list[str], index: int):
        cwd = os.path.join(scratch, f"candidate-{index}")
        os.makedirs(cwd, exist_ok=True)
        config = {"backend": be.name, "cwd": cwd, "path": str(Path(candidate).resolve()),
                  "mem_limit_mb": mem_limit_mb, "cpu_seconds": cpu_seconds, "fsize_mb": _FSIZE_MB,
                  "rules_off": rules_off}
        self.mem_limit_mb, self.timeout_s, self.candidate = mem_limit_mb, timeout_s, candidate
        self.child = server.spawn("candidate", config, log_path=os.path.join(scratch, f"candidate-{index}.log"))
        self.startup = self._greeting()

    def _died(self, e: ChildDied) -> Outcome:
        kind = "timeout" if e.status.signal == 24 else "crash"  # SIGXCPU: the CPU-time backstop fired
        # faulthandler's dump (the Python stack at the crash) is the useful part of the log
        lines = [ln for ln in self.child.log_tail(4000).splitlines() if not ln.startswith("Extension modules:")]
        tail = "\n".join(lines).strip()[-1500:]
        return Outcome(kind, f"{e.status.describe()}" + (f"\n{tail}" if tail else ""))

    def _timed_out(self, what: str) -> Outcome:
        self.child.kill()
        return Outcome("timeout", f"no result from {what} within {self.timeout_s:g}s; process group killed")

    def _reply_outcome(self, reply: dict, payload) -> Outcome:
        status = reply.get("status")
        if status == "oom":
            return Outcome("oom", f"out of memory (limit {self.mem_limit_mb} MB): {reply.get('error', '')}\n"
                                  f"{reply.get('traceback', '')}".strip())
        if status == "error":
            return Outcome("error", reply.get("traceback") or reply.get("error", ""))
        return Outcome("ok", header=reply, payload=payload)

    def _greeting(self) -> Outcome:
        try:
            reply, payload = self.child.receive(timeout=self.timeout_s)
        except ChildTimeout:
            return self._timed_out("importing the candidate")
        except ChildDied as e:
            return self._died(e)
        if reply.get("status") == "bad-input":
            self.child.close()
            raise BadInput(f"{self.candidate}: {reply['error']}")
        return self._reply_outcome(reply, payload) if reply.get("status") != "ready" else Outcome("ok")

    def run(self, values: dict, payload: bytearray, seed: int) -> Outcome:
        try:
            reply, out = self.child.request({"op": "run", "values": values, "seed": seed}, payload,
                                            timeout=self.timeout_s)
        except ChildTimeout:
            return self._timed_out("the candidate's forward")
        except ChildDied as e:
            return self._died(e)
        return self._reply_outcome(reply, out)

    def close(self) -> None:
        self.child.close()

    def kill(self) -> None:
        self.child.kill()


# -- the evaluation -----------------------------------------------------------------------------

class _Session:
    """One candidate against one reference: candidate processes, case runs, runtime findings."""

    def __init__(self, server, be: Backend, ref: ReferenceProcess, candidate: str, scratch: str, *,
                 seed: int, timeout_s: float, mem_limit_mb: int, rules_off: list[str], n_runs: int):
        self.server, self.be, self.ref, self.candidate, self.scratch = server, be, ref, candidate, scratch
        self.seed, self.timeout_s, self.mem_limit_mb, self.rules_off = seed, timeout_s, mem_limit_mb, rules_off
        self.cpu_seconds = int(timeout_s * (n_runs + 2) * (os.cpu_count() or 1)) + 30  # a backstop, not the timeout
        self.proc: CandidateProcess | None = None
        self.startup_failure: Outcome | None = None
        self.n_procs = 0
        self.findings: list[IntegrityFinding] = []
        self.candidate_seconds = 0.0

    def _process(self) -> CandidateProcess | Outcome:
        if self.startup_failure is not None:
            return self.startup_failure  # importing failed once: it will fail the same way again
        if self.proc is None:
            self.n_procs += 1
            proc = CandidateProcess(self.server, self.be, self.candidate, self.scratch, mem_limit_mb=self.mem_limit_mb,
                                    timeout_s=self.timeout_s, cpu_seconds=self.cpu_seconds,
                                    rules_off=self.rules_off, index=self.n_procs)
            if proc.startup.kind != "ok":
                proc.kill()
                self.startup_failure = proc.startup
                return proc.startup
            self.proc = proc
        return self.proc

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
        seconds = float(out.header["seconds"])
        self.candidate_seconds += seconds
        actual = decode_values(out.header["outputs"], out.payload)
        expected, _ = self.ref.run(key, seed, case.case_id)
        for f in out.header.get("findings", []):
            f = dict(f, phase="runtime")
            f["evidence"] = f"{f.get('evidence', '')} [case {case.case_id}]".strip()
            self.findings.append(IntegrityFinding(**f))
        c = compare_outputs(expected, actual, self.ref.spec.tolerance_for)
        return CaseResult(**base, status=c.status, max_abs_err=c.max_abs_err, max_rel_err=c.max_rel_err,
                          mismatch_frac=c.mismatch_frac, nan_count=c.nan_count, inf_count=c.inf_count,
                          first_mismatch=c.first_mismatch, shape=c.shape, expected_shape=c.expected_shape,
                          dtype=c.dtype, expected_dtype=c.expected_dtype, message=c.message,
                          diagnostics=c.diagnostics, seconds=seconds), actual, expected

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

    scan = _integrity_fn("static", "scan") if integrity and parses else None
    static = scan(problem, candidate, rules_off=rules_off) if scan else None
    seed = secrets.randbits(31) if seed is None else int(seed)
    scratch = tempfile.mkdtemp(prefix="repair-eval-")
    try:
        with open_reference(problem, backend=be, timeout_s=max(timeout_s, 120.0), scratch=scratch) as ref:
            cases = ref.spec.cases_for(tier)
            session = _Session(server, be, ref, candidate, scratch, seed=seed, timeout_s=timeout_s,
                               mem_limit_mb=mem_limit_mb, rules_off=rules_off, n_runs=len(cases) + 1)
            try:
                results = _run_cases(session, cases, reseed=integrity)
            finally:
                session.close()
            spec, ref_seconds = ref.spec, ref.seconds
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
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
