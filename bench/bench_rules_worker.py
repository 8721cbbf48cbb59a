"""The `rules` worker on the example suite and the held-out transfer suite, side by side, at zero tokens.

The starter records are ingested into a fresh KB (the packaged MiniLM embedder unless --embedder hash),
then `repair run --worker rules` runs on every labelled near-miss, retrieving from that KB (k patterns
for a model to see; the worker itself tries every rule-carrying pattern whose rules match), judged by
the real harness at a fixed seed. `--offer-all` skips retrieval and offers every starter pattern.

The held-out suites (heldout/transfer, and heldout/transfer2 written later, after the rules, by someone who had
read neither the rules nor the first suite's kernels, with bug classes named in their own words) are reported in
aggregate only (per bug class: repaired of total), never per file.

    .venv/bin/python bench/bench_rules_worker.py [--suite examples|heldout|heldout2|both|all] [--k 5] [--attempts 8]
                                                [--embedder hash] [--offer-all] [--json FILE]
    .venv/bin/python bench/bench_rules_worker.py --distill-loo [--loo-suite dev|heldout] [--loo-judge harness|ast]
    .venv/bin/python bench/bench_rules_worker.py --learn-loo tune3|heldout3|heldout|heldout2|dev [--limit N]
    .venv/bin/python bench/bench_rules_worker.py --suite ascendc|ascendc-tune [--attempts 6]

`--suite ascendc` reports the AscendC rules (bench/bench_ascendc_rules.py's runs: every AscendC starter pattern
offered, ascendc-cpu's strict build judging) on examples/ascendc beside heldout/ascendc's held-out half, the latter
in aggregate only (repaired, evaluations per accepted repair, accepted diffs that drop a qualifier); `ascendc-tune`
runs its tune half, per file.

heldout/transfer3 runs as two suites by its split.json: `tune3` (its tune half, printed per file) and `heldout3` (its
held-out half: totals only, no per-file row and no per-class row). `--learn-loo` measures learning at ingest: for
each operator, the other operators' repairs of its classes are ingested with learning into a fresh KB, and the rules
worker is offered only the rule entries that ingest learned.

`--distill-loo` measures distillation instead, leave one operator out: for each operator, rules are distilled
from the other operators' fixes (near-miss -> correct kernel) of a class, one fix at a time (ingest.rules.distill)
or generalised over all of them (ingest.rules.generalize, checked against the other operators' correct kernels),
and applied to the left-out operator's near-misses of that class. Only near-misses whose class occurs in another
operator count. Reached: some rewrite (up to two) gives the correct kernel; repaired: reached, or (with the
harness judge, the default) the rules worker offered only the distilled rules has a candidate accepted by the
harness. `--loo-suite dev` (the default, for development) uses the example suite and the rules' development set;
`--loo-suite heldout` the transfer suite, reported in aggregate only.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SUITES = {"examples": ROOT / "examples", "heldout": ROOT / "heldout" / "transfer",
          "heldout2": ROOT / "heldout" / "transfer2",
          "tune3": ROOT / "heldout" / "transfer3", "heldout3": ROOT / "heldout" / "transfer3",
          "dev": ROOT / "tests" / "repair" / "rules" / "data" / "dev"}  # dev: the rules' own development set
# heldout/transfer3 by its split.json: the tune half may be read and printed per file, the held-out half never
HALVES = {"tune3": "tune", "heldout3": "heldout"}


def suite_ops(suite: str) -> set[str] | None:
    """The operators of a half-suite (None: every operator of the suite's directory)."""
    if suite not in HALVES:
        return None
    from heldout_protocol import load_split  # bench/heldout_protocol.py: the digest and the rule are checked

    split = load_split(SUITES[suite])
    return set(split.tune if HALVES[suite] == "tune" else split.heldout)


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


@dataclass
class Row:
    suite: str
    name: str  # operator/file; printed for the example suite only
    bug_class: str
    starter: bool  # the class has a starter record
    status: str
    attempts: int
    evaluations: int
    violations: int  # attempts whose gate or runtime verdict was a violation
    wall_s: float
    cited: str


def nearmisses(suite_dir: Path, ops: set[str] | None = None):
    for meta_path in sorted(suite_dir.glob("*/meta.yaml")):
        if ops is not None and meta_path.parent.name not in ops:
            continue
        meta = yaml.safe_load(meta_path.read_text())
        for name, info in meta["candidates"].items():
            if info.get("kind") == "near-miss":
                yield meta_path.parent, name, info["bug_class"]


def main(argv: list[str] | None = None) -> int:
    from provenance.offline import apply_offline_env

    apply_offline_env()
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--suite", choices=["examples", "heldout", "heldout2", "tune3", "heldout3", "transfer3", "both", "dev",
                                        "all", "report", "ascendc", "ascendc-tune"], default="both",
                    help="both: examples and heldout; all: examples, dev, heldout, heldout2 and transfer3's halves; "
                         "report: examples, heldout, heldout2, tune3, heldout3 (the issue's one run); ascendc: "
                         "examples/ascendc beside heldout/ascendc's held-out half (aggregates only); ascendc-tune: "
                         "heldout/ascendc's tune half, per file")
    ap.add_argument("--examples", type=Path, default=None, help="another directory in the example suite's format")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--attempts", type=int, default=8)
    ap.add_argument("--embedder", default=None, help="KB_EMBEDDER for the temporary KB (default: the packaged MiniLM)")
    ap.add_argument("--offer-all", action="store_true")
    ap.add_argument("--json", type=Path, default=None, help="also write every row (held-out rows without names)")
    ap.add_argument("--distill-loo", action="store_true", help="leave-one-operator-out figures for distilled rules")
    ap.add_argument("--loo-suite", choices=sorted(LOO_SUITES), default="dev",
                    help="dev: the example suite and the rules' dev set (default); heldout: the transfer suite")
    ap.add_argument("--loo-judge", choices=["harness", "ast"], default="harness",
                    help="ast: only count the correct kernel reached; harness: also run the rules worker")
    ap.add_argument("--learn-loo", choices=["tune3", "heldout3", "heldout", "heldout2", "dev"], default=None,
                    help="learning at ingest, leave one operator out: kb ingest --learn of the other operators' "
                         "repairs, then the rules worker offered only the learned rule entries")
    ap.add_argument("--limit", type=int, default=None, help="at most this many near-misses a suite (bounded runs)")
    args = ap.parse_args(argv)
    if args.suite.startswith("ascendc"):
        return ascendc_report(args.suite, min(args.attempts, 6))
    if args.learn_loo:
        return learn_loo(args.learn_loo, args.attempts, args.limit)
    if args.distill_loo:
        return distill_loo(args.loo_suite, args.loo_judge, args.attempts)
    if args.embedder:
        os.environ["KB_EMBEDDER"] = args.embedder
    suites = {"both": ["examples", "heldout"], "all": ["examples", "dev", "heldout", "heldout2", "tune3", "heldout3"],
              "report": ["examples", "heldout", "heldout2", "tune3", "heldout3"], "transfer3": ["tune3", "heldout3"]}.get(args.suite, [args.suite])
    dirs = {s: SUITES[s] for s in suites}
    if args.examples is not None:
        dirs = {"examples": args.examples}
    tmp = Path(tempfile.mkdtemp(prefix="bench-rules-"))
    try:
        with _shared_server():
            return _run(args, dirs, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ascendc_report(suite: str, attempts: int = 6) -> int:
    """The AscendC rules at zero tokens (every AscendC starter pattern offered, judged on ascendc-cpu's strict build):
    examples/ascendc beside heldout/ascendc's held-out half (aggregates only), or its tune half (per file)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_ascendc_rules import run_suite, summary

    runs = ([("examples/ascendc", ROOT / "examples" / "ascendc", "all"),
             ("heldout/ascendc held-out half", ROOT / "heldout" / "ascendc", "heldout")] if suite == "ascendc"
            else [("heldout/ascendc tune half", ROOT / "heldout" / "ascendc", "tune")])
    print(f"# AscendC rules worker (every AscendC starter pattern offered; {attempts} attempts; tokens 0; ascendc-cpu)")
    lines = []
    for label, suite_dir, half in runs:
        print(f"\n## {label}")
        rows = run_suite(suite_dir, half, attempts=attempts, jobs=2, show=lambda line: print(line, flush=True))
        lines.append(summary(label, rows))
    print("\n" + "\n".join(lines))
    return 0


@contextmanager
def _shared_server():
    """One warm fork server for every evaluation of the bench (as a campaign does), in a private directory."""
    from repair.engine import shared_server
    from repair.errors import BadInput, EnvironmentMissing

    d = tempfile.mkdtemp(prefix="bench-rw-", dir="/tmp" if os.path.isdir("/tmp") else None)
    old = os.environ.get("REPAIR_SERVER_DIR")
    try:
        try:
            shared_server.start(None, idle_s=120.0, directory=d, with_caller=True)
            os.environ["REPAIR_SERVER_DIR"] = d
        except (BadInput, EnvironmentMissing):
            pass  # each evaluation starts its own
        yield
    finally:
        shared_server.stop(directory=d)
        if old is None:
            os.environ.pop("REPAIR_SERVER_DIR", None)
        else:
            os.environ["REPAIR_SERVER_DIR"] = old
        shutil.rmtree(d, ignore_errors=True)


def _retriever_factory(args, tmp: Path):
    from repair.loop.retrieve import FixedRetriever, KBRetriever
    from repair.rules.build_starter import STARTER_DIR, pattern_id
    from repair.rules.catalog import STARTER
    from repair.workers.base import Pattern

    if args.offer_all:
        pats = [Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                        rules=tuple(r.to_dict() for r in p.rules)) for p in STARTER]
        return (lambda: FixedRetriever(pats)), len(pats), f"every starter pattern offered ({len(pats)})"
    from ingest.api import ingest

    t0 = time.perf_counter()
    report = ingest([STARTER_DIR], tmp / "kb")
    where = f"starter KB: {report.count('admitted')} records admitted in {time.perf_counter() - t0:.1f} s, k={args.k}"
    return (lambda: KBRetriever(tmp / "kb")), args.k, where


def _run(args, dirs: dict[str, Path], tmp: Path) -> int:
    from repair.rules.catalog import STARTER

    make_retriever, k, where = _retriever_factory(args, tmp)
    starter_classes = {p.bug_class for p in STARTER}
    print(f"# rules worker ({where}; bounds: {args.attempts} attempts; tokens 0)")
    rows: list[Row] = []
    touched = {}
    for suite, suite_dir in dirs.items():
        rows += _run_suite(suite, suite_dir, args, k, make_retriever, starter_classes)
        touched[suite] = _correct_touched(suite_dir, suite_ops(suite), named=not suite.startswith("heldout"))
    _summary(rows, list(dirs), touched)
    if args.json:
        args.json.write_text(json.dumps([asdict(r) | ({"name": ""} if r.suite.startswith("heldout") else {}) for r in rows],
                                        indent=1) + "\n")
    return 0


def _run_suite(suite, suite_dir, args, k, make_retriever, starter_classes) -> list[Row]:
    from repair.loop.algorithm import RunConfig, run_repair
    from repair.loop.bounds import Bounds
    from repair.loop.judge import HarnessJudge
    from repair.workers.rules_worker import RulesWorker

    named = not suite.startswith("heldout")
    print(f"\n## {suite} ({suite_dir.relative_to(ROOT) if suite_dir.is_relative_to(ROOT) else suite_dir})")
    if named:
        print(f"{'near-miss':32} {'bug class':24} {'starter':7} {'status':17} {'attempts':>8} {'evals':>5} "
              f"{'wall s':>7}  cited")
    rows = []
    for n, (op_dir, name, bug_class) in enumerate(list(nearmisses(suite_dir, suite_ops(suite)))[:args.limit], 1):
        problem = op_dir / "problem.py"
        judge = CountingJudge(HarnessJudge(problem, seed=0))
        t0 = time.perf_counter()
        try:
            outcome = run_repair(RunConfig(problem, op_dir / name, bounds=Bounds(attempts=args.attempts), k=k),
                                 RulesWorker(), make_retriever(), judge)
            status, attempts = outcome.status, outcome.attempts
        except Exception as e:  # one broken run is a row, not the end of the bench
            status, attempts = f"error:{type(e).__name__}", []
        wall = time.perf_counter() - t0
        cited = sorted({c for a in attempts for c in a.cited if a.outcome == "accepted"})
        row = Row(suite, f"{op_dir.name}/{name}", bug_class, bug_class in starter_classes, status, len(attempts),
                  judge.evaluations, sum(a.verdict == "violation" for a in attempts), round(wall, 2),
                  ",".join(c if len(c) < 40 else c[:12] for c in cited))
        rows.append(row)
        if named:
            print(f"{row.name:32} {bug_class:24} {'yes' if row.starter else 'no':7} {status:17} {row.attempts:>8} "
                  f"{row.evaluations:>5} {wall:>7.1f}  {row.cited}")
        else:
            print(f"\r{n} near-misses run", end="", flush=True)
    if not named:
        print()
    return rows


def _correct_touched(suite_dir: Path, ops: set[str] | None = None, named: bool = False) -> tuple[int, int]:
    """(correct kernels some starter rule rewrites, correct kernels): a rule must never touch a passing kernel.
    `named`: print which rules rewrite which correct kernel (never for a held-out suite)."""
    from ingest.rules import apply_rule, equivalent
    from repair.rules.catalog import starter_rules

    rules, touched, total = starter_rules(), 0, 0
    for meta_path in sorted(suite_dir.glob("*/meta.yaml")):
        if ops is not None and meta_path.parent.name not in ops:
            continue
        meta = yaml.safe_load(meta_path.read_text())
        reference = (meta_path.parent / "problem.py").read_text()
        for name, info in meta["candidates"].items():
            if info.get("kind") != "correct":
                continue
            text = (meta_path.parent / name).read_text()
            total += 1
            fired = sorted({a.rule_id for r in rules for a in apply_rule(r, text, reference=reference)
                            if not equivalent(a.patched_source, text)})
            touched += bool(fired)
            if fired and named:
                print(f"  correct kernel rewritten: {meta_path.parent.name}/{name} by {', '.join(fired)}")
    return touched, total


def _summary(rows: list[Row], suites: list[str], touched: dict | None = None) -> None:
    def stats(rs: list[Row]) -> dict[str, str]:
        rep = [r for r in rs if r.status == "repaired"]
        cov = [r for r in rs if r.starter]
        evals = sum(r.evaluations for r in rep)
        return {
            "near-misses": str(len(rs)),
            "repaired": f"{len(rep)}/{len(rs)} ({100 * len(rep) / max(len(rs), 1):.0f}%)",
            "  of starter classes": f"{sum(r.status == 'repaired' for r in cov)}/{len(cov)}",
            "  of other classes": f"{sum(r.status == 'repaired' for r in rs if not r.starter)}/{len(rs) - len(cov)}",
            "evaluations per accepted repair": f"{evals / len(rep):.2f}" if rep else "-",
            "  max for one repair": str(max((r.evaluations for r in rep), default=0)),
            "evaluations, all runs / repaired": f"{sum(r.evaluations for r in rs) / len(rep):.2f}" if rep else "-",
            "attempts per accepted repair": f"{sum(r.attempts for r in rep) / len(rep):.2f}" if rep else "-",
            "integrity violations": str(sum(r.violations for r in rs)),
            "correct kernels a rule rewrites": "{}/{}".format(*(touched or {}).get(rs[0].suite if rs else "", (0, 0))),
            "errors": str(sum(r.status.startswith("error") for r in rs)),
            "tokens": "0",
            "wall s (total)": f"{sum(r.wall_s for r in rs):.1f}",
            "wall s per run (mean / max)": (f"{sum(r.wall_s for r in rs) / len(rs):.1f} / "
                                            f"{max(r.wall_s for r in rs):.1f}") if rs else "-",
        }

    by = {s: [r for r in rows if r.suite == s] for s in suites}
    table = {s: stats(rs) for s, rs in by.items()}
    print(f"\n## summary\n{'':34}" + "".join(f"{s:>18}" for s in suites))
    for key in next(iter(table.values())):
        print(f"{key:34}" + "".join(f"{table[s][key]:>18}" for s in suites))
    per_class = [s for s in suites if s != "heldout3"]  # transfer3's held-out half: totals only
    classes = sorted({r.bug_class for r in rows if r.suite in per_class})
    print(f"\n## per bug class (repaired/total)\n{'bug class':34}" + "".join(f"{s:>18}" for s in per_class))
    for c in classes:
        cells = []
        for s in per_class:
            rs = [r for r in by[s] if r.bug_class == c]
            cells.append(f"{sum(r.status == 'repaired' for r in rs)}/{len(rs)}" if rs else "-")
        print(f"{c:34}" + "".join(f"{x:>18}" for x in cells))
    statuses = {s: Counter(r.status for r in by[s]) for s in suites}
    print("\n## run statuses\n" + "\n".join(f"{s}: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses[s].items()))
                                          for s in suites))


LOO_SUITES = {"dev": ("examples", "dev"), "heldout": ("heldout",)}


def _loo_fixes(suite: str) -> list[tuple]:
    """(bug class, operator dir, near-miss file, near-miss text, correct text) of every near-miss of the suite."""
    fixes = []
    for name in LOO_SUITES[suite]:
        for op_dir, file, bug_class in nearmisses(SUITES[name]):
            fixes.append((bug_class, op_dir, file, (op_dir / file).read_text(), (op_dir / "correct.py").read_text()))
    return fixes


def _canon(text: str) -> str:
    """One spelling of infinity, so that -float("inf") is float("-inf")."""
    text = re.sub(r"""float\((["'])-inf\1\)""", '-float("inf")', text)
    return re.sub(r"""float\('inf'\)""", 'float("inf")', text)


def _reaches(rules, source: str, target: str) -> bool:
    """Some sequence of at most two rewrites turns source into the target (modulo formatting)."""
    from ingest.rules import apply_rules, equivalent

    frontier = [source]
    for _ in range(2):
        frontier = [a.patched_source for s in frontier for a in apply_rules(rules, s)][:64]
        if any(equivalent(_canon(s), _canon(target)) for s in frontier):
            return True
    return False


def _worker_repairs(rules, op_dir: Path, file: str, attempts: int) -> tuple[bool, int]:
    """(repaired, evaluations): the rules worker offered only these rules, judged by the harness at seed 0."""
    from repair.loop.algorithm import RunConfig, run_repair
    from repair.loop.bounds import Bounds
    from repair.loop.judge import HarnessJudge
    from repair.loop.retrieve import FixedRetriever
    from repair.workers.base import Pattern
    from repair.workers.rules_worker import RulesWorker

    patterns = [Pattern(id=f"loo-{i}", score=1.0, title=r.title, bug_class=r.bug_class, rules=(r.to_dict(),))
                for i, r in enumerate(rules)]
    judge = CountingJudge(HarnessJudge(op_dir / "problem.py", seed=0))
    try:
        outcome = run_repair(RunConfig(op_dir / "problem.py", op_dir / file, bounds=Bounds(attempts=attempts),
                                       k=len(patterns)), RulesWorker(), FixedRetriever(patterns), judge)
    except Exception:  # one broken run is a miss, not the end of the bench
        return False, judge.evaluations
    return outcome.status == "repaired", judge.evaluations


def distill_loo(suite: str = "dev", judge: str = "harness", attempts: int = 8) -> int:
    """Leave one operator out: do rules distilled from the other operators' fixes repair this one's near-misses?

    Only near-misses whose bug class some other operator of the suite also has are counted. A near-miss is
    reached when some rewrite (up to two) of the distilled rules gives its correct kernel; with the harness
    judge, one not reached is also tried by the rules worker, offered only the distilled rules (repaired when
    the harness accepts a candidate). The held-out suite is reported in aggregate only.
    """
    from ingest.rules import apply_rules, distill, equivalent
    from ingest.rules.generalize import generalize

    fixes = _loo_fixes(suite)
    corrects = {d: text for _, d, _, _, text in fixes}
    named = not suite.startswith("heldout")
    print(f"# distilled rules, leave one operator out ({suite}: {' + '.join(LOO_SUITES[suite])}; reached = the "
          f"correct kernel reached by at most two rewrites; repaired = reached, or accepted by the harness "
          f"{'(not run)' if judge != 'harness' else f'from the rules worker, {attempts} attempts'})")
    if named:
        print(f"{'bug class':26} {'fixes':>5} {'ops':>4} {'single':>6} {'general':>7} {'reached':>7} "
              f"{'repaired':>8} {'rules':>5} {'breaks':>6} {'evals':>5}  wall s")
    totals = Counter()
    with _shared_server() if judge == "harness" else _nothing():
        for bug_class in sorted({f[0] for f in fixes}):
            mine = [f for f in fixes if f[0] == bug_class]
            ops = sorted({f[1] for f in mine}, key=str)
            if len(ops) < 2:
                continue
            t0, row = time.perf_counter(), Counter()
            for op in ops:
                train = [(b, a) for _, d, _, b, a in mine if d != op]
                single = [r for b, a in train for r in distill(b, a, "triton", bug_class=bug_class)]
                corpus = [text for d, text in corrects.items() if d != op]
                general = generalize(train, "triton", bug_class=bug_class, corpus=corpus)
                row["rules"] += len(general)
                row["breaks"] += sum(1 for r in general for a in apply_rules([r], corrects[op])
                                     if not equivalent(a.patched_source, corrects[op]))
                for _, d, file, before, after in mine:
                    if d != op:
                        continue
                    row["near-misses"] += 1
                    one, gen = _reaches(single, before, after), _reaches(general, before, after)
                    row["single"] += one
                    row["general"] += gen
                    row["reached"] += one or gen
                    if one or gen:
                        row["repaired"] += 1
                    elif judge == "harness" and apply_rules(general + single, before):
                        ok, evals = _worker_repairs(general + single, op, file, attempts)
                        row["repaired"] += ok
                        row["evals"] += evals
            totals.update(row)
            if named:
                print(f"{bug_class:26} {row['near-misses']:>5} {len(ops):>4} {row['single']:>6} {row['general']:>7} "
                      f"{row['reached']:>7} {row['repaired']:>8} {row['rules']:>5} {row['breaks']:>6} "
                      f"{row['evals']:>5}  {time.perf_counter() - t0:.1f}")
            else:
                print(f"\r{totals['near-misses']} near-misses tried", end="", flush=True)
    if named:
        print(f"{'total':26} {totals['near-misses']:>5} {'':>4} {totals['single']:>6} {totals['general']:>7} "
              f"{totals['reached']:>7} {totals['repaired']:>8} {totals['rules']:>5} {totals['breaks']:>6} "
              f"{totals['evals']:>5}")
    else:
        print()
    n = max(totals["near-misses"], 1)
    print(f"\n{suite}: near-misses whose bug class occurs in another operator: {totals['near-misses']}; reached "
          f"{totals['reached']} ({100 * totals['reached'] / n:.0f}%); repaired {totals['repaired']} "
          f"({100 * totals['repaired'] / n:.0f}%); generalised rules {totals['rules']}; rewrites of a left-out "
          f"correct kernel {totals['breaks']}; harness evaluations {totals['evals']}")
    print("breaks: rewrites a generalised rule makes on the left-out operator's correct kernel "
          "(never seen in training)")
    return 0


def _repair_record(i: int, op_dir: Path, file: str, bug_class: str):
    """A recorded repair standing in for an LLM's (near-miss -> the operator's correct kernel), without rules."""
    from ingest.record import Diagnosis
    from ingest.synthetic import make_record

    r = make_record(i, bug_class="missing-other", operator_id=op_dir.name, family=op_dir.name,
                    source=(op_dir / file).read_text(), repaired=(op_dir / "correct.py").read_text(),
                    run_id=f"loo-{op_dir.name}-{i}")
    return r.model_copy(update={"diagnosis": Diagnosis(title=f"{bug_class} in {op_dir.name}", bug_class=bug_class,
                                                       root_cause=bug_class, fix=bug_class)})


def learn_loo(suite: str, attempts: int = 8, limit: int | None = None) -> int:
    """Learning at ingest, leave one operator out: for each operator, `kb ingest --learn` (the library call) of the
    other operators' repairs of the classes it shares with them into a fresh KB, then the rules worker on its
    near-misses of those classes, offered only the rule entries that ingest learned (rules that did not exist
    before it). Only near-misses whose class occurs in another operator count. Held-out halves: totals only."""
    from ingest.api import ingest
    from ingest.learn import correct_corpus
    from ingest.synthetic import write_record
    from kbstore.embed import HashEmbedder
    from kbstore.views import show
    from repair.workers.base import Pattern

    items = list(nearmisses(SUITES[suite], suite_ops(suite)))
    named = suite in ("tune3", "dev")
    corpus = correct_corpus(SUITES["examples"])
    print(f"# learning at ingest, leave one operator out ({suite}; rules learned from the other operators' repairs "
          f"against the example suite's {len(corpus)} correct kernels; rules worker offered only the learned entries, "
          f"{attempts} attempts, harness at seed 0)")
    totals, tmp, n_run = Counter(), Path(tempfile.mkdtemp(prefix="bench-learn-")), 0
    try:
        with _shared_server():
            for op in sorted({d for d, _, _ in items}, key=str):
                mine = [(d, f, c) for d, f, c in items if d == op]
                others = [(d, f, c) for d, f, c in items if d != op and c in {x[2] for x in mine}]
                if not others:
                    continue
                t0 = time.perf_counter()
                rec_dir = tmp / op.name / "records"
                for i, (d, f, c) in enumerate(others):
                    write_record(_repair_record(i, d, f, c), rec_dir / f"{i:03d}.json")
                report = ingest([rec_dir], tmp / op.name / "kb", embedder=HashEmbedder(), learn=True, corpus=corpus)
                learned = [show(tmp / op.name / "kb", x["entry_id"])["pattern"] for x in report.learned]
                pats = [Pattern(id=f"learned-{k}", score=1.0, title=p["title"], bug_class=p["bug_class"],
                                fix=p["fix"], rules=tuple(p["rules"])) for k, p in enumerate(learned)]
                totals["learned entries"] += len(pats)
                totals["ingest s"] += time.perf_counter() - t0
                for d, f, c in mine:
                    if c not in {x[2] for x in others} or (limit is not None and n_run >= limit):
                        continue
                    n_run += 1
                    totals["near-misses"] += 1
                    mine_pats = [p for p in pats if p.bug_class == c]
                    ok, evals = _worker_repairs_patterns(mine_pats, d, f, attempts) if mine_pats else (False, 0)
                    totals["repaired"] += ok
                    totals["evaluations"] += evals
                    if named:
                        print(f"{d.name + '/' + f:40} {c:26} learned {len(mine_pats):>2}  "
                              f"{'repaired' if ok else 'not repaired':12} evals {evals}")
                if not named:
                    print(f"\r{totals['near-misses']} near-misses run", end="", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not named:
        print()
    n = max(totals["near-misses"], 1)
    print(f"\n{suite}: near-misses whose class occurs in another operator {totals['near-misses']}; repaired by "
          f"learned rules {totals['repaired']} ({100 * totals['repaired'] / n:.0f}%) at zero tokens; harness "
          f"evaluations {totals['evaluations']}; learned entries {totals['learned entries']}; ingest wall "
          f"{totals['ingest s']:.0f} s")
    return 0


def _worker_repairs_patterns(patterns, op_dir: Path, file: str, attempts: int) -> tuple[bool, int]:
    from repair.loop.algorithm import RunConfig, run_repair
    from repair.loop.bounds import Bounds
    from repair.loop.judge import HarnessJudge
    from repair.loop.retrieve import FixedRetriever
    from repair.workers.rules_worker import RulesWorker

    judge = CountingJudge(HarnessJudge(op_dir / "problem.py", seed=0))
    try:
        outcome = run_repair(RunConfig(op_dir / "problem.py", op_dir / file, bounds=Bounds(attempts=attempts),
                                       k=len(patterns)), RulesWorker(), FixedRetriever(patterns), judge)
    except Exception:  # one broken run is a miss, not the end of the bench
        return False, judge.evaluations
    return outcome.status == "repaired", judge.evaluations


@contextmanager
def _nothing():
    yield


if __name__ == "__main__":
    sys.exit(main())
