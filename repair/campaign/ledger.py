"""The campaign ledger: DIR/campaign.duckdb holds the settings, every run, attempt, integrity finding and pattern.

One campaign process writes at a time (a file lock, see `CampaignLock`); each write is a short
transaction so that `repair report` can read while a campaign is between runs. What generating each
near-miss cost (the cohort manifest's optional `generation_cost`) is kept as it was last given: it
annotates the runs, it does not decide them, so it is not part of the campaign's identity. A run is recorded
`running` when it starts and replaced by its outcome, in one transaction, when it ends: after a kill,
every run is either finished or visibly unfinished, never half-written.
"""
from __future__ import annotations

import fcntl
import json
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from repair.campaign.outcome import FINISHED, AttemptRow, FindingRow, PatternRow, RunOutcome
from repair.campaign.spec import CampaignConfig, GenerationCost, RunSpec
from repair.errors import BadInput, RepairError

LEDGER_NAME = "campaign.duckdb"
LOCK_NAME = ".campaign.lock"
GENERATION_KEY = "generation_cost"  # meta: {run key: {tokens, model}}


class CampaignBusy(RepairError):
    """Another process is running a campaign in this directory."""

    exit_code = 3


def _m001_core(con) -> None:
    con.execute("CREATE TABLE meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)")
    con.execute(
        """CREATE TABLE runs (
            key VARCHAR PRIMARY KEY, operator_id VARCHAR NOT NULL, family VARCHAR, candidate VARCHAR,
            trial INTEGER NOT NULL, status VARCHAR NOT NULL, stop_reason VARCHAR, attempts INTEGER, turns INTEGER,
            prompt_tokens BIGINT, completion_tokens BIGINT, cached_tokens BIGINT, wall_s DOUBLE,
            workflow_accepted INTEGER, integrity_rejected INTEGER, full_rejected INTEGER, gate_rejected INTEGER,
            full_shadow BOOLEAN,
            record_path VARCHAR, record_sha256 VARCHAR, error VARCHAR, starts INTEGER NOT NULL DEFAULT 0,
            started_at TIMESTAMP, finished_at TIMESTAMP)"""
    )
    con.execute(
        """CREATE TABLE attempts (
            run_key VARCHAR NOT NULL, attempt INTEGER NOT NULL, outcome VARCHAR, integrity VARCHAR,
            compact_passed INTEGER, compact_total INTEGER, full_passed INTEGER, full_total INTEGER,
            prompt_tokens BIGINT, completion_tokens BIGINT, cached_tokens BIGINT, PRIMARY KEY (run_key, attempt))"""
    )
    con.execute(
        "CREATE TABLE integrity_findings (run_key VARCHAR NOT NULL, attempt INTEGER, rule VARCHAR, phase VARCHAR, message VARCHAR)"
    )
    con.execute(
        "CREATE TABLE patterns (run_key VARCHAR NOT NULL, entry_id VARCHAR NOT NULL, rank INTEGER, score DOUBLE, cited BOOLEAN)"
    )


def _m002_finding_levels(con) -> None:
    """Findings carry their level (cheat, policy, note): the report tells a policy finding from a cheat."""
    con.execute("ALTER TABLE integrity_findings ADD COLUMN level VARCHAR")


MIGRATIONS = [("m001_core", _m001_core), ("m002_finding_levels", _m002_finding_levels)]

_RUN_COLS = [
    "status", "stop_reason", "attempts", "turns", "prompt_tokens", "completion_tokens", "cached_tokens", "wall_s",
    "workflow_accepted", "integrity_rejected", "full_rejected", "gate_rejected", "full_shadow",
    "record_path", "record_sha256", "error",
]


@dataclass(frozen=True)
class RunRow:
    key: str
    operator_id: str
    family: str | None
    candidate: str | None
    trial: int
    outcome: RunOutcome | None  # None while pending or running
    starts: int


class CampaignLock:
    """An exclusive, non-blocking flock on DIR/.campaign.lock; the kernel drops it when the holder dies."""

    def __init__(self, out_dir: Path):
        self.path = Path(out_dir) / LOCK_NAME
        self._fd: int | None = None

    def __enter__(self) -> CampaignLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
            os.close(fd)
            raise CampaignBusy(f"{self.path.parent}: another campaign (pid {holder}) is running in this directory") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._fd = fd
        return self

    def __exit__(self, *exc) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


