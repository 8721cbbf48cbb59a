"""Running the probe process: the problem's code, as untrusted as a candidate's, with the sandbox's protections.

A problem file comes from the same downloaded benchmark as the candidates. Its probe (repair/kernelbench/probe.py)
is two processes. The supervisor (this module's `supervise`, trusted code only) is a child subreaper: whatever the
problem starts, however it detaches (a `setsid` daemon leaves its process group, a double fork its parent), is
reparented to it, and it kills every descendant before it answers, at the deadline (--timeout) or when the worker
is done. The worker runs the problem: it sets its limits (address space --mem-limit, CPU time, 64 MB a file, no core
dumps), gives up every capability, and confines itself (Landlock: write only its scratch directory, no TCP;
seccomp: no sockets, no processes, no namespaces, no memfds) before the file is read; it never holds the
importer's pipes (its output goes to a file in its scratch), so nothing it leaves can keep the import waiting.
Both start with the engine's allow-listed environment (no variable that may hold a secret), and the importer makes
itself not dumpable while it holds one (its /proc/PID/environ is then closed to the user's other processes).
"""
from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from repair.engine import apply_limits as confine, confine_self, hide_own_environment, sandbox_environ, \
    set_parent_death_signal

_FILE_LIMIT_MB = 64
_GRACE_S = 30.0  # past --timeout, the importer's own deadline for a supervisor that did not answer
_PR_SET_CHILD_SUBREAPER = 36


def _environment(scratch: str) -> dict[str, str]:
    env = sandbox_environ(dict(os.environ))
    root = str(Path(__file__).resolve().parents[2])  # the checkout holding repair/, for a run from a source tree
    env.update({"HOME": scratch, "TMPDIR": scratch, "PYTHONPATH": root, "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "CUDA_VISIBLE_DEVICES": "", "TORCHINDUCTOR_CACHE_DIR": scratch})
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.setdefault(k, "1")
    return env


def apply_limits(mem_bytes: int, cpu_s: int) -> None:
    """Called by the worker on itself before it reads the problem. The address space is capped at `mem_bytes` in
    all, not on top of what is loaded as the engine's is."""
    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    confine(mem_limit_mb=None, cpu_seconds=cpu_s, fsize_mb=_FILE_LIMIT_MB, memory_rlimit=None, extra_tasks=None)
    set_parent_death_signal()  # die with the supervisor


def confine_worker(scratch: str) -> None:
    """No capability; write only beneath the scratch directory; no socket, process, namespace or memfd
    (REPAIR_CONFINE=off: capabilities only, as for candidates)."""
    off = os.environ.get("REPAIR_CONFINE", "auto").strip().lower() in ("off", "0")
    confine_self([scratch], confine=not off, processes=False, memfd=False)


def run_probe(request_json: str, *, timeout_s: float, mem_limit_mb: int) -> dict:
    """The probe's answer ({"status": "ok", ...} or {"status": "refused", "reason": ...}) for one request."""
    hide_own_environment()  # this process holds the user's keys: no process of theirs may read them through /proc
    scratch = tempfile.mkdtemp(prefix="kb-probe-")
    proc = None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "repair.kernelbench.probe", str(mem_limit_mb << 20), str(int(timeout_s) + 1),
             str(timeout_s)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=scratch,
            env=_environment(scratch), start_new_session=True)
        try:
            out, err = proc.communicate(request_json.encode(), timeout=timeout_s + _GRACE_S)
        except subprocess.TimeoutExpired:
            _kill(proc)
            return _overran(timeout_s)
        try:
            answer = json.loads(out.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            answer = None
        if not isinstance(answer, dict) or answer.get("status") not in ("ok", "refused"):
            return {"status": "refused", "reason": died(proc.returncode, err, mem_limit_mb)}
        return answer
    finally:
        if proc is not None:
            _kill(proc)
        shutil.rmtree(scratch, ignore_errors=True)


def _overran(timeout_s: float) -> dict:
    return {"status": "refused", "reason": f"deriving its cases took more than {timeout_s:g} s (--timeout)"}


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its session: whatever it started and left there goes with it
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def died(code: int, err: bytes, mem_limit_mb: int) -> str:
    tail = " ".join(err.decode("utf-8", "replace").split()[-30:])
    if code == -signal.SIGXCPU or code == -signal.SIGKILL:
        how = "was killed (CPU time limit)" if code == -signal.SIGXCPU else "was killed"
    elif "MemoryError" in tail or "std::bad_alloc" in tail or "DefaultCPUAllocator" in tail:
        how = f"ran out of memory (--mem-limit {mem_limit_mb} MB)"
    else:
        how = f"exited with code {code}"
    return f"the probe process {how}" + (f": {tail[-200:]}" if tail else "")


# -- the supervisor (in the probe process, before the worker is forked) ------------------------------------------

def supervise(work, *, timeout_s: float, mem_limit_mb: int) -> dict:
    """Fork the worker (`work(answer_fd)` runs there and never returns), wait for its answer until `timeout_s`, then
    kill every process it left, wherever it went; the answer, or a refusal saying what happened."""
    from repair.engine import prctl

    prctl(_PR_SET_CHILD_SUBREAPER, 1)
    set_parent_death_signal()
    log = os.open("worker.log", os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: none of the importer's pipes, its output into its own log
        code = 1
        try:
            os.close(r)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.dup2(log, 1)
            os.dup2(log, 2)
            work(w)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    os.close(log)
    data, status, deadline = b"", None, time.monotonic() + timeout_s
    while status is None:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if select.select([r], [], [], min(left, 0.2))[0]:
            chunk = os.read(r, 1 << 20)
            data += chunk
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
    kill_descendants()  # the worker and whatever it started: nothing holds the answer pipe after this
    data += _drain(r)
    os.close(r)
    if status is None:
        return _overran(timeout_s)
    try:
        answer = json.loads(data.decode("utf-8"))
        if isinstance(answer, dict) and answer.get("status") in ("ok", "refused"):
            return answer
    except (UnicodeDecodeError, json.JSONDecodeError):
        pass
    code = os.waitstatus_to_exitcode(status)
    with open("worker.log", "rb") as f:
        f.seek(max(0, os.fstat(f.fileno()).st_size - 4096))
        return {"status": "refused", "reason": died(code, f.read(), mem_limit_mb)}


def _drain(fd: int) -> bytes:
    os.set_blocking(fd, False)
    out = b""
    try:
        while chunk := os.read(fd, 1 << 20):
            out += chunk
    except BlockingIOError:
        pass
    return out


def kill_descendants(rounds: int = 100) -> None:
    """SIGKILL and reap every child of this process (a subreaper: its descendants' orphans are its children),
    until there are none left."""
    for _ in range(rounds):
        children = _children()
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in children:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _children() -> list[int]:
    out = []
    try:
        for task in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{task}/children") as f:
                out += [int(p) for p in f.read().split()]
    except (OSError, ValueError):
        pass
    return out
