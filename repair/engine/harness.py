"""evaluate(): the engine. It plans cases, drives the reference and candidate processes, judges.

The engine imports neither the problem nor the candidate (nor torch: it handles no tensor). Per
case: the reference process builds inputs from the case seed; the candidate process runs on them
first (the expected outputs do not exist yet); the candidate's outputs, as bytes, go to the
reference process, which runs Model on its own pristine copy and compares there, so the expected
outputs never leave it; the engine turns the comparison and the runtime findings into the result.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from repair.ascendc import is_ascendc_candidate, load_candidate, require_backend
from repair.engine.backends import Backend, get_backend
from repair.engine.confine import landlock
from repair.engine.confine.policy import confine_candidates
from repair.engine.memfd import Shared
from repair.engine.parallelism import eval_figures_of, parallelism_summary
from repair.engine.timing import case_timing, cpu_note, plan_dict, timed_case
from repair.engine.problem import TIERS, CaseSpec, case_set_sha256, check_problem_file, read_candidate_file
from repair.engine.processes import CandidateProcess, Outcome, ReferenceProcess, open_reference
from repair.engine.result import CaseResult, EvalResult, TierSummary
from repair.engine.sandbox import fork_server
from repair.errors import BadInput
from repair.integrity import (IntegrityFinding, IntegrityVerdict, check_policy, make_verdict, merge_verdicts,
                              resolve_rules_off, scan)


def case_seed(seed: int, case_id: str, salt: str = "") -> int:
    """Per-case seed derived from the evaluation seed (stable across runs with the same seed)."""
    digest = hashlib.sha256(f"{seed}:{case_id}:{salt}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


# -- the evaluation -----------------------------------------------------------------------------

@dataclass
class _Job:
    """One run of a case: its seed, the reference's key for the prepared inputs, and those inputs as data."""

    index: int
    case: CaseSpec
    salt: str
    seed: int
    key: str
    values: dict
    payload: bytearray | Shared | None  # until the candidate process has read it
    time: dict | None = None  # repair.engine.timing's plan, for the one case a device backend times


@dataclass
class _Ran:
    """What the candidate process returned for a job (its outputs as they came off the wire)."""

    job: _Job
    out: Outcome
    ref: dict | None = None  # the reference's reply to its forward (its timing, when the job was timed)


_BACKSTOP_RUNS = 32