class Ledger:
    def __init__(self, out_dir: Path, *, read_only: bool = False):
        self.dir = Path(out_dir)
        self.path = self.dir / LEDGER_NAME
        self.read_only = read_only
        if read_only and not self.path.is_file():
            raise BadInput(f"{self.dir}: no campaign ledger ({LEDGER_NAME}) here")

    @contextmanager
    def connect(self):
        import duckdb

        for delay in (0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, None):
            try:
                con = duckdb.connect(str(self.path), read_only=self.read_only)
                break
            except duckdb.IOException as e:  # the writer holds the file for a moment; wait it out
                if delay is None or "lock" not in str(e).lower():
                    raise CampaignBusy(f"{self.path}: cannot open the ledger ({e})") from None
                time.sleep(delay)
        try:
            yield con
        finally:
            con.close()

    # -- setup ------------------------------------------------------------------------------
    def open_campaign(self, config: CampaignConfig, specs: list[RunSpec]) -> None:
        """Create the ledger or check it belongs to the same campaign, then add any runs not yet planned."""
        self.dir.mkdir(parents=True, exist_ok=True)
        with self.connect() as con:
            self._migrate(con)
            stored = dict(con.execute("SELECT key, value FROM meta").fetchall())
            if "identity" in stored and stored["identity"] != config.identity():
                raise BadInput(_mismatch(self.dir, json.loads(stored["config"]), config))
            con.execute("BEGIN")
            if "identity" not in stored:
                con.executemany(
                    "INSERT INTO meta VALUES (?, ?)",
                    [("identity", config.identity()), ("config", config.model_dump_json(by_alias=True)),
                     ("created_at", _now().isoformat())],
                )
            known = {r[0] for r in con.execute("SELECT key FROM runs").fetchall()}
            new = [(s.key, s.operator_id, s.family, s.candidate.name if s.candidate else None, s.trial)
                   for s in specs if s.key not in known]
            if new:
                con.executemany(
                    "INSERT INTO runs (key, operator_id, family, candidate, trial, status) VALUES (?, ?, ?, ?, ?, 'pending')",
                    new,
                )
            costs = {s.key: s.generation.model_dump() for s in specs if s.generation is not None}
            con.execute("DELETE FROM meta WHERE key = ?", [GENERATION_KEY])
            if costs:
                con.execute("INSERT INTO meta VALUES (?, ?)", [GENERATION_KEY, json.dumps(costs, sort_keys=True)])
            con.execute("COMMIT")

    def _migrate(self, con) -> None:
        con.execute("CREATE TABLE IF NOT EXISTS _migrations (name VARCHAR PRIMARY KEY, applied_at TIMESTAMP)")
        done = {r[0] for r in con.execute("SELECT name FROM _migrations").fetchall()}
        for name, fn in MIGRATIONS:
            if name not in done:
                con.execute("BEGIN")
                fn(con)
                con.execute("INSERT INTO _migrations VALUES (?, ?)", [name, _now()])
                con.execute("COMMIT")

    # -- writes -----------------------------------------------------------------------------
    def mark_running(self, key: str) -> None:
        with self.connect() as con:
            con.execute(
                "UPDATE runs SET status = 'running', starts = starts + 1, started_at = ? WHERE key = ?", [_now(), key]
            )

    def record(self, *outcomes: RunOutcome) -> None:
        """Replace whatever the ledger held for these runs with their outcomes, in one transaction."""
        with self.connect() as con:
            con.execute("BEGIN")
            for o in outcomes:
                _write_outcome(con, o)
            con.execute("COMMIT")

    # -- reads ------------------------------------------------------------------------------
    def config(self) -> CampaignConfig:
        with self.connect() as con:
            row = con.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            raise BadInput(f"{self.dir}: the ledger holds no campaign settings")
        return CampaignConfig.model_validate_json(row[0])

    def created_at(self) -> str | None:
        """When the campaign was first started (its ledger created; a resumed campaign keeps it)."""
        with self.connect() as con:
            row = con.execute("SELECT value FROM meta WHERE key = 'created_at'").fetchone()
        return row[0] if row else None

    def generation_costs(self) -> dict[str, GenerationCost]:
        """Run key -> what generating its near-miss cost, for the runs whose manifest said."""
        with self.connect() as con:
            row = con.execute("SELECT value FROM meta WHERE key = ?", [GENERATION_KEY]).fetchone()
        return {k: GenerationCost(**v) for k, v in json.loads(row[0]).items()} if row else {}

    def runs(self) -> list[RunRow]:
        with self.connect() as con:
            cols = ["key", "operator_id", "family", "candidate", "trial", "starts", *_RUN_COLS]
            rows = con.execute(f"SELECT {', '.join(cols)} FROM runs ORDER BY key").fetchall()
            children = {
                "attempts": _group(con, "SELECT * FROM attempts ORDER BY run_key, attempt"),
                "findings": _group(con, "SELECT * FROM integrity_findings ORDER BY run_key, attempt, rule"),
                "patterns": _group(con, "SELECT * FROM patterns ORDER BY run_key, rank"),
            }
        out = []
        for r in rows:
            d = dict(zip(cols, r))
            outcome = None
            if d["status"] in FINISHED:
                key = d["key"]
                outcome = RunOutcome(
                    key=key,
                    **{c: d[c] for c in _RUN_COLS if d[c] is not None},
                    attempt_rows=[AttemptRow(**_drop(a)) for a in children["attempts"].get(key, [])],
                    findings=[FindingRow(**_drop(f)) for f in children["findings"].get(key, [])],
                    patterns=[PatternRow(**_drop(p)) for p in children["patterns"].get(key, [])],
                )
            out.append(RunRow(d["key"], d["operator_id"], d["family"], d["candidate"], d["trial"], outcome, d["starts"]))
        return out

    def finished_keys(self) -> set[str]:
        with self.connect() as con:
            rows = con.execute(f"SELECT key FROM runs WHERE status IN {FINISHED}").fetchall()
        return {r[0] for r in rows}


