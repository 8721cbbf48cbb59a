"""The engine's handles on its two kinds of sandboxed process: the reference and the candidate.

Both are children of the fork server (repair/engine/sandbox.py) running repair/engine/procmain.py in their role
(repair/engine/reference_role.py, repair/engine/candidate_role.py). Reference processes are kept warm between
evaluations of the same, unchanged problem file (the repair loop evaluates many candidates against one
problem); a candidate process lives for one evaluation.
"""
from __future__ import annotations

import atexit
import os
import shutil
import signal
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from provenance.redact import redact
from repair.engine.backends import Backend, get_backend
from repair.engine.child import ChildDied, ChildTimeout
from repair.engine.confine.policy import confine_candidates
from repair.engine.memfd import Shared, new_sink, seal
from repair.engine.problem import CaseSpec, ProblemSpec, check_problem_file, spec_from_report
from repair.engine.role import FAILED_STATUSES, UNJUDGED
from repair.engine.sandbox import fork_server
from repair.engine.wire_errors import WireError
from repair.errors import BadInput, EnvironmentMissing

_FSIZE_MB = 1024
_LATE_READ_S = 1.0
_REF_CACHE_SIZE = 4


def _size(nbytes: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if nbytes >= 1 << shift:
            return f"{nbytes / (1 << shift):.1f} {unit}"
    return f"{nbytes} bytes"


def _last_line(reply: dict) -> str:
    lines = (reply.get("traceback") or "").strip().splitlines()
    return lines[-1] if lines else reply.get("error", "")


class ReferenceProcess:
    """The process that imports the problem: spec, per-case inputs, expected outputs."""

    def __init__(self, be: Backend, problem: str, timeout_s: float):
        self.problem, self.timeout_s, self.memory_rlimit = problem, timeout_s, be.memory_rlimit
        self.hint = be.problem_hint
        self.spec: ProblemSpec | None = None
        self.seconds = 0.0  # inside Model forwards since the last acquire
        server = fork_server(be)
        self.scratch = server.scratch("reference-")
        config = {"backend": be.name, "cwd": self.scratch, "path": str(Path(problem).resolve()),
                  "confine": confine_candidates(be)}
        self.child = server.spawn("reference", config, log_path=os.path.join(self.scratch, "reference.log"))

    def _call(self, header: dict | None, what: str, payload=b"", also: tuple = (),
              shared: bool = False) -> tuple[dict, bytearray]:
        """Send a request and read its reply (header None: read the next reply of the last request); shared: the
        reply may carry a shared payload (only prepare's do: reading for one costs every frame a recvmsg)."""
        try:
            if header is None:
                reply, payload = self.child.receive(timeout=self.timeout_s)
            else:
                reply, payload = self.child.request(header, payload, timeout=self.timeout_s, shared=shared)
        except ChildTimeout:
            self.child.kill()
            raise BadInput(f"{self.problem}: reference {what} took longer than {self.timeout_s:g}s") from None
        except ChildDied as e:
            oom = " (out of memory? the kernel's OOM killer sends SIGKILL)" if e.status.signal == signal.SIGKILL else ""
            raise BadInput(f"{self.problem}: reference process {e}{oom} during {what}: "
                           f"{self.child.log_tail(300)}".rstrip(": ")) from None
        if reply.get("status") == "bad-input":
            raise BadInput(f"{self.problem}: {reply['error']}")
        if reply.get("status") != "ok" and reply.get("status") not in also:
            last = _last_line(reply)
            hint = self.hint(last)
            raise BadInput(f"{self.problem}: reference {what} failed: {last}" + (f" ({hint})" if hint else ""))
        return reply, payload

    def greet(self, sha256: str) -> ProblemSpec:
        try:
            reply, _ = self.child.receive(timeout=self.timeout_s)
        except ChildTimeout:
            self.child.kill()
            raise BadInput(f"{self.problem}: importing the problem took longer than {self.timeout_s:g}s") from None
        except ChildDied as e:
            raise BadInput(f"{self.problem}: reference process {e} while importing the problem") from None
        if reply.get("status") == "environment":
            raise EnvironmentMissing(reply.get("error", "the reference's sandbox could not be set up"))
        if reply.get("status") != "ready":
            raise BadInput(f"{self.problem}: {reply.get('error', 'import failed')}: {_last_line(reply)}".rstrip(": "))
        report, _ = self._call({"op": "spec"}, "spec")
        self.spec = spec_from_report(self.problem, sha256, report)
        return self.spec

    def prepare(self, case: CaseSpec, seed: int, key: str, mem_limit_mb: int | None = None) -> tuple[dict, bytearray]:
        """Build the case's constructor arguments and inputs from `seed`; the reference keeps its own copy.

        With mem_limit_mb (the candidate's): BadInput for a case whose inputs cannot fit it (KernelBench's level-1
        sizes reach 6 GiB). Under an address-space limit a candidate process holds them twice while it unpacks
        them (the mapped memfd and its copy); a data limit (cuda) does not count the mapping."""
        header = {"op": "prepare", "params": case.params, "seed": seed, "key": key}
        twice = self.memory_rlimit == "as"
        if mem_limit_mb:
            header["max_bytes"] = (mem_limit_mb << 20) // (2 if twice else 1)
        reply, payload = self._call(header, f"get_init_inputs/get_inputs on case {case.case_id}", also=("too-large",),
                                    shared=True)
        if reply["status"] == "too-large":
            how = "a candidate process holds them twice while it unpacks them, more than" if twice else "more than"
            raise BadInput(f"{self.problem}: case {case.case_id}'s inputs take {_size(reply['nbytes'])}; {how} "
                           f"the candidate's memory limit of {mem_limit_mb} MB (raise --mem-limit, or give the "
                           f"problem CASES that fit)")
        return reply["values"], payload

    def judge(self, key: str, seed: int, case_id: str, actual: dict, payload, *, keep: str | None = None,
              against: str | None = None, timed: dict | None = None, params: dict | None = None) -> dict:
        """Run Model on the prepared copy; returns once that forward is over ({"seconds"}), while the
        reference process goes on comparing the candidate's outputs (as they came off the wire) with it:
        `judged()` reads that verdict."""
        reply, _ = self._call({"op": "judge", "key": key, "seed": seed, "actual": actual,
                               "tolerance": self.spec.tolerance_for(params), "compare": self.spec.compare, "keep": keep,
                               "against": against, **({"time": timed} if timed else {})},
                              f"Model forward on case {case_id}", payload)
        self.seconds += reply["seconds"]
        return reply

    def judged(self, case_id: str) -> dict:
        """The comparison that `judge` started: {"comparison" | "malformed", "insensitivity"?}."""
        return self._call(None, f"comparing case {case_id}")[0]

    def discard(self, key: str) -> None:
        self._call({"op": "discard", "key": key}, "discard")

    def alive(self) -> bool:
        """Still running: a warm process the OOM killer (or anything else) took is never reused."""
        return self.child.status is None and self.child.running()

    def close(self) -> None:
        self.child.close()
        shutil.rmtree(self.scratch, ignore_errors=True)


_REFS: OrderedDict[tuple, ReferenceProcess] = OrderedDict()
_REFS_LOCK = threading.Lock()


def _take(key: tuple) -> ReferenceProcess | None:
    with _REFS_LOCK:
        return _REFS.pop(key, None)


def _give_back(key: tuple, ref: ReferenceProcess) -> None:
    with _REFS_LOCK:
        _REFS[key] = ref
        evicted = [_REFS.popitem(last=False)[1] for _ in range(max(0, len(_REFS) - _REF_CACHE_SIZE))]
    for old in evicted:
        old.close()


@atexit.register
def close_references() -> None:
    with _REFS_LOCK:
        refs = list(_REFS.values())
        _REFS.clear()
    for ref in refs:
        ref.close()


@contextmanager
def open_reference(problem: str | Path, *, backend: str | Backend | None = None, timeout_s: float = 120.0):
    """A reference process for `problem` with its validated spec in `.spec` (warm if one is cached)."""
    be = backend if isinstance(backend, Backend) else get_backend(backend)
    sha = check_problem_file(problem)
    be.check_available()
    key = (be.name, str(Path(problem).resolve()), sha)
    ref = _take(key)
    if ref is None or not ref.alive():
        ref = ReferenceProcess(be, str(problem), timeout_s)
        try:
            ref.greet(sha)
        except BaseException:
            ref.close()
            raise
    ref.problem, ref.timeout_s, ref.seconds = str(problem), timeout_s, 0.0
    clean = False
    try:
        yield ref
        clean = True
    finally:
        if clean and ref.alive():
            _give_back(key, ref)
        else:  # after an error its state is unknown: never reuse it
            ref.close()


def load_problem_spec(path: str | Path, *, backend: str | None = None, timeout_s: float = 120.0) -> ProblemSpec:
    """Import the problem in a reference process (never here) and return its validated spec."""
    with open_reference(path, backend=backend, timeout_s=timeout_s) as ref:
        return ref.spec


# -- candidate ----------------------------------------------------------------------------------

@dataclass
class Outcome:
    """What one candidate run produced."""

    kind: str  # ok | error | oom | timeout | crash | compile-error | unsupported
    message: str = ""
    header: dict = field(default_factory=dict)
    payload: bytearray | None = None

    def __post_init__(self) -> None:
        self.message = redact(self.message)  # what a candidate raised or printed may quote a key it found

    @property
    def fatal(self) -> bool:
        """The process cannot be trusted for the next case."""
        return self.kind in ("oom", "timeout", "crash")


class CandidateProcess:
    """A warm sandboxed process that imports the candidate; replaced after a crash or timeout.

    Spawning returns at once: the candidate imports while the engine asks the reference for inputs.
    """

    def __init__(self, be: Backend, candidate: str, scratch: str, *, mem_limit_mb: int, timeout_s: float,
                 cpu_seconds: int, rules_off: list[str], index: int, confine: bool = False):
        cwd = os.path.join(scratch, f"candidate-{index}")
        os.makedirs(cwd, exist_ok=True)
        config = {"backend": be.name, "cwd": cwd, "path": str(Path(candidate).resolve()),
                  "mem_limit_mb": mem_limit_mb, "cpu_seconds": cpu_seconds, "fsize_mb": _FSIZE_MB,
                  "rules_off": rules_off, "confine": confine}
        self.mem_limit_mb, self.timeout_s, self.candidate = mem_limit_mb, timeout_s, candidate
        self.build_s = be.build_s  # what its start may take beyond the timeout: its toolchain's build
        # its outputs must fit in its memory; a bigger frame is garbage, not data
        self.max_payload = (mem_limit_mb + 256) << 20 if be.memory_rlimit else 1 << 36
        self.child = fork_server(be).spawn("candidate", config,
                                           log_path=os.path.join(scratch, f"candidate-{index}.log"))
        self._startup: Outcome | None = None
        self._sent = time.monotonic()
        self._sink: int | None = None  # the memfd the running case may write its outputs into

    def startup(self) -> Outcome:
        """The import's outcome (waits for the greeting the first time)."""
        if self._startup is None:
            self._startup = self._greeting()
        return self._startup

    def _died(self, e: ChildDied) -> Outcome:
        kind = "timeout" if e.status.signal == 24 and not e.reason else "crash"  # SIGXCPU: the CPU backstop
        # faulthandler's dump (the Python stack at the crash) is the useful part of the log
        lines = [ln for ln in self.child.log_tail(4000).splitlines() if not ln.startswith("Extension modules:")]
        tail = "\n".join(lines).strip()[-1500:]
        return Outcome(kind, str(e) + (f"\n{tail}" if tail else ""))

    def _timed_out(self, what: str, extra_s: float = 0.0) -> Outcome:
        self.child.kill()
        return Outcome("timeout", f"no result from {what} within {self.timeout_s + extra_s:g}s; process group killed")

    def _reply_outcome(self, reply: dict, payload) -> Outcome:
        status = reply.get("status")
        if status == "oom":
            return Outcome("oom", f"out of memory (limit {self.mem_limit_mb} MB): {reply.get('error', '')}\n"
                                  f"{reply.get('traceback', '')}".strip())
        if status in FAILED_STATUSES or status == UNJUDGED:  # as the candidate's role said (role.case_status)
            return Outcome(status, reply.get("traceback") or reply.get("error", ""))
        return Outcome("ok", header=reply, payload=payload)

    def _greeting(self) -> Outcome:
        try:
            reply, payload = self.child.receive(timeout=self._wait_s() + self.build_s, max_payload=self.max_payload)
        except ChildTimeout:
            return self._timed_out("importing the candidate", self.build_s)
        except ChildDied as e:
            return self._died(e)
        self._sent = time.monotonic()  # the forward's time starts once the import is over
        if reply.get("status") == "bad-input":
            self.child.close()
            raise BadInput(redact(f"{self.candidate}: {reply['error']}"))
        if reply.get("status") == "environment":
            self.child.close()
            raise EnvironmentMissing(redact(reply.get("error", "the candidate's sandbox could not be set up")))
        return self._reply_outcome(reply, payload) if reply.get("status") != "ready" else Outcome("ok")

    def _wait_s(self) -> float:
        # the engine may come back to read a little after the deadline (it was comparing meanwhile):
        # an answer already there still counts
        return max(self._sent + self.timeout_s - time.monotonic(), _LATE_READ_S)

    def send(self, values: dict, payload: bytearray | Shared, seed: int, timed: dict | None = None) -> None:
        """Start a run; the request waits in the socket while the process is still importing. Inputs big enough
        to be shared come with a sink for the outputs (a candidate cannot make a memfd itself)."""
        self._sent = time.monotonic()
        self._drop_sink()
        if isinstance(payload, Shared):
            self._sink = new_sink()
        try:
            header = {"op": "run", "values": values, "seed": seed}
            if timed:  # repair.engine.timing: time the forward after running it (a device backend)
                header["time"] = timed
            self.child.send(header, payload, timeout=self.timeout_s, sink=self._sink)
        except ChildTimeout:
            pass  # receive() tells what happened: the import's outcome, or a timeout

    def _drop_sink(self) -> None:
        sink, self._sink = self._sink, None
        if sink is not None:
            os.close(sink)

    def _outputs_in_sink(self, reply: dict, out) -> Outcome | None:
        """Where the candidate wrote its outputs into the sink: it is sealed (from now on nobody changes them)
        and becomes the payload; a crash where that fails (it still maps the sink writable, wrote another size,
        or claims a sink it was not given)."""
        nbytes = reply.pop("_in_sink", None)
        if nbytes is None:
            return None
        sink, self._sink = self._sink, None
        if sink is None or not isinstance(nbytes, int) or not 0 <= nbytes <= self.max_payload or len(out):
            if sink is not None:
                os.close(sink)
            return Outcome("crash", f"malformed outputs from the candidate process: {nbytes!r} bytes in a sink "
                                    f"{'it was not given' if sink is None else 'besides a payload, or too many'}")
        try:
            return Outcome("ok", header=reply, payload=seal(sink, nbytes))  # seal() closes it on failure
        except WireError as e:
            return Outcome("crash", f"malformed outputs from the candidate process: {e}")

    def receive(self) -> Outcome:
        """The outcome of the run that `send` started."""
        startup = self.startup()
        if startup.kind != "ok":
            return startup
        try:
            reply, out = self.child.receive(timeout=self._wait_s(), max_payload=self.max_payload)
        except ChildTimeout:
            self._drop_sink()
            return self._timed_out("the candidate's forward")
        except ChildDied as e:
            self._drop_sink()
            return self._died(e)
        if reply.get("status") == "ok":
            sunk = self._outputs_in_sink(reply, out)
            if sunk is not None:
                return sunk
        self._drop_sink()
        return self._reply_outcome(reply, out)

    def run(self, values: dict, payload: bytearray, seed: int) -> Outcome:
        self.send(values, payload, seed)
        return self.receive()

    def close(self) -> None:
        self._drop_sink()
        self.child.close()

    def kill(self) -> None:
        self._drop_sink()
        self.child.kill()
