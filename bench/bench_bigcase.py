"""Evaluations of big cases: wall time and each process's peak memory against the size of a case's tensors.

KernelBench's level-1 problems build inputs of hundreds of MB to several GB (19_ReLU: 4096 x 393216 fp32,
6 GiB). For each size: a ReLU problem (one case, M x N fp32, KernelBench-style: no CASES), evaluated once
with a correct Triton candidate and once with one whose output is 1% off everywhere (so the failure's
diagnostics run on the whole output). Printed per evaluation: the status, wall time, time in the forwards,
and the peak resident memory of the engine (its VmHWM), the reference process and the candidate process
(VmRSS sampled every 20 ms), each also as a multiple of the input's size.

    .venv/bin/python bench/bench_bigcase.py [--sizes-mb 64,256,1024] [--mem-limit-mb 8192]

Mind the machine: a size is skipped when the machine's available memory is under 12 times it.
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

_PROBLEM = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


M, N = 1024, COLS


def get_inputs():
    return [torch.randn(M, N)]


def get_init_inputs():
    return []
"""

_CANDIDATE = """import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * SCALE, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        block = min(1 << 20, triton.next_power_of_2(triton.cdiv(n, 32)))  # triton caps a block at 2^20
        relu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
        return out
"""


def _status_kb(pid: int, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class RoleMemorySampler(threading.Thread):
    """Peak resident memory of the processes working beneath a fork server's scratch root, by role (sampled: a
    warm reference process's VmHWM would include its earlier evaluations)."""

    def __init__(self, root: str):
        super().__init__(daemon=True)
        self.root, self.peak, self.done = root, {"reference": 0, "candidate": 0}, threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.02):
            for pid in (int(p) for p in os.listdir("/proc") if p.isdigit()):
                try:
                    cwd = os.readlink(f"/proc/{pid}/cwd")
                except OSError:
                    continue
                if not cwd.startswith(self.root):
                    continue
                role = "candidate" if "/candidate-" in cwd else "reference" if "/reference-" in cwd else None
                if role:
                    self.peak[role] = max(self.peak[role], _status_kb(pid, "VmRSS:"))


def _reset_peak() -> None:
    """Start this process's VmHWM afresh (Linux >= 4.0)."""
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def _available_mb() -> int:
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes-mb", default="64,256,1024", help="input sizes in MB (fp32, 1024 rows)")
    ap.add_argument("--mem-limit-mb", type=int, default=8192, help="the candidate's memory limit")
    args = ap.parse_args()
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from provenance.offline import apply_offline_env

    apply_offline_env()
    os.environ["REPAIR_SERVER_DIR"] = own = tempfile.mkdtemp(prefix="bench-big-")  # its own fork server
    from repair.engine.backends import default_backend, get_backend
    from repair.errors import BadInput
    from repair.engine.harness import evaluate
    from repair.engine.sandbox import fork_server

    be = get_backend(default_backend())
    root = fork_server(be).root
    d = Path(tempfile.mkdtemp(prefix="bench-big-files-"))
    print(f"{'input':>8} {'candidate':<10} {'status':<10} {'wall_s':>7} {'fwd_s':>6} {'engine':>13} "
          f"{'reference':>13} {'candidate':>13}   (peak resident MB, x input)")
    try:
        for mb in (int(s) for s in args.sizes_mb.split(",")):
            if _available_mb() < 12 * mb:
                print(f"{mb:>6}MB skipped: {_available_mb()} MB available")
                continue
            problem = d / f"relu_{mb}.py"
            problem.write_text(_PROBLEM.replace("COLS", str(mb * 256)))
            for name, scale in (("correct", "1.0"), ("off-by-1%", "1.01")):
                cand = d / f"relu_{mb}_{name.replace('%', '')}.py"
                cand.write_text(_CANDIDATE.replace("SCALE", scale))
                sampler = RoleMemorySampler(root)
                sampler.start()
                _reset_peak()
                t0 = time.perf_counter()
                try:
                    r = evaluate(problem, cand, tier="full", backend=be.name, seed=0, timeout_s=600,
                                 mem_limit_mb=args.mem_limit_mb)
                    status, fwd = r.cases[0].status, r.kernel_seconds
                    detail = (r.cases[0].message or "").strip().splitlines()[-1][:110] if status != "pass" else ""
                except BadInput as e:
                    status, fwd, detail = "bad-input", 0.0, str(e)[:120]
                wall = time.perf_counter() - t0
                sampler.done.set()
                sampler.join()
                engine = _status_kb(os.getpid(), "VmHWM:") // 1024
                cells = [f"{v:6d} {v / mb:4.1f}x" for v in
                         (engine, sampler.peak["reference"] // 1024, sampler.peak["candidate"] // 1024)]
                print(f"{mb:>6}MB {name:<10} {status:<10} {wall:7.2f} {fwd:6.2f} {cells[0]:>13} {cells[1]:>13} "
                      f"{cells[2]:>13}", flush=True)
                if detail:
                    print(f"{'':>8} {detail}")
    finally:
        shutil.rmtree(d, ignore_errors=True)
        from repair.engine.sandbox import shutdown_fork_servers

        shutdown_fork_servers()
        shutil.rmtree(own, ignore_errors=True)


if __name__ == "__main__":
    main()
