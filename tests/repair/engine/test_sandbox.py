"""Misbehaving candidates are case results, quickly, and the engine carries on.

Integrity checks are off here: these tests are about the sandbox, not about what the gate flags.
"""
from __future__ import annotations

import os
import resource
import time
from pathlib import Path

import pytest

from repair.engine.backends import get_backend
from repair.errors import BadInput
from repair.engine.harness import evaluate
from repair.engine.confine.limits import apply_limits
from repair.engine.sandbox import fork_server

DATA = Path(__file__).parent / "data"
PROBLEM = DATA / "addrelu_problem.py"


@pytest.fixture(scope="module", autouse=True)
def warm_server():
    fork_server(get_backend()).ensure_ready()  # $REPAIR_BACKEND, else triton-cpu


def _one(candidate: str, **kw):
    """The first case's result (its status says whether the deadline was what ended it: no clock is read here)."""
    r = evaluate(PROBLEM, DATA / candidate, tier="compact", seed=1, integrity=False, **kw)
    return r.cases[0]


def test_segfault_is_a_crash_with_the_stack():
    case = _one("cand_segfault.py", timeout_s=20)
    assert case.status == "crash" and "SIGSEGV" in case.message  # not "timeout": the crash ended it
    assert "cand_segfault.py" in case.message  # faulthandler's Python stack of the crash


def test_infinite_loop_is_a_timeout():
    case = _one("cand_hang.py", timeout_s=2)
    assert case.status == "timeout" and "2s" in case.message


def test_memory_hog_hits_the_limit():
    case = _one("cand_memhog.py", timeout_s=30, mem_limit_mb=512)
    assert case.status == "crash" and "out of memory" in case.message and "512 MB" in case.message


def test_exception_is_an_error_with_the_traceback_tail():
    case = _one("cand_raise.py", timeout_s=20)
    assert case.status == "error" and "ValueError: deliberate failure in forward" in case.message
    assert "line" in case.message


def test_garbage_on_the_reply_pipe_is_a_crash_not_an_engine_failure():
    case = _one("cand_garbage.py", timeout_s=20)
    assert case.status == "crash" and "malformed reply" in case.message


def test_crash_on_one_case_leaves_the_others_running():
    r = evaluate(PROBLEM, DATA / "cand_crash_small.py", seed=1, timeout_s=20, integrity=False)
    assert [c.status for c in r.cases] == ["pass", "crash", "pass"]
    assert r.summary["full"].passed == 2 and not r.numerics_passed


@pytest.mark.slow
def test_hang_on_one_case_leaves_the_others_running():
    r = evaluate(PROBLEM, DATA / "cand_hang_small.py", seed=1, timeout_s=4, integrity=False)
    assert [c.status for c in r.cases] == ["pass", "timeout", "pass"]


def test_engine_survives_and_evaluates_the_next_candidate():
    _one("cand_segfault.py", timeout_s=20)
    _one("cand_hang.py", timeout_s=1)
    r = evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=1, integrity=False)
    assert r.passed


@pytest.mark.parametrize("kind,which", [("as", resource.RLIMIT_AS), ("data", resource.RLIMIT_DATA)])
def test_apply_limits_in_a_child(kind, which):
    import os

    pid = os.fork()
    if pid == 0:  # pragma: no cover — runs in the child
        ok = False
        try:
            done = apply_limits(mem_limit_mb=256, cpu_seconds=50, fsize_mb=8, memory_rlimit=kind)
            core = resource.getrlimit(resource.RLIMIT_CORE)
            cpu = resource.getrlimit(resource.RLIMIT_CPU)
            fsize = resource.getrlimit(resource.RLIMIT_FSIZE)
            mem = resource.getrlimit(which)
            ok = core == (0, 0) and cpu == (50, 55) and fsize == (8 << 20, 8 << 20) and mem[0] == done[f"{kind}_bytes"]
            try:
                bytearray(512 << 20)
                ok = False
            except MemoryError:
                pass
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _server_children(server) -> set[int]:
    import os

    pid = server.proc.pid
    kids = set()
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            kids |= {int(x) for x in f.read().split()}
    return kids


