"""The DuckDB schema as an ordered list of small named migrations, each recorded in `_migrations` when applied.

Add a migration by appending a function; never edit one that has shipped.
"""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

MIGRATIONS: list[Callable] = []


def migration(fn: Callable) -> Callable:
    MIGRATIONS.append(fn)
    return fn


@migration
def m001_entries_and_evidence(con) -> None:
    con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    con.execute("""CREATE TABLE entries (
        id TEXT PRIMARY KEY,              -- sha256 of canonical_json
        sha256 TEXT NOT NULL,
        schema TEXT NOT NULL,
        canonical_json TEXT NOT NULL,     -- the pattern (ingest.entry.Pattern)
        title TEXT, bug_class TEXT, symptom_label TEXT, family TEXT, language TEXT, backend TEXT,
        embed_text TEXT NOT NULL,
        lexical_text TEXT NOT NULL,
        first_version INTEGER NOT NULL,
        first_ingested_at TEXT NOT NULL)""")
    con.execute("""CREATE TABLE records (
        sha256 TEXT PRIMARY KEY,          -- sha256 of the admitted record's canonical JSON
        canonical_json TEXT NOT NULL,
        run_id TEXT, path TEXT)""")
    con.execute("""CREATE TABLE evidence (
        entry_id TEXT NOT NULL, record_sha256 TEXT NOT NULL,
        sha256 TEXT NOT NULL, canonical_json TEXT NOT NULL,   -- ingest.entry.Evidence
        run_id TEXT, operator_id TEXT, family TEXT, problem_sha256 TEXT,
        source_sha256 TEXT, repaired_sha256 TEXT, match DOUBLE, worker_kind TEXT, worker_model TEXT,
        batch_id TEXT NOT NULL, version INTEGER NOT NULL, ingested_at TEXT NOT NULL,
        PRIMARY KEY (entry_id, record_sha256))""")
    con.execute("""CREATE TABLE embeddings (
        entry_id TEXT PRIMARY KEY, model TEXT NOT NULL, fingerprint TEXT NOT NULL, dim INTEGER NOT NULL,
        vector BLOB NOT NULL,             -- float32 little-endian, L2-normalised
        text_sha256 TEXT NOT NULL)""")
    con.execute("""CREATE TABLE fingerprints (
        entry_id TEXT NOT NULL, record_sha256 TEXT NOT NULL, role TEXT NOT NULL, language TEXT, scheme TEXT,
        data TEXT NOT NULL, PRIMARY KEY (entry_id, record_sha256, role))""")


@migration
def m002_provenance_and_log(con) -> None:
    con.execute("""CREATE TABLE prov_nodes (
        id TEXT PRIMARY KEY, kind TEXT NOT NULL, prov_type TEXT, attrs TEXT NOT NULL)""")
    con.execute("""CREATE TABLE prov_relations (
        relation TEXT NOT NULL, subject TEXT NOT NULL, object TEXT NOT NULL, attrs TEXT NOT NULL,
        PRIMARY KEY (relation, subject, object))""")
    con.execute("""CREATE TABLE batches (
        batch_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, finished_at TEXT NOT NULL, pid INTEGER, host TEXT,
        tool_version TEXT, min_match DOUBLE, embedder TEXT, version INTEGER,
        admitted INTEGER, duplicates INTEGER, rejected INTEGER)""")
    con.execute("""CREATE TABLE ingest_events (
        batch_id TEXT NOT NULL, seq INTEGER NOT NULL, path TEXT, record_sha256 TEXT, outcome TEXT NOT NULL,
        entry_id TEXT, reasons TEXT NOT NULL, PRIMARY KEY (batch_id, seq))""")
    con.execute("""CREATE TABLE versions (
        version INTEGER PRIMARY KEY, created_at TEXT NOT NULL, batch_id TEXT NOT NULL,
        entries_added INTEGER NOT NULL, evidence_added INTEGER NOT NULL,
        admitted INTEGER NOT NULL, duplicates INTEGER NOT NULL, rejected INTEGER NOT NULL,
        rejections TEXT NOT NULL,         -- JSON list of {path, code, message}
        tool_version TEXT, embedder_fingerprint TEXT)""")


