"""Campaign throughput: operators (and runs) per minute with --jobs 1 vs --jobs 2, local executor, scripted worker.

Every near-miss of the first N operators of manifests/examples.yaml is repaired by a one-step script that
proposes the operator's correct kernel (so each run evaluates the near-miss, gates and evaluates the fix:
the work of a real one-attempt repair, without a model). Prints a table.

    .venv/bin/python bench/bench_campaign.py [--operators 6] [--jobs 1 2] [--executor local]
"""
from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_cohort(work: Path, n_ops: int) -> tuple[Path, Path]:
    import yaml

    full = yaml.safe_load((ROOT / "manifests" / "examples.yaml").read_text())
    ops = sorted(full["operators"], key=lambda o: o["id"])[:n_ops]
    manifest = work / "bench.yaml"
    for op in ops:
        op["files"] = [str((ROOT / "manifests" / f).resolve()) for f in op["files"]]
    manifest.write_text(yaml.safe_dump({"cohort": "bench", "frozen_at": full["frozen_at"], "operators": ops}))
    scripts = work / "scripts"
    for op in ops:
        correct = next(f for f in op["files"] if f.endswith("correct.py"))
        (scripts / op["id"]).mkdir(parents=True, exist_ok=True)
        for f in op["files"]:
            if Path(f).name.startswith("nearmiss_"):
                (scripts / op["id"] / f"{Path(f).stem}.yaml").write_text(f"steps:\n  - file: {correct}\n")
    return manifest, scripts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--operators", type=int, default=6)
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--executor", default="local", choices=["local", "ray"])
    args = ap.parse_args()
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from repair.campaign import debug_config, make_executor, run_campaign

    work = Path(tempfile.mkdtemp(prefix="bench-campaign-"))
    try:
        manifest, scripts = build_cohort(work, args.operators)
        config, specs = debug_config(manifest, script=scripts, bounds={"attempts": 2}, allow_outside=True)
        rows = []
        for jobs in args.jobs:
            t0 = time.monotonic()
            s = run_campaign(config, specs, work / f"jobs{jobs}", executor=make_executor(args.executor, jobs))
            wall = time.monotonic() - t0
            rows.append((jobs, s.operators, s.runs, s.repaired, wall, s.operators / wall * 60, s.runs / wall * 60))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\ncampaign throughput ({args.executor} executor, {os.cpu_count()} CPUs, scripted worker, one-attempt repairs)")
    print(f"{'jobs':>4} {'operators':>9} {'runs':>4} {'repaired':>8} {'wall s':>7} {'ops/min':>7} {'runs/min':>8} {'speed-up':>8}")
    base = rows[0][4]
    for jobs, ops, runs, rep, wall, opm, rpm in rows:
        print(f"{jobs:>4} {ops:>9} {runs:>4} {rep:>8} {wall:>7.1f} {opm:>7.2f} {rpm:>8.2f} {base / wall:>8.2f}")


if __name__ == "__main__":  # the local executor forks run processes from a fork server: keep the guard
    main()
