"""`kb ingest`: read, gate and admit repair records into the KB as one new version.

Order of work, chosen so that a process killed at any point leaves the previous version intact and a
rerun completes the ingest:
1. read and gate every file (no lock held, nothing written; a process pool for big batches);
2. take the KB write lock; read which records and entries DuckDB already has; derive patterns, evidence
   and fingerprints of the new records (pool again, with no DuckDB handle open); embed the new entries;
3. one DuckDB transaction: records, entries, evidence, embeddings, fingerprints, provenance, the batch
   and its events, and the version row last; commit;
4. bring the derived indexes in line with DuckDB (kbstore.index.sync_indexes: the mapped layout appended to, the
   chromadb index synced; caches: a crash here is repaired by the next reader or writer).
"""
from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from ingest.entry import Pattern, embed_text, lexical_text
from ingest.gate import DEFAULT_MIN_MATCH, POLICY_LAXNESS, REQUIRED_POLICY
from ingest.load import Rejection
from ingest.prepare import Checked, Derived, check, pmap, pmap_iter
from kbstore.errors import BadInput
from kbstore.faults import kill_point
from kbstore.paths import KBPaths
from provenance.canonical import canonical_json, sha256_text
from provenance.version import tool_version


@dataclass
class Outcome:
    path: str
    outcome: str  # admitted | duplicate | rejected
    record_sha256: str | None = None
    entry_id: str | None = None
    new_entry: bool = False
    reasons: list[Rejection] = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"path": self.path, "outcome": self.outcome, "record_sha256": self.record_sha256,
                "entry_id": self.entry_id, "new_entry": self.new_entry, "reasons": [r.as_dict() for r in self.reasons]}


@dataclass
class IngestReport:
    kb_path: str
    batch_id: str
    previous_version: int
    version: int | None  # None: nothing new, no version made
    outcomes: list[Outcome]
    entries_added: int = 0
    evidence_added: int = 0
    index: str = ""
    seconds: float = 0.0

    def count(self, outcome: str) -> int:
        return sum(o.outcome == outcome for o in self.outcomes)

    def as_dict(self) -> dict:
        return {"kb_path": self.kb_path, "batch_id": self.batch_id, "previous_version": self.previous_version,
                "version": self.version, "admitted": self.count("admitted"), "duplicates": self.count("duplicate"),
                "rejected": self.count("rejected"), "entries_added": self.entries_added,
                "evidence_added": self.evidence_added, "index": self.index, "seconds": round(self.seconds, 3),
                "outcomes": [o.as_dict() for o in self.outcomes]}


def collect_files(paths: list[str | Path]) -> list[Path]:
    """Files as given, directories searched recursively for *.json; a missing path is bad input.

    A run directory (one holding record.json) gives its record alone: the other JSON files under it are its
    candidates (an AscendC direct launch is a .json: each attempt's, final.json), not records."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*.json") if f.is_file())
            runs = {f.parent for f in found if f.name == "record.json"}
            files.extend(f for f in found if f.parent in runs and f.name == "record.json"
                         or not (runs & {f.parent, *f.parents}))
        elif p.is_file():
            files.append(p)
        elif p.exists():  # a device, FIFO or socket: reading one may never end
            raise BadInput(f"{p}: not a regular file; give record files or directories of them")
        else:
            raise BadInput(f"{p}: no such file or directory")
    seen: set[Path] = set()
    return [f for f in files if not (f.resolve() in seen or seen.add(f.resolve()))]


def ingest(paths: list[str | Path], kb_path: str | Path | None = None, *, min_match: float = DEFAULT_MIN_MATCH,
           embedder=None, lock_wait_s: float | None = None, progress=None,
           accept_policy: str = REQUIRED_POLICY) -> IngestReport:
    """progress: called with a line at each stage (`kb ingest` prints them on stderr), else nothing is said.
    accept_policy: the laxest integrity policy whose verdicts the gate admits (strict, the method's protocol,
    unless asked); a laxer one is written into each admitted record's evidence gate (`accept_policy`)."""
    from kbstore.lock import write_lock
    from kbstore.store import Store

    say = progress or (lambda text: None)
    t0 = time.monotonic()
    if not 0.0 <= min_match <= 1.0:
        raise BadInput(f"--min-match {min_match} is outside [0, 1]")
    if accept_policy not in POLICY_LAXNESS:
        raise BadInput(f"--accept-policy {accept_policy!r} is not one of {', '.join(POLICY_LAXNESS)}")
    started = _now()
    files = collect_files(paths)
    say(f"reading and gating {len(files)} records")
    checked: list[Checked] = pmap(check, [(f, min_match, accept_policy) for f in files])
    say(f"gated {len(checked)} records: {sum(c.sha256 is None for c in checked)} rejected")
    kill_point("after-validate")
    kb = KBPaths.of(kb_path)
    with write_lock(kb.lock, wait_s=lock_wait_s, what="ingest"):
        with Store.open(kb, write=True) as store:  # creates and migrates a new KB; closed before any fork
            embedder = _embedder(store, embedder)
            known = store.record_entries(c.sha256 for c in checked if c.sha256)
            entries = store.entry_ids()
            previous = store.head_version()
        fresh = {c.sha256: c.loaded.record for c in checked if c.sha256 and c.sha256 not in known}
        say(f"deriving and embedding {len(fresh)} new records ({len(checked) - len(fresh)} known or rejected)")
        derived, vectors = _derive_and_embed(fresh, entries, embedder, min_match, say, accept_policy)
        plan = _plan(checked, known, entries, derived)
        kill_point("after-embed")
        report = IngestReport(str(kb.root), uuid.uuid4().hex, previous, None, plan.outcomes, len(plan.new_entries),
                              len(plan.admitted))
        with Store.open(kb, write=True) as store:
            say(f"writing {len(plan.admitted)} admitted records, {len(plan.new_entries)} new entries")
            with store.transaction():
                _write(store, plan, vectors, embedder, report, started, min_match)
            kill_point("after-commit")
            say("updating the index")
            report.index = _sync_index(store, kb)
            kill_point("after-index")
    report.seconds = time.monotonic() - t0
    return report