class _Session:
    """One candidate against one reference: candidate processes, case runs, runtime findings.

    A run is started (its request written) and collected later, so that while the candidate
    process runs case i the reference compares case i-1 and prepares case i+1.
    """

    def __init__(self, be: Backend, candidate: str, scratch: str, *, seed: int, timeout_s: float,
                 mem_limit_mb: int, rules_off: list[str], confine: bool = False):
        self.be, self.candidate, self.scratch, self.confine = be, candidate, scratch, confine
        self.ref: ReferenceProcess | None = None  # set once the reference process is ready
        self.seed, self.timeout_s, self.mem_limit_mb, self.rules_off = seed, timeout_s, mem_limit_mb, rules_off
        # a backstop behind each run's wall-clock limit (which is what ends a slow run): the process is spawned
        # before the case count is known, so the bound allows _BACKSTOP_RUNS runs at full time on every core
        self.cpu_seconds = int(timeout_s * _BACKSTOP_RUNS * (os.cpu_count() or 1)) + 30
        self.startup_failure: Outcome | None = None
        self.n_procs = 0
        self.distrusted = False  # the process sent outputs the reference could not read
        self.findings: list[IntegrityFinding] = []
        self.candidate_seconds = 0.0
        self.time_plan: dict | None = None  # with timed_case: the case timed, on a device backend
        self.timed_case: str | None = None
        self.proc: CandidateProcess | None = self._spawn()  # imports while the reference starts and builds inputs

    def _spawn(self) -> CandidateProcess:
        self.n_procs += 1
        return CandidateProcess(self.be, self.candidate, self.scratch, mem_limit_mb=self.mem_limit_mb,
                                timeout_s=self.timeout_s, cpu_seconds=self.cpu_seconds,
                                rules_off=self.rules_off, index=self.n_procs, confine=self.confine)

    def _drop_process(self) -> None:
        self.proc.kill()
        self.proc = None

    def prepare(self, index: int, case: CaseSpec, salt: str = "") -> _Job:
        """The reference builds the case's inputs from a fresh seed (it keeps its own copy)."""
        seed = case_seed(self.seed, case.case_id, salt)
        key = f"{case.case_id}/{salt}"
        values, payload = self.ref.prepare(case, seed, key,
                                           mem_limit_mb=self.mem_limit_mb if self.be.memory_rlimit else None)
        time = self.time_plan if case.case_id == self.timed_case and not salt else None
        return _Job(index, case, salt, seed, key, values, payload, time)

    def start(self, job: _Job) -> _Job | _Ran:
        """Send the job to the candidate process (the job is then in flight), or its outcome when it cannot run."""
        if self.startup_failure is not None:
            return _Ran(job, self.startup_failure)  # importing failed once: it would fail the same way again
        if self.proc is None:
            self.proc = self._spawn()
        self.proc.send(job.values, job.payload, job.seed, timed=job.time)
        return job

    def collect(self, started: _Job | _Ran) -> _Ran:
        """The outcome of a started job; a process that failed is not used again."""
        if isinstance(started, _Ran):
            return started
        if self.distrusted:  # it sent garbage for the case before this one: the case runs again elsewhere
            self.distrusted = False
            self._drop_process()
            self.start(started)
        started.payload = None  # the candidate process has its copy of the inputs (they may be gigabytes)
        out = self.proc.receive()
        if self.proc.startup().kind != "ok":
            self.startup_failure = out
            self._drop_process()
            return _Ran(started, out)
        if out.fatal:  # the next case gets a fresh process
            self._drop_process()
        if out.kind != "ok":
            return _Ran(started, out)
        try:
            float(out.header["seconds"])
            if not isinstance(out.header["outputs"], dict):
                raise TypeError("no output description")
        except (KeyError, TypeError, ValueError) as e:
            self._drop_process()  # the process is not trusted again
            return _Ran(started, Outcome("crash", f"malformed outputs from the candidate process: {e}"))
        return _Ran(started, out)

    def reference(self, ran: _Ran, *, keep: bool, against: bool) -> bool:
        """The reference's forward on its own copy of the job's inputs (the candidate's run is over); returns
        whether a comparison follows (`compared`). `keep`/`against`: the first seed's outputs, kept in the
        reference process for the insensitivity check of the second seed's run."""
        if ran.out.kind != "ok":
            self.ref.discard(ran.job.key)
            return False
        ran.ref = self.ref.judge(ran.job.key, ran.job.seed, ran.job.case.case_id, ran.out.header["outputs"],
                                 ran.out.payload or b"", keep="first-seed" if keep else None,
                                 against="first-seed" if against else None, timed=ran.job.time,
                                 params=ran.job.case.params)
        ran.out.payload = None  # the reference process has them now
        return True

    def compared(self, ran: _Ran) -> tuple[_Ran, dict | None]:
        """The reference process's comparison of the run's outputs (made while the candidate ran on)."""
        reply = self.ref.judged(ran.job.case.case_id)
        if "malformed" in reply:  # the process is not trusted again (its next case is already under way)
            self.distrusted = self.proc is not None
            return _Ran(ran.job, Outcome("crash", reply["malformed"])), None
        self.candidate_seconds += float(ran.out.header["seconds"])
        for f in reply.get("insensitivity", []):
            self.findings.append(IntegrityFinding(**f))
        return ran, reply["comparison"]

    def judge(self, ran: _Ran, c: dict | None) -> CaseResult:
        """The case's result: the candidate's outcome, runtime findings and the comparison."""
        out, case = ran.out, ran.job.case
        base = {"case_id": case.case_id, "tier": case.tier, "params": case.params}
        if out.kind != "ok":
            status = "crash" if out.kind == "oom" else out.kind
            message = out.message
            if status == "unsupported" and not self.be.confirm_unsupported(self.candidate, message):
                # the candidate's process said so, but the candidate's sources (read here) do not call that API
                status, message = "compile-error", f"{message}\n(the candidate does not call that API: judged a " \
                                                   "build failure)"
            limit = self.be.unsupported(message, self.candidate) if out.kind == "error" else None
            if limit:
                return CaseResult(**base, status="unsupported-on-interpreter", message=f"{limit}\n{message}")
            hint = self.be.hint(message) if status == "error" else None
            return CaseResult(**base, status=status, message=f"{hint}\n{message}" if hint else message)
        for f in out.header.get("findings", []):
            f = dict(f, phase="runtime", case_id=str(case.case_id))
            f["evidence"] = f"{f.get('evidence', '')} [case {case.case_id}]".strip()
            self.findings.append(IntegrityFinding(**f))
        notes = out.header.get("notes")
        notes = [str(n) for n in notes][:16] if isinstance(notes, list) else []
        return CaseResult(**base, **c, seconds=float(out.header["seconds"]), guard_log=out.header.get("guard_log"),
                          timing=case_timing(out.header, ran.ref, self.be.device, case.case_id) if ran.job.time
                          else None, notes=notes)

    def close(self, ok: bool = True) -> None:
        if self.proc is not None and not ok:
            self.proc.kill()  # after an error a run may still be in flight
        elif self.proc is not None:
            self.proc.close()
        self.proc = None


