"""The `rules` worker on the example suite's near-misses: how many it repairs, evaluations and wall time each.

The starter records are ingested into a fresh KB (the packaged MiniLM embedder unless --embedder hash),
then `repair run` runs on every labelled near-miss with `--worker rules`, retrieving k patterns from
that KB per checkpoint, judged by the real harness at a fixed seed. `--offer-all` skips retrieval and
offers every starter pattern (what the rules can do when retrieval is perfect).

    .venv/bin/python bench/bench_rules_worker.py [--k 5] [--attempts 8] [--embedder hash] [--offer-all]
"""
from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class CountingJudge:
    """The harness judge, counting evaluations (one per tier run) and static gate calls."""

    def __init__(self, inner):
        self.inner, self.evaluations, self.gates = inner, 0, 0
        self.backend, self.rules_off = inner.backend, inner.rules_off

    def gate(self, candidate):
        self.gates += 1
        return self.inner.gate(candidate)

    def evaluate(self, candidate, tier):
        self.evaluations += 1
        return self.inner.evaluate(candidate, tier)


def nearmisses(examples: Path):
    for meta_path in sorted(examples.glob("*/meta.yaml")):
        meta = yaml.safe_load(meta_path.read_text())
        for name, info in meta["candidates"].items():
            if info.get("kind") == "near-miss":
                yield meta_path.parent, name, info["bug_class"]


def main() -> int:
    from provenance.offline import apply_offline_env

    apply_offline_env()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=Path, default=ROOT / "examples")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--attempts", type=int, default=8)
    ap.add_argument("--embedder", default=None, help="KB_EMBEDDER for the temporary KB (default: the packaged MiniLM)")
    ap.add_argument("--offer-all", action="store_true")
    args = ap.parse_args()
    if args.embedder:
        os.environ["KB_EMBEDDER"] = args.embedder
    tmp = Path(tempfile.mkdtemp(prefix="bench-rules-"))
    try:
        return _run(args, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(args, tmp: Path) -> int:
    from repair.loop.bounds import Bounds
    from repair.loop.judge import HarnessJudge
    from repair.loop.algorithm import RunConfig, run_repair
    from repair.loop.retrieve import FixedRetriever, KBRetriever
    from repair.rules.build_starter import STARTER_DIR, pattern_id
    from repair.rules.catalog import STARTER
    from repair.workers.base import Pattern
    from repair.workers.rules_worker import RulesWorker

    if args.offer_all:
        pats = [Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                        rules=tuple(r.to_dict() for r in p.rules)) for p in STARTER]
        make_retriever, k = (lambda: FixedRetriever(pats)), len(pats)
        where = f"every starter pattern offered ({len(pats)})"
    else:
        from ingest.api import ingest

        t0 = time.perf_counter()
        report = ingest([STARTER_DIR], tmp / "kb")
        where = (f"starter KB: {report.count('admitted')} records admitted in {time.perf_counter() - t0:.1f} s, "
                 f"k={args.k}")
        make_retriever, k = (lambda: KBRetriever(tmp / "kb")), args.k
    starter_classes = {p.bug_class for p in STARTER}

    print(f"# rules worker on the example suite ({where}; bounds: {args.attempts} attempts)")
    print(f"{'near-miss':32} {'bug class':24} {'starter':7} {'status':17} {'attempts':>8} {'evals':>5} "
          f"{'wall s':>7}  cited")
    rows = []
    for op_dir, name, bug_class in nearmisses(args.examples):
        problem = op_dir / "problem.py"
        judge = CountingJudge(HarnessJudge(problem, seed=0))
        t0 = time.perf_counter()
        outcome = run_repair(RunConfig(problem, op_dir / name, bounds=Bounds(attempts=args.attempts), k=k),
                             RulesWorker(), make_retriever(), judge)
        wall = time.perf_counter() - t0
        cited = sorted({c for a in outcome.attempts for c in a.cited if a.outcome == "accepted"})
        cited = [c if len(c) < 40 else c[:12] for c in cited]
        rows.append((outcome.status, len(outcome.attempts), judge.evaluations, wall, bug_class in starter_classes))
        print(f"{op_dir.name + '/' + name:32} {bug_class:24} {'yes' if bug_class in starter_classes else 'no':7} "
              f"{outcome.status:17} {len(outcome.attempts):>8} {judge.evaluations:>5} {wall:>7.1f}  {','.join(cited)}")
    repaired = [r for r in rows if r[0] == "repaired"]
    covered = [r for r in rows if r[4]]
    print(f"\nrepaired {len(repaired)}/{len(rows)} near-misses ({sum(r[0] == 'repaired' for r in covered)}/"
          f"{len(covered)} of starter classes); tokens 0")
    if repaired:
        print(f"per repair: attempts mean {sum(r[1] for r in repaired) / len(repaired):.2f}, evaluations mean "
              f"{sum(r[2] for r in repaired) / len(repaired):.2f}, wall mean {sum(r[3] for r in repaired) / len(repaired):.1f} s "
              f"(max {max(r[3] for r in repaired):.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
