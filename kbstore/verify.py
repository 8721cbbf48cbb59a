"""`kb verify`: recompute every stored hash and compare the vector index with DuckDB; report, never repair."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from kbstore.paths import KBPaths
from kbstore.report import ProblemReport
from provenance.canonical import sha256_text


@dataclass
class VerifyReport(ProblemReport):
    kb_path: str
    version: int
    entries: int
    index: dict = field(default_factory=dict)


def verify(kb_path: str | Path | None = None, *, lock_wait_s: float | None = None) -> VerifyReport:
    from kbstore.index import index_inputs
    from kbstore.lock import write_lock
    from kbstore.store import Store
    from kbstore.vector import ChromaIndex

    kb = KBPaths.of(kb_path)
    # the lock keeps a writer out while chromadb is opened (opening it writes into its directory)
    with write_lock(kb.lock, wait_s=lock_wait_s, what="verify"):
        with Store.open(kb) as store:
            report = VerifyReport(str(kb.root), store.head_version(), store.count("entries"))
            _check_hashes(store, report)
            _check_embeddings(store, report)
            _check_log(store, report)
            ids, matrix, _ = index_inputs(store)
        drift = ChromaIndex(kb).drift(ids, matrix, full=True)
    report.index = {**asdict(drift), "ok": drift.ok, "summary": drift.summary()}
    if not drift.ok:
        report.add("index-drift", drift.summary() + " (run `kb reindex`)")
    return report


def _check_hashes(store, report: VerifyReport) -> None:
    for eid, sha, text in store.con.execute("SELECT id, sha256, canonical_json FROM entries ORDER BY id").fetchall():
        if sha256_text(text) != eid or sha != eid:
            report.add("entry-hash", f"entry {eid[:12]}: its canonical JSON hashes to {sha256_text(text)[:12]}")
    for sha, text in store.con.execute("SELECT sha256, canonical_json FROM records ORDER BY sha256").fetchall():
        if sha256_text(text) != sha:
            report.add("record-hash", f"record {sha[:12]}: its canonical JSON hashes to {sha256_text(text)[:12]}")
    for eid, rsha, sha, text in store.con.execute(
            "SELECT entry_id, record_sha256, sha256, canonical_json FROM evidence ORDER BY entry_id, record_sha256").fetchall():
        if sha256_text(text) != sha:
            report.add("evidence-hash", f"evidence {eid[:12]}/{rsha[:12]}: its canonical JSON does not match its sha256")
    for table, col, ref in (("evidence", "entry_id", "entries"), ("evidence", "record_sha256", "records")):
        key = "id" if ref == "entries" else "sha256"
        n = store.scalar(f"SELECT count(*) FROM {table} t WHERE NOT EXISTS (SELECT 1 FROM {ref} r WHERE r.{key} = t.{col})")
        if n:
            report.add("dangling", f"{n} {table} rows point at missing {ref}")
    orphans = store.scalar("SELECT count(*) FROM entries e WHERE NOT EXISTS (SELECT 1 FROM evidence v WHERE v.entry_id = e.id)")
    if orphans:
        report.add("no-evidence", f"{orphans} entries have no evidence")


def _check_embeddings(store, report: VerifyReport) -> None:
    ids, matrix, fingerprints = store.embeddings()
    entries = sorted(store.entry_ids())
    if ids != entries:
        report.add("embeddings", f"{len(set(entries) - set(ids))} entries without a vector, {len(set(ids) - set(entries))} vectors without an entry")
    if len(fingerprints) > 1:
        report.add("embeddings", f"vectors from {len(fingerprints)} embedders: {sorted(f[:12] for f in fingerprints)}")
    recorded = store.meta("embedder_fingerprint")
    if fingerprints and recorded not in fingerprints:
        report.add("embeddings", "the KB's recorded embedder fingerprint matches none of its vectors")
    if len(ids):
        bad = np.flatnonzero(np.abs(np.linalg.norm(matrix, axis=1) - 1.0) > 1e-3)
        for row in bad[:5]:
            report.add("embeddings", f"vector of {ids[row][:12]} is not unit length")
    for eid, text, tsha in store.con.execute(
            "SELECT e.id, e.embed_text, m.text_sha256 FROM entries e JOIN embeddings m ON m.entry_id = e.id").fetchall():
        if sha256_text(text) != tsha:
            report.add("embeddings", f"entry {eid[:12]}: embedded text changed since it was embedded")


def _check_log(store, report: VerifyReport) -> None:
    versions = [v["version"] for v in store.versions()]
    if versions != list(range(1, len(versions) + 1)):
        report.add("version-log", f"versions are not 1..{len(versions)}: {versions[:10]}")
    n = store.scalar("SELECT count(*) FROM versions v WHERE NOT EXISTS (SELECT 1 FROM batches b WHERE b.batch_id = v.batch_id)")
    if n:
        report.add("version-log", f"{n} versions name a batch that is not recorded")
    late = store.scalar("SELECT count(*) FROM evidence WHERE version > ?", [report.version])
    if late:
        report.add("version-log", f"{late} evidence rows belong to versions after the head version {report.version}")
