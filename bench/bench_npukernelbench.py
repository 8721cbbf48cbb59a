"""NPUKernelBench's reference answers on ascendc-cpu: import each task, evaluate its answer, one row per task.

Per task of the chosen categories (default: level-1 Math, level-2 Activation, Norm and Loss): is it vector-only (read
mechanically from its answer's kernel and cases: no Matmul/cube instruction or buffer position, no complex dtype, no
SIMT, no CCE instruction called on raw UB addresses), the
import (`repair import npukernelbench`'s library function), the build (g++, timed apart; cached after), then the full
tier evaluated on ascendc-cpu. The totals: tasks passed over vector-only tasks, as a percentage.

NPUKernelBench's tasks are read from a directory you provide (a checkout of the benchmark or its `tasks/` folder);
nothing is downloaded. Get them with `git clone https://github.com/weich97/NPUKernelBench` (or `git archive` of
`tasks/level1/Math tasks/level2/Activation tasks/level2/Norm tasks/level2/Loss` from a mirror) and pass --tasks.

    .venv/bin/python bench/bench_npukernelbench.py --tasks DIR [--categories level1/Math,level2/Norm]
        [--only AbsMath,RmsNorm] [--out DIR] [--cache DIR] [--tier full] [--cores 48] [--json FILE] [--jobs N]
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATEGORIES = ("level1/Math", "level2/Activation", "level2/Norm", "level2/Loss")

# What puts a kernel outside the vector subset, found in its answer's kernel sources (op_kernel/) or its cases
NOT_VECTOR = (
    ("cube (Matmul)", re.compile(r"\bMatmul(Impl|Type)?\b|\bmatmul_intf\.h|\bREGIST_MATMUL_OBJ\b")),
    ("cube (Mmad/LoadData/Fixpipe)", re.compile(r"\b(Mmad|LoadData|Fixpipe)\s*[<(]")),
    ("cube buffer position", re.compile(r"\b(TPosition|QuePosition)::(A1|A2|B1|B2|C1|C2|CO1|CO2)\b")),
    ("complex dtype", re.compile(r"\bcomplex(32|64|128)\b|\btorch\.complex\b")),
    ("SIMT", re.compile(r"__simt_|\bSimt\w*\b|\basc_vf_call\b")),
    # the CCE instruction set called directly on UB addresses (vcadd((__ubuf__ float *)...)): below the AscendC API
    ("CCE intrinsic", re.compile(r"\b[a-z_][a-z0-9_]*\s*\(\s*\(\s*__ubuf__\b")),
)


@dataclass
class Row:
    category: str
    task: str
    vector_only: bool
    why_not_vector: str
    status: str  # pass, fail, unsupported (an API ascendc-cpu lacks), import-error, problem-error, not-run
    reason: str
    build_s: float | None
    run_s: float | None
    cases: str = ""


def find_tasks(root: Path, categories: list[str], only: set[str] | None) -> list[tuple[str, Path]]:
    base = root / "tasks" if (root / "tasks").is_dir() else root
    found = []
    for cat in categories:
        d = base / cat
        if not d.is_dir():
            raise SystemExit(f"error: {d}: no such category directory (is --tasks a checkout of NPUKernelBench or its "
                             "tasks/ folder?)")
        for t in sorted(p for p in d.iterdir() if p.is_dir()):
            if only is None or t.name in only:
                found.append((cat.split("/")[-1], t))
    return found


def vector_only(task: Path) -> tuple[bool, str]:
    """Mechanically: the first marker of NOT_VECTOR in the answer's op_kernel/ files or the task's test_cases.csv
    and prepare_inputs.py."""
    answers = sorted((task / "answer").glob("*/op_kernel"))
    files = sorted(p for a in answers[:1] for p in a.rglob("*") if p.is_file())
    files += [task / "validation" / "test_cases.csv", task / "validation" / "prepare_inputs.py"]
    for f in files:
        try:
            text = f.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        text = re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)
        for what, rx in NOT_VECTOR:
            m = rx.search(text)
            if m:
                line = text.count("\n", 0, m.start()) + 1
                return False, f"{what}: `{m.group(0)}` ({f.relative_to(task)}:{line})"
    return True, ""


def first_reason(result) -> str:
    """The first failing case's status and the first line of its message that says why."""
    bad = [c for c in result.cases if c.status != "pass"]
    if not bad:
        if result.passed:
            return ""
        findings = getattr(result.integrity, "findings", None) or []
        return "integrity: " + "; ".join(f"{f.rule}: {f.message}" for f in findings)[:280] if findings else \
            f"integrity: {result.integrity}"[:280]
    c = bad[0]
    msg = c.message or ""
    lines = [ln.strip() for ln in msg.splitlines() if ln.strip()]
    pick = lines[0] if c.status == "unsupported" and lines else next(
        (ln for ln in lines if "error:" in ln), lines[1] if c.status == "compile-error" and len(lines) > 1
        else lines[0] if lines else "")
    if c.status == "mismatch" or (c.max_abs_err is not None and not msg):
        g = lambda v: f"{v:.3g}" if isinstance(v, (int, float)) else "-"  # noqa: E731
        pick = f"max_abs {g(c.max_abs_err)} max_rel {g(c.max_rel_err)} mism {g(c.mismatch_frac)} {pick}".strip()
    pick = re.sub(r"/\S*/candidate/", "", pick)
    return f"{c.status} [{c.case_id} {c.params.get('dtype', '')}]: {pick}"[:300]


