"""Hostile candidates (#17, "Faults and hostile input"): every kind an attacker tried, with the status it gets.

Each runs through the engine as any candidate does; then the engine must still evaluate a correct candidate,
and nothing of the hostile one may be left: no process, no file outside its scratch directory, no scratch.
The candidates live in data/hostile/ (and data/cand_*.py, shared with test_sandbox.py). Integrity checks are
off but where the integrity gate, not the sandbox, is what stops the kind.
"""
from __future__ import annotations

import glob
import os
import platform
import secrets
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from repair.engine import harness, processes, sandbox
from repair.engine.backends import get_backend
from repair.engine.confine import landlock
from repair.engine.confine.policy import confine_candidates
from repair.engine.harness import evaluate
from repair.engine.sandbox import ForkServer, fork_server

DATA = Path(__file__).parent / "data"
HOSTILE = DATA / "hostile"
PROBLEM = DATA / "addrelu_problem.py"
REPO = Path(__file__).resolve().parents[3]
ESCAPED = "repair-hostile-escaped.txt"  # what hostile/write_outside.py writes wherever it can
MEM_LIMIT_MB = 512
FSIZE_MB = 64  # the engine's per-file limit (1 GiB) made small: the 10 GiB write stops sooner, the same way


@dataclass(frozen=True)
class Kind:
    candidate: str  # under data/
    status: str  # its case's status
    says: str  # in the case's message
    rule: str | None = None  # an integrity rule that flags it: integrity runs only for these kinds
    timeout_s: float = 20.0
    # what contains it when the candidate is confined (REPAIR_CONFINE, on by default on triton-cpu): the seccomp
    # filter ("seccomp"), or Landlock of at least this ABI; None: contained whether confined or not
    needs: str | int | None = None


KINDS = {
    "segfault": Kind("cand_segfault.py", "crash", "killed by SIGSEGV"),
    "hang": Kind("cand_hang.py", "timeout", "within 2s; process group killed", timeout_s=2),
    # the allocation fails at once under the address-space limit (nothing is touched): torch's allocator error
    "alloc-50gb": Kind("hostile/alloc_50gb.py", "crash", f"out of memory (limit {MEM_LIMIT_MB} MB)"),
    # the first fork fails (seccomp: no new processes on triton-cpu, even as root): the candidate's exception
    "fork-bomb": Kind("hostile/fork_bomb.py", "error", "PermissionError: [Errno 1] Operation not permitted",
                      needs="seccomp"),
    # it raises what it managed; each write was refused (Landlock: write beneath its scratch directory only)
    "write-outside": Kind("hostile/write_outside.py", "error", "written outside: none; refused:", needs=1),
    # socket() itself is refused (seccomp), before Landlock's TCP rule would be
    "tcp-connect": Kind("hostile/tcp_connect.py", "error", "connected: none; refused:", needs="seccomp"),
    # Landlock's signal scope (ABI 6): the fork server, its group, the reference and spares, the engine
    "signal-parent": Kind("hostile/signal_parent.py", "error", "signalled: none; refused:", needs=6),
    # Python ignores SIGXFSZ: a write past RLIMIT_FSIZE fails with EFBIG, an exception in the candidate
    "file-10gb": Kind("hostile/file_10gb.py", "error", "OSError: [Errno 27] File too large"),
    # threads are the candidate's own business: its memory limit bounds how many it can start (with default
    # 8 MiB stacks this one fails with "can't start new thread", an error), and they die with its process; its
    # outputs are right, so the case passes and only the integrity gate says no
    "threads-1000": Kind("hostile/threads_1000.py", "pass", "", rule="static.concurrency"),
    "exit-0": Kind("hostile/exit_mid_eval.py", "crash", "exited with code 0"),
    # patched in its own process only: the comparison runs in the reference process, on the reference's outputs
    "monkeypatch": Kind("hostile/monkeypatch.py", "mismatch", "beyond atol", rule="static.monkey-patch"),
    # reading and running the problem cannot be told from a correct kernel by its outputs: the gate catches it
    "exec-problem": Kind("hostile/exec_problem.py", "pass", "", rule="static.reference-import"),
    # seccomp: no namespace of its own, where it would be root again (#30)
    "unshare-userns": Kind("hostile/unshare_userns.py", "error", "entered: none; refused:", needs="seccomp"),
    "raise": Kind("cand_raise.py", "error", "ValueError: deliberate failure in forward"),
    "garbage": Kind("cand_garbage.py", "crash", "malformed reply"),  # into stdout, stderr and its reply socket
    # its own environment it reads (the env allow-list decides what is there: test below); other processes'
    # (/proc/PID/environ) Landlock refuses, as it refuses ptrace
    "read-environ": Kind("hostile/read_environ.py", "error",
                         "server's /proc environ: refused (PermissionError); engine's /proc environ: refused", needs=1),
}


