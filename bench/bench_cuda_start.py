"""What a fresh sandbox process pays on a GPU before its first Triton kernel, phase by phase.

Each row is a child forked, as the fork server forks them, from a process that has imported torch and
triton (and, for the second row, has run the backend's pre-fork preparation: repair.engine.backends.Cuda.
prepare_server). Phases, in the child: the CUDA context (a one-element tensor), the first launch of a
small Triton kernel (its binary from triton's on-disk cache: the first run of this bench compiles it,
so run it twice), a second specialisation of it, and a steady launch. Then where the first launch's time
goes (cProfile, cumulative, top entries). Needs an NVIDIA GPU.

    python3 bench/bench_cuda_start.py [--children 5]
"""
from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _child_phases(profile: bool) -> dict:
    import torch

    from repair.engine.warmkernel import _copy_kernel

    t = {}
    t0 = time.perf_counter()
    x = torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    t["context_ms"] = time.perf_counter() - t0
    src = torch.arange(8, dtype=torch.float32, device="cuda")
    dst = torch.empty_like(src)
    prof = cProfile.Profile() if profile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    _copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    torch.cuda.synchronize()
    if prof:
        prof.disable()
    t["first_launch_ms"] = time.perf_counter() - t0
    big = torch.arange(1000, dtype=torch.float32, device="cuda")
    t0 = time.perf_counter()
    _copy_kernel[(8,)](big, torch.empty_like(big), 1000, BLOCK=128)  # another specialisation
    torch.cuda.synchronize()
    t["second_kernel_ms"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    _copy_kernel[(1,)](src, dst, 8, BLOCK=8)
    torch.cuda.synchronize()
    t["steady_launch_ms"] = time.perf_counter() - t0
    t = {k: v * 1000 for k, v in t.items()}
    del x
    if prof:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(18)
        t["profile"] = s.getvalue()
    return t


def _fork_measure(profile: bool = False) -> dict:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = json.dumps(_child_phases(profile)).encode()
        except BaseException as e:  # noqa: BLE001
            out = json.dumps({"error": repr(e)}).encode()
        os.write(w, out)
        os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 1 << 16):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(data)


def _row(label: str, rows: list[dict]) -> str:
    cols = ("context_ms", "first_launch_ms", "second_kernel_ms", "steady_launch_ms")
    med = {c: statistics.median(r[c] for r in rows) for c in cols}
    return f"{label:<34}" + "".join(f"{med[c]:>18.1f}" for c in cols)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--children", type=int, default=5)
    args = ap.parse_args()
    os.environ.pop("TRITON_INTERPRET", None)
    import torch  # noqa: F401
    import triton  # noqa: F401
    import triton.language  # noqa: F401

    import repair.engine.warmkernel  # noqa: F401
    from repair.engine.backends import get_backend

    _fork_measure()  # fills triton's on-disk cache for the kernel (a compile, the first time ever)
    plain = [_fork_measure() for _ in range(args.children)]
    t0 = time.perf_counter()
    get_backend("cuda").prepare_server()
    prep_ms = (time.perf_counter() - t0) * 1000
    prepared = [_fork_measure() for _ in range(args.children)]
    print(f"{'medians of ' + str(args.children) + ' children, ms':<34}" + "".join(
        f"{c:>18}" for c in ("context", "first launch", "2nd specialisation", "steady launch")))
    print(_row("forked from torch+triton", plain))
    print(_row(f"... after prepare_server ({prep_ms:.0f} ms)", prepared))
    print("\nfirst launch, forked after prepare_server, by cumulative time:")
    print(_fork_measure(profile=True).get("profile", "")[:6000])


if __name__ == "__main__":
    main()
