"""Harness overhead on the example suite, and `repair --help` start-up time.

For every examples/*/ candidate: evaluate on the full tier, then compare the evaluations' wall time
with the time spent inside the candidate's and the reference's forwards (EvalResult.kernel_seconds:
every forward run, the re-run on a second seed included; no two forwards of one evaluation ever
overlap; a candidate's forward includes the runtime guard's per-op recording, ~10% by
bench_integrity.py). Lines side by side: the suite in this process, one evaluation at a time, which
starts its own fork server (torch and triton imported once, ~1 s, inside the figure, counted from
the suite's start); the suite in a new engine process with its own fork server, --jobs evaluations
at a time (as `repair eval --jobs N`; counted from before its interpreter started): its forwards
overlap one another's and take longer, so its wall time is also set against the serial run's
forwards; and the suite in a new engine process after `repair server start` (the shared server's
start printed apart: paid once per session, not per command). Then the machinery's floor: what an
evaluation and each case run cost on a trivial problem (1 and 10 eight-element cases), apart from
any forward.
Timings on a shared machine move with its load: the load average is printed before and after.

    .venv/bin/python bench/bench_harness.py [--examples DIR] [--backend triton-cpu] [--help-runs 7] [--jobs N] [--no-shared]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
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


def suite(examples: Path, backend: str, quiet: bool = False, started_at: float | None = None, jobs: int = 1) -> dict:
    """Evaluate every candidate (full tier) in this process, `jobs` at a time; the totals counted from `started_at`
    (time.time(), default now)."""
    from provenance.offline import apply_offline_env

    started_at = time.time() if started_at is None else started_at
    apply_offline_env()
    from repair.engine.sandbox import fork_server, prestart

    prestart(backend)  # as `repair eval` does: the fork server's imports overlap the engine's
    from repair.engine.harness import evaluate_many

    rows = []
    if not quiet:
        print(f"{'operator':<20} {'candidate':<16} {'compact':>7} {'full':>6} {'wall_s':>7} {'kernel_s':>8} {'ratio':>6}")
    pairs = candidates(examples)
    for (problem, cand), r in zip(pairs, evaluate_many(pairs, jobs=jobs, tier="full", backend=backend, seed=0)):
        rows.append(r)
        if not quiet:
            c, f = r.summary["compact"], r.summary["full"]
            ratio = r.wall_seconds / r.kernel_seconds if r.kernel_seconds else float("inf")
            print(f"{problem.parent.name:<20} {cand.name:<16} {c.passed:>3}/{c.total:<3} {f.passed:>2}/{f.total:<3} "
                  f"{r.wall_seconds:>7.2f} {r.kernel_seconds:>8.2f} {ratio:>6.2f}", flush=True)
    from repair.engine.backends import get_backend

    return {"total": time.time() - started_at, "walls": [r.wall_seconds for r in rows],
            "kernels": [r.kernel_seconds for r in rows], "passed": sum(r.passed for r in rows),
            "runs": [len(r.cases) + (r.summary["compact"].passed > 0) for r in rows],
            "shared": fork_server(get_backend(backend)).shared}


_FLOOR_PROBLEM = """import torch
import torch.nn as nn

CASES = [{"tier": "compact", "N": 8}] + [{"tier": "full", "N": 8 + i} for i in range(EXTRA)]


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs(N=8):
    return [torch.ones(N)]