@pytest.fixture(scope="module", autouse=True)
def warm_server():
    fork_server(get_backend()).ensure_ready()  # $REPAIR_BACKEND, else triton-cpu


def _skip_unless_contained(kind: Kind) -> None:
    if kind.needs is None:
        return
    if not confine_candidates(get_backend()):
        pytest.skip("candidates run unconfined here (REPAIR_CONFINE, or the backend's default)")
    if kind.needs == "seccomp" and platform.machine() not in ("x86_64", "aarch64"):
        pytest.skip(f"no seccomp filter for {platform.machine()}")
    if isinstance(kind.needs, int) and landlock.abi() < kind.needs:
        pytest.skip(f"this kernel's Landlock ABI is {landlock.abi()}, not {kind.needs}")


def _descendants(pid: int) -> set[int]:
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    kids = {int(k) for k in f.read().split()}
                todo += kids - out
                out |= kids
        except OSError:
            continue
    return out


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _evaluation_processes(server: ForkServer, pids: list[int]) -> list[int]:
    """Candidate processes still running: those the engine spawned, and whatever the server's children started
    from an evaluation's scratch directory (the server is their subreaper)."""
    left = {p for p in pids if _running(p)}
    for p in _descendants(server.proc.pid):
        try:
            cwd = os.readlink(f"/proc/{p}/cwd")
        except OSError:
            continue
        if cwd.startswith(os.path.join(server.root, "eval-")) and _running(p):
            left.add(p)
    return sorted(left)


def _escapes(root: str) -> list[Path]:
    dirs = [Path.home(), REPO, DATA, Path("/tmp"), Path(root), *map(Path, glob.glob(os.path.join(root, "*-*")))]
    return [d / ESCAPED for d in dirs if (d / ESCAPED).exists()]


