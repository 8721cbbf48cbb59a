"""Harness overhead on the example suite, and `repair --help` start-up time.

For every examples/*/ candidate: evaluate on the full tier, then compare the evaluation's wall time
with the time spent inside the candidate's and the reference's forwards (EvalResult.kernel_seconds:
every forward run, the re-run on a second seed included; no two forwards ever overlap; a candidate's
forward includes the runtime guard's per-op recording, ~10% by bench_integrity.py). The suite line
counts everything this process did, the fork server's start included. Timings on a shared machine
move with its load: the load average is printed before and after.

    .venv/bin/python bench/bench_harness.py [--examples DIR] [--backend triton-cpu] [--help-runs 7]
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def help_seconds(runs: int) -> list[float]:
    exe = shutil.which("repair", path=str(Path(sys.executable).parent)) or shutil.which("repair")
    cmd = [exe, "--help"] if exe else [sys.executable, "-c", "from repair.cli import main; main()", "--help"]
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        times.append(time.perf_counter() - t0)
    return times


def candidates(examples: Path) -> list[tuple[Path, Path]]:
    pairs = []
    for op in sorted(p for p in examples.iterdir() if (p / "problem.py").is_file()):
        pairs += [(op / "problem.py", c) for c in sorted(op.glob("*.py")) if c.name != "problem.py"]
    return pairs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=Path, default=ROOT / "examples")
    ap.add_argument("--backend", default="triton-cpu")
    ap.add_argument("--help-runs", type=int, default=7)
    args = ap.parse_args()
    from provenance.offline import apply_offline_env

    apply_offline_env()
    load0 = os.getloadavg()[0]
    t_start = time.perf_counter()
    from repair.sandbox import prestart

    prestart(args.backend)  # as `repair eval` does: the fork server's imports overlap the engine's
    from repair.harness import evaluate

    rows, wall, kern = [], 0.0, 0.0
    print(f"{'operator':<20} {'candidate':<16} {'compact':>7} {'full':>6} {'wall_s':>7} {'kernel_s':>8} {'ratio':>6}")
    for problem, cand in candidates(args.examples):
        r = evaluate(problem, cand, tier="full", backend=args.backend, seed=0)
        wall += r.wall_seconds
        kern += r.kernel_seconds
        c, f = r.summary["compact"], r.summary["full"]
        ratio = r.wall_seconds / r.kernel_seconds if r.kernel_seconds else float("inf")
        rows.append(r)
        print(f"{problem.parent.name:<20} {cand.name:<16} {c.passed:>3}/{c.total:<3} {f.passed:>2}/{f.total:<3} "
              f"{r.wall_seconds:>7.2f} {r.kernel_seconds:>8.2f} {ratio:>6.2f}", flush=True)
    total = time.perf_counter() - t_start
    first = rows[0].wall_seconds if rows else 0.0
    warm = [r for r in rows[1:]]
    print()
    print(f"candidates evaluated        {len(rows)}  ({sum(r.passed for r in rows)} passed)  cpus {os.cpu_count()}"
          f"  load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    print(f"suite wall (whole process)  {total:8.2f} s   forwards {kern:8.2f} s   ratio {total / kern if kern else float('inf'):6.2f}")
    print(f"sum of evaluate() walls     {wall:8.2f} s   ratio {wall / kern if kern else float('inf'):6.2f}")
    if warm:
        wk = sum(r.kernel_seconds for r in warm)
        ww = sum(r.wall_seconds for r in warm)
        print(f"warm evaluates (all but 1st) {ww:7.2f} s   forwards {wk:8.2f} s   ratio {ww / wk if wk else float('inf'):6.2f}"
              f"   overhead/eval {(ww - wk) / len(warm):.3f} s")
    print(f"first evaluate (cold start) {first:8.2f} s")
    hs = help_seconds(args.help_runs)
    print(f"repair --help               median {statistics.median(hs):.3f} s  min {min(hs):.3f}  max {max(hs):.3f}"
          f"  ({len(hs)} runs)")


if __name__ == "__main__":
    main()