def _state(pid: int) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_spare_children_are_used_and_a_dead_spare_is_replaced():
    import os
    import signal

    from repair.engine.processes import close_references

    close_references()  # the server's children are then its spares (and children on their way out)
    server = fork_server(get_backend("triton-cpu"))
    deadline = time.monotonic() + 10
    while len(_server_children(server)) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    spares = _server_children(server)
    assert len(spares) >= 2  # forked ahead, between requests
    child = server.spawn("reference", {"backend": "triton-cpu", "cwd": server.scratch("spare-"),
                                       "path": str(PROBLEM.resolve())})
    assert child.pid in spares  # a spare took the request: no fork on the engine's path
    assert child.receive(timeout=30)[0]["status"] == "ready"
    child.close(wait=True)
    killed = _server_children(server) - {child.pid}
    for pid in killed:  # spares killed behind its back: it forks afresh
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:  # a child on its way out anyway
            pass
    while any(_state(pid) not in ("Z", None) for pid in killed):  # dead, not just signalled
        time.sleep(0.01)
    r = evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=1, integrity=False)
    assert r.passed


def test_repair_spares_sets_how_many_children_a_server_keeps_ready(monkeypatch):
    from repair.engine.sandbox import ForkServer

    monkeypatch.setenv("REPAIR_SPARES", "4")
    server = ForkServer(get_backend("triton-cpu"))  # a private one: the module's server keeps its own count
    try:
        server.ensure_ready()
        deadline = time.monotonic() + 10
        while len(_server_children(server)) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        assert len(_server_children(server)) == 4
    finally:
        server.close()
    monkeypatch.setenv("REPAIR_SPARES", "four")
    with pytest.raises(BadInput, match="REPAIR_SPARES='four': not a whole number"):
        ForkServer(get_backend("triton-cpu"))


def test_a_warm_reference_that_died_is_replaced_not_reported_as_bad_input():
    import os
    import signal

    from repair.engine.processes import _REFS

    assert evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=1, integrity=False).passed
    (ref,) = [r for key, r in _REFS.items() if key[1] == str(PROBLEM.resolve())]
    os.kill(ref.child.pid, signal.SIGKILL)  # the OOM killer, say, between two evaluations
    while _state(ref.child.pid) not in ("Z", None):
        time.sleep(0.01)
    assert evaluate(PROBLEM, DATA / "addrelu_correct.py", seed=2, integrity=False).passed


def test_outputs_the_reference_cannot_read_are_a_crash_and_the_process_is_replaced():
    r = evaluate(PROBLEM, DATA / "cand_lying_outputs.py", seed=1, timeout_s=20, integrity=False)
    assert [c.status for c in r.cases] == ["pass", "crash", "pass"]
    assert "malformed outputs" in r.cases[1].message


def test_an_engine_killed_mid_evaluation_leaves_no_server_children_or_scratch():
    """A campaign kills a run's process group with SIGKILL: the run's fork server (its own session)
    sees the engine gone, kills its children and removes its scratch root, whatever order the EOF on
    its socket and its parent-death signal arrive in."""
    import os
    import signal
    import subprocess
    import sys

    code = ("import os, sys\nos.setpgid(0, 0)\nfrom repair.engine.backends import get_backend\n"
            "from repair.engine.harness import evaluate\nfrom repair.engine.sandbox import fork_server\n"
            "s = fork_server(get_backend('triton-cpu')); s.ensure_ready()\n"
            "print(s.root, s.proc.pid, flush=True)\n"
            f"while True: evaluate({str(PROBLEM)!r}, {str(DATA / 'addrelu_correct.py')!r}, seed=1)\n")
    engines = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True) for _ in range(3)]
    seen = []
    for i, p in enumerate(engines):
        root, server = p.stdout.readline().split()
        seen.append((root, int(server)))
        time.sleep(0.05 * i)  # killed at different points of an evaluation
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(Path(r).exists() or _state(s) not in ("Z", None) for r, s in seen):
        time.sleep(0.05)
    assert not [r for r, _ in seen if Path(r).exists()]
    assert all(_state(s) in ("Z", None) for _, s in seen)