def _verdict(static: IntegrityVerdict | None, runtime: list[IntegrityFinding], rules_off: list[str],
             policy: str = "strict") -> IntegrityVerdict:
    seen, unique = set(), []
    for f in runtime:  # one finding per rule and message, with the first case that showed it
        if (f.rule, f.message) not in seen:
            seen.add((f.rule, f.message))
            unique.append(f)
    rt = make_verdict(unique, rules_off, policy)
    return merge_verdicts(static, rt, policy=policy) if static is not None else rt


def _scan_or_load_error(problem, candidate, rules_off, cand, policy):
    """The static verdict, or the load error's message when the scan finds the module cannot be imported."""
    from repair.errors import CandidateLoadError

    try:
        return scan(problem, candidate, rules_off=rules_off, source=cand.text, tree=cand.tree, policy=policy)
    except CandidateLoadError as e:
        return str(e)


def _import_failure(failure, candidate: str) -> str | None:
    """"file:line: cannot be imported: ..." when the candidate process failed while importing the candidate."""
    import re

    if failure is None or failure.kind != "error":
        return None
    name = re.escape(os.path.basename(candidate))
    lines = re.findall(r'File "[^"]*' + name + r'", line (\d+), in <module>', failure.message or "")
    if not lines:
        return None
    last = [s for s in failure.message.strip().splitlines() if s.strip()][-1].strip()
    return f"{candidate}:{lines[-1]}: cannot be imported: {last}"


def cand_syntax(candidate: str, text: str) -> str | None:
    try:
        compile(text, candidate, "exec", dont_inherit=True, flags=0x400)  # ast.PyCF_ONLY_AST
    except SyntaxError as e:
        return f"{candidate}:{e.lineno}: cannot be imported: it does not parse ({e.msg})"
    return None


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