@pytest.mark.parametrize("name", list(KINDS))
def test_a_hostile_candidate_gets_its_status_and_leaves_nothing_behind(name, monkeypatch):
    kind = KINDS[name]
    _skip_unless_contained(kind)
    server = fork_server(get_backend())
    spawned = []

    class Recorded(processes.CandidateProcess):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            spawned.append(self.child)

    monkeypatch.setattr(harness, "CandidateProcess", Recorded)
    monkeypatch.setattr(processes, "_FSIZE_MB", FSIZE_MB)
    before = set(os.listdir(server.root))
    listener = socket.create_server(("127.0.0.1", 0))  # a service on this machine, for tcp-connect to find
    listener.setblocking(False)
    try:
        r = evaluate(PROBLEM, DATA / kind.candidate, tier="compact", seed=1, integrity=kind.rule is not None,
                     timeout_s=kind.timeout_s, mem_limit_mb=MEM_LIMIT_MB)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
    finally:
        listener.close()
        escaped = _escapes(server.root)
        for path in escaped:
            path.unlink()
    case = r.cases[0]
    assert case.status == kind.status, case.message[-2000:]
    assert kind.says in case.message, case.message[-2000:]
    assert not r.passed
    if kind.rule is not None:
        assert kind.rule in {f.rule for f in r.integrity.findings}
    assert not escaped

    pids = [child.pid for child in spawned]
    assert pids
    deadline = time.monotonic() + 15  # a closed candidate process exits by itself, or is killed within 10 s
    while (left := _evaluation_processes(server, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not left
    new = set(os.listdir(server.root)) - before
    assert not [n for n in new if not n.startswith("reference-")]  # its scratch is gone (a warm reference may stay)

    assert evaluate(PROBLEM, DATA / "addrelu_correct.py", tier="compact", seed=2, integrity=False).passed


def test_no_key_set_in_the_engines_environment_reaches_a_candidate(monkeypatch):
    keys = {"OPENAI_API_KEY": f"sk-test-{secrets.token_hex(12)}",
            "ANTHROPIC_API_KEY": f"sk-ant-test-{secrets.token_hex(12)}"}
    for k, v in keys.items():
        monkeypatch.setenv(k, v)
    be = get_backend()
    server = ForkServer(be)  # a fork server of this environment's: the module's one started before the keys were set
    monkeypatch.setitem(sandbox._SERVERS, be.name, server)
    try:
        r = evaluate(PROBLEM, HOSTILE / "read_environ.py", tier="compact", seed=1, integrity=False, timeout_s=20)
    finally:
        server.close()
    case = r.cases[0]
    assert case.status == "error" and "os.environ: " in case.message  # it ran, and told what it found
    returned = r.to_json()
    for k, v in keys.items():  # the candidate sends them hex-encoded, past the engine's redaction of secrets
        assert v not in returned and v.encode().hex() not in returned, f"{k} reached the candidate"


def _report(message: str) -> dict[str, str]:
    tail = message.split("hostile problem file: ", 1)[1]
    return dict(part.split(": ", 1) for part in tail.split("; "))


def test_a_hostile_problem_file_sees_no_key_writes_nothing_and_leaves_no_daemon(monkeypatch, tmp_path):
    """#30: the reference process imports the problem, a file as untrusted as a candidate: it read the engine's keys
    as root, wrote outside, connected out, and its daemon outlived the evaluation. Now it has no capability, and
    where candidates are confined it is too (Landlock, seccomp)."""
    from repair.errors import BadInput

    keys = {"OPENAI_API_KEY": f"sk-test-{secrets.token_hex(12)}",
            "ANTHROPIC_API_KEY": f"sk-ant-test-{secrets.token_hex(12)}"}
    for k, v in keys.items():
        monkeypatch.setenv(k, v)
    problem = tmp_path / "problem.py"
    problem.write_text((HOSTILE / "problem_file.py").read_text())
    be = get_backend()
    server = ForkServer(be)  # started with the keys in the engine's environment
    monkeypatch.setitem(sandbox._SERVERS, be.name, server)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    try:
        with pytest.raises(BadInput) as e:
            evaluate(problem, DATA / "addrelu_correct.py", tier="compact", seed=1, integrity=False, timeout_s=20)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody connected
        report = _report(str(e.value))
        for k, v in keys.items():
            assert v.encode().hex() not in report["keys"], f"{k} reached the problem file"
        confined = confine_candidates(be) and landlock.abi() >= 4
        if confined:
            assert report["written outside"] == "none" and report["tcp reached"] == "none", report
        daemon = report["daemon"]
    finally:
        listener.close()
        server.close()
        escaped = [p for p in (tmp_path / ESCAPED, Path.home() / ESCAPED, Path("/tmp") / ESCAPED) if p.exists()]
        for p in escaped:
            p.unlink()
    if confined:
        assert not escaped
    if daemon.startswith("pid "):  # it forked (the reference may: it sizes cases in a forked copy): not for long
        pid = int(daemon.split()[1])
        deadline = time.monotonic() + 15
        while _running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(pid), "the problem's daemon outlived its evaluation"