def test_triton_cpu_sandbox_processes_run_one_thread_unless_told_otherwise(tmp_path, monkeypatch):
    import os

    from repair.engine.launch import server_env

    be = get_backend("triton-cpu")
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    assert server_env(be)["OMP_NUM_THREADS"] == "1"
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    assert server_env(be)["OMP_NUM_THREADS"] == "3"  # the user's setting wins
    monkeypatch.undo()
    if os.environ.get("OMP_NUM_THREADS", "1") != "1":
        pytest.skip("this environment sets OMP_NUM_THREADS")
    cand = tmp_path / "threads.py"  # passes only where torch in the candidate process sees one thread
    cand.write_text("import torch\nimport torch.nn as nn\n\n\nclass ModelNew(nn.Module):\n"
                    "    def forward(self, x, y):\n"
                    "        return torch.relu(x + y) * torch.get_num_threads()\n")
    r = evaluate(PROBLEM, cand, tier="compact", seed=1, integrity=False, backend="triton-cpu")
    assert r.cases[0].status == "pass", r.cases[0].message


def test_a_new_root_removes_the_roots_of_engines_that_are_gone(tmp_path, monkeypatch):
    import os
    import subprocess
    import tempfile

    from repair.engine.scratch import new_root

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now
    left = tmp_path / f"repair-sandbox-{gone.pid}-abc"  # what an engine SIGKILLed at the wrong moment leaves
    (left / "reference-x").mkdir(parents=True)
    alive = tmp_path / f"repair-sandbox-{os.getppid()}-def"  # a running engine's
    alive.mkdir()
    unrelated = tmp_path / "repair-sandbox-notapid"
    unrelated.mkdir()
    root = Path(new_root())
    assert root.parent == tmp_path and root.name.startswith(f"repair-sandbox-{os.getpid()}-") and root.is_dir()
    assert not left.exists() and alive.is_dir() and unrelated.is_dir()


_ESCAPE = '''"""Test fixture: a candidate that tries to leave its sandbox, then computes the right answer."""
import os
import socket

import torch
import torch.nn as nn


def _attempts():
    done = []
    try:
        with open(OUTSIDE, "w") as f:
            f.write("escaped")
        done.append("write")
    except OSError:
        pass
    try:
        open(f"/proc/{os.getppid()}/mem", "rb").close()
        done.append("ptrace")
    except OSError:
        pass
    if ABI >= 4:
        try:
            socket.create_connection(("127.0.0.1", PORT), timeout=5).close()
            done.append("tcp")
        except OSError:
            pass
    if ABI >= 6:
        try:
            os.kill(os.getppid(), 0)  # signal 0: the permission check only
            done.append("signal")
        except OSError:
            pass
    try:
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).connect(UNIX_PATH)  # Landlock lets this through
        done.append("unix")
    except OSError:
        pass
    try:
        os.close(os.memfd_create("outside-any-limit"))  # what is written there counts against no rlimit
        done.append("memfd")
    except OSError:
        pass
    try:
        pid = os.fork()  # a fork bomb's first step (root is not held by RLIMIT_NPROC)
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        done.append("fork")
    except OSError:
        pass
    with open("/proc/self/status") as f:
        if int(next(line for line in f if line.startswith("CapEff:")).split()[1], 16):
            done.append("capabilities")
    with open("inside.txt", "w") as f:  # its own scratch directory stays writable
        f.write("fine")
    return done


class ModelNew(nn.Module):
    def forward(self, x, y):
        done = _attempts()
        if done:
            raise RuntimeError("escaped: " + ",".join(done))
        return torch.relu(x + y)
'''


