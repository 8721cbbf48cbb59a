"""Running the probe process: a plain subprocess with resource limits, a wall-clock timeout and a scrubbed
environment, in a scratch directory of its own, killed with its whole process group when it overruns.

Not the engine's sandbox: the probe needs the problem imported as a module and its input builders run with
constants changed, a role the engine's fork server does not have, and its confinement (Landlock, seccomp) is the
engine's own. What holds the problem's code here: RLIMIT_AS (memory), RLIMIT_CPU, RLIMIT_FSIZE (64 MB a file),
no core dumps, a new session (its process group is killed on timeout and afterwards), death with its parent, the
engine's allow-listed environment (`sandbox_environ`: no variable that may hold a secret), and a temporary working
directory removed after.
"""
from __future__ import annotations

import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from repair.engine import apply_limits as confine, sandbox_environ, set_parent_death_signal

_FILE_LIMIT_MB = 64


def _environment(scratch: str) -> dict[str, str]:
    env = sandbox_environ(dict(os.environ))
    root = str(Path(__file__).resolve().parents[2])  # the checkout holding repair/, for a run from a source tree
    env.update({"HOME": scratch, "TMPDIR": scratch, "PYTHONPATH": root, "PYTHONNOUSERSITE": "1",
                "PYTHONDONTWRITEBYTECODE": "1", "CUDA_VISIBLE_DEVICES": "", "TORCHINDUCTOR_CACHE_DIR": scratch})
    for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env.setdefault(k, "1")
    return env


def apply_limits(mem_bytes: int, cpu_s: int) -> None:
    """Called by the probe process on itself before it reads the problem (a preexec_fn is unsafe with --jobs'
    threads). The address space is capped at `mem_bytes` in all, not on top of what is loaded as the engine's is."""
    resource.setrlimit(resource.RLIMIT_AS, (mem_bytes, mem_bytes))
    confine(mem_limit_mb=None, cpu_seconds=cpu_s, fsize_mb=_FILE_LIMIT_MB, memory_rlimit=None, extra_tasks=None)
    set_parent_death_signal()  # die with the importer


def run_probe(request_json: str, *, timeout_s: float, mem_limit_mb: int) -> dict:
    """The probe's answer ({"status": "ok", ...} or {"status": "refused", "reason": ...}) for one request."""
    scratch = tempfile.mkdtemp(prefix="kb-probe-")
    proc = None
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "repair.kernelbench.probe", str(mem_limit_mb << 20), str(int(timeout_s) + 1)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=scratch,
            env=_environment(scratch), start_new_session=True)
        try:
            out, err = proc.communicate(request_json.encode(), timeout=timeout_s)
        except subprocess.TimeoutExpired:
            _kill(proc)
            proc.communicate()
            return {"status": "refused", "reason": f"deriving its cases took more than {timeout_s:g} s (--timeout)"}
        try:
            answer = json.loads(out.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            answer = None
        if not isinstance(answer, dict) or answer.get("status") not in ("ok", "refused"):
            return {"status": "refused", "reason": _died(proc.returncode, err, mem_limit_mb)}
        return answer
    finally:
        if proc is not None:
            _kill(proc)
        shutil.rmtree(scratch, ignore_errors=True)


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # its session: whatever it started goes with it
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def _died(code: int, err: bytes, mem_limit_mb: int) -> str:
    tail = " ".join(err.decode("utf-8", "replace").split()[-30:])
    if code == -signal.SIGXCPU or code == -signal.SIGKILL:
        how = "was killed (CPU time limit)" if code == -signal.SIGXCPU else "was killed"
    elif "MemoryError" in tail or "std::bad_alloc" in tail or "DefaultCPUAllocator" in tail:
        how = f"ran out of memory (--mem-limit {mem_limit_mb} MB)"
    else:
        how = f"exited with code {code}"
    return f"the probe process {how}" + (f": {tail[-200:]}" if tail else "")
