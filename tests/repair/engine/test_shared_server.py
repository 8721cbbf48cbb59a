"""The shared fork server: engines in other processes use it, one at a time, and a session that ends
(however it ends) leaves nothing running."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from repair.engine import shared_server
from repair.engine.backends import get_backend
from repair.engine.sandbox import ForkServer

DATA = Path(__file__).parent / "data"
PROBLEM = DATA / "addrelu_problem.py"
BE = get_backend("triton-cpu")


@pytest.fixture(scope="module")
def server_dir():
    d = tempfile.mkdtemp(prefix="rs-")  # short: a Unix socket path has ~107 bytes
    old = os.environ.get("REPAIR_SERVER_DIR")
    os.environ["REPAIR_SERVER_DIR"] = d
    try:
        info = shared_server.start("triton-cpu", idle_s=120)
        assert info.pid and Path(info.socket).exists()
        yield Path(d)
    finally:
        shared_server.stop()
        os.environ["REPAIR_SERVER_DIR"] = old if old is not None else ""
        shutil.rmtree(d, ignore_errors=True)


def _gone(pid: int, within_s: float = 15.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_an_engine_in_another_process_evaluates_on_the_shared_server(server_dir):
    code = ("import sys, json\nfrom repair.engine.harness import evaluate\nfrom repair.engine.sandbox import fork_server\n"
            "from repair.engine.backends import get_backend\n"
            f"r = evaluate({str(PROBLEM)!r}, {str(DATA / 'addrelu_correct.py')!r}, seed=1)\n"
            "print(json.dumps([r.passed, fork_server(get_backend('triton-cpu')).shared, 'torch' in sys.modules]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "REPAIR_SERVER_DIR": str(server_dir)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[true, true, false]"  # passed, shared, the engine never imported torch


def test_engines_get_sessions_of_their_own_and_a_closed_session_leaves_nothing_running(server_dir):
    first = ForkServer.connect_shared(BE)
    second = ForkServer.connect_shared(BE)  # at the same time: a session each
    assert first is not None and second is not None and first.shared and second.shared
    assert first._shared != second._shared
    child = first.spawn("reference", {"backend": "triton-cpu", "cwd": first.scratch("ref-"),
                                      "path": str(PROBLEM.resolve())})
    assert child.receive(timeout=30)[0]["status"] == "ready"
    pid, root, session = child.pid, first.root, first._shared
    first.close()  # the session ends with a child still running (an engine killed mid-evaluation, say)
    assert _gone(pid) and _gone(session)
    assert not Path(root).exists()
    other = second.spawn("reference", {"backend": "triton-cpu", "cwd": second.scratch("ref-"),
                                       "path": str(PROBLEM.resolve())})  # the other session is untouched
    assert other.receive(timeout=30)[0]["status"] == "ready"
    other.close(wait=True)
    second.close()


def test_a_server_started_for_other_code_or_environment_is_not_used(server_dir, monkeypatch):
    monkeypatch.setenv("TRITON_SOMETHING_NEW", "1")
    assert ForkServer.connect_shared(BE) is None
    assert [i.current for i in shared_server.status()] == [False]


def test_an_unsafe_server_directory_is_refused(tmp_path, monkeypatch):
    d = tmp_path / "open"
    d.mkdir(mode=0o777)
    d.chmod(0o777)
    monkeypatch.setenv("REPAIR_SERVER_DIR", str(d))
    assert shared_server.socket_path(BE, create=False) is None
    from repair.errors import BadInput

    with pytest.raises(BadInput, match="private"):
        shared_server.start("triton-cpu")


def test_the_key_ignores_what_every_entry_point_sets(monkeypatch):
    from provenance.offline import OFFLINE_ENV

    before = shared_server.server_key(BE)
    for k in OFFLINE_ENV:
        monkeypatch.setenv(k, "something else")
    assert shared_server.server_key(BE) == before  # `repair server start` and an engine agree
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    assert shared_server.server_key(BE) == before
    monkeypatch.setenv("TRITON_INTERPRET", "1")  # triton-cpu's servers set it whatever the engine has
    assert shared_server.server_key(BE) == before
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "7")
    assert shared_server.server_key(BE) != before


def test_cli_start_finds_the_running_server_and_status_lists_it(server_dir):
    import json

    from click.testing import CliRunner

    from repair.cli import cli

    running = [i for i in shared_server.status() if i.current]
    out = CliRunner().invoke(cli, ["server", "start"], catch_exceptions=False)
    assert out.exit_code == 0 and f"pid {running[0].pid}" in out.output  # not a second one
    out = CliRunner().invoke(cli, ["server", "status", "--json"], catch_exceptions=False)
    listed = json.loads(out.output)
    assert [(i["backend"], i["pid"], i["current"]) for i in listed] == [("triton-cpu", running[0].pid, True)]


@pytest.mark.slow
def test_the_server_idles_out_only_when_no_engine_is_connected(monkeypatch):
    d = tempfile.mkdtemp(prefix="rs-")
    monkeypatch.setenv("REPAIR_SERVER_DIR", d)
    try:
        info = shared_server.start("triton-cpu", idle_s=2.0)
        session = ForkServer.connect_shared(BE)
        assert session is not None
        time.sleep(3.5)  # longer than the idle timeout, with an engine connected
        assert shared_server._pid(Path(info.socket)) == info.pid
        session.close()
        assert _gone(info.pid, within_s=10)  # nobody left: it goes, and takes its socket with it
        assert not Path(info.socket).exists()
    finally:
        shared_server.stop()
        shutil.rmtree(d, ignore_errors=True)


def test_start_over_a_killed_servers_leftovers_waits_for_the_new_one(monkeypatch):
    import signal

    d = tempfile.mkdtemp(prefix="rs-")
    monkeypatch.setenv("REPAIR_SERVER_DIR", d)
    try:
        old = shared_server.start("triton-cpu", idle_s=60)
        os.kill(old.pid, signal.SIGKILL)  # no clean-up: its socket file stays behind
        assert _gone(old.pid) and Path(old.socket).exists()
        new = shared_server.start("triton-cpu", idle_s=60)
        assert new.pid != old.pid
        session = ForkServer.connect_shared(BE)  # answered at once: start returned only once it was ready
        assert session is not None and session.shared
        session.close()
    finally:
        shared_server.stop()
        shutil.rmtree(d, ignore_errors=True)


def test_a_campaigns_server_serves_its_runs_and_ends_with_the_campaign(monkeypatch):
    """The local executor's server for its runs: engines pointed at its directory use it; it is stopped and its
    directory removed at the end; and a caller that dies (SIGKILL, no clean-up) takes it along."""
    import signal

    from repair.campaign.local import _runs_fork_server

    with _runs_fork_server("triton-cpu", runs=1) as d:
        assert d is None  # a single run gains nothing from it
    with _runs_fork_server("triton-cpu", runs=2) as d:
        (info,) = shared_server.status(directory=d)
        assert info.current and info.pid
        monkeypatch.setenv("REPAIR_SERVER_DIR", d)
        session = ForkServer.connect_shared(BE)
        assert session is not None and session.shared
        session.close()
    assert _gone(info.pid) and not Path(d).exists()

    code = ("import sys, tempfile\nfrom repair.engine import shared_server\nd = tempfile.mkdtemp(prefix='rs-')\n"
            "info = shared_server.start('triton-cpu', idle_s=600, directory=d, with_caller=True)\n"
            "print(info.pid, d, flush=True)\nsys.stdin.read()\n")
    caller = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    pid, d = caller.stdout.readline().split()
    caller.kill()
    caller.wait()
    assert _gone(int(pid), within_s=15)  # not its idle timeout (600 s): its caller is gone
    deadline = time.monotonic() + 5
    while Path(d).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(d).exists()  # it removed its socket, pid file, log and directory


def test_stop_right_after_an_engine_leaves_ends_the_server_itself(monkeypatch):
    """`stop` sends SIGTERM while the server forks the next session process: a SIGTERM that lands in Python's
    at-fork callbacks loses its SystemExit, and the server used to run on until stop's SIGKILL."""
    for i in range(3):
        d = tempfile.mkdtemp(prefix="rs-")  # short: a Unix socket path has ~107 bytes
        try:
            monkeypatch.setenv("REPAIR_SERVER_DIR", d)
            info = shared_server.start("triton-cpu", idle_s=60)
            session = ForkServer.connect_shared(BE)
            assert session is not None
            session.close()
            shared_server.stop()
            _, status = os.waitpid(info.pid, 0)  # it is this process's child (start spawned it)
            assert os.waitstatus_to_exitcode(status) == 0, f"round {i}: the server was killed, it did not exit"
        finally:
            shared_server.stop()
            shutil.rmtree(d, ignore_errors=True)


