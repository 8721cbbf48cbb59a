"""KernelBench-layout problems at their published size and imported (`repair import kernelbench`), side by side.

For each problem of tests/repair/kernelbench/data/level1 (written in KernelBench's layout, at its kind of sizes:
2^30-element activations, 2^32-element norms and reductions, a 4096 x 4096 x 8192 matmul, a 512 x 768 conv) and its
correct Triton candidate: one evaluation of the file as it is (one case at upstream's size), then of the imported
problem's compact tier and of its full tier. Printed per evaluation: the outcome, cases, wall time, time in the
forwards, and the peak resident memory of the reference and candidate processes (sampled every 20 ms). A case at
upstream's size either does not fit the candidate's memory limit (refused before it runs), or runs until --timeout.
Target (was a test's wall-clock bound): on the imported problems, every correct candidate's slowest case under 5 s.

    .venv/bin/python bench/bench_kernelbench.py [--timeout 60] [--only 1_ReLU,5_Matmul]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_bigcase import RoleMemorySampler  # noqa: E402  (peak memory of the reference and candidate, sampled)
DATA = ROOT / "tests" / "repair" / "kernelbench" / "data"


def _evaluate(problem: Path, candidate: Path, tier: str, root: str, timeout_s: float) -> dict:
    from repair.engine.harness import evaluate
    from repair.errors import BadInput

    sampler = RoleMemorySampler(root)
    sampler.start()
    t0 = time.perf_counter()
    try:
        r = evaluate(problem, candidate, tier=tier, backend="triton-cpu", seed=0, timeout_s=timeout_s)
        statuses = sorted({c.status for c in r.cases})
        row = {"outcome": "pass" if r.passed else "/".join(statuses), "cases": len(r.cases), "fwd": r.kernel_seconds,
               "slowest": max(c.seconds for c in r.cases)}
    except BadInput as e:
        row = {"outcome": "refused", "cases": 1, "fwd": 0.0, "slowest": 0.0, "why": str(e).split(": ", 1)[-1][:100]}
    row["wall"] = time.perf_counter() - t0
    sampler.done.set()
    sampler.join()
    row.update(ref_mb=sampler.peak["reference"] // 1024, cand_mb=sampler.peak["candidate"] // 1024)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds a case may run (upstream's size runs until it)")
    ap.add_argument("--only", default="", help="comma-separated problem names")
    args = ap.parse_args()
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from provenance.offline import apply_offline_env

    apply_offline_env()
    os.environ["REPAIR_SERVER_DIR"] = own = tempfile.mkdtemp(prefix="bench-kb-")  # a fork server of its own
    from repair.engine.sandbox import fork_server, shutdown_fork_servers
    from repair.engine.backends import get_backend
    from repair.kernelbench import Options, import_problems

    names = [n for n in args.only.split(",") if n]
    problems = [p for p in sorted((DATA / "level1").glob("*.py"))
                if (DATA / "candidates" / p.stem / "correct.py").is_file() and (not names or p.stem in names)]
    out = Path(tempfile.mkdtemp(prefix="bench-kb-import-"))
    try:
        t0 = time.perf_counter()
        done, refused, _ = import_problems(problems, out, Options(jobs=2))
        print(f"import: {len(done)} problems in {time.perf_counter() - t0:.1f} s (2 at a time), "
              f"{len(refused)} refused\n")
        root = fork_server(get_backend("triton-cpu")).root
        print(f"{'problem':<34} {'run':<9} {'size (elements)':>16} {'outcome':<9} {'cases':>5} {'wall_s':>7} "
              f"{'fwd_s':>6} {'slowest':>7} {'ref_MB':>7} {'cand_MB':>7}")
        for p in done:
            cand = DATA / "candidates" / p.name / "correct.py"
            runs = [("upstream", Path(p.upstream), "full", p.derivation.original.elements),
                    ("compact", Path(p.problem), "compact", p.derivation.compact.elements),
                    ("full", Path(p.problem), "full", None)]
            for run, problem, tier, size in runs:
                row = _evaluate(problem, cand, tier, root, args.timeout)
                print(f"{p.name:<34} {run:<9} {size if size is not None else '':>16} {row['outcome']:<9} "
                      f"{row['cases']:>5} {row['wall']:7.1f} {row['fwd']:6.1f} {row['slowest']:7.2f} "
                      f"{row['ref_mb']:7d} {row['cand_mb']:7d}", flush=True)
                if row.get("why"):
                    print(f"{'':<34} {row['why']}")
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutdown_fork_servers()
        shutil.rmtree(own, ignore_errors=True)


if __name__ == "__main__":
    main()