def test_a_confined_candidate_keeps_to_its_scratch_directory_without_privileges(tmp_path, monkeypatch):
    """Where the kernel has Landlock, a candidate cannot write outside its scratch directory, read another
    process's memory (even as root), open sockets (TCP, or a Unix socket by its path), make a memfd, start a
    process or signal the engine's processes, and it holds no capability; with REPAIR_CONFINE=off the same candidate writes where it likes (what confinement takes away), still without
    a capability."""
    import socket

    from repair.engine.confine import landlock

    abi = landlock.abi()
    if abi <= 0:
        pytest.skip("this kernel has no Landlock")
    outside = tmp_path / "escaped.txt"
    listener = socket.create_server(("127.0.0.1", 0))
    cand = tmp_path / "cand_escape.py"
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(str(tmp_path / "u.sock"))
    unix.listen(4)
    cand.write_text(_ESCAPE.replace("OUTSIDE", repr(str(outside))).replace("ABI", str(abi))
                    .replace("PORT", str(listener.getsockname()[1])).replace("UNIX_PATH", repr(str(tmp_path / "u.sock"))))
    try:
        r = evaluate(PROBLEM, cand, tier="compact", seed=1, integrity=False, timeout_s=30)
        assert r.confined and r.landlock == abi and [c.status for c in r.cases] == ["pass"], r.cases[0].message
        assert not outside.exists()
        monkeypatch.setenv("REPAIR_CONFINE", "off")
        r = evaluate(PROBLEM, cand, tier="compact", seed=1, integrity=False, timeout_s=30)
        assert not r.confined and r.landlock == 0 and r.cases[0].status == "error"
        assert "escaped: write" in r.cases[0].message
        assert outside.read_text() == "escaped"
        assert "unix" in r.cases[0].message and "fork" in r.cases[0].message and "memfd" in r.cases[0].message
        # unconfined it still holds no capability (#30): root keeps its uid, not the privilege to read the engine
        assert "capabilities" not in r.cases[0].message
    finally:
        listener.close()
        unix.close()


def test_repair_confine_is_auto_on_or_off(monkeypatch):
    from repair.engine.confine import landlock
    from repair.errors import EnvironmentMissing
    from repair.engine.confine.policy import confine_candidates

    cpu, cuda = get_backend("triton-cpu"), get_backend("cuda")
    monkeypatch.setattr(landlock, "abi", lambda: 7)
    assert confine_candidates(cpu) and not confine_candidates(cuda)  # auto: only backends that have run confined
    monkeypatch.setenv("REPAIR_CONFINE", "on")
    assert confine_candidates(cuda)
    monkeypatch.setenv("REPAIR_CONFINE", "off")
    assert not confine_candidates(cpu)
    monkeypatch.setenv("REPAIR_CONFINE", "maybe")
    with pytest.raises(BadInput, match="REPAIR_CONFINE='maybe'"):
        confine_candidates(cpu)
    monkeypatch.setattr(landlock, "abi", lambda: 0)  # a kernel without it: capabilities are still dropped
    monkeypatch.setenv("REPAIR_CONFINE", "auto")
    assert confine_candidates(cpu) and not confine_candidates(cuda)
    monkeypatch.setenv("REPAIR_CONFINE", "on")
    with pytest.raises(EnvironmentMissing, match="no Landlock"):
        confine_candidates(cpu)


_LEAVES_A_SLEEPER = '''"""Test fixture: forks a child that leaves the candidate's process group, then fails, naming it."""
import os
import time

import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x, y):
        pid = os.fork()
        if pid == 0:
            os.setsid()  # out of the group the engine kills
            time.sleep(120)
            os._exit(0)
        raise RuntimeError(f"sleeper {pid}")
'''


def test_what_a_candidate_leaves_running_outside_its_group_dies_with_the_engine(tmp_path):
    """A grandchild in a session of its own survives the kill of the candidate's process group; the fork server,
    a child subreaper, inherits it and kills it (here when the engine, in another process, exits)."""
    import re
    import subprocess
    import sys

    cand = tmp_path / "sleeper.py"
    cand.write_text(_LEAVES_A_SLEEPER)
    code = ("from repair.engine.harness import evaluate\n"
            f"r = evaluate({str(PROBLEM)!r}, {str(cand)!r}, seed=1, integrity=False, tier='compact')\n"
            "print(r.cases[0].message.splitlines()[-1])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         # its own server; unconfined (as on cuda and npu): confined, it could not fork
                         env={**os.environ, "REPAIR_SERVER_DIR": str(tmp_path / "none"), "REPAIR_CONFINE": "off"})
    assert out.returncode == 0, out.stderr[-2000:]
    pid = int(re.search(r"sleeper (\d+)", out.stdout).group(1))
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    break
        except OSError:
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        raise AssertionError(f"pid {pid} outlived its engine")