def import_task(category: str, task: Path, out: Path):
    """The task's row so far and its import (None when the import failed: the row says why)."""
    from repair.ascendc.importer import import_tasks
    from repair.errors import RepairError

    vec, why = vector_only(task)
    row = Row(category, task.name, vec, why, "not-run", "", None, None)
    try:
        done, _ = import_tasks([task], out)
    except RepairError as e:
        row.status, row.reason = "import-error", str(e).splitlines()[0][:300]
        return row, None
    return row, done[0]


def judge_task(row: Row, imported, tier: str) -> Row:
    """Build the imported task's answer (timed apart) and evaluate it on ascendc-cpu."""
    if imported is None:
        return row
    _worker_setup()
    from repair.ascendc import build_library, load_candidate, plan_emu_build
    from repair.ascendc.emu.binding import launch_function
    from repair.engine.harness import evaluate
    from repair.errors import RepairError

    t0 = time.perf_counter()
    try:
        c = load_candidate(Path(imported.candidate))
        build_library(plan_emu_build(c, launch_fn=launch_function(c)))
    except RepairError:
        pass  # the evaluation reports it, per case
    row.build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    try:
        r = evaluate(imported.problem, imported.candidate, backend="ascendc-cpu", seed=0, tier=tier)
    except RepairError as e:  # the problem itself does not load or run
        row.run_s = time.perf_counter() - t0
        row.status, row.reason = "problem-error", str(e).splitlines()[0][:300]
        return row
    row.run_s = time.perf_counter() - t0
    row.cases = f"{sum(c.status == 'pass' for c in r.cases)}/{len(r.cases)}"
    row.status = "pass" if r.passed else "unsupported" if r.unsupported else "fail"
    row.reason = first_reason(r)
    return row


def _worker_setup() -> None:
    """A --jobs worker process (spawned) finds the project and works offline, as the bench's own process does."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from provenance.offline import apply_offline_env

    apply_offline_env()


def judged_rows(jobs: list, tier: str, n: int):
    """Each task's row, judged `n` at a time (separate processes), yielded in task order as each is ready."""
    if n <= 1:
        for row, imported in jobs:
            yield judge_task(row, imported, tier)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn")) as pool:
        futures = [pool.submit(judge_task, row, imported, tier) for row, imported in jobs]
        for f in futures:
            yield f.result()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", required=True, help="NPUKernelBench checkout (or its tasks/ folder)")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated, e.g. level1/Math")
    parser.add_argument("--only", help="task names, comma-separated")
    parser.add_argument("--out", help="where the tasks are imported (default: a temporary directory)")
    parser.add_argument("--cache", help="ascendc-cpu cache directory (default: the usual one)")
    parser.add_argument("--tier", default="full", choices=("compact", "full"))
    parser.add_argument("--cores", type=int, default=48,
                        help="vector cores of the emulated chip (default 48, the Ascend 910B the answers were written "
                             "for: some size their tiling arrays for 48 cores); sets $REPAIR_ASCENDC_CORES")
    parser.add_argument("--json", help="also write the rows to this file")
    parser.add_argument("--jobs", type=int, default=1,
                        help="tasks judged at once, each in a process of its own (default 1; rows print in task "
                             "order); each evaluation uses its own candidate and reference processes and g++")
    args = parser.parse_args()
    root = Path(args.tasks)
    if not root.is_dir():
        print(f"error: {root}: no such directory; this bench needs NPUKernelBench's tasks (git clone "
              "https://github.com/weich97/NPUKernelBench, then --tasks that checkout); nothing is downloaded",
              file=sys.stderr)
        return 2
    if args.cache:
        os.environ["REPAIR_ASCENDC_CACHE"] = args.cache
    os.environ["REPAIR_ASCENDC_CORES"] = str(args.cores)
    sys.path.insert(0, str(ROOT))
    from provenance.offline import apply_offline_env

    apply_offline_env()
    only = {s.strip() for s in args.only.split(",")} if args.only else None
    tasks = find_tasks(root, [c.strip() for c in args.categories.split(",") if c.strip()], only)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bench-npukb-"))
    from repair.ascendc import prepare_pch

    prepare_pch()
    if args.jobs < 1:
        print("error: --jobs must be at least 1", file=sys.stderr)
        return 2
    rows = []
    print(f"{'category':<11} {'task':<30} {'vector':<6} {'status':<12} {'cases':>6} {'build_s':>7} {'run_s':>6}  reason")
    jobs = [import_task(category, task, out) for category, task in tasks]  # one after another: one manifest
    for row in judged_rows(jobs, args.tier, args.jobs):
        rows.append(row)
        fmt = lambda v: f"{v:.2f}" if v is not None else "-"  # noqa: E731
        reason = row.reason if row.vector_only or row.status == "pass" else f"(not vector-only: {row.why_not_vector}) " \
            + row.reason
        print(f"{row.category:<11} {row.task:<30} {'yes' if row.vector_only else 'no':<6} {row.status:<12} "
              f"{row.cases:>6} {fmt(row.build_s):>7} {fmt(row.run_s):>6}  {reason}", flush=True)
    vec = [r for r in rows if r.vector_only]
    passed = [r for r in vec if r.status == "pass"]
    pct = 100.0 * len(passed) / len(vec) if vec else 0.0
    unjudged = sum(r.status == "unsupported" for r in vec)
    print(f"\nvector-only: {len(vec)} of {len(rows)} tasks; passed {len(passed)}/{len(vec)} = {pct:.1f}%, "
          f"{unjudged} unsupported (all tasks: {sum(r.status == 'pass' for r in rows)}/{len(rows)} passed)")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