def evaluate(problem: str | Path, candidate: str | Path, *, tier: str = "full", backend: str | None = None,
             seed: int | None = None, timeout_s: float = 60.0, mem_limit_mb: int = 4096, rules_off=(),
             integrity: bool = True, policy: str = "strict", timed=None) -> EvalResult:
    """Evaluate a candidate against a problem on the asked tier; see the module docstring for the protocol.

    `timed` (True or a repair.engine.timing.TimingPlan): on a device backend, the tier's largest case is timed too
    (candidate, reference, torch.compile); on a CPU backend nothing is timed and the result says why."""
    t0 = time.perf_counter()
    if tier not in TIERS:
        raise BadInput(f"unknown tier {tier!r} (compact or full)")
    if timeout_s <= 0 or mem_limit_mb <= 0:
        raise BadInput("timeout and memory limit must be positive")
    be = get_backend(backend)
    problem, candidate = str(problem), str(candidate)
    check_problem_file(problem)
    check_policy(policy)
    rules_off = list(resolve_rules_off(rules_off if integrity else ["*"]))  # numerics only: no guard runs either
    if is_ascendc_candidate(candidate):  # read whole; its numerics need ascendc-cpu or an NPU (else exit 3)
        ascendc = load_candidate(candidate)
        require_backend(ascendc, be.name)
        candidate_sha = ascendc.sha256
        static_scan = ((lambda: scan(problem, candidate, rules_off=rules_off, ascendc=ascendc, policy=policy))
                       if integrity else (lambda: None))
    else:
        ascendc = None
        if "python" not in be.languages:
            raise BadInput(f"{candidate}: backend {be.name} runs {' and '.join(be.languages)} candidates, and this is "
                           "a Python one (--backend triton-cpu runs Triton on the CPU)")
        cand = read_candidate_file(candidate)  # read and parsed once
        candidate_sha = cand.sha256
        static_scan = ((lambda: _scan_or_load_error(problem, candidate, rules_off, cand, policy))
                       if integrity and cand.tree is not None else (lambda: None))
    be.check_available()
    confine = confine_candidates(be)
    server = fork_server(be)  # torch and triton import there (or were imported long ago, in a shared server)

    seed = secrets.randbits(31) if seed is None else int(seed)
    scratch = server.scratch("eval-")
    try:
        session = _Session(be, candidate, scratch, seed=seed, timeout_s=timeout_s, mem_limit_mb=mem_limit_mb,
                           rules_off=rules_off, confine=confine)
        ok = False
        try:
            with open_reference(problem, backend=be, timeout_s=max(timeout_s, 120.0)) as ref:
                session.ref, cases = ref, ref.spec.cases_for(tier)
                if timed and be.timed and cases:
                    session.time_plan, session.timed_case = plan_dict(timed), timed_case(cases).case_id
                results, static = _run_cases(session, cases, reseed=integrity, meanwhile=static_scan)
                spec, ref_seconds = ref.spec, ref.seconds
            ok = True
        finally:
            session.close(ok)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    summary, match = _summary(results, tier)
    numerics = all(r.status == "pass" for r in results)
    load_error = static if isinstance(static, str) else _import_failure(session.startup_failure, candidate)
    if isinstance(static, str):
        static = None
    if load_error is None and not is_ascendc_candidate(candidate) and cand.tree is None:
        load_error = cand_syntax(candidate, cand.text)
    if integrity:
        runtime = session.findings
        if ascendc is not None:  # a benchmark's own forward and binding are not the candidate's code
            from repair.integrity import benchmark_owned, validation_trust

            runtime = benchmark_owned(runtime, validation_trust(ascendc, Path(problem)))
        verdict = _verdict(static, runtime, rules_off, policy)
    else:
        verdict = IntegrityVerdict(rules_off=rules_off, policy=policy)
    return EvalResult(
        operator_id=spec.operator_id, family=spec.family, problem_path=problem, problem_sha256=spec.sha256,
        candidate_path=candidate, candidate_sha256=candidate_sha, backend=be.name, tier=tier, seed=seed,
        case_set_sha256=case_set_sha256(cases), cases=results, summary=summary, match=match,
        numerics_passed=numerics, integrity=verdict, passed=numerics and verdict.verdict == "clean" and not load_error,
        load_error=load_error,
        confined=confine, landlock=landlock.abi() if confine else 0,  # each confined itself before its code ran
        emulated=be.emulated, tolerance=spec.tolerance,
        parallelism=parallelism_summary(eval_figures_of(results)),
        timing=next((r.timing for r in results if r.timing), None),
        timing_note=cpu_note(be) if timed and not be.timed else None,
        wall_seconds=time.perf_counter() - t0, kernel_seconds=session.candidate_seconds + ref_seconds)