_BIG_INPUTS = '''import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.relu(x + y)


def get_inputs():  # KernelBench style (no CASES): SIZE floats each
    return [torch.randn(SIZE), torch.randn(SIZE)]


def get_init_inputs():
    return []
'''


def test_inputs_a_candidate_cannot_hold_are_bad_input(tmp_path):
    """KernelBench's level-1 inputs reach 6 GiB: under the candidate's memory limit they used to end, after a
    minute, as "crash: exited with code 0". A case whose inputs a candidate process cannot hold twice (as it
    does while unpacking them) is refused with one line, before any candidate runs it."""
    problem = tmp_path / "two_512k.py"
    problem.write_text(_BIG_INPUTS.replace("SIZE", str(1 << 17)))  # 2 x 512 KiB
    with pytest.raises(BadInput) as e:
        evaluate(problem, DATA / "addrelu_correct.py", mem_limit_mb=1, seed=1)
    msg = str(e.value)
    assert "\n" not in msg and msg.startswith(str(problem))
    assert "case default's inputs take 1.0 MiB" in msg and "memory limit of 1 MB" in msg
    assert "twice" in msg and "--mem-limit" in msg


_BUILT = """import torch
import torch.nn as nn
from pathlib import Path


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    BUILD
    if x.device.type != "meta":  # the case was built in full, for real
        Path("MARKER").touch()
    return [x]
"""


def _built(tmp_path, build: str) -> tuple[Path, Path]:
    marker = tmp_path / "built"
    problem = tmp_path / "problem.py"
    problem.write_text(_BUILT.replace("BUILD", build).replace("MARKER", str(marker)))
    return problem, marker


def test_a_case_far_too_large_is_refused_without_being_built(tmp_path):
    """1 GiB of input under a 64 MB limit: building it stops at its first allocation past a ceiling of the limit
    and some slack; the meta device then sizes it, exactly (KernelBench's 19_ReLU, 6 GiB: 23.7 s before, building
    it whole, 2.3 s now)."""
    problem, marker = _built(tmp_path, "x = torch.randn(1 << 28)")
    with pytest.raises(BadInput, match=r"case default's inputs take 1\.0 GiB; .* memory limit of 64 MB"):
        evaluate(problem, DATA / "addrelu_correct.py", mem_limit_mb=64, seed=1)
    assert not marker.exists()


@pytest.mark.parametrize("build", [
    "x = torch.empty(1 << 28)[:8].clone()",  # past the ceiling for a moment; the meta device sizes it: 32 bytes
    "import numpy; numpy.empty(1 << 28, dtype=numpy.float32); x = torch.ones(8)",  # numpy ignores the meta device
], ids=["meta-sized", "unsized"])
def test_a_case_that_needs_room_only_while_it_is_built_still_runs(tmp_path, build, monkeypatch):
    """A get_inputs that passes the ceiling on its way to small inputs is built again without it."""
    monkeypatch.setenv("REPAIR_CONFINE", "off")  # its marker is written outside the reference's scratch directory
    problem, marker = _built(tmp_path, build)
    candidate = tmp_path / "candidate.py"
    candidate.write_text(problem.read_text().replace("class Model(", "class ModelNew("))
    r = evaluate(problem, candidate, mem_limit_mb=64, seed=1, integrity=False)
    assert [c.status for c in r.cases] == ["pass"] and marker.exists()


def test_data_that_no_longer_fits_a_candidate_is_out_of_memory_not_a_silent_exit(tmp_path):
    """A candidate that took most of its memory while it was imported cannot receive its case: that is out of
    memory (it was "exited with code 0", nothing said)."""
    problem = tmp_path / "two_4m.py"
    problem.write_text(_BIG_INPUTS.replace("SIZE", str(1 << 20)))  # 2 x 4 MiB: the candidate may hold them
    hog = tmp_path / "hog_at_import.py"
    hog.write_text((DATA / "addrelu_correct.py").read_text() + "\n_HOG = bytearray(60 << 20)\n")
    r = evaluate(problem, hog, mem_limit_mb=64, seed=1, integrity=False)
    assert r.cases[0].status == "crash" and "out of memory (limit 64 MB)" in r.cases[0].message


