"""Fault benchmark: random SIGKILLs of a pooled `kb ingest`, and concurrent writers on one KB; what each leaves behind.

    .venv/bin/python bench/bench_faults.py                      # 20 kills, 20 rounds of 2-4 writers, 128 records
    .venv/bin/python bench/bench_faults.py --n 3 --records 96 --seed 7

Kills: each trial copies a KB holding a few baseline records and starts `kb ingest` of --records fresh
records (64 or more, so the process pool derives and embeds them) in a session of its own, then SIGKILLs
it: even trials at a kill point (KB_TEST_KILL_AT, kbstore/faults.py; every point once before any twice),
odd ones after a random delay (a fraction of the latest complete ingests' time). Then `kb verify`, a look
for processes of its session still alive, every KB version against its rows, and a rerun of the same
ingest, which must exit 0 with every record in the KB. Writers: each round starts 2-4 `kb ingest` at once on one KB, each
with records of its own and a quarter shared by all; one that fails is rerun. A record is lost when a
command that exited 0 reported it admitted or duplicate (or it was in the baseline) and the KB lacks it.
Records come from ingest.synthetic; the embedder is the hashing one (crash safety, not embedding speed).
Target: 0 partial versions, 0 orphans, 0 records lost, every rerun complete.

Then the hostile-input scenarios beside them (bench/faults_hostile.py, `--hostile all|cache|importers|none`): the
AscendC build cache (a root others may write, a kernel writing 2 GB into its entry, a macro bomb, includes of a
FIFO and /etc/shadow) and the importers (a hostile KernelBench problem file; NPUKernelBench tasks with a symlink
to /dev/zero or /etc/shadow, a 200 MB test_cases.csv, a task named `..`). Target: 0 keys seen, 0 bytes written
outside, 0 processes left, peak memory within the stated limit.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # faults_hostile

BASELINE = 16  # records in the KB before each trial
TIMEOUT_S = 300  # a command past this is killed and counted as failed
GRACE_S = 3.0  # how long a killed ingest's session may take to empty before what is left counts as orphans
_SESSIONS: list[int] = []  # every session started here, emptied on the way out


@dataclass
class Tally:
    trials: int = 0
    processes: int = 0
    killed: int = 0
    failed: int = 0  # exit != 0 without our kill
    partial: int = 0
    verify_failures: int = 0
    verify_after_rerun: int | None = None  # kills only: after the rerun
    orphans: int = 0
    reruns: int = 0
    reruns_complete: int = 0
    lost: int = 0
    wall_s: float = 0.0
    notes: list[str] = field(default_factory=list)


def _env(**extra: str) -> dict:
    env = {**os.environ, "KB_EMBEDDER": "hash", "KB_INGEST_WORKERS": "2", "KB_LOCK_WAIT": str(TIMEOUT_S),
           "HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("KB_TEST_KILL_AT", None)
    return {**env, **extra}


def _kb(args: list, out: Path, **env: str) -> subprocess.Popen:
    """`kb ARGS` in a session of its own, output to files (a surviving pool worker would hold a pipe open)."""
    with open(out.with_suffix(".out"), "w") as o, open(out.with_suffix(".err"), "w") as e:
        p = subprocess.Popen([sys.executable, "-m", "kbstore.cli", *map(str, args)], stdout=o, stderr=e,
                             env=_env(**env), cwd=ROOT, start_new_session=True)
    _SESSIONS.append(p.pid)
    return p


def _wait(p: subprocess.Popen) -> int:
    try:
        return p.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        p.kill()
        return p.wait()


def _ingest(records: Path, kb: Path, log: Path) -> tuple[int, dict | None, int]:
    """A complete `kb ingest --json`: (exit status, its report or None, its session id)."""
    p = _kb(["ingest", records, "--kb", kb, "--json"], log)
    rc = _wait(p)
    return rc, _report(log), p.pid


def _report(log: Path) -> dict | None:
    try:
        return json.loads(log.with_suffix(".out").read_text())
    except (OSError, ValueError):
        return None


def _shas(report: dict | None) -> set[str]:
    """Records a finished ingest says the KB holds: its admitted and duplicate ones."""
    return {o["record_sha256"] for o in (report or {}).get("outcomes", []) if o["outcome"] in ("admitted", "duplicate")}


def _session(sid: int) -> list[int]:
    """Live (not zombie) processes of session `sid`."""
    pids = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            state, _ppid, _pgrp, session = (d / "stat").read_text().rsplit(")", 1)[1].split()[:4]
        except (OSError, ValueError):
            continue
        if int(session) == sid and state != "Z":
            pids.append(int(d.name))
    return pids


def _orphans(sid: int) -> int:
    """Processes of a finished command's session still alive after GRACE_S; they are then killed."""
    deadline = time.monotonic() + GRACE_S
    while (left := _session(sid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 10  # a killed process takes a moment to be gone (longer on a loaded machine)
    while set(_session(sid)) & set(left) and time.monotonic() < deadline:
        time.sleep(0.05)
    return len(left)


def _verify(kb: Path, log: Path) -> tuple[int, str]:
    rc = _wait(_kb(["verify", "--kb", kb], log))
    text = log.with_suffix(".out").read_text() + log.with_suffix(".err").read_text()
    fails = [ln.strip() for ln in text.splitlines() if "FAIL" in ln or "error" in ln]
    return rc, (fails[0] if fails else text.strip().splitlines()[-1] if text.strip() else "")


def partial_versions(kb: Path) -> list[str]:
    """Versions whose rows are not all there (or rows of a version that is not), as short descriptions."""
    from kbstore.store import Store

    if not (kb / "kb.duckdb").exists():
        return []
    try:
        with Store.open(kb) as s:
            return _partial(s)
    except Exception as e:  # noqa: BLE001 - an unreadable KB is the worst partial state; say what it was
        return [f"unreadable: {type(e).__name__}: {e}"]


def _partial(s) -> list[str]:
    bad = []
    versions = s.rows("SELECT * FROM versions ORDER BY version")
    numbers = [v["version"] for v in versions]
    if numbers != list(range(1, len(numbers) + 1)):
        bad.append(f"versions {numbers} are not 1..{len(numbers)}")
    for v in versions:
        n = v["version"]
        have = (s.scalar("SELECT count(*) FROM entries WHERE first_version = ?", [n]),
                s.scalar("SELECT count(*) FROM evidence WHERE version = ?", [n]),
                s.scalar("SELECT count(*) FROM ingest_events WHERE batch_id = ?", [v["batch_id"]]),
                s.scalar("SELECT version FROM batches WHERE batch_id = ?", [v["batch_id"]]))
        want = (v["entries_added"], v["evidence_added"], v["admitted"] + v["duplicates"] + v["rejected"], n)
        if have != want:
            bad.append(f"v{n}: (entries, evidence, events, batch) {have} != {want}")
    for table, col in (("entries", "first_version"), ("evidence", "version")):
        for (n,) in s.con.execute(f"SELECT DISTINCT {col} FROM {table} WHERE {col} NOT IN (SELECT version FROM versions)"
                                  ).fetchall():
            bad.append(f"{table} rows of v{n}, which has no version row")
    for what, sql in (("records without evidence", "SELECT count(*) FROM records WHERE sha256 NOT IN "
                                                   "(SELECT record_sha256 FROM evidence)"),
                      ("entries without an embedding", "SELECT count(*) FROM entries WHERE id NOT IN "
                                                       "(SELECT entry_id FROM embeddings)")):
        if n := s.scalar(sql):
            bad.append(f"{n} {what}")
    return bad


def records_in(kb: Path) -> set[str]:
    from kbstore.store import Store

    try:
        with Store.open(kb) as s:
            return {r["sha256"] for r in s.rows("SELECT sha256 FROM records")}
    except Exception:  # noqa: BLE001 - counted as every record lost
        return set()


def _write(directory: Path, indices) -> Path:
    from ingest.synthetic import make_record, write_records

    write_records(directory, [make_record(i) for i in indices])
    return directory


def _after(t: Tally, kb: Path, d: Path, expected: set[str], label: str) -> int:
    """The checks every trial ends with: partial versions and records lost; then `kb verify`'s exit status."""
    partial = partial_versions(kb)
    t.partial += len(partial)
    t.notes += [f"{label}: partial: {p}" for p in partial]
    missing = expected - records_in(kb)
    t.lost += len(missing)
    if missing:
        t.notes.append(f"{label}: {len(missing)} records lost")
    rc, line = _verify(kb, d / "verify-end")
    if rc:
        t.notes.append(f"{label}: kb verify at the end exit {rc}: {line}")
    return rc


def kill_trial(i: int, t: Tally, how: str, delay: float, work: Path, base: tuple[Path, set[str]], n: int) -> float:
    """One kill, its checks and its rerun; returns the rerun's wall time (what the next delays are drawn against)."""
    d = work / f"kill-{i}"
    kb = d / "kb"
    shutil.copytree(base[0], kb)
    recs = _write(d / "records", range(100_000 * (i + 1), 100_000 * (i + 1) + n))
    env = {} if how == "delay" else {"KB_TEST_KILL_AT": how}
    label = f"kill {i} ({how}{f' {delay:.2f} s' if how == 'delay' else ''})"
    p = _kb(["ingest", recs, "--kb", kb, "--json"], d / "killed", **env)
    if how == "delay":
        time.sleep(delay)
        if p.poll() is None:
            os.kill(p.pid, signal.SIGKILL)
    rc = _wait(p)
    t.trials += 1
    t.processes += 1
    t.killed += rc == -signal.SIGKILL
    if rc != -signal.SIGKILL:
        t.notes.append(f"{label}: not killed (exit {rc}: {'finished first' if rc == 0 else 'failed'})")
        t.failed += rc not in (0, -signal.SIGKILL)
    t.orphans += (o := _orphans(p.pid))
    if o:
        t.notes.append(f"{label}: {o} processes of its session outlived it")
    vrc, line = _verify(kb, d / "verify")
    if vrc:
        t.verify_failures += 1
        t.notes.append(f"{label}: kb verify exit {vrc}: {line}")
    partial = partial_versions(kb)  # before the rerun: what the kill itself left
    t.partial += len(partial)
    t.notes += [f"{label}: partial after the kill: {x}" for x in partial]
    t_rerun = time.perf_counter()
    rrc, report, sid = _ingest(recs, kb, d / "rerun")
    t_rerun = time.perf_counter() - t_rerun
    t.orphans += _orphans(sid)
    t.reruns += 1
    done = _shas(report)
    complete = rrc == 0 and len(done) == n and done <= records_in(kb)
    t.reruns_complete += complete
    if not complete:
        t.notes.append(f"{label}: rerun exit {rrc}, {len(done)} of {n} records reported")
    t.verify_after_rerun = (t.verify_after_rerun or 0) + bool(_after(t, kb, d, base[1] | done, label))
    return t_rerun


def writers_round(i: int, t: Tally, k: int, work: Path, base: tuple[Path, set[str]], n: int) -> None:
    d = work / f"writers-{i}"
    kb = d / "kb"
    shutil.copytree(base[0], kb)
    start, overlap = 100_000 * (i + 1), n // 4
    shared = range(start, start + overlap)
    dirs = [_write(d / f"w{j}", [*shared, *range(start + overlap + j * n, start + overlap + j * n + n - overlap)])
            for j in range(k)]
    procs = [_kb(["ingest", w, "--kb", kb, "--json"], d / f"w{j}-log") for j, w in enumerate(dirs)]
    rcs = [_wait(p) for p in procs]
    t.trials += 1
    t.processes += k
    expected = set(base[1])
    for j, (p, rc) in enumerate(zip(procs, rcs)):
        t.orphans += _orphans(p.pid)
        if rc == 0:
            expected |= _shas(_report(d / f"w{j}-log"))
            continue
        t.failed += 1
        err = (d / f"w{j}-log.err").read_text().strip().splitlines()
        t.notes.append(f"writers {i}: writer {j} of {k} exit {rc}: {err[-1] if err else ''}")
        rrc, report, sid = _ingest(dirs[j], kb, d / f"w{j}-rerun")
        t.orphans += _orphans(sid)
        t.reruns += 1
        t.reruns_complete += rrc == 0 and len(_shas(report)) == n
        expected |= _shas(report) if rrc == 0 else set()
    t.verify_failures += bool(_after(t, kb, d, expected, f"writers {i} ({k} writers)"))


def _baseline(work: Path) -> tuple[Path, set[str]]:
    kb = work / "base-kb"
    rc, report, _ = _ingest(_write(work / "base-records", range(BASELINE)), kb, work / "base")
    if rc != 0 or len(_shas(report)) != BASELINE:
        sys.exit(f"bench_faults: the baseline ingest failed (exit {rc}); see {work}/base.err")
    return kb, _shas(report)


def _calibrate(work: Path, base: tuple[Path, set[str]], n: int) -> float:
    """Wall time of one complete ingest of n records (the range the random delays are drawn from)."""
    kb = work / "calibrate-kb"
    shutil.copytree(base[0], kb)
    t0 = time.perf_counter()
    rc, report, _ = _ingest(_write(work / "calibrate", range(10**9, 10**9 + n)), kb, work / "calibrate")
    if rc != 0 or len(_shas(report)) != n:
        sys.exit(f"bench_faults: a plain ingest of {n} records failed (exit {rc}); see {work}/calibrate.err")
    return time.perf_counter() - t0


def run(args, work: Path) -> list[tuple[str, Tally]]:
    from kbstore.faults import KILL_POINTS

    rng = random.Random(args.seed)
    base = _baseline(work)
    durations = [_calibrate(work, base, args.records)]
    print(f"one ingest of {args.records} records: {durations[0]:.2f} s; seed {args.seed}", flush=True)
    points = [p for p in KILL_POINTS if p != "during-reindex"]  # reindex is not an ingest
    order = [p for _ in range(args.n // len(points) + 1) for p in rng.sample(points, len(points))]
    kills, writers = Tally(), Tally()
    t0 = time.perf_counter()
    for i in range(args.n):
        how = order[i // 2] if i % 2 == 0 else "delay"
        # delays against the median of the latest complete ingests: the machine's load drifts
        delay = rng.uniform(0.05, 0.9) * statistics.median(durations[-5:])
        durations.append(kill_trial(i, kills, how, delay, work, base, args.records))
        print(f"  kill {i + 1}/{args.n} ({how})", flush=True)
    kills.wall_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for i in range(args.n):
        writers_round(i, writers, rng.randint(2, 4), work, base, args.records)
        print(f"  writers {i + 1}/{args.n}", flush=True)
    writers.wall_s = time.perf_counter() - t0
    return [("SIGKILL of a pooled kb ingest", kills), ("2-4 concurrent kb ingest writers", writers)]


def print_table(rows: list[tuple[str, Tally]], args, load: float) -> bool:
    head = ["scenario", "trials", "processes", "killed", "exit!=0", "partial versions", "verify failures",
            "orphans left", "reruns complete", "records lost", "verify after", "wall s"]
    cells = [[name, t.trials, t.processes, t.killed, t.failed, t.partial, t.verify_failures, t.orphans,
              f"{t.reruns_complete}/{t.reruns}", t.lost, "-" if t.verify_after_rerun is None else t.verify_after_rerun,
              f"{t.wall_s:.1f}"] for name, t in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(head, *cells)]
    print(f"\nFault benchmark: --n {args.n}, --records {args.records} per ingest (baseline {BASELINE}), seed {args.seed}, "
          f"{os.cpu_count()} CPUs, load average {load:.1f} at start, {os.getloadavg()[0]:.1f} at end\n")
    for line in [head, *cells]:
        print("  ".join(str(c).ljust(w) if k == 0 else str(c).rjust(w) for k, (c, w) in enumerate(zip(line, widths))))
    print("\n(verify failures: `kb verify` exit != 0 right after the kill, or once the writers (and any reruns) are "
          "done; verify after: exit != 0 after the kill's rerun)")
    for name, t in rows:
        for note in t.notes[:40]:
            print(f"  {note}")
    met = all(t.partial == 0 and t.orphans == 0 and t.lost == 0 and t.reruns_complete == t.reruns for _, t in rows)
    print(f"\ntarget 0 partial, 0 orphans, 0 lost, every rerun complete: {'met' if met else 'NOT MET'}")
    return met


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="Kill trials, and rounds of concurrent writers (default 20).")
    ap.add_argument("--records", type=int, default=128, help="Records per ingest; 64 or more uses the pool (default 128).")
    ap.add_argument("--seed", type=int, default=None, help="Seed of the kill points, delays and writer counts.")
    ap.add_argument("--work", type=Path, default=None, help="Scratch directory, kept (default: a temporary one, removed).")
    ap.add_argument("--hostile", choices=("all", "cache", "importers", "none"), default="all",
                    help="Hostile-input scenarios to run after the ingest ones (default all).")
    args = ap.parse_args()
    if args.records < 64:
        ap.error("--records must be at least 64 (PARALLEL_MIN): below it the ingest never starts its pool")
    args.seed = random.randrange(10**6) if args.seed is None else args.seed
    from provenance.offline import apply_offline_env

    apply_offline_env()
    load = os.getloadavg()[0]
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_faults_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        met = print_table(run(args, work), args, load)
        if args.hostile != "none":
            from faults_hostile import print_hostile, run_hostile

            met = print_hostile(run_hostile(work / "hostile", args.hostile)) and met
    finally:
        for sid in _SESSIONS:  # nothing started here outlives the bench
            for pid in _session(sid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()
