"""AscendC on published files: does every one load, is every honest one judged clean, is every derived cheat flagged?

Takes directories of published AscendC material (nothing is downloaded, nothing is committed) and prints, per source:
files found, loaded, refused at load (each with its reason), checked clean, flagged (each finding's rule, file and
line); then, for the integrity chain, the cheats derived by code from every clean one (bench/ascendc_cheats.py:
ATen in a candidate-written binding, torch compute in forward, a kernel never launched, an op name pointing at
another kernel, a tiling never read, a decoy kernel, an edited benchmark validation file): applied, flagged, missed.

    .venv/bin/python bench/bench_ascendc_real.py --mkb DIR --npukb DIR --samples DIR [--json FILE] [--links]

--mkb      MultiKernelBench material: every six-source .py and direct-launch .json under DIR (its prompts/, or
           candidates its pipeline produced); checked against a placeholder problem (the chain needs none).
--npukb    NPUKernelBench's tasks/ (or a checkout): every <level>/<category>/<Op>/ with an answer, imported with
           `repair import npukernelbench`'s library function (the problem records the validation files' sha256).
--samples  Ascend's sample operator projects (an op_host .cpp with OP_ADD and its op_kernel entry), laid out as
           tasks by bench/ascendc_samples.py.
--links    also print each candidate's chain, link by link, with the file and line where each was found.
Each option may be given more than once. Wall and CPU seconds are printed per source.
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


@dataclass
class Row:
    source: str
    name: str
    status: str  # refused, clean, flagged
    reason: str = ""
    findings: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    cheats: dict[str, str] = field(default_factory=dict)  # cheat -> "flagged" | "missed: ..."


def items_mkb(root: Path, work: Path):
    from repair.ascendc import detect

    problem = work / "mkb_problem.py"
    problem.write_text('"""Placeholder problem: the static chain reads none of it."""\n', encoding="utf-8")
    for p in sorted(root.rglob("*")):
        if not (p.is_file() and ".git" not in p.parts and p.suffix in (".py", ".json") and detect(p)):
            continue
        if p.suffix == ".json" and "__global__" not in p.read_text(encoding="utf-8", errors="replace"):
            continue  # a benchmark's data file (reference/*.json), not a direct-launch candidate
        yield str(p.relative_to(root)), problem, p, None


def items_npukb(root: Path, work: Path):
    from repair.ascendc import import_tasks
    from repair.errors import RepairError

    base = root / "tasks" if (root / "tasks").is_dir() else root
    for task in sorted(p for p in base.glob("*/*/*") if (p / "answer").is_dir()):
        name = str(task.relative_to(base))
        try:
            done, _ = import_tasks([task], work / "npukb" / task.parent.name)
        except RepairError as e:
            yield name, None, None, str(e).splitlines()[0]
            continue
        yield name, Path(done[0].problem), Path(done[0].candidate), None


def items_samples(root: Path, work: Path):
    import ascendc_samples

    for s in ascendc_samples.find(root):
        name = f"{s.host[0].relative_to(root)} ({s.op})"
        problem, cand = ascendc_samples.write_task(s, work / "samples" / f"{s.op}_{len(list(work.glob('samples/*')))}")
        refused = _check_jsons(s.jsons)
        yield name, (None if refused else problem), (None if refused else cand), refused


def _check_jsons(paths) -> str | None:
    from repair.ascendc.msopgen import parse_op_json
    from repair.errors import BadInput

    for p in paths:
        try:
            parse_op_json(p.read_text(encoding="utf-8"), str(p))
        except BadInput as e:
            return str(e)
    return None


def judge(source: str, name: str, problem, cand, refused, work: Path, show_links: bool, cheats: bool) -> Row:
    from repair.ascendc import load_candidate
    from repair.errors import RepairError
    from repair.integrity.static import scan

    if refused:
        return Row(source, name, "refused", refused)
    try:
        c = load_candidate(cand)
        v = scan(problem, cand, ascendc=c)
    except RepairError as e:
        return Row(source, name, "refused", str(e).splitlines()[0])
    row = Row(source, name, "flagged" if v.findings else "clean",
              findings=[f"{f.rule} {f.file}:{f.line} {f.message}" for f in v.findings])
    if show_links:
        row.links = _links(c, problem)
    if row.status == "clean" and cheats:
        row.cheats = _cheats(cand, problem, work / "cheats" / source / name.replace("/", "_").replace(" ", "_"))
    return row


def _links(c, problem) -> list[str]:
    from repair.integrity.ascendc import _python_tree
    from repair.integrity.ascendc_chain import chain_links
    from repair.integrity.ascendc_trust import validation_trust

    trust = validation_trust(c, problem)
    return [f"{'ok    ' if ln.ok else 'BROKEN'} {ln.link:<19} {ln.file}{f':{ln.line}' if ln.line else ''}  {ln.message}"
            for ln in chain_links(c, _python_tree(c.model), trusted=trust.how if trust.trusted else None)]


def _cheats(cand: Path, problem: Path, out: Path) -> dict[str, str]:
    import ascendc_cheats

    from repair.errors import RepairError
    from repair.integrity.static import scan

    result = {}
    for cheat in ascendc_cheats.derive(cand, out, problem):
        try:
            v = scan(cheat.problem, cheat.path)
        except RepairError as e:
            result[cheat.name] = f"missed: refused at load ({str(e).splitlines()[0][:160]})"
            continue
        found = {f.rule for f in v.findings} | {f"{f.rule}:{f.message.split(':')[0]}" for f in v.findings}
        result[cheat.name] = "flagged" if set(cheat.expect) & found else \
            f"missed: found {sorted({f.rule for f in v.findings}) or 'nothing'}"
    return result


def report(rows: list[Row], times: dict[str, tuple[float, float]], show_links: bool) -> None:
    sources = list(dict.fromkeys(r.source for r in rows))
    print(f"{'source':<22} {'files':>5} {'loaded':>6} {'refused':>7} {'clean':>5} {'flagged':>7} "
          f"{'cheats':>6} {'flagged':>7} {'missed':>6} {'wall_s':>7} {'cpu_s':>7}")
    for s in sources:
        rs = [r for r in rows if r.source == s]
        cheats = [v for r in rs for v in r.cheats.values()]
        print(f"{s:<22} {len(rs):>5} {sum(r.status != 'refused' for r in rs):>6} "
              f"{sum(r.status == 'refused' for r in rs):>7} {sum(r.status == 'clean' for r in rs):>5} "
              f"{sum(r.status == 'flagged' for r in rs):>7} {len(cheats):>6} "
              f"{sum(v == 'flagged' for v in cheats):>7} {sum(v != 'flagged' for v in cheats):>6} "
              f"{times[s][0]:>7.1f} {times[s][1]:>7.1f}")
    by_cheat: dict[str, list[str]] = {}
    for r in rows:
        for k, v in r.cheats.items():
            by_cheat.setdefault(k, []).append(v)
    if by_cheat:
        print("\nderived cheats: flagged / applied")
        for k, vs in sorted(by_cheat.items()):
            print(f"  {k:<26} {sum(v == 'flagged' for v in vs):>4} / {len(vs)}")
    for r in rows:
        if r.status == "refused":
            print(f"\nREFUSED  {r.source}: {r.name}\n  {r.reason}")
        elif r.status == "flagged":
            print(f"\nFLAGGED  {r.source}: {r.name}" + "".join(f"\n  {f}" for f in r.findings))
        for k, v in r.cheats.items():
            if v != "flagged":
                print(f"\nMISSED   {r.source}: {r.name}: {k}: {v}")
        if show_links and r.links:
            print(f"\nCHAIN    {r.source}: {r.name}" + "".join(f"\n  {ln}" for ln in r.links))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mkb", action="append", default=[], help="MultiKernelBench material (repeatable)")
    ap.add_argument("--npukb", action="append", default=[], help="NPUKernelBench tasks/ or checkout (repeatable)")
    ap.add_argument("--samples", action="append", default=[], help="Ascend sample operators (repeatable)")
    ap.add_argument("--links", action="store_true", help="print every candidate's chain, link by link")
    ap.add_argument("--no-cheats", action="store_true", help="judge the files only")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    given = [("mkb", p, items_mkb) for p in args.mkb] + [("npukb", p, items_npukb) for p in args.npukb] + \
        [("samples", p, items_samples) for p in args.samples]
    if not given:
        ap.error("give at least one of --mkb, --npukb, --samples")
    for _, p, _ in given:
        if not Path(p).is_dir():
            print(f"error: {p}: no such directory (this bench reads published AscendC material you bring; nothing "
                  "is downloaded)", file=sys.stderr)
            return 2
    from provenance.offline import apply_offline_env

    apply_offline_env()
    rows: list[Row] = []
    times: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-ascendc-real-") as tmp:
        for kind, path, items in given:
            source = f"{kind}:{Path(path).resolve().name}"
            work = Path(tmp) / source.replace(":", "_")
            work.mkdir(parents=True, exist_ok=True)
            w0, c0 = time.perf_counter(), time.process_time()
            for name, problem, cand, refused in items(Path(path), work):
                rows.append(judge(source, name, problem, cand, refused, work, args.links, not args.no_cheats))
            times[source] = (time.perf_counter() - w0, time.process_time() - c0)
    report(rows, times, args.links)
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