EMBED_CHUNK = 64  # records per pool task: derived, then their texts embedded as one batch


def _derive_and_embed(fresh: dict, entries: set[str], embedder, min_match: float,
                      say=lambda text: None,
                      accept_policy: str = REQUIRED_POLICY) -> tuple[dict[str, Derived], dict]:
    """Derive the new records and embed each new entry's text once, chunk by chunk: over the process pool
    for a big batch (each process deriving its chunk and embedding the chunk's texts: inference is most
    of an ingest's CPU), here for a small one."""
    from ingest import prepare

    records = list(fresh.values())
    pooled = prepare.parallel(len(records))
    chunks = [records[i:i + EMBED_CHUNK] for i in range(0, len(records), EMBED_CHUNK)] if pooled else [records]
    derived: dict[str, Derived] = {}
    vectors: dict[str, object] = {}
    shas = iter(fresh)
    prepare.EMBED_WITH = (embedder, entries)  # a pool's processes fork after this and inherit it
    try:
        for ds, vecs in pmap_iter(prepare.derive_and_embed_chunk, [(c, min_match, accept_policy) for c in chunks],
                                  force=pooled, chunksize=1, embedding=True):
            if pooled:
                kill_point("during-embed-pool")  # the pool's processes alive, the write lock held
            for d in ds:
                derived[next(shas)] = d
            for eid, vec in vecs.items():
                vectors.setdefault(eid, vec)
            if pooled:
                say(f"derived and embedded {len(derived)}/{len(records)} records")
    finally:
        prepare.EMBED_WITH = None
    return derived, vectors


@dataclass
class _Plan:
    outcomes: list[Outcome]
    admitted: list[tuple[Outcome, Checked, Derived]]  # new records, in file order
    new_entries: dict[str, Pattern]  # entry id -> pattern, for entries not yet in the KB


def _plan(checked: list[Checked], known: dict[str, str], entries: set[str], derived: dict[str, Derived]) -> _Plan:
    plan = _Plan([], [], {})
    seen: dict[str, str] = {}
    for c in checked:
        if c.reasons:
            plan.outcomes.append(Outcome(c.path, "rejected", reasons=c.reasons))
            continue
        if c.sha256 in known or c.sha256 in seen:
            plan.outcomes.append(Outcome(c.path, "duplicate", c.sha256, known.get(c.sha256) or seen[c.sha256]))
            continue
        d = derived[c.sha256]
        eid = d.pattern.id
        seen[c.sha256] = eid
        new = eid not in entries and eid not in plan.new_entries
        if new:
            plan.new_entries[eid] = d.pattern
        out = Outcome(c.path, "admitted", c.sha256, eid, new_entry=new)
        plan.outcomes.append(out)
        plan.admitted.append((out, c, d))
    return plan


