"""Build the starter KB records: hand-written rules with real evidence from a near-miss of their class.

For each catalogue pattern, the repair engine runs on the pattern's first example near-miss (the
example suite's, else the rules' development set's) with the `rules` worker offered only that
pattern, judged by the real harness (fixed seed): an AscendC pattern's on the ascendc-cpu backend, where the
loop's working text is the candidate's bundle of C++ files. The accepted run's record is kept, marked
hand-written (worker kind "hand", no retrieval) and carrying the pattern's rules, so `kb ingest`
admits it through the ordinary quality gate.

    python -m repair.rules.build_starter [--out DIR] [--root DIR] [--only BUG_CLASS ...]

An existing record whose content is unchanged (all but its times and run id) is left as it is,
so rebuilding gives a clean git tree.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ingest.record import Diagnosis, RepairRecord, Retrieval, Symptom, Worker
from provenance.canonical import content_hash
from repair.rules.catalog import STARTER, StarterPattern, pattern_key

STARTER_DIR = Path(__file__).resolve().parent / "starter"
ROOT = Path(__file__).resolve().parents[2]  # the catalogue's example paths are relative to the repository
HAND_NOTE = "hand-written starter pattern; evidence from repair.rules.build_starter on the example suite"
_VOLATILE = ("run_id", "started_at", "finished_at")


class StarterBuildFailed(RuntimeError):
    exit_code = 1


def pattern_id(p: StarterPattern) -> str:
    return f"starter/{p.key}"


def backend_for(p: StarterPattern) -> str:
    """The backend that judges the pattern's example: AscendC kernels run on the CPU emulation."""
    return "ascendc-cpu" if p.language == "ascendc" else "triton-cpu"


def problem_for(candidate: Path) -> Path:
    """The problem.py beside a near-miss, or above it (an NPUKernelBench near-miss is a directory under npukb/)."""
    for d in list(candidate.parents)[:3]:
        if (d / "problem.py").is_file():
            return d / "problem.py"
    raise StarterBuildFailed(f"{candidate}: no problem.py beside it or above it")


def record_stem(record: RepairRecord) -> str:
    """The record's file name: its bug class, prefixed by its language unless Triton (StarterPattern.key)."""
    return pattern_key(record.diagnosis.bug_class, record.language)


def build_record(p: StarterPattern, root: Path = ROOT, *, seed: int = 0,
                 workdir: Path | None = None) -> tuple[RepairRecord, dict]:
    """Run the engine with this pattern's rules on its first example; the accepted run's record, hand-marked."""
    from repair.loop import Bounds, FixedRetriever, HarnessJudge, RunConfig, build_record as run_record, run_repair
    from repair.workers import Pattern, RulesWorker

    candidate = root / p.examples[0]
    problem, nearmiss = problem_for(candidate), candidate.name
    op = problem.parent.name
    pattern = Pattern(id=pattern_id(p), score=1.0, title=p.title, bug_class=p.bug_class, fix=p.fix,
                      rules=tuple(r.to_dict() for r in p.rules))
    judge = HarnessJudge(problem, backend=backend_for(p), seed=seed)
    t0 = time.perf_counter()
    outcome = run_repair(RunConfig(problem, candidate, bounds=Bounds(attempts=12), out=workdir), RulesWorker(),
                         FixedRetriever([pattern]), judge)
    stats = {"bug_class": p.bug_class, "key": p.key, "example": f"{op}/{nearmiss}", "status": outcome.status,
             "attempts": len(outcome.attempts), "wall_s": round(time.perf_counter() - t0, 2)}
    if outcome.status != "repaired":
        raise StarterBuildFailed(f"{p.bug_class}: the rules did not repair {op}/{nearmiss} ({outcome.status})")
    record = run_record(outcome, RulesWorker().info, backend=judge.backend, problem_name="problem.py",
                        candidate_name=nearmiss)
    symptom = record.symptom.model_dump()
    symptom["notes"] = [*symptom.get("notes", []), HAND_NOTE]
    data = record.model_dump(mode="json", by_alias=True)
    data.update(
        worker=Worker(kind="hand").model_dump(),
        retrieval=Retrieval().model_dump(),
        symptom=Symptom(**symptom).model_dump(),
        diagnosis=Diagnosis(title=p.title, bug_class=p.bug_class, root_cause=p.root_cause, fix=p.fix).model_dump(),
        rules=[r.to_dict() for r in p.rules],
    )
    data["run_id"] = "starter-" + content_hash({k: v for k, v in data.items() if k not in _VOLATILE})[:16]
    return RepairRecord.model_validate(data), stats


def stable_view(record: dict) -> dict:
    """What must not change between two builds of the same record (a run's temporary directory, named in an
    emulator's note, is as volatile as its times)."""
    import re

    kept = {k: v for k, v in record.items() if k not in _VOLATILE}
    return json.loads(re.sub(r"/repair-run-[A-Za-z0-9_]+/", "/repair-run-*/", json.dumps(kept, sort_keys=True)))


def write_record(record: RepairRecord, out: Path) -> bool:
    """Write unless an equal record (modulo times) is there; True when the file changed."""
    path = out / f"{record_stem(record)}.json"
    new = json.loads(record.to_json())
    if path.exists():
        try:
            if stable_view(json.loads(path.read_text(encoding="utf-8"))) == stable_view(new):
                return False
        except (ValueError, UnicodeDecodeError):
            pass  # a damaged file is simply rewritten
    out.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(new, indent=2, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)
    return True


def main(argv: list[str] | None = None) -> int:
    from provenance.offline import apply_offline_env

    apply_offline_env()
    ap = argparse.ArgumentParser(prog="python -m repair.rules.build_starter", description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=STARTER_DIR)
    ap.add_argument("--root", type=Path, default=ROOT, help="the directory the example paths are relative to")
    ap.add_argument("--only", nargs="*", default=None, metavar="BUG_CLASS",
                    help="bug classes (both languages) or pattern keys (ascendc-<bug class>)")
    args = ap.parse_args(argv)
    chosen = [p for p in STARTER if args.only is None or p.bug_class in args.only or p.key in args.only]
    unknown = set(args.only or ()) - {p.bug_class for p in STARTER} - {p.key for p in STARTER}
    if unknown:
        print(f"error: unknown bug class(es): {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    failed = 0
    print(f"{'pattern':34} {'example':36} {'attempts':>8} {'wall s':>7}  file")
    for p in chosen:
        try:
            record, stats = build_record(p, args.root)
        except StarterBuildFailed as e:
            print(f"error: {e}", file=sys.stderr)
            failed += 1
            continue
        changed = write_record(record, args.out)
        print(f"{p.key:34} {stats['example']:36} {stats['attempts']:>8} {stats['wall_s']:>7}  "
              f"{'written' if changed else 'unchanged'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