def test_a_reference_process_killed_by_sigkill_is_reported_as_likely_out_of_memory(tmp_path):
    """Building or comparing a big case can take the reference past the machine's memory: the kernel's OOM
    killer's SIGKILL is named as such (it was "killed by SIGKILL during comparing case default: ")."""
    problem = tmp_path / "killed.py"
    problem.write_text(_BIG_INPUTS.replace("SIZE", "8").replace(
        "return torch.relu(x + y)", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"))
    with pytest.raises(BadInput) as e:
        evaluate(problem, DATA / "addrelu_correct.py", seed=1)
    assert "killed by SIGKILL (out of memory?" in str(e.value) and "during Model forward" in str(e.value)


def test_inputs_past_the_sharing_size_reach_a_confined_candidate_through_a_memfd(tmp_path, monkeypatch):
    """2 x 128 KiB of inputs (over SHARE_MIN): the reference writes them once into a sealed memfd, the engine
    hands on the descriptor, the candidate (confined on triton-cpu) maps and copies them; the case passes. The
    engine gives a run a sink for its outputs only when its inputs came shared: each run (the case and its
    second seed) got one."""
    from repair.engine import processes
    from repair.engine.memfd import SHARE_MIN

    sinks = []
    monkeypatch.setattr(processes, "new_sink", lambda new=processes.new_sink: sinks.append(new()) or sinks[-1])
    problem = tmp_path / "two_128k.py"
    problem.write_text(_BIG_INPUTS.replace("SIZE", str(1 << 15)))  # 32 programs of 1024
    assert 8 << 15 >= SHARE_MIN
    r = evaluate(problem, DATA / "addrelu_correct.py", seed=1)
    assert r.passed and [c.status for c in r.cases] == ["pass"]
    assert len(sinks) == 2


def test_under_a_data_limit_inputs_need_fit_only_once(tmp_path):
    """cuda's memory limit is RLIMIT_DATA, which does not count the candidate's mapping of its inputs: there
    a case is refused only when its inputs alone exceed the limit."""
    from repair.engine.processes import open_reference

    problem = tmp_path / "two_512k_again.py"
    problem.write_text(_BIG_INPUTS.replace("SIZE", str(1 << 17)))  # 1 MiB in all: the limit, and twice half of it
    with open_reference(problem) as ref:
        case = ref.spec.cases_for("full")[0]
        ref.memory_rlimit = "data"
        values, payload = ref.prepare(case, 1, "k", mem_limit_mb=1)
        assert len(payload) == 1 << 20
        ref.discard("k")
        ref.memory_rlimit = "as"
        with pytest.raises(BadInput, match="twice"):
            ref.prepare(case, 1, "k", mem_limit_mb=1)


_KEEPS_ITS_SINK = '''import mmap
import os

import torch
import torch.nn as nn

_KEPT = []


class ModelNew(nn.Module):
    def forward(self, x, y):
        # the memfd its outputs will be written into, mapped writable and kept: it could change them later,
        # while the reference compares
        for name in os.listdir("/proc/self/fd"):
            try:
                target = os.readlink(f"/proc/self/fd/{name}")
            except OSError:
                continue
            if target.startswith("/memfd:repair-payload"):
                os.ftruncate(int(name), 1 << 20)
                _KEPT.append(mmap.mmap(int(name), 1 << 20))
        return torch.relu(x + y)
'''


def test_a_candidate_that_keeps_its_output_sink_mapped_has_malformed_outputs(tmp_path):
    """Big outputs go into a memfd the engine gave the run and seals once the candidate has answered: a
    candidate still mapping it writable (it could change them under the reference) cannot be sealed: crash."""
    problem = tmp_path / "two_128k_sink.py"
    problem.write_text(_BIG_INPUTS.replace("SIZE", str(1 << 15)))
    cand = tmp_path / "keeps_its_sink.py"
    cand.write_text(_KEEPS_ITS_SINK)
    r = evaluate(problem, cand, seed=1, integrity=False)
    assert r.cases[0].status == "crash" and "malformed outputs" in r.cases[0].message
    assert "could not be sealed" in r.cases[0].message
