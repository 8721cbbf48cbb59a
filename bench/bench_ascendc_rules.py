"""The AscendC starter rules through the repair loop at zero tokens, on a suite in the example suite's layout.

For each near-miss of the suite (an operator directory with problem.py and meta.yaml), the loop runs with the rules
worker offered every AscendC starter pattern (no KB, no model), judged on ascendc-cpu (the strict build: an address
space dropped from a GM cast does not compile). Printed: repaired of near-misses, evaluations spent (the loop's
attempts; the near-miss's own evaluation not counted), evaluations per accepted repair, and how many accepted
diffs drop a `__gm__` or an `AscendC::` the file had. A held-out set (heldout/<set>/split.json) is scored per its
split: its tune half may be printed per file, its held-out half only in aggregate. A near-miss labelled
`needs: pipe-model` is judged with REPAIR_ASCENDC_AUTO_SYNC=off, as its label was checked.

    .venv/bin/python bench/bench_ascendc_rules.py [--suite DIR] [--half tune|heldout|all] [--only OP ...]
        [--attempts 6] [--jobs 1] [--auto-sync on|off]

`--auto-sync off` builds every evaluation as `--cce-auto-sync=off` (REPAIR_ASCENDC_AUTO_SYNC=off, set before the
first evaluation: the engine's fork servers keep the environment they start with), where a missing SetFlag/WaitFlag
is a pipe race: the near-misses labelled `needs: pipe-model`.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def patterns():
    from repair.rules.build_starter import pattern_id
    from repair.rules.catalog import ASCENDC_STARTER
    from repair.workers.base import Pattern

    return [Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                    rules=tuple(r.to_dict() for r in p.rules)) for p in ASCENDC_STARTER]


def near_misses(suite: Path, ops: set[str] | None):
    import yaml

    for meta in sorted(suite.glob("*/meta.yaml")):
        if ops is not None and meta.parent.name not in ops:
            continue
        for name, info in yaml.safe_load(meta.read_text())["candidates"].items():
            if info.get("kind") == "near-miss":
                yield meta.parent, name, info


def _dropped_qualifiers(before: str, after: str) -> bool:
    """Does the repaired text hold fewer `__gm__` or `AscendC::` than the near-miss did?"""
    return any(len(re.findall(tok, after)) < len(re.findall(tok, before)) for tok in (r"\b__gm__\b", r"\bAscendC\s*::"))


def one(op_dir: Path, name: str, pats, attempts: int) -> dict:
    from repair.loop import Bounds, FixedRetriever, HarnessJudge, RunConfig, run_repair
    from repair.workers import RulesWorker

    problem = op_dir / "problem.py"
    t0, c0 = time.monotonic(), time.process_time()
    try:
        out = run_repair(RunConfig(problem, op_dir / name, bounds=Bounds(attempts=attempts)), RulesWorker(),
                         FixedRetriever(pats), HarnessJudge(problem, backend="ascendc-cpu", seed=0))
    except Exception as e:  # one run's failure is a row, not the end of the bench
        return {"op": op_dir.name, "name": name, "status": f"error: {type(e).__name__}", "evals": 0,
                "dropped": False, "wall_s": time.monotonic() - t0, "cpu_s": time.process_time() - c0}
    repaired = out.status == "repaired"
    return {"op": op_dir.name, "name": name, "status": out.status, "evals": len(out.attempts),
            "dropped": repaired and _dropped_qualifiers(out.source.candidate, out.best.candidate),
            "wall_s": round(time.monotonic() - t0, 1), "cpu_s": round(time.process_time() - c0, 1)}


def halves(suite: Path) -> dict[str, set[str]]:
    """A held-out set's halves by its split.json ({} for a plain suite)."""
    split_path = suite / "split.json"
    if not split_path.is_file():
        return {}
    split = json.loads(split_path.read_text())
    return {"tune": set(split["tune"]), "heldout": set(split["heldout"])}