def evaluate_many(pairs: Iterable[tuple[str | Path, str | Path]], *, jobs: int = 1, **options) -> Iterator[EvalResult]:
    """evaluate(problem, candidate, **options) for each pair, `jobs` evaluations at a time; the results in the
    pairs' order, each as soon as it and every one before it are done.

    Evaluations at once share this engine's fork server (and its warm reference processes), each with
    processes of its own; a confined candidate cannot reach another's (its own Landlock domain). One
    evaluation's forwards never overlap each other, but with jobs > 1 they overlap other evaluations'
    forwards, so `kernel_seconds` is then what each took on a shared machine. An exception from one
    evaluation is raised when its turn comes; evaluations not yet started are not started then.
    """
    if jobs < 1:
        raise BadInput(f"jobs must be at least 1, not {jobs}")
    if jobs == 1:
        for problem, candidate in pairs:
            yield evaluate(problem, candidate, **options)
        return
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(jobs, thread_name_prefix="evaluate")
    try:
        futures = deque(pool.submit(evaluate, p, c, **options) for p, c in pairs)
        while futures:
            yield futures.popleft().result()
    except (KeyboardInterrupt, SystemExit):  # the running evaluations end at once: their processes are killed
        pool.shutdown(wait=False, cancel_futures=True)
        from repair.engine.sandbox import shutdown_fork_servers

        shutdown_fork_servers()
        raise
    finally:  # also when the caller stops early: what has not started never starts
        pool.shutdown(wait=True, cancel_futures=True)


def _run_cases(session: _Session, cases: list[CaseSpec], *, reseed: bool, meanwhile):
    """Every case once, pipelined; no two forwards ever run at once, so each one's time is its own.

    Per step: the reference runs case i-1 (its candidate run is over), the candidate process starts
    case i, and meanwhile the reference compares case i-1 and prepares case i+1. The
    first compact case that passes runs again on inputs from a second seed (re-verification plus
    the insensitivity check); a failure there replaces its result. `meanwhile()` (the static scan)
    runs while the candidate's first case runs. Returns (results, its value).
    """
    todo = deque((i, c, "") for i, c in enumerate(cases))
    results: list[CaseResult | None] = [None] * len(cases)
    reseeded, background = not reseed, None
    started, ready = None, session.prepare(*todo.popleft()) if todo else None
    while started is not None or ready is not None:
        ran = session.collect(started) if started is not None else None
        pending = False
        if ran is not None:  # the reference keeps each compact case's outputs until one passes (and reruns)
            pending = session.reference(ran, keep=not reseeded and ran.job.case.tier == "compact",
                                        against=bool(ran.job.salt))
        started = session.start(ready) if ready is not None else None
        if meanwhile is not None:
            background, meanwhile = meanwhile(), None
        if ran is not None:
            ran, compared = session.compared(ran) if pending else (ran, None)
            job = ran.job
            result = session.judge(ran, compared)
            if job.salt:
                results[job.index] = _reseeded(results[job.index], result)
            elif not reseeded and job.case.tier == "compact" and result.status == "pass":
                reseeded = True
                results[job.index] = result
                todo.appendleft((job.index, job.case, "reseed"))
            else:
                results[job.index] = result
        ready = session.prepare(*todo.popleft()) if todo else None
    if meanwhile is not None:
        background = meanwhile()
    return results, background


def _reseeded(first: CaseResult, again: CaseResult) -> CaseResult:
    """The case's result after its second seed (the insensitivity check ran in the reference process)."""
    if again.status != "pass":
        again.message = f"passed its first seed, failed with a second: {again.message}".strip()
        return again
    return first