def _write(store, plan: _Plan, vectors: dict, embedder, report: IngestReport, started: str, min_match: float) -> None:
    from provenance import ledger

    version = report.previous_version + 1 if plan.admitted else None
    now = _now()
    store.insert("entries", ("id", "sha256", "schema", "canonical_json", "title", "bug_class", "symptom_label", "family",
                             "language", "backend", "embed_text", "lexical_text", "first_version", "first_ingested_at"),
                 [(eid, eid, p.schema_, p.canonical(), p.title, p.bug_class, p.symptom.label, p.family, p.language,
                   p.backend, embed_text(p), lexical_text(p), version, now) for eid, p in plan.new_entries.items()])
    store.insert("embeddings", ("entry_id", "model", "fingerprint", "dim", "vector", "text_sha256"),
                 [(eid, embedder.name, embedder.fingerprint, int(vectors[eid].shape[0]), vectors[eid].astype("<f4").tobytes(),
                   sha256_text(embed_text(p))) for eid, p in plan.new_entries.items()])
    graph = ledger.Graph()
    records, evidence, fingerprints = [], [], []
    for out, checked, derived in plan.admitted:
        r = checked.loaded.record
        raw = r.model_dump(mode="json", by_alias=True)
        ev = derived.evidence
        records.append((out.record_sha256, canonical_json(raw), r.run_id, out.path))
        evidence.append((out.entry_id, out.record_sha256, sha256_text(canonical_json(ev.model_dump(mode="json", by_alias=True))),
                         canonical_json(ev.model_dump(mode="json", by_alias=True)), r.run_id, r.operator.id,
                         r.operator.family, r.operator.problem_sha256, r.source.sha256, r.repaired.sha256,
                         r.evidence.match, r.worker.kind, r.worker.model, report.batch_id, version, now))
        fingerprints.extend((out.entry_id, out.record_sha256, *fp) for fp in derived.fingerprints)
        ledger.admission(graph, raw, out.record_sha256, out.entry_id, report.batch_id, ev.gate)
    store.insert("records", ("sha256", "canonical_json", "run_id", "path"), records)
    store.insert("evidence", ("entry_id", "record_sha256", "sha256", "canonical_json", "run_id", "operator_id", "family",
                              "problem_sha256", "source_sha256", "repaired_sha256", "match", "worker_kind", "worker_model",
                              "batch_id", "version", "ingested_at"), evidence)
    store.insert("fingerprints", ("entry_id", "record_sha256", "role", "language", "scheme", "packed"), fingerprints)
    batch = {"batch_id": report.batch_id, "started_at": started, "finished_at": now, "pid": os.getpid(),
             "host": socket.gethostname(), "tool_version": tool_version(), "min_match": min_match,
             "embedder": embedder.name, "version": version, "admitted": report.count("admitted"),
             "duplicates": report.count("duplicate"), "rejected": report.count("rejected")}
    if plan.admitted:
        ledger.ingest_batch(graph, batch, version)
    store.insert("prov_nodes", ("id", "kind", "prov_type", "attrs"),
                 [(n.id, n.kind, n.prov_type, canonical_json(n.attrs)) for n in _unique(graph.nodes)])
    store.insert("prov_relations", ("relation", "subject", "object", "attrs"),
                 [(x.relation, x.subject, x.object, canonical_json(x.attrs)) for x in graph.relations])
    store.insert("batches", tuple(batch), [tuple(batch.values())])
    store.insert("ingest_events", ("batch_id", "seq", "path", "record_sha256", "outcome", "entry_id", "reasons"),
                 [(report.batch_id, n, o.path, o.record_sha256, o.outcome, o.entry_id,
                   canonical_json([r.as_dict() for r in o.reasons])) for n, o in enumerate(plan.outcomes)])
    if store.meta("embedder") is None:
        store.set_meta("embedder", embedder.name)
        store.set_meta("embedder_fingerprint", embedder.fingerprint)
    kill_point("after-duckdb-insert")
    if version is not None:  # the version row goes last: a reader sees version N or N+1, never half
        rejections = [{"path": o.path, **r.as_dict()} for o in plan.outcomes for r in o.reasons]
        store.insert("versions", ("version", "created_at", "batch_id", "entries_added", "evidence_added", "admitted",
                                  "duplicates", "rejected", "rejections", "tool_version", "embedder_fingerprint"),
                     [(version, now, report.batch_id, len(plan.new_entries), len(plan.admitted), batch["admitted"],
                       batch["duplicates"], batch["rejected"], canonical_json(rejections), tool_version(),
                       embedder.fingerprint)], ignore_conflicts=False)
        report.version = version
    kill_point("before-commit")


def _unique(nodes):
    seen: dict[str, object] = {}
    for n in nodes:
        seen.setdefault(n.id, n)
    return list(seen.values())


def _embedder(store, given):
    from kbstore.embed import choose_embedder

    if given is None:
        return choose_embedder(store.meta("embedder"), store.meta("embedder_fingerprint"))
    recorded = store.meta("embedder_fingerprint")
    if recorded and recorded != given.fingerprint:
        from kbstore.errors import EmbedderMismatch

        raise EmbedderMismatch(f"{store.paths.root}: the KB was embedded with {store.meta('embedder')!r}; "
                               f"the embedder given is {given.name!r} with another fingerprint")
    return given


def _sync_index(store, kb: KBPaths) -> str:
    """The derived indexes after the commit; a failure here leaves DuckDB (the truth) intact and is reported."""
    from kbstore.index import sync_indexes

    try:
        return sync_indexes(store, kb)
    except Exception as e:  # chromadb raises many types; the KB itself is committed
        return f"indexes not updated ({type(e).__name__}: {str(e)[:160]}); run `kb reindex`"


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")