def _write_outcome(con, o: RunOutcome) -> None:
    for table in ("attempts", "integrity_findings", "patterns"):
        con.execute(f"DELETE FROM {table} WHERE run_key = ?", [o.key])
    sets = ", ".join(f"{c} = ?" for c in _RUN_COLS)
    con.execute(f"UPDATE runs SET {sets}, finished_at = ? WHERE key = ?", [getattr(o, c) for c in _RUN_COLS] + [_now(), o.key])
    if o.attempt_rows:
        con.executemany(
            "INSERT INTO attempts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(o.key, a.attempt, a.outcome, a.integrity, a.compact_passed, a.compact_total, a.full_passed,
              a.full_total, a.prompt_tokens, a.completion_tokens, a.cached_tokens) for a in o.attempt_rows],
        )
    if o.findings:
        con.executemany("INSERT INTO integrity_findings (run_key, attempt, rule, phase, message, level) "
                        "VALUES (?, ?, ?, ?, ?, ?)",
                        [(o.key, f.attempt, f.rule, f.phase, f.message, f.level) for f in o.findings])
    if o.patterns:
        con.executemany("INSERT INTO patterns VALUES (?, ?, ?, ?, ?)",
                        [(o.key, p.entry_id, p.rank, p.score, p.cited) for p in o.patterns])


def _group(con, sql: str) -> dict[str, list[dict]]:
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    out: dict[str, list[dict]] = {}
    for row in cur.fetchall():
        d = dict(zip(names, row))
        out.setdefault(d["run_key"], []).append(d)
    return out


def _drop(d: dict) -> dict:
    return {k: v for k, v in d.items() if k != "run_key" and v is not None}


def _mismatch(out_dir: Path, stored: dict, config: CampaignConfig) -> str:
    new = config.model_dump(mode="json", by_alias=True)
    diffs = [k for k in sorted(set(stored) | set(new)) if k != "run_timeout_s" and stored.get(k) != new.get(k)]
    return (f"{out_dir}: holds a campaign with different settings ({', '.join(diffs)} differ); "
            "rerun with the same settings to resume, or use another --out")


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)
