"""Integrity-gate overhead: a full-tier evaluation of every example's correct kernel, integrity on vs all rules off.

    .venv/bin/python bench/bench_integrity.py            # every examples/*/correct.py, 3 rounds
    .venv/bin/python bench/bench_integrity.py --rounds 1 --only softmax

"on" is the default evaluation (static scan + runtime guards + insensitivity check); "rules off" is the same
evaluation with every rule switched off (`--rule-off '*'`: the guard installs nothing, the scan only parses).
Both run the re-verification on a second seed; "numerics only" (`--no-integrity`) drops that too, so the
last column shows what the re-seeded case costs. Target (issue 3): on vs rules off < 20%. Prints one table.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated example names")
    args = ap.parse_args()
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from provenance.offline import apply_offline_env

    apply_offline_env()
    from repair.engine.harness import evaluate
    from repair.integrity.static import scan

    examples = sorted(p.parent for p in (ROOT / "examples").glob("*/correct.py"))
    if args.only:
        examples = [e for e in examples if e.name in args.only.split(",")]
    modes = {"on": {}, "off": {"rules_off": ["*"]}, "numerics": {"integrity": False}}
    evaluate(examples[0] / "problem.py", examples[0] / "correct.py", tier="full", seed=1)  # warm the fork server
    rows = []
    for ex in examples:
        problem, cand = ex / "problem.py", ex / "correct.py"
        times: dict[str, list[float]] = {m: [] for m in modes}
        fwd: dict[str, list[float]] = {m: [] for m in modes}  # time inside the candidate and reference forwards
        verdicts = set()
        for r in range(args.rounds):
            for mode, kw in (list(modes.items()) if r % 2 == 0 else list(reversed(modes.items()))):
                res = {}
                times[mode].append(_timed(lambda: res.setdefault(
                    "r", evaluate(problem, cand, tier="full", seed=100 + r, **kw))))
                fwd[mode].append(res["r"].kernel_seconds)
                if mode == "on":
                    verdicts.add((res["r"].passed, res["r"].integrity.verdict))
        scan_ms = 1000 * min(_timed(lambda: scan(problem, cand)) for _ in range(3))
        med = {m: statistics.median(v) for m, v in times.items()}
        rows.append((ex.name, med["off"], med["on"], med["numerics"], scan_ms, verdicts,
                     statistics.median(fwd["off"]), statistics.median(fwd["on"])))
    print(f"{'example':<22}{'rules off s':>12}{'on s':>9}{'overhead':>10}{'numerics s':>12}{'scan ms':>9}"
          f"{'fwd off s':>11}{'fwd on s':>10}  verdict")
    for name, off, on, num, scan_ms, verdicts, f_off, f_on in rows:
        v = ",".join(sorted(f"{'pass' if p else 'FAIL'}/{iv}" for p, iv in verdicts))
        print(f"{name:<22}{off:>12.2f}{on:>9.2f}{100 * (on - off) / off:>9.1f}%{num:>12.2f}{scan_ms:>9.1f}"
              f"{f_off:>11.3f}{f_on:>10.3f}  {v}")
    off_t, on_t, num_t, f_off_t, f_on_t = (sum(r[i] for r in rows) for i in (1, 2, 3, 6, 7))
    print(f"{'TOTAL':<22}{off_t:>12.2f}{on_t:>9.2f}{100 * (on_t - off_t) / off_t:>9.1f}%{num_t:>12.2f}{'':>9}"
          f"{f_off_t:>11.3f}{f_on_t:>10.3f}")
    print(f"runtime guards inside the forwards: {100 * (f_on_t - f_off_t) / f_off_t:+.1f}%")
    print(f"on vs numerics only (adds the re-seeded case): {100 * (on_t - num_t) / num_t:+.1f}%")


if __name__ == "__main__":
    main()
