"""The chromadb index is a cache of DuckDB: rebuilt identically, checked for drift, repaired when broken."""
import numpy as np
import pytest

from ingest.api import ingest
from ingest.synthetic import make_record, write_records
from kbstore.index import index_inputs, reindex
from kbstore.paths import KBPaths
from kbstore.retrieve import Retriever
from kbstore.store import Store
from kbstore.vector import ChromaIndex
from kbstore.verify import verify


@pytest.fixture
def kb(tmp_path, kb_env):
    write_records(tmp_path / "recs", [make_record(i) for i in range(12)])
    ingest([tmp_path / "recs"])
    return kb_env


def _dump(kb):
    col = ChromaIndex(KBPaths.of(kb)).collection()
    got = col.get(include=["embeddings", "metadatas"])
    order = np.argsort(got["ids"])
    return ([got["ids"][i] for i in order], np.asarray(got["embeddings"])[order], [got["metadatas"][i] for i in order])


def test_reindex_rebuilds_identically(kb):
    ids, vecs, metas = _dump(kb)
    q = "masked load without other value"
    before = [h.id for h in Retriever.open(kb, index="chroma").query(q, k=5)]
    old_dir = ChromaIndex(KBPaths.of(kb)).current_dir()
    report = reindex()
    assert report.entries == 12 and report.index_dir != str(old_dir) and not old_dir.exists()
    ids2, vecs2, metas2 = _dump(kb)
    assert ids2 == ids and metas2 == metas and np.array_equal(vecs2, vecs)
    with Store.open(kb) as s:
        sids, matrix, _ = s.embeddings()
    assert ids2 == sids and np.allclose(vecs2, matrix, atol=1e-6)  # the stored vectors, not re-embedded
    assert [h.id for h in Retriever.open(kb, index="chroma").query(q, k=5)] == before


def test_verify_passes_on_a_fresh_kb(kb):
    r = verify()
    assert r.ok and r.entries == 12 and r.version == 1 and r.index["ok"] and not r.warnings


def test_verify_reports_drift_and_reindex_repairs_it(kb):
    col = ChromaIndex(KBPaths.of(kb)).collection()
    some = col.get(include=[])["ids"][:2]
    col.delete(ids=some)
    r = verify()
    assert r.ok and not r.index["ok"] and r.index["missing"] == sorted(some)  # a stale cache: a warning
    assert any(w["check"] == "index-drift" for w in r.warnings)
    reindex()
    assert verify().index["ok"]


def test_verify_reports_a_changed_vector(kb):
    col = ChromaIndex(KBPaths.of(kb)).collection()
    first = col.get(include=[])["ids"][0]
    v = np.zeros(384, dtype=np.float32)
    v[0] = 1.0
    col.upsert(ids=[first], embeddings=v[None, :])
    r = verify()
    assert r.index["changed"] == [first]


def test_a_broken_index_is_rebuilt_by_the_next_ingest(kb, tmp_path):
    current = ChromaIndex(KBPaths.of(kb)).current_dir()
    for f in current.rglob("*"):
        if f.is_file():
            f.write_bytes(b"\0garbage")
    assert not verify().index["ok"]
    write_records(tmp_path / "more", [make_record(50)])
    rep = ingest([tmp_path / "more"])
    assert rep.index == "rebuilt" and verify().index["ok"]


def test_verify_catches_a_tampered_entry(kb):
    with Store.open(kb, write=True) as s:
        eid = s.scalar("SELECT min(id) FROM entries")
        s.con.execute("UPDATE entries SET canonical_json = replace(canonical_json, '\"fix\":\"', '\"fix\":\"not ') "
                      "WHERE id = ?", [eid])
        s.con.execute("UPDATE evidence SET canonical_json = canonical_json || ' ' WHERE record_sha256 = "
                      "(SELECT min(record_sha256) FROM evidence)")
    checks = {p["check"] for p in verify().problems}
    assert {"entry-hash", "evidence-hash"} <= checks


def test_index_inputs_follow_duckdb(kb):
    with Store.open(kb) as s:
        ids, matrix, metas = index_inputs(s)
    assert ids == sorted(ids) and matrix.shape == (12, 384) and metas[0]["language"] == "triton"


def test_opening_the_chroma_retriever_probes_and_repairs_the_index(kb):
    col = ChromaIndex(KBPaths.of(kb)).collection()
    col.delete(ids=col.get(include=[])["ids"][:3])
    assert not verify().index["ok"]
    r = Retriever.open(kb, index="chroma")
    assert r.chroma is not None and len(r.query("mask", k=20)) == 12
    assert verify().index["ok"]


def test_corpus_subset_keeps_rows_and_vectors_aligned(kb):
    from kbstore.retrieve import load_corpus

    r = Retriever.open(kb)
    with Store.open(KBPaths.of(kb)) as store:
        corpus = load_corpus(store)
    keep = [row["id"] for row in corpus.rows][::3]
    sub = corpus.subset(set(keep))
    assert [x["id"] for x in sub.rows] == keep
    assert np.array_equal(sub.matrix, corpus.matrix[::3])
    assert {h.id for h in Retriever(sub, r.embedder).query("mask", k=20)} <= set(keep)