def run_suite(suite: Path, half: str = "all", only: set[str] | None = None, attempts: int = 6, jobs: int = 1,
              show=print) -> list[dict]:
    """One row per near-miss of the suite (a held-out set: of its half); rows of the held-out half are never shown."""
    parts = halves(suite)
    ops = only
    if parts and half != "all":
        ops = (ops or parts[half]) & parts[half]
    todo = list(near_misses(suite, ops))
    pats = patterns()
    heldout_ops = parts.get("heldout", set())
    rows = []
    # a near-miss labelled `needs: pipe-model` fails only in a kernel built with the compiler's auto-sync off (its
    # label was checked so): it is judged that way, in a phase of its own (the fork server keeps the environment
    # it started with)
    for env, group in (({}, [x for x in todo if x[2].get("needs") != "pipe-model"]),
                       ({"REPAIR_ASCENDC_AUTO_SYNC": "off"}, [x for x in todo if x[2].get("needs") == "pipe-model"])):
        if group:
            with _environment(env):
                rows += _run(group, pats, attempts, jobs, heldout_ops, show)
    return rows


@contextmanager
def _environment(env: dict[str, str]):
    """Evaluations under `env` (fresh fork servers before and after, so none keeps the other environment)."""
    if not env:
        yield
        return
    from repair.engine.sandbox import shutdown_fork_servers

    saved = {k: os.environ.get(k) for k in env}
    shutdown_fork_servers()
    os.environ.update(env)
    try:
        yield
    finally:
        shutdown_fork_servers()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _run(todo, pats, attempts: int, jobs: int, heldout_ops: set[str], show) -> list[dict]:
    rows = []
    with ThreadPoolExecutor(max(1, min(jobs, 2))) as pool:
        for r in pool.map(lambda x: one(x[0], x[1], pats, attempts), todo):
            r["heldout"] = r["op"] in heldout_ops
            rows.append(r)
            if not r["heldout"]:  # a held-out row is never printed
                show(f"{r['op']}/{r['name']:<40} {r['status']:<18} evals {r['evals']}  wall {r['wall_s']}s "
                     f"cpu {r['cpu_s']}s" + ("  DROPPED A QUALIFIER" if r["dropped"] else ""))
    return rows


def _count(group: list[dict], what: str) -> int:
    """How many runs ended unrepaired in one way: no rule applied (no evaluation), rules tried, already passing."""
    rest = [r for r in group if r["status"] != "repaired"]
    if what == "passing":
        return sum(r["status"] == "already-passing" for r in rest)
    rest = [r for r in rest if r["status"] != "already-passing"]
    return sum((r["evals"] == 0) == (what == "none") for r in rest)


def summary(label: str, group: list[dict]) -> str:
    """Aggregates only: repaired of near-misses, evaluations, per accepted repair, qualifiers dropped, how the rest
    ended, time."""
    ok = [r for r in group if r["status"] == "repaired"]
    spent = sum(r["evals"] for r in group)
    per = f"{sum(r['evals'] for r in ok) / len(ok):.2f}" if ok else "-"
    return (f"{label}: {len(ok)} repaired of {len(group)} near-misses; {spent} evaluations spent; "
            f"{per} per accepted repair; {sum(r['dropped'] for r in ok)} accepted diffs drop a qualifier; "
            f"not repaired: {_count(group, 'none')} with no proposal (no rule applied), "
            f"{_count(group, 'tried')} after rules were tried, {_count(group, 'passing')} passing before any change; "
            f"wall {sum(r['wall_s'] for r in group):.0f}s cpu {sum(r['cpu_s'] for r in group):.0f}s (this process)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="bench/bench_ascendc_rules.py", description=__doc__.splitlines()[0])
    ap.add_argument("--suite", type=Path, default=ROOT / "examples" / "ascendc")
    ap.add_argument("--half", choices=["tune", "heldout", "all"], default="tune",
                    help="a held-out set's half (split.json); ignored for a suite without one")
    ap.add_argument("--only", nargs="*", default=None, metavar="OP", help="operators of the tune half or a plain suite")
    ap.add_argument("--attempts", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=1, help="runs at a time (at most 2 on a shared machine)")
    ap.add_argument("--auto-sync", choices=["on", "off"], default=None,
                    help="off: build without the compiler's flags (pipe races are faults); default: the environment's")
    args = ap.parse_args(argv)
    if args.auto_sync:
        os.environ["REPAIR_ASCENDC_AUTO_SYNC"] = args.auto_sync
    if halves(args.suite) and args.only and args.half != "tune":
        print("--only names operators of the tune half only", file=sys.stderr)
        return 2
    rows = run_suite(args.suite, args.half, set(args.only) if args.only else None, args.attempts, args.jobs,
                     show=lambda line: print(line, flush=True))
    for label, group in (("tune/plain", [r for r in rows if not r["heldout"]]),
                         ("held-out", [r for r in rows if r["heldout"]])):
        if group:
            print(summary(label, group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
