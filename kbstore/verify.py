"""`kb verify`: recompute every stored hash, check the snapshots' origin, compare the vector index and the mapped
layout with DuckDB.

DuckDB is the truth and is never repaired; a problem there fails the check. The vector index is a cache of it: its
drift, and index directories a killed build left, are warnings, which `repair` (`kb verify --repair`) fixes. The mapped
layout (kbstore.layout) is a cache too, but it is what cold queries answer from: a difference from DuckDB
(kbstore.layout_verify: ids, vectors, rows, codes, postings) fails the check, one line each, and `--repair` rebuilds it;
a layout merely behind the KB is a warning (the next reader or writer catches it up, as `--repair` does).
"""
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
    repaired: list[str] = field(default_factory=list)  # what repair did


def verify(kb_path: str | Path | None = None, *, lock_wait_s: float | None = None, repair: bool = False) -> VerifyReport:
    """Every check in the module docstring; with repair, a drifted index is rebuilt and stale directories removed."""
    from kbstore.index import index_inputs
    from kbstore.lock import write_lock
    from kbstore.store import Store

    kb = KBPaths.of(kb_path)
    # the lock keeps writers out: DuckDB and the index are compared at one version, and a directory a writer is
    # building is not taken for a stale one
    with write_lock(kb.lock, wait_s=lock_wait_s, what="verify --repair" if repair else "verify"):
        with Store.open(kb) as store:
            report = VerifyReport(str(kb.root), store.head_version(), store.count("entries"))
            _check_hashes(store, report)
            _check_embeddings(store, report)
            _check_log(store, report)
            _check_snapshots(store, report, repair)
            _check_layout(store, kb, report, repair)
            ids, matrix, metas = index_inputs(store)
        _check_index(kb, ids, matrix, metas, report, repair)
    return report


def _check_index(kb: KBPaths, ids, matrix, metas, report: VerifyReport, repair: bool) -> None:
    """The index against DuckDB, and directories CURRENT does not name: warnings (a cache); with repair, fixed first."""
    from kbstore.vector import ChromaIndex

    chroma = ChromaIndex(kb)
    drift, stale = chroma.drift(ids, matrix, full=True), [d.name for d in chroma.stale_dirs()]
    if repair and (stale or not drift.ok):
        if not drift.ok:
            path = chroma.rebuild(ids, matrix, metas)
            report.repaired.append(f"rebuilt the vector index from DuckDB ({len(ids)} vectors) in {path.name}")
        chroma.remove_stale()
        if stale:
            report.repaired.append(f"removed stale index directories {', '.join(stale)}")
        drift, stale = chroma.drift(ids, matrix, full=True), [d.name for d in chroma.stale_dirs()]
    report.index = {**asdict(drift), "ok": drift.ok, "summary": drift.summary(), "stale_dirs": stale}
    if not drift.ok:
        report.warn("index-drift", drift.summary() + " (a cache of DuckDB: `kb verify --repair`, `kb reindex` or the next "
                                                     "ingest rebuilds it)")
    if stale:
        report.warn("stale-index", f"index directories CURRENT does not name, left by a killed build: {', '.join(stale)} "
                                   "(`kb verify --repair` or the next writer removes them)")


def _check_layout(store, kb: KBPaths, report: VerifyReport, repair: bool) -> None:
    from kbstore.layout import rebuild, update
    from kbstore.layout_verify import layout_problems

    problems, warnings = layout_problems(store, kb)
    if repair and problems:
        n = rebuild(store, kb)
        report.repaired.append(f"rebuilt the mapped layout from DuckDB ({n} rows): it differed in {len(problems)} ways")
        problems, warnings = layout_problems(store, kb)
    elif repair and warnings:  # behind the KB, or missing: what the next reader would do
        report.repaired.append(f"brought the mapped layout up to date ({update(store, kb)})")
        problems, warnings = layout_problems(store, kb)
    for p in problems:
        report.add("mapped", p)
    for w in warnings:
        report.warn("mapped", w)


def _check_snapshots(store, report: VerifyReport, repair: bool = False) -> None:
    """Each snapshot's manifest reads and its seal holds, and it was cut from this KB (kbstore.snapshot.origin_problems).
    A temporary directory a freeze left (killed while it wrote) is a warning naming it and its size; with repair,
    one an hour old is removed (a freeze takes no lock, so a younger one may still be written)."""
    from kbstore.errors import IntegrityFailure
    from kbstore.snapshot import origin_problems, read_manifest, remove_temporary, snapshots_dir

    root = snapshots_dir(store.paths)
    left = sorted(d for d in root.glob(".tmp-*")) if root.is_dir() else []
    if left and repair:
        report.repaired += [f"removed the temporary directory of a freeze that died: snapshots/{d.name}"
                            for d in remove_temporary(root)]
        left = sorted(d for d in root.glob(".tmp-*"))
    for d in left:
        report.warn("stale-snapshot", f"snapshots/{d.name}: {_du(d) / 2**20:.1f} MB left by a freeze that died (or is "
                                      "still running): `kb verify --repair` removes it once it is an hour old, as "
                                      "the next freeze does")
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        if not d.is_dir() or d.name.startswith("."):
            continue
        try:
            problems = origin_problems(d, read_manifest(d), store)
        except IntegrityFailure as e:
            problems = [str(e)]
        for p in problems:
            report.add("snapshot", f"snapshots/{d.name[:12]}: {p} (`kb verify {d.name[:12]}` checks it fully)")


def _du(d: Path) -> int:
    return sum(p.lstat().st_size for p in d.rglob("*"))


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
