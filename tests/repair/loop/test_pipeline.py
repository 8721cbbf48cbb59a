"""The pipelined evaluation: forwards never overlap, the candidate runs first on every input,
fork-server replies are matched to their requests, and the runtime guard stays off torch._dynamo."""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from repair.engine.backends import get_backend
from repair.engine.harness import evaluate
from repair.engine.processes import CandidateProcess
from repair.engine.sandbox import fork_server

DATA = Path(__file__).resolve().parents[1] / "engine" / "data"
ROOT = Path(__file__).resolve().parents[3]

_PROBLEM = '''
import time
import torch
import torch.nn as nn

CASES = [{"tier": "compact", "N": 1000}, {"tier": "compact", "N": 700}, {"tier": "full", "N": 3000},
         {"tier": "full", "N": 5}]


class Model(nn.Module):
    def forward(self, x, y):
        with open(LOG, "a") as f:
            f.write(f"ref start {float(x.sum())!r}\\n")
        out = torch.relu(x + y)
        time.sleep(0.01)  # a window another forward would have to fall into to overlap
        with open(LOG, "a") as f:
            f.write(f"ref end {float(x.sum())!r}\\n")
        return out


def get_init_inputs(**case):
    return []


def get_inputs(N=1000):
    return [torch.randn(N), torch.randn(N)]
'''

_CANDIDATE_FORWARD = '''

_launch = launch


def launch(x, y):
    import time

    with open(LOG, "a") as f:
        f.write(f"cand start {float(x.sum())!r}\\n")
    out = _launch(x, y)
    time.sleep(0.01)
    with open(LOG, "a") as f:
        f.write(f"cand end {float(x.sum())!r}\\n")
    return out
'''


@pytest.fixture(scope="module", autouse=True)
def warm_server():
    fork_server(get_backend("triton-cpu")).ensure_ready()


def _logged(tmp_path: Path) -> tuple[Path, Path, Path]:
    log = tmp_path / "forwards.log"
    problem, candidate = tmp_path / "problem.py", tmp_path / "candidate.py"
    problem.write_text(f"LOG = {str(log)!r}\n" + _PROBLEM)
    candidate.write_text(f"LOG = {str(log)!r}\n" + (DATA / "addrelu_correct.py").read_text() + _CANDIDATE_FORWARD)
    return problem, candidate, log


def test_forwards_never_overlap_and_the_candidate_runs_first_on_every_input(tmp_path, monkeypatch):
    monkeypatch.setenv("REPAIR_CONFINE", "off")  # the candidate writes its log outside its scratch directory
    problem, candidate, log = _logged(tmp_path)
    r = evaluate(problem, candidate, seed=3)
    assert r.numerics_passed and [c.status for c in r.cases] == ["pass"] * 4
    events = [tuple(ln.split()) for ln in log.read_text().splitlines()]  # in the order they happened
    assert sum(e[:2] == ("cand", "start") for e in events) == sum(e[:2] == ("ref", "start") for e in events) == 5
    # four cases and the second seed of the first compact case; no two forwards overlap
    assert all(a[1] == "start" and b == (a[0], "end", a[2]) for a, b in zip(events[0::2], events[1::2])), events
    for i, (who, what, key) in enumerate(events):
        if (who, what) == ("ref", "start"):
            assert ("cand", "end", key) in events[:i], f"reference ran on input {key} before the candidate"
    assert 0 < r.kernel_seconds < r.wall_seconds


def test_fork_server_replies_reach_their_own_request(tmp_path):
    be = get_backend("triton-cpu")
    kw = dict(mem_limit_mb=1024, timeout_s=60, cpu_seconds=120, rules_off=[])
    first = CandidateProcess(be, str(DATA / "addrelu_correct.py"), str(tmp_path), index=1, **kw)
    second = CandidateProcess(be, str(DATA / "addrelu_correct.py"), str(tmp_path), index=2, **kw)
    pid2, pid1 = second.child.pid, first.child.pid  # the second reply is read first: the first waits in the mailbox
    assert pid1 != pid2 and first.startup().kind == second.startup().kind == "ok"
    assert first.child.kill().signal == 9 and second.child.kill().signal == 9


def test_runtime_guard_does_not_import_dynamo():
    code = textwrap.dedent("""
        import sys, torch
        from repair.integrity.runtime import RuntimeGuard
        g = RuntimeGuard([])
        with torch.no_grad(), g:
            torch.zeros(4) + 1
        assert g.compute_ops["aten::add"] == 1, dict(g.ops)
        assert "torch._dynamo" not in sys.modules
    """)
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, timeout=120)
