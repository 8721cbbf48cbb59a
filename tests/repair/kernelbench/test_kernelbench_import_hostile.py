"""A hostile KernelBench problem file through `repair import kernelbench` (#30): its probe sees no key, writes only
its scratch, reaches no socket, and nothing it starts outlives the import or keeps it waiting."""
from __future__ import annotations

import os
import secrets
import socket
import time
from pathlib import Path

import pytest

from repair.engine.confine import landlock
from repair.kernelbench import Options, import_problems

HOSTILE = Path(__file__).resolve().parents[2] / "repair" / "engine" / "data" / "hostile" / "problem_file.py"
ESCAPED = "repair-hostile-escaped.txt"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _report(reason: str) -> dict[str, str]:
    tail = reason.split("hostile problem file: ", 1)[1]
    return dict(part.split(": ", 1) for part in tail.split("; "))


def test_the_probe_of_a_hostile_problem_gets_no_key_and_nothing_out(tmp_path, monkeypatch):
    keys = {"OPENAI_API_KEY": f"sk-test-{secrets.token_hex(12)}",
            "ANTHROPIC_API_KEY": f"sk-ant-test-{secrets.token_hex(12)}"}
    for k, v in keys.items():
        monkeypatch.setenv(k, v)
    src = tmp_path / "src" / "1_Hostile.py"
    src.parent.mkdir()
    src.write_text(HOSTILE.read_text())
    listener = socket.create_server(("127.0.0.1", 0))
    listener.setblocking(False)
    try:
        done, refused, _ = import_problems([src], tmp_path / "out", Options(timeout_s=120))
        with pytest.raises(BlockingIOError):
            listener.accept()
    finally:
        listener.close()
    assert not done and len(refused) == 1
    report = _report(refused[0].refused)
    for k, v in keys.items():
        assert v.encode().hex() not in report["keys"], f"{k} reached the problem's probe"
    escaped = [p for p in (src.parent / ESCAPED, Path.home() / ESCAPED, Path("/tmp") / ESCAPED) if p.exists()]
    for p in escaped:
        p.unlink()
    if landlock.abi() >= 4:
        assert not escaped and report["written outside"] == "none" and report["tcp reached"] == "none", report
    assert report["daemon"].startswith("refused"), report  # seccomp: no process of its own


DAEMON = '''
import os, sys, time
import torch
import torch.nn as nn

N = 4096


def _daemon():
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:  # in a session of its own, its parent gone: holding every descriptor it inherited
            with open(PIDFILE, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(600)
        os._exit(0)
    os.wait()


_daemon()


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(N)]


def get_init_inputs():
    return []
'''


def test_a_daemon_the_problem_starts_unconfined_dies_with_the_probe(tmp_path, monkeypatch):
    """Where the probe cannot refuse new processes (REPAIR_CONFINE=off here), its supervisor, a child subreaper,
    still kills a `setsid` daemon, and the import does not wait for the pipes the daemon would have held."""
    monkeypatch.setenv("REPAIR_CONFINE", "off")
    pidfile = tmp_path / "daemon.pid"
    src = tmp_path / "src" / "2_Daemon.py"
    src.parent.mkdir()
    src.write_text(DAEMON.replace("PIDFILE", repr(str(pidfile))))
    done, refused, _ = import_problems([src], tmp_path / "out", Options(timeout_s=120))
    assert len(done) == 1, refused
    pids = {int(p) for p in pidfile.read_text().split()} if pidfile.exists() else set()
    assert pids, "the daemon did not start"
    deadline = time.monotonic() + 10
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(p) for p in pids), "the problem's daemon outlived the import"


def test_a_problem_that_never_returns_is_refused_at_its_timeout(tmp_path):
    src = tmp_path / "src" / "3_Hang.py"
    src.parent.mkdir()
    src.write_text(DAEMON.replace("_daemon()\n\n\nclass", "time.sleep(600)\n\n\nclass").replace("PIDFILE", "'/dev/null'"))
    done, refused, _ = import_problems([src], tmp_path / "out", Options(timeout_s=2))
    assert not done and "--timeout" in refused[0].refused