def test_the_cli_idle_default_is_the_library_default():
    """`repair server start --idle` reads the library's number when the command runs or its help is shown
    (importing shared_server at import time would slow `repair --help`)."""
    import click

    from repair.cli import cli
    from repair.engine.shared_server import DEFAULT_IDLE_S

    start = cli.commands["server"].commands["start"]
    option = next(p for p in start.params if p.name == "idle_s")
    ctx = click.Context(start)
    assert option.get_default(ctx) == DEFAULT_IDLE_S
    assert f"{DEFAULT_IDLE_S:g}" in option.get_help_record(ctx)[1]


def test_start_without_a_backend_takes_repair_backend(monkeypatch):
    from repair.errors import EnvironmentMissing

    monkeypatch.setenv("REPAIR_BACKEND", "npu")  # torch_npu is never installed in the test environment
    with pytest.raises(EnvironmentMissing, match="torch_npu"):
        shared_server.start()


_KNOCKS = '''"""Test fixture: a candidate that asks the shared fork server for a session of its own, then computes relu(x + y)."""
import json
import socket

import torch
import torch.nn as nn


def _session():
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.settimeout(10)
        s.connect(SERVER_SOCKET_PATH)
        s.send(json.dumps({"op": "hello", "root": "/nonexistent"}).encode())
        reply = s.recv(1 << 16)
    except OSError:  # turned away
        return False
    return bool(reply) and json.loads(reply).get("ready")


class ModelNew(nn.Module):
    def forward(self, x, y):
        if _session():
            raise RuntimeError("escaped: a session on the shared server")
        return torch.relu(x + y)
'''