"""
_FLOOR_CANDIDATE = _FLOOR_PROBLEM.replace("class Model(", "class ModelNew(")


def floor(backend: str, evaluations: int = 20) -> tuple[float, float]:
    """The machinery's own cost on a trivial problem (a warm reference, 8-element cases): (per evaluation,
    per case run) in seconds, from problems of 1 and of 10 cases (each case run also pays its candidate's
    and reference's own Python around a forward of a few microseconds)."""
    from repair.engine.harness import evaluate

    d = Path(tempfile.mkdtemp(prefix="bench-floor-"))
    try:
        over = []
        for extra in (0, 9):
            problem, cand = d / f"floor{extra}.py", d / f"floor{extra}_candidate.py"
            problem.write_text(_FLOOR_PROBLEM.replace("EXTRA", str(extra)))
            cand.write_text(_FLOOR_CANDIDATE.replace("EXTRA", str(extra)))
            rs = [evaluate(problem, cand, backend=backend, seed=i) for i in range(evaluations + 2)][2:]
            runs = len(rs[0].cases) + 1  # the first compact pass runs again on a second seed
            over.append((runs, statistics.median(r.wall_seconds - r.kernel_seconds for r in rs)))
    finally:
        shutil.rmtree(d, ignore_errors=True)
    (r1, o1), (r2, o2) = over
    per_run = (o2 - o1) / (r2 - r1)
    return o1 - per_run * r1, per_run


def _line(label: str, s: dict) -> str:
    kern, walls = sum(s["kernels"]), s["walls"]
    warm_w, warm_k = sum(walls[1:]), sum(s["kernels"][1:])
    return (f"{label:<34} suite {s['total']:6.2f} s  forwards {kern:5.2f} s  ratio {s['total'] / kern:5.2f}   "
            f"first evaluate {walls[0]:5.2f} s   later ones: ratio {warm_w / warm_k:4.2f}, "
            f"{(warm_w - warm_k) / max(1, len(walls) - 1) * 1000:3.0f} ms overhead each   "
            f"outside evaluations {s['total'] - sum(walls):4.2f} s")


def main() -> None:
    from repair.engine.backends import default_backend

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=Path, default=ROOT / "examples")
    ap.add_argument("--backend", default=default_backend())
    ap.add_argument("--help-runs", type=int, default=7)
    ap.add_argument("--no-shared", action="store_true", help="Skip the run against a shared fork server.")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="Evaluations at a time in the parallel run (default: the CPUs; 1 skips that run).")
    ap.add_argument("--suite-only", action="store_true", help=argparse.SUPPRESS)  # the second engine process
    args = ap.parse_args()
    if args.suite_only:  # counted from before this interpreter started (the parent's clock reading)
        print(json.dumps(suite(args.examples, args.backend, quiet=True, started_at=float(os.environ["BENCH_T0"]),
                               jobs=args.jobs)))
        return
    load0 = os.getloadavg()[0]
    os.environ["REPAIR_SERVER_DIR"] = own = tempfile.mkdtemp(prefix="bench-own-")  # no shared server is found there
    try:
        cold = suite(args.examples, args.backend)
        print()
        print(f"candidates evaluated  {len(cold['walls'])}  ({cold['passed']} passed)  cpus {os.cpu_count()}")
        lines = [_line("engine with its own fork server", cold)]
        if args.jobs > 1:
            lines.append(_parallel_run(args, sum(cold["kernels"])))
        if not args.no_shared:
            lines.append(_shared_run(args))
        fixed, per_run = floor(args.backend)
    finally:
        shutil.rmtree(own, ignore_errors=True)
    for line in lines:
        print(line)
    print(f"harness floor (trivial problem)    {fixed * 1000:4.1f} ms per evaluation + {per_run * 1000:4.2f} ms per case run "
          f"(the suite: {sum(cold['runs'])} runs in {len(cold['walls'])} evaluations)")
    hs = help_seconds(args.help_runs)
    print(f"repair --help                      median {statistics.median(hs):.3f} s  min {min(hs):.3f}  "
          f"max {max(hs):.3f}  ({len(hs)} runs)")
    print(f"load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")


_REPAIR = [sys.executable, "-c", "from repair.cli import main; main()"]


def _suite_process(args, env: dict, jobs: int = 1) -> dict:
    """The suite in a new engine process, counted from before its interpreter started."""
    env = {**env, "BENCH_T0": repr(time.time())}
    out = subprocess.run([sys.executable, __file__, "--suite-only", "--examples", str(args.examples),
                          "--backend", args.backend, "--jobs", str(jobs)],
                         check=True, capture_output=True, text=True, env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _parallel_run(args, serial_forwards: float) -> str:
    """A new engine process with its own fork server, `--jobs` evaluations at a time (`repair eval --jobs`): its
    forwards overlap each other's, so its wall time is also set against the serial run's forwards."""
    d = tempfile.mkdtemp(prefix="bench-par-")
    try:
        s = _suite_process(args, {**os.environ, "REPAIR_SERVER_DIR": d}, jobs=args.jobs)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    assert not s["shared"], "the parallel run found a shared fork server"
    kern = sum(s["kernels"])
    return (f"{f'own fork server, {args.jobs} at a time':<34} suite {s['total']:6.2f} s  forwards {kern:5.2f} s  "
            f"ratio {s['total'] / kern:5.2f}   against the serial run's forwards ({serial_forwards:.2f} s): "
            f"{s['total'] / serial_forwards:4.2f}")


def _shared_run(args) -> str:
    """A second engine process, started after `repair server start`: what each later command pays."""
    d = tempfile.mkdtemp(prefix="bench-rs-")
    env = {**os.environ, "REPAIR_SERVER_DIR": d}
    t0 = time.perf_counter()
    subprocess.run([*_REPAIR, "server", "start", "--backend", args.backend, "--idle", "120"],
                   check=True, capture_output=True, env=env)
    started = time.perf_counter() - t0
    try:
        s = _suite_process(args, env)
    finally:
        subprocess.run([*_REPAIR, "server", "stop"], capture_output=True, env=env)
        shutil.rmtree(d, ignore_errors=True)
    assert s["shared"], "the second engine did not use the shared fork server"
    return _line(f"new engine, shared server (start {started:.1f} s)", s)


if __name__ == "__main__":
    main()
