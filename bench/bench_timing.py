"""The example suite's correct kernels timed against their references on a device, as `repair eval --time` times
them (KernelBench's protocol: warm-up runs, then trials each between two device events; medians), printed as a
table with torch.compile's time beside the reference's where it compiles. Needs cuda (or npu): on a machine
without the device it exits 3 with the backend's message; the CPU backends never time.

    python3 bench/bench_timing.py [--backend cuda] [--trials 100] [--warmup 3] [--ops add_relu,softmax]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", default="cuda")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--ops", default="", help="comma-separated operator directories (default: every example)")
    args = ap.parse_args(argv)

    from repair.engine import evaluate, get_backend
    from repair.engine.timing import TimingPlan, fast_p
    from repair.errors import EnvironmentMissing

    be = get_backend(args.backend)
    if not be.timed:
        print(f"backend {be.name}: the CPU backends never time kernels (repair/engine/timing.py says why)")
        return 3
    try:
        be.check_available()
    except EnvironmentMissing as e:
        print(f"error: {e}")
        return 3
    wanted = {o for o in args.ops.split(",") if o}
    ops = sorted(p.parent for p in (ROOT / "examples").glob("*/correct.py") if not wanted or p.parent.name in wanted)
    plan = TimingPlan(warmup=args.warmup, trials=args.trials)
    print(f"{'operator':22} {'case':5} {'correct':7} {'kernel ms':>18} {'reference ms':>13} {'compile ms':>11} "
          f"{'speedup':>8} {'vs compile':>10} {'wall s':>7} {'cpu s':>6}")
    rows = []
    for op in ops:
        w0, c0 = time.perf_counter(), time.process_time()
        r = evaluate(op / "problem.py", op / "correct.py", tier="full", backend=be.name, seed=1, timed=plan)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        t = r.timing or {}
        if not t or "error" in t:
            print(f"{op.name:22} {t.get('case', '-'):5} {str(r.passed):7} not timed: {t.get('error', 'no timing')}")
            rows.append((r.passed, None))
            continue
        comp = t.get("compiled_ms")
        print(f"{op.name:22} {t['case']:5} {str(r.passed):7} {t['candidate_ms']:10.4f} ±{t['candidate_std_ms']:6.4f} "
              f"{t['reference_ms']:13.4f} {comp if comp is None else round(comp, 4)!s:>11} {t['speedup']:8.2f} "
              f"{t.get('speedup_vs_compiled') or float('nan'):10.2f} {wall:7.1f} {cpu:6.1f}")
        rows.append((r.passed, t["speedup"]))
    f1, f12 = fast_p(rows, 1.0), fast_p(rows, 1.2)
    print(f"fast_1.0 {f1 if f1 is None else round(f1, 3)}  fast_1.2 {f12 if f12 is None else round(f12, 3)}  "
          f"({len(rows)} operators, {plan.trials} trials after {plan.warmup} warm-up runs each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