def test_a_sandboxed_process_gets_no_session_on_the_shared_server(server_dir, tmp_path):
    """A session forks whatever its engine asks for, outside any confinement: a candidate (a descendant of the
    server) that connects is turned away, while an engine in another process is served. The candidate runs
    unconfined here (as on cuda and npu by default): confined, it could not even open the socket."""
    cand = tmp_path / "knocks.py"
    cand.write_text(_KNOCKS.replace("SERVER_SOCKET_PATH", repr(str(shared_server.socket_path(BE, create=False)))))
    code = ("import json\nfrom repair.engine.harness import evaluate\nfrom repair.engine.sandbox import fork_server\n"
            "from repair.engine.backends import get_backend\n"
            f"r = evaluate({str(PROBLEM)!r}, {str(cand)!r}, seed=1, integrity=False, tier='compact')\n"
            "print(json.dumps([r.cases[0].status, r.cases[0].message[-200:], "
            "fork_server(get_backend('triton-cpu')).shared]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "REPAIR_SERVER_DIR": str(server_dir), "REPAIR_CONFINE": "off"})
    assert out.returncode == 0, out.stderr[-2000:]
    status, message, shared = json.loads(out.stdout.strip().splitlines()[-1])
    assert shared and status == "pass", message


def test_a_socket_path_too_long_for_unix_is_a_clear_error_not_a_vanished_log(tmp_path):
    """A server directory too deep for a Unix socket (a long TMPDIR beneath a campaign's) used to end in a
    FileNotFoundError for the server's log, which the failed server had removed with its directory."""
    from repair.engine import shared_server
    from repair.errors import EnvironmentMissing

    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True, mode=0o700)
    with pytest.raises(EnvironmentMissing, match="longer than a Unix socket's path may be"):
        shared_server.start("triton-cpu", directory=deep, with_caller=True)