@migration
def m003_packed_fingerprints(con) -> None:
    """Fingerprints as pack_fingerprints() bytes: reading 100k JSON lists back at every freeze cost ~20 s.

    New rows carry only `packed` (data becomes NULL); rows stored as JSON are packed here once.
    """
    from provenance.fingerprint_store import load_fingerprints, pack_fingerprints

    con.execute("ALTER TABLE fingerprints ADD COLUMN packed BLOB")
    con.execute("ALTER TABLE fingerprints ALTER COLUMN data DROP NOT NULL")
    rows = con.execute("SELECT entry_id, record_sha256, role, data FROM fingerprints").fetchall()
    for entry_id, record, role, data in rows:
        con.execute("UPDATE fingerprints SET packed = ? WHERE entry_id = ? AND record_sha256 = ? AND role = ?",
                    [pack_fingerprints(load_fingerprints(data)), entry_id, record, role])


@migration
def m004_fingerprint_scheme_ts2(con) -> None:
    """Fingerprint scheme ts2 (AscendC read as its own language): stored fingerprints of an earlier scheme are
    brought to the current one from their record's code (provenance.fingerprint_store.refreshed: Triton and C
    ones are restamped, AscendC ones recomputed), so a freeze compares them again. A row whose record is gone
    is left as it was (a freeze then refuses it, naming the scheme)."""
    _refresh_fingerprints(con)


@migration
def m005_fingerprint_scheme_ts3(con) -> None:
    """Fingerprint scheme ts3 (each ops fingerprint stores its op stream, which the overlap score aligns): stored
    blobs of an earlier scheme are recomputed from their record's code (provenance.fingerprint_store.refreshed).
    A row whose record is gone, or whose code no longer parses, is left as it was (a freeze then refuses it,
    naming the scheme)."""
    _refresh_fingerprints(con)


@migration
def m006_fingerprint_scheme_ts4(con) -> None:
    """Fingerprint scheme ts4 (C/C++/AscendC array accumulators of interchanged loops are running sums): C-family
    blobs are recomputed from their record's code, Python ones restamped (provenance.fingerprint.CARRIED_OVER)."""
    _refresh_fingerprints(con)


def _refresh_fingerprints(con) -> None:
    """Every stored blob of another scheme brought to the current SCHEME (m004, m005, m006: a scheme bump)."""
    import json

    from provenance.fingerprint import SCHEME
    from provenance.fingerprint_store import refreshed

    rows = con.execute("SELECT f.entry_id, f.record_sha256, f.role, f.scheme, f.packed, r.canonical_json "
                       "FROM fingerprints f JOIN records r ON r.sha256 = f.record_sha256 "
                       "WHERE f.packed IS NOT NULL AND (f.scheme IS NULL OR f.scheme <> ?)", [SCHEME]).fetchall()
    for entry_id, record, role, scheme, packed, raw in rows:
        rec = json.loads(raw)
        code, language = (rec.get(role) or {}).get("code"), rec.get("language", "triton")
        new = refreshed(bytes(packed), code, language) if isinstance(code, str) else None
        if new is None:
            continue
        con.execute("UPDATE fingerprints SET packed = ?, scheme = ? "
                    "WHERE entry_id = ? AND record_sha256 = ? AND role = ?", [new, SCHEME, entry_id, record, role])


def applied(con) -> list[str]:
    con.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    return [r[0] for r in con.execute("SELECT name FROM _migrations ORDER BY name").fetchall()]


def pending(con) -> list[str]:
    """Names not yet applied (read-only safe: never creates anything when the table is missing)."""
    have = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = '_migrations'").fetchall()[0][0]
    done = {r[0] for r in con.execute("SELECT name FROM _migrations").fetchall()} if have else set()
    return [fn.__name__ for fn in MIGRATIONS if fn.__name__ not in done]


def applied_names(con) -> list[str]:
    """Names applied, sorted (read-only safe, like pending)."""
    have = con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = '_migrations'").fetchall()[0][0]
    return sorted(r[0] for r in con.execute("SELECT name FROM _migrations").fetchall()) if have else []


def migrate(con) -> list[str]:
    """Apply pending migrations, each in its own transaction; returns the names applied."""
    done = set(applied(con))
    ran = []
    for fn in MIGRATIONS:
        if fn.__name__ in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            fn(con)
            con.execute("INSERT INTO _migrations VALUES (?, ?)",
                        [fn.__name__, datetime.now(timezone.utc).isoformat(timespec="seconds")])
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
        ran.append(fn.__name__)
    return ran
