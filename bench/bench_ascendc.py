"""ascendc-cpu on the AscendC example suite: build time (cold and cached) and run time per example, beside the
Triton interpreter (triton-cpu) running an equivalent Triton kernel on the same problem file and cases.

Per operator of examples/ascendc/ (its correct kernel, in the format --format names): the library built cold (an
empty cache; the precompiled headers, made once per cache, are timed apart), the same build cached (reading,
mapping and hashing the candidate, then finding its library), the full tier evaluated on ascendc-cpu with the build
cached (`repair eval`'s wall time: the candidate process, every case, the reference and the comparisons; and the
time in forwards), then the same problem's full tier on triton-cpu with a Triton kernel written for it (below). The
target: a cached build and a full-tier evaluation under 2 s per example. The cache is a fresh temporary directory
unless --cache names one. Timings on a shared machine move with its load: the load average is printed.

    .venv/bin/python bench/bench_ascendc.py [--format py|json|npukb] [--ops add,softmax] [--cache DIR]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SUITE = ROOT / "examples" / "ascendc"
FORMATS = {"py": "correct.py", "json": "correct.json", "npukb": "answer/0"}

# Triton kernels for the same problems (each problem.py of examples/ascendc/): one program per block of elements
# or per row, as the AscendC kernels split their work per core.
_HEAD = "import torch\nimport triton\nimport triton.language as tl\n\n\n"
TRITON = {
    "add": _HEAD + '''@triton.jit
def add_kernel(x, y, z, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(z + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x, y):
        z = torch.empty_like(x)
        n = x.numel()
        add_kernel[(triton.cdiv(n, 65536),)](x, y, z, n, BLOCK=65536)
        return z
''',
    "cast": _HEAD + '''@triton.jit
def cast_kernel(x, y, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y + offs, tl.load(x + offs, mask=m).to(tl.float16), mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty(x.shape, dtype=torch.float16)
        n = x.numel()
        cast_kernel[(triton.cdiv(n, 65536),)](x, y, n, BLOCK=65536)
        return y
''',
    "bias_add": _HEAD + '''@triton.jit
def bias_add_kernel(x, b, y, rows, cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    m = (r < rows) & (c < cols)
    tl.store(y + r * cols + c, tl.load(x + r * cols + c, mask=m) + tl.load(b + c, mask=c < cols), mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x, b):
        y = torch.empty_like(x)
        cols = x.shape[-1]
        rows = x.numel() // cols
        ROWS = 64
        bias_add_kernel[(triton.cdiv(rows, ROWS),)](x, b, y, rows, cols, ROWS=ROWS, COLS=triton.next_power_of_2(cols))
        return y
''',
    "softmax": _HEAD + '''@triton.jit
def softmax_kernel(x, y, rows, cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    m = (r < rows) & (c < cols)
    v = tl.load(x + r * cols + c, mask=m, other=-float("inf"))
    e = tl.exp(v - tl.max(v, axis=1)[:, None])
    tl.store(y + r * cols + c, e / tl.sum(e, axis=1)[:, None], mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        cols = x.shape[-1]
        rows = x.numel() // cols
        softmax_kernel[(triton.cdiv(rows, 64),)](x, y, rows, cols, ROWS=64, COLS=triton.next_power_of_2(cols))
        return y
''',
    "layer_norm": _HEAD + '''@triton.jit
def layer_norm_kernel(x, g, b, y, rows, cols, eps, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)[:, None]
    c = tl.arange(0, COLS)[None, :]
    m = (r < rows) & (c < cols)
    v = tl.load(x + r * cols + c, mask=m, other=0.0)
    mean = tl.sum(v, axis=1)[:, None] / cols
    d = tl.where(m, v - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, axis=1)[:, None] / cols + eps)
    out = d * rstd * tl.load(g + c, mask=c < cols) + tl.load(b + c, mask=c < cols)
    tl.store(y + r * cols + c, out, mask=m)


class ModelNew(torch.nn.Module):
    def __init__(self, eps):
        super().__init__()
        self.eps = eps

    def forward(self, x, gamma, beta):
        y = torch.empty_like(x)
        cols = x.shape[-1]
        rows = x.numel() // cols
        layer_norm_kernel[(triton.cdiv(rows, 64),)](x, gamma, beta, y, rows, cols, self.eps, ROWS=64,
                                                   COLS=triton.next_power_of_2(cols))
        return y
''',
    "row_sum": _HEAD + '''@triton.jit
def row_sum_kernel(x, y, rows, cols, ROWS: tl.constexpr, COLS: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    acc = tl.zeros((ROWS,), dtype=tl.float32)
    for c0 in range(0, cols, COLS):
        c = c0 + tl.arange(0, COLS)[None, :]
        m = (r[:, None] < rows) & (c < cols)
        acc += tl.sum(tl.load(x + r[:, None] * cols + c, mask=m, other=0.0), axis=1)
    tl.store(y + r, acc, mask=r < rows)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        cols = x.shape[-1]
        rows = x.numel() // cols
        y = torch.empty(x.shape[:-1], dtype=x.dtype)
        row_sum_kernel[(triton.cdiv(rows, 64),)](x, y, rows, cols, ROWS=64, COLS=1024)
        return y
''',
}


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--format", choices=sorted(FORMATS), default="py",
                        help="which correct kernel: py (six sources), json (direct launch), npukb (answer/0)")
    parser.add_argument("--ops", default=",".join(TRITON), help="operators, comma-separated")
    parser.add_argument("--cache", help="an ascendc-cpu cache directory to use (default: a fresh temporary one)")
    args = parser.parse_args()
    os.environ["REPAIR_ASCENDC_CACHE"] = args.cache or tempfile.mkdtemp(prefix="bench-ascendc-")
    sys.path.insert(0, str(ROOT))
    from provenance.offline import apply_offline_env

    apply_offline_env()
    from repair.ascendc import EmulatedLoader, build_library, load_candidate, plan_emu_build, prepare_pch
    from repair.ascendc.emu.binding import launch_function
    from repair.engine import evaluate

    print(f"load average {load_average()}; cache {os.environ['REPAIR_ASCENDC_CACHE']}")
    t0 = time.perf_counter()
    prepare_pch()
    print(f"precompiled headers (once per cache): {time.perf_counter() - t0:.2f}s\n")
    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    builds = {}
    for op in ops:  # first every build, cold then cached, in this process (no engine yet)
        cand = (SUITE / op / FORMATS[args.format]).resolve()
        t0 = time.perf_counter()
        c = load_candidate(cand)
        build_library(plan_emu_build(c, launch_fn=launch_function(c)))
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        EmulatedLoader(cand).build()
        builds[op] = (cand, cold, time.perf_counter() - t0)
    t0 = time.perf_counter()
    triton_dir = Path(tempfile.mkdtemp(prefix="bench-triton-"))
    for op in ops:
        (triton_dir / f"{op}_triton.py").write_text(TRITON[op])
    for backend, cand in (("ascendc-cpu", builds[ops[0]][0]), ("triton-cpu", triton_dir / f"{ops[0]}_triton.py")):
        evaluate(SUITE / ops[0] / "problem.py", cand, backend=backend, seed=0, tier="compact")
    print(f"fork servers started and warm (each once per engine): {time.perf_counter() - t0:.2f}s\n")
    print(f"{'operator':<11} {'cases':>5} {'cold_s':>7} {'cached_s':>8} {'eval_s':>7} {'fwd_s':>6} {'total_s':>7}  "
          f"{'triton_s':>8} {'fwd_s':>6}  verdicts")
    totals = []
    for op in ops:
        cand, cold, cached = builds[op]
        problem = SUITE / op / "problem.py"
        r = evaluate(problem, cand, backend="ascendc-cpu", seed=0)
        t = evaluate(problem, triton_dir / f"{op}_triton.py", backend="triton-cpu", seed=0)
        verdicts = f"ascendc {'PASS' if r.passed else 'FAIL'}, triton {'PASS' if t.passed else 'FAIL'}"
        totals.append(cached + r.wall_seconds)
        print(f"{op:<11} {len(r.cases):>5} {cold:>7.2f} {cached:>8.3f} {r.wall_seconds:>7.2f} {r.kernel_seconds:>6.2f} "
              f"{cached + r.wall_seconds:>7.2f}  {t.wall_seconds:>8.2f} {t.kernel_seconds:>6.2f}  {verdicts}",
              flush=True)
    print(f"\ncached build + full-tier evaluation: max {max(totals):.2f}s, target 2 s per example "
          f"({'met' if max(totals) < 2 else 'missed'}); the first evaluation starts the fork servers")
    print(f"load average {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
